#!/usr/bin/env bash
# Record the real FreeRTOS harness with SEGGER SystemView (validation/freertos/traces/systemview/,
# or $1): builds FreeRTOS-Kernel V11.2.0 (crates.io freertos-next 0.12.0) with SEGGER's own
# SystemView and RTT target sources (crates.io systemview-target 0.3.0, lib/SEGGER/) and this
# directory's configuration and glue, for Cortex-M3 (arm-none-eabi-gcc -O2, thumb); runs it
# in unicorn (../run.py) with the tick wrapper and ground-truth events; dumps the RTT buffer
# and saves it as the .SVDat a host would have written (svdat.py).
#
#   main.SVDat + main-events.csv          TICKS ticks (default 1000), a buffer nothing
#                                         overflows, generic task selection
#   overflow.SVDat + overflow-events.csv  OVF_TICKS ticks (default 300), a 1 KiB buffer
#                                         that a probe drains by 12 bytes per tick: real
#                                         SystemView overflow packets
#   isr.SVDat + isr-events.csv            the second task set (-DHARNESS_SET_ISR, run.py
#                                         --set isr: tasks A-D and a handler task released
#                                         by the interrupt Periph), TICKS ticks, as main
#
# The third-party sources are fetched into a temporary directory, never committed. Output
# is byte-for-byte the same on every run (the emulation is deterministic).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
top="$(cd "$here/.." && pwd)"
out="${1:-$top/traces/systemview}"
ticks="${TICKS:-1000}"
ovf_ticks="${OVF_TICKS:-300}"

# shellcheck source=../common.sh
. "$top/common.sh"
ensure_tools

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fetch_crates "$work/fetch" 'freertos-next = "=0.12.0"' 'systemview-target = "=0.3.0"'
kernel="$(freertos_kernel "$work/fetch")"
sv="$(crate_dir "$work/fetch" systemview-target)/lib"
grep -q 'SEGGER_SYSVIEW_MINOR          32' "$sv/SEGGER/SEGGER_SYSVIEW.h" ||
    { echo "run.sh: $sv is not SystemView 3.32" >&2; exit 1; }

cflags=(-mcpu=cortex-m3 -mthumb -O2 -g -ffreestanding -nostartfiles)
build() { # build NAME EXTRA-CFLAGS...
    local name="$1"; shift
    arm-none-eabi-gcc "${cflags[@]}" -DconfigUSE_PORT_OPTIMISED_TASK_SELECTION=0 \
        -DLATSCOPE_TRACE_CONFIG='"sv_trace_config.h"' -DRTT_USE_ASM=0 \
        -DSEGGER_RTT_MAX_NUM_UP_BUFFERS=2 -DSEGGER_RTT_MAX_NUM_DOWN_BUFFERS=2 "$@" \
        -I"$here" -I"$top/harness" -I"$kernel/include" -I"$sv/SEGGER" -I"$sv/Config" \
        "$kernel/tasks.c" "$kernel/list.c" "$top/harness/harness.c" "$here/harness_sysview.c" \
        "$sv/SEGGER/SEGGER_SYSVIEW.c" "$sv/SEGGER/SEGGER_RTT.c" \
        -Wl,-Ttext=0x08000000 -Wl,-Tdata=0x20000000 -Wl,-e,_start -lc -lgcc \
        -o "$work/$name.elf"
}
build main -DSV_BUFFER_SIZE=131072
build overflow -DSV_BUFFER_SIZE=1024 -DSV_DRAIN_BYTES=12
build isr -DSV_BUFFER_SIZE=131072 -DHARNESS_SET_ISR
mkdir -p "$work/out"
for run in main overflow isr; do
    n="$ticks"; [ "$run" = overflow ] && n="$ovf_ticks"
    extra=()
    [ "$run" = overflow ] && extra=(--dump "sv_host=$work/$run.host" --dump "sv_host_len=$work/$run.hostlen")
    [ "$run" = isr ] && extra=(--set isr)
    python3 "$top/run.py" "$work/$run.elf" "$work/run-$run" --ticks "$n" --generic \
        --tick-fn harness_tick --events \
        --dump "_SEGGER_RTT=$work/$run.cb" --dump "_UpBuffer=$work/$run.up" "${extra[@]}"
    host=()
    [ "$run" = overflow ] && host=(--host "$work/$run.host" --host-len "$work/$run.hostlen")
    python3 "$here/svdat.py" "$work/$run.cb" "$work/$run.up" "$work/out/$run.SVDat" "${host[@]}"
    cp "$work/run-$run/events.csv" "$work/out/$run-events.csv"
done
mkdir -p "$out"
cp "$work/out/"* "$out/"
{
    echo "kernel: FreeRTOS-Kernel $(grep -o 'V11\.[0-9.]*' "$kernel/tasks.c" | head -1) (crates.io freertos-next 0.12.0)"
    echo "recorder: SEGGER SystemView target sources 3.32 and RTT (crates.io systemview-target 0.3.0, lib/SEGGER/)"
    echo "compiler: $(arm-none-eabi-gcc --version | head -1)"
    echo "flags: ${cflags[*]}"
    echo "emulator: unicorn $(python3 -c 'import unicorn; print(unicorn.__version__)')"
    echo "main: $ticks ticks, generic task selection, 128 KiB RTT buffer (no loss)"
    echo "overflow: $ovf_ticks ticks, 1 KiB RTT buffer drained 12 bytes per tick"
    echo "isr: second set (-DHARNESS_SET_ISR, run.py --set isr: tasks A-D, handler task released by the interrupt Periph, seed 25), $ticks ticks, generic task selection, 128 KiB RTT buffer (no loss)"
    echo "regenerate: bash validation/freertos/systemview/run.sh"
} >"$out/PROVENANCE.txt"
cat "$out/PROVENANCE.txt"
