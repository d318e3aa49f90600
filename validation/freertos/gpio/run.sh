#!/usr/bin/env bash
# A logic-analyzer capture of the real FreeRTOS kernel: builds FreeRTOS-Kernel V11.2.0
# (crates.io freertos-next 0.12.0, fetched as ../run.sh does) with the harness and
# harness_gpio.c, whose pins mark the tick ISR (SysTick) and task A (Task), runs it in
# unicorn through ../run.py with the tick played through harness_tick, and writes the pins
# plus the tick timer's output (IRQ) as a sigrok session at 84 MHz.
# Usage: run.sh OUT.sr [TICKS] (default 200 ticks: 0.2 s, about 16.8 M samples).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: run.sh OUT.sr [TICKS]}"
ticks="${2:-200}"

# shellcheck source=../common.sh
. "$here/../common.sh"
ensure_tools

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fetch_crates "$work/fetch" 'freertos-next = "=0.12.0"'
kernel="$(freertos_kernel "$work/fetch")"

cflags=(-mcpu=cortex-m3 -mthumb -O2 -g -ffreestanding -nostartfiles)
arm-none-eabi-gcc "${cflags[@]}" -DconfigUSE_PORT_OPTIMISED_TASK_SELECTION=0 \
    -DLATSCOPE_TRACE_CONFIG='"gpio_config.h"' \
    -I"$here" -I"$here/../harness" -I"$kernel/include" \
    "$kernel/tasks.c" "$kernel/list.c" "$here/../harness/harness.c" "$here/harness_gpio.c" \
    -Wl,-Ttext=0x08000000 -Wl,-Tdata=0x20000000 -Wl,-e,_start -lc -lgcc -o "$work/gpio.elf"
python3 "$here/../run.py" "$work/gpio.elf" "$work/out" --ticks "$ticks" --generic \
    --tick-fn harness_tick --gpio "$work/capture.sr" >/dev/null
mv "$work/capture.sr" "$out"
echo "$out: $ticks ticks of FreeRTOS-Kernel $(grep -o 'V11\.[0-9.]*' "$kernel/tasks.c" | head -1), $(arm-none-eabi-gcc --version | head -1), unicorn $(python3 -c 'import unicorn; print(unicorn.__version__)')"
