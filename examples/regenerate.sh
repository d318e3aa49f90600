#!/usr/bin/env bash
# Regenerates the files in examples/ (examples/README.md says what each one is).
#   bash examples/regenerate.sh            # everything (about 3 minutes)
#   bash examples/regenerate.sh capture    # capture.sr only
#   bash examples/regenerate.sh freertos   # ticks.csv, switches.csv, system.toml only
#   bash examples/regenerate.sh compare    # before.json, after.json only (as root)
#   bash examples/regenerate.sh spikes     # spikes.json only (as root)
# capture and freertos build the real FreeRTOS kernel and run it in unicorn through
# validation/freertos/ (which installs arm-none-eabi-gcc, unicorn and pyelftools when
# missing); compare and spikes measure this machine with the latscope on PATH, or $LATSCOPE.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
what="${1:-all}"
latscope="${LATSCOPE:-latscope}"

capture() {
    # 200 ticks (0.2 s) of the ten-task harness with GPIO pins: IRQ, SysTick, Task.
    bash "$repo/validation/freertos/gpio/run.sh" "$here/capture.sr" 200
}

freertos() {
    # 2,000 ticks of the plain harness (generic task selection): the same kernel and
    # tasks as validation/freertos/traces/generic/, a shorter run.
    local work
    work="$(mktemp -d)"
    TICKS=2000 bash "$repo/validation/freertos/run.sh" "$work" >/dev/null
    cp "$work/generic/ticks.csv" "$work/generic/switches.csv" "$work/generic/system.toml" "$here/"
    rm -rf "$work"
    echo "$here: ticks.csv, switches.csv, system.toml (2,000 ticks)"
}

compare() {
    # The same measurement twice: first with a busy loop on every CPU (SCHED_OTHER, started
    # here, not by latscope, so both runs have the same settings), then without.
    local hogs=() n
    n="$(nproc)"
    for _ in $(seq "$n"); do
        (while :; do :; done) &
        hogs+=($!)
    done
    "$latscope" -q measure --cpus 0 --rounds 5 --duration 6s --json "$here/before.json" >/dev/null
    kill "${hogs[@]}"
    wait "${hogs[@]}" 2>/dev/null || true
    "$latscope" -q measure --cpus 0 --rounds 5 --duration 6s --json "$here/after.json" >/dev/null
    compact "$here/before.json" "$here/after.json"
    echo "$here: before.json ($n busy loops), after.json (none)"
}

spikes() {
    # Wake-up latency on CPU 0 while a kernel-heavy load runs there (a loop copying a
    # 64 MiB file on /dev/shm, pinned to the same CPU: page-cache copies in kernel code),
    # with every wake-up past 200 us traced and classified: docs/measure.md's "bottom
    # line" session reads it.
    local tmp
    tmp="$(mktemp -d /dev/shm/latscope-spikes.XXXX)"
    head -c 64M /dev/urandom >"$tmp/a"
    taskset -c 0 sh -c "while :; do cp '$tmp/a' '$tmp/b'; done" &
    local load=$!
    "$latscope" -q measure --cpus 0 --duration 3s --trace-above 200us --json "$here/spikes.json" >/dev/null
    kill "$load" 2>/dev/null || true
    wait "$load" 2>/dev/null || true
    rm -rf "$tmp"
    compact "$here/spikes.json"
    echo "$here: spikes.json"
}

compact() {
    # Written compactly (the pretty-printed histograms would double the size).
    python3 -c 'import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    open(p, "w").write(json.dumps(d, separators=(",", ":")) + "\n")' "$@"
}

case "$what" in
    all) capture; freertos; compare; spikes ;;
    capture | freertos | compare | spikes) "$what" ;;
    *) echo "usage: regenerate.sh [all|capture|freertos|compare|spikes]" >&2; exit 2 ;;
esac
