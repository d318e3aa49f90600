#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests of every crate, then the
# cross-checks against peers (validation/), the browser test of the reports and the README
# tour (scripts/test.d/). Each step prints its own closing line; the script fails on the
# first failing step.
#   bash scripts/test.sh            # setup, then every test
#   bash scripts/test.sh --setup    # the setup step alone
# Packages are installed in the setup step below and nowhere else: a test.d script that
# finds a tool missing fails (scripts/test-lib.sh), it does not install it.
# A skipped check fails the suite unless it is on the short list in docs/testing.md
# ("Allowed skips"): a test.d script skips by exiting 77 after `skip NAME REASON`, the
# Rust tests by the environment variables that list names.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- setup: every package the tests use, installed once, idempotently ----------------------
# Debian (as root): man(1) and groff render `latscope man` (crates/cli/tests/it/global_flags_cli.rs);
# Linux perf records for the perf.data importer's live test (crates/trace/tests/it/perf_import.rs)
# and the README tour; sigrok-cli for 40-trace-sigrok-live; chromium and its driver for
# 50-report-browser; prometheus for 30-measure-prometheus; the ARM cross compiler and
# newlib for the real FreeRTOS kernel (validation/freertos/, examples/ in 80-readme-tour);
# python3 with pip and venv for every Python step.
# PyPI: pyRTA (20-model-pyrta), jsonschema (20-model-schema), pyvcd (40-trace-sigrok-live),
# selenium (50-report-browser), duckdb (70-fleet-duckdb), unicorn and pyelftools (the
# FreeRTOS emulation), mypy (60-python's strict type check, run with --python-executable
# against the fresh environment); 60-python installs the package and what it needs into
# its own fresh virtual environment.
setup() {
  echo "== setup"
  local missing=() c
  for c in man:man-db groff:groff-base perf:linux-perf sigrok-cli:sigrok-cli \
           chromium:chromium chromedriver:chromium-driver prometheus:prometheus \
           arm-none-eabi-gcc:gcc-arm-none-eabi python3:python3; do
    command -v "${c%%:*}" >/dev/null || missing+=("${c#*:}")
  done
  [ -f /usr/lib/arm-none-eabi/newlib/libc.a ] || missing+=(libnewlib-arm-none-eabi)
  if ! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1; then
    missing+=(python3-pip)
  fi
  if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  local py=() m
  for m in response_time_analysis:response-time-analysis jsonschema:jsonschema vcd.reader:pyvcd \
           selenium:selenium duckdb:duckdb unicorn:unicorn==2.1.4 elftools:pyelftools mypy:mypy; do
    python3 -c "import ${m%%:*}" >/dev/null 2>&1 || py+=("${m#*:}")
  done
  if [ ${#py[@]} -gt 0 ]; then
    echo "pip install ${py[*]}"
    python3 -m pip install -q --disable-pip-version-check "${py[@]}" 2>/dev/null \
      || python3 -m pip install -q --disable-pip-version-check --break-system-packages "${py[@]}"
  fi
  echo "setup: every package present"
}
setup
[ "${1:-}" = --setup ] && exit 0

# Skips the Rust tests allow through the environment must be on the list too.
. scripts/test-lib.sh
for v in LATSCOPE_SKIP_PERF; do
  if [ "${!v:-}" = 1 ] && ! allowed_skip "$v"; then
    echo "$v=1 skips a check that is not on docs/testing.md's list of allowed skips"
    exit 1
  fi
done

# Each step's wall time is printed after it, so a slow step shows in CI's log.
step_start=$SECONDS
step_done() { echo "-- $1: $((SECONDS - step_start)) s"; step_start=$SECONDS; }

echo "== cargo test (workspace)"
cargo test --workspace --release --locked --no-fail-fast
step_done "cargo test (workspace)"

# Extra suites register themselves as executable scripts under scripts/test.d/ and run in
# name order; each must exit non-zero when it fails, and 77 when it skipped.
if [ -d scripts/test.d ]; then
  for t in scripts/test.d/*; do
    [ -x "$t" ] || continue
    echo "== $t"
    rc=0
    "$t" || rc=$?
    if [ "$rc" = 77 ]; then
      if allowed_skip "$(basename "$t")"; then
        echo "skipped (allowed: docs/testing.md)"
        step_done "$(basename "$t") (skipped)"
        continue
      fi
      echo "$t skipped, and it is not on docs/testing.md's list of allowed skips: a failure"
      exit 1
    fi
    [ "$rc" = 0 ] || exit "$rc"
    step_done "$(basename "$t")"
  done
fi
echo "== all test steps passed ($SECONDS s in scripts/test.sh)"
