#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests of every crate, then the
# cross-checks against peers (validation/) and the browser test of the reports.
# Each step prints its own closing line; the script fails on the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."

# Setup: the system tools the tests call, installed here once and never inside a test.
# man(1) and groff render `latscope man` (crates/cli/tests/global_flags_cli.rs); Linux perf
# (Debian's linux-perf) records for the perf.data importer's live test
# (crates/trace/tests/perf_import.rs), which fails loudly without it unless LATSCOPE_SKIP_PERF=1.
echo "== setup"
missing=()
command -v man >/dev/null || missing+=(man-db)
command -v groff >/dev/null || missing+=(groff-base)
command -v perf >/dev/null || missing+=(linux-perf)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

echo "== cargo test (workspace)"
cargo test --workspace --release --locked --no-fail-fast

# Extra suites register themselves as executable scripts under scripts/test.d/ and run in
# name order; each must exit non-zero when it fails.
if [ -d scripts/test.d ]; then
  for t in scripts/test.d/*; do
    [ -x "$t" ] || continue
    echo "== $t"
    "$t"
  done
fi
echo "== all test steps passed"
