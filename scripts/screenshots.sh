#!/usr/bin/env bash
# Screenshots of each report kind's first screen (1200x800, headless Chromium), for
# docs/reports.md: docs/screenshots/<kind>.png. Reports are made from the report crate's
# test fixtures and from a small capture written here, with the release binary.
# Usage: scripts/screenshots.sh   (needs chromium; builds latscope if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
LS=$TARGET/release/latscope
FIX=$ROOT/crates/report/tests/fixtures
DOCS=$ROOT/docs/screenshots
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -x "$LS" ] || cargo build --release --locked -q -p latscope
command -v chromium >/dev/null || { echo "screenshots.sh: chromium is not installed" >&2; exit 1; }
mkdir -p "$DOCS"

# A capture with an interrupt line and a task line, its trace with a limit it fails.
python3 - "$TMP/capture.vcd" <<'PY'
import sys
lines = ["$timescale 1ns $end", "$scope module top $end", "$var wire 1 ! irq $end",
         "$var wire 1 \" task $end", "$upscope $end", "$enddefinitions $end", "#0", "0!", "0\""]
t = 0
for i in range(200):
    t += 1000
    w = 200 + 37 * (i % 7) + (4800 if i == 123 else 0)
    lines += [f"#{t}", "1!", f"#{t + w}", "0!", "1\"", f"#{t + w + 150}", "0\""]
    t += w
lines.append(f"#{t + 2000}")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$LS" trace "$TMP/capture.vcd" --pulse irq --limit 'irq.max<1us' --json "$TMP/trace.json" >/dev/null || true

shot() { # NAME INPUT...
  local name=$1; shift
  "$LS" report "$@" -o "$TMP/$name.html" --title "latscope report: $name" 2>/dev/null
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$TMP/profile" --window-size=1200,800 \
    --screenshot="$DOCS/$name.png" "file://$TMP/$name.html" >/dev/null 2>&1
  echo "docs/screenshots/$name.png"
}
# A comparison of the two measure fixtures (they differ in CPUs, hence --force), and a
# noise run of this machine (skipped where `latscope noise` cannot run).
"$LS" compare "$FIX/measure.json" "$FIX/measure-b.json" --force --json "$TMP/compare.json" >/dev/null || true
NOISE=()
if "$LS" noise --duration 2s --json "$TMP/noise.json" >/dev/null 2>&1; then NOISE=("$TMP/noise.json"); fi

shot measure "$FIX/measure.json"
shot compare "$TMP/compare.json"
shot fit "$FIX/fit.json"
[ ${#NOISE[@]} -eq 0 ] || shot noise "${NOISE[@]}"
shot trace "$TMP/trace.json" "$TMP/capture.vcd"
shot capture "$TMP/capture.vcd"
shot analyze "$FIX/analyze.json"
shot simulate "$FIX/simulate.json" "$FIX/tick-series.csv" "$FIX/simulate.perfetto.json"
shot scenario "$FIX/scenario.json"
shot overview "$FIX/measure.json" "$TMP/trace.json" "$FIX/analyze.json" "$FIX/simulate.json" "$FIX/scenario.json"
