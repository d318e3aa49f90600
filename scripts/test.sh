#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests of every crate, then the
# cross-checks against peers (validation/) and the browser test of the reports.
# Each step prints its own closing line; the script fails on the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."

# The perf.data importer's live test records with Linux perf (Debian's linux-perf); it
# fails loudly without it unless LATSCOPE_SKIP_PERF=1.
if ! command -v perf >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "== installing linux-perf (live test of the perf.data importer)"
  (apt-get update -qq && apt-get install -y -qq linux-perf >/dev/null) ||
    echo "could not install linux-perf: crates/trace/tests/perf_import.rs will say so"
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
