#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests of every crate, then the
# cross-checks against peers (validation/) and the browser test of the reports.
# Each step prints its own closing line; the script fails on the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."

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
