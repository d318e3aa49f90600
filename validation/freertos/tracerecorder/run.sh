#!/usr/bin/env bash
# Regenerate the Percepio TraceRecorder fixtures in validation/freertos/traces/tracerecorder/
# (or $1): builds FreeRTOS-Kernel V11.2.0 (crates.io freertos-next 0.12.0, fetched as
# ../run.sh does) with the harness and Percepio TraceRecorder v4.11.0 (RingBuffer stream
# port, FreeRTOS kernel port, Cortex-M hardware port: DWT_CYCCNT timestamps, which run.py
# serves from its own clock), runs it in unicorn through ../run.py with the tick played as
# the ISR "SysTick", and writes out the recorder's RAM buffer (the RingBuffer dump a
# debugger would save) plus run.py's ground truth, events.csv. Twice: with a buffer that
# holds the whole run, and with a small one that fills up (events really lost). Then the
# second task set (run.py --set isr, harness built with -DHARNESS_SET_ISR: tasks A-D and a
# handler task released by the peripheral interrupt "Periph"), written as isr.psf and
# isr-events.csv (ISR_TICKS ticks, default 1000).
# The TraceRecorder sources are unpacked from ../../shared/vendor (beside the repository in
# CI, /work/shared/vendor here) into a temporary directory; none are committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${1:-$here/../traces/tracerecorder}"
ticks="${TICKS:-2000}"
isr_ticks="${ISR_TICKS:-1000}"
vendor="${TRC_VENDOR:-$repo/../shared/vendor}"
[ -f "$vendor/TraceRecorderSource-v4.11.0.tar.gz" ] || vendor=/work/shared/vendor
tarball="$vendor/TraceRecorderSource-v4.11.0.tar.gz"
[ -f "$tarball" ] || { echo "run.sh: $tarball not found (set TRC_VENDOR)" >&2; exit 1; }

# shellcheck source=../common.sh
. "$here/../common.sh"
ensure_tools

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/trc"
tar -xzf "$tarball" -C "$work/trc"
trc="$work/trc"
grep -q 'v4.11.0' "$trc/trcStreamingRecorder.c" || { echo "run.sh: not TraceRecorder v4.11.0" >&2; exit 1; }

# The kernel sources, through cargo (as ../run.sh).
fetch_crates "$work/fetch" 'freertos-next = "=0.12.0"'
kernel="$(freertos_kernel "$work/fetch")"

cflags=(-mcpu=cortex-m3 -mthumb -O2 -g -ffreestanding -nostartfiles)
build() { # $1 = event buffer bytes, $2 = ELF, then extra flags
    local size="$1" elf="$2"; shift 2
    arm-none-eabi-gcc "${cflags[@]}" -DconfigUSE_PORT_OPTIMISED_TASK_SELECTION=0 "$@" \
        -DLATSCOPE_TRACE_CONFIG='"latscope_trc.h"' -DTRC_CFG_STREAM_PORT_BUFFER_SIZE="$size" \
        -I"$here/config" -I"$here/../harness" -I"$kernel/include" \
        -I"$trc/include" -I"$trc/kernelports/FreeRTOS/include" -I"$trc/streamports/RingBuffer/include" \
        "$kernel/tasks.c" "$kernel/list.c" "$here/../harness/harness.c" "$here/harness_trc.c" \
        "$trc"/*.c "$trc/kernelports/FreeRTOS/trcKernelPort.c" "$trc/streamports/RingBuffer/trcStreamPort.c" \
        -Wl,-Ttext=0x08000000 -Wl,-Tdata=0x20000000 -Wl,-e,_start -lc -lgcc -o "$elf"
}
# Whole run: about 72 bytes of events per tick; the buffer holds 1.25x that.
full=$(( (ticks * 72 * 5 / 4 + 4095) / 4096 * 4096 ))
small=8192
build "$full" "$work/full.elf"
build "$small" "$work/small.elf"
# The second set writes about 92 bytes of events per tick; the buffer holds twice that.
isr_buf=$(( (isr_ticks * 184 + 4095) / 4096 * 4096 ))
build "$isr_buf" "$work/isr.elf" -DHARNESS_SET_ISR
mkdir -p "$work/out-full" "$work/out-small" "$work/out-isr"
python3 "$here/../run.py" "$work/full.elf" "$work/out-full" --ticks "$ticks" --generic \
    --tick-fn harness_tick --events --dump "xRecorderData=$work/out-full/ringbuffer.bin"
python3 "$here/../run.py" "$work/small.elf" "$work/out-small" --ticks 200 --generic \
    --tick-fn harness_tick --dump "xRecorderData=$work/out-small/ringbuffer.bin"
python3 "$here/../run.py" "$work/isr.elf" "$work/out-isr" --ticks "$isr_ticks" --generic --set isr \
    --tick-fn harness_tick --events --dump "xRecorderData=$work/out-isr/ringbuffer.bin"
# The same recording as a PSF stream (what a streaming port sends: header, timestamp
# information, entry table, then the events in order), cut from the RingBuffer dump.
python3 "$here/ringbuffer_to_psf.py" "$work/out-full/ringbuffer.bin" "$work/out-full/recording.psf"
python3 "$here/ringbuffer_to_psf.py" "$work/out-isr/ringbuffer.bin" "$work/out-isr/isr.psf"

mkdir -p "$out"
cp "$work/out-full/ringbuffer.bin" "$out/ringbuffer.bin"
cp "$work/out-full/recording.psf" "$out/recording.psf"
cp "$work/out-full/events.csv" "$out/events.csv"
cp "$work/out-small/ringbuffer.bin" "$out/ringbuffer-full.bin"
cp "$work/out-isr/isr.psf" "$out/isr.psf"
cp "$work/out-isr/events.csv" "$out/isr-events.csv"
{
    echo "recorder: Percepio TraceRecorder v4.11.0 ($(basename "$tarball"), RingBuffer stream port, stop when full)"
    echo "kernel: FreeRTOS-Kernel $(grep -o 'V11\.[0-9.]*' "$kernel/tasks.c" | head -1) (crates.io freertos-next 0.12.0), generic task selection"
    echo "compiler: $(arm-none-eabi-gcc --version | head -1)"
    echo "flags: ${cflags[*]}"
    echo "emulator: unicorn $(python3 -c 'import unicorn; print(unicorn.__version__)')"
    echo "ringbuffer.bin, recording.psf, events.csv: $ticks ticks, event buffer $full bytes"
    echo "ringbuffer-full.bin: 200 ticks, event buffer $small bytes (fills up: the rest is lost)"
    echo "isr.psf, isr-events.csv: second set (-DHARNESS_SET_ISR, run.py --set isr: tasks A-D, handler task released by the ISR Periph, seed 25), $isr_ticks ticks, event buffer $isr_buf bytes"
} >"$out/PROVENANCE.txt"
cat "$out/PROVENANCE.txt"
