#!/usr/bin/env bash
# Runs the cargo-fuzz targets on the stable toolchain (libFuzzer, no sanitizer):
#
#   scripts/fuzz.sh [TARGET|all] SECONDS
#
# TARGET is one of `cargo fuzz list` (sigrok, vcd, csv, saleae_csv, saleae_bin, scope_csv,
# cyclelog, native, detect, system, measure_json, tracerecorder, systemview, perf); `all` (the
# default) runs each in turn
# for SECONDS. Limits: 2048 MB of RSS and 10 s per input, so a bomb or a hang is a finding.
# Seeds come from the fixtures and malformed corpus of the tests (copied to fuzz/seeds/ at
# run time); the growing corpus stays in fuzz/corpus/TARGET, findings in
# fuzz/artifacts/TARGET. One line per target goes to fuzz/runs.log: date, target, seconds,
# executions, corpus size and crashers. Minimise a crasher with
#   RUSTC_BOOTSTRAP=1 cargo fuzz tmin -s none TARGET fuzz/artifacts/TARGET/crash-…
# and add it as a regression test (crates/trace/tests/fuzz_regress.rs).
# Needs cargo-fuzz (installed here with `cargo install cargo-fuzz` when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${1:-all}
secs=${2:-60}
if ! command -v cargo-fuzz >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo-fuzz" ]; then
  cargo install --locked cargo-fuzz
fi
export RUSTC_BOOTSTRAP=1
cd fuzz
targets=$(cargo fuzz list)
[ "$target" = all ] || targets=$target
seed() { # target -> seed directory
  local t=$1 d="$root/fuzz/seeds/$1" fx="$root/crates/trace/tests/fixtures" co="$root/crates/trace/tests/corpus"
  rm -rf "$d"
  mkdir -p "$d"
  case $t in
  sigrok) cp "$fx"/*.sr "$co"/*.sr "$d"/ ;;
  vcd) cp "$fx"/*.vcd "$co"/*.vcd "$d"/ ;;
  csv | saleae_csv | scope_csv) cp "$fx"/*.csv "$co"/*.csv "$d"/ ;;
  saleae_bin) cp "$co"/saleae_*.bin "$d"/ ;;
  native) cp "$co"/*.lscap "$d"/ ;;
  cyclelog) cp "$co"/*.log "$d"/ ;;
  tracerecorder) cp "$root"/validation/freertos/traces/tracerecorder/*.psf "$root"/validation/freertos/traces/tracerecorder/ringbuffer-full.bin "$d"/ ;;
  perf) cp "$fx"/perf_*.data "$d"/ ;;
  detect) cp "$fx"/* "$co"/* "$d"/ ;;
  system) for s in "$root"/scenarios/*/system.toml; do cp "$s" "$d/$(basename "$(dirname "$s")").toml"; done ;;
  systemview) cp "$root"/validation/freertos/traces/systemview/*.SVDat "$d"/ ;;
  measure_json) find "$root/validation" "$root/crates" -name '*.json' -size -64k 2>/dev/null | head -20 | while read -r f; do cp "$f" "$d/"; done ;;
  esac
  echo "$d"
}
dict() { # target -> -dict=… or nothing
  local f
  case $1 in
  saleae_csv | scope_csv) f=csv ;;
  detect) f=sigrok ;;
  measure_json) f=system ;;
  *) f=$1 ;;
  esac
  [ -f "$root/fuzz/dict/$f.dict" ] && echo "-dict=$root/fuzz/dict/$f.dict"
}
for t in $targets; do
  s=$(seed "$t")
  mkdir -p "corpus/$t" "artifacts/$t"
  log="$root/fuzz/last-$t.log"
  echo "== $t for ${secs}s"
  set +e
  nice -n 10 cargo fuzz run -s none -O "$t" "corpus/$t" "$s" -- \
    -rss_limit_mb=2048 -timeout=10 -max_total_time="$secs" -print_final_stats=1 \
    $(dict "$t") >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  corpus=$(find "corpus/$t" -type f | wc -l)
  crashes=$(find "artifacts/$t" -type f | wc -l)
  line="$(date -u +%FT%TZ) $t ${secs}s execs=${execs:-?} corpus=$corpus artifacts=$crashes rc=$rc"
  echo "$line" | tee -a "$root/fuzz/runs.log"
  if [ "$rc" -ne 0 ]; then tail -30 "$log"; fi
done
