#!/usr/bin/env bash
# Regenerate the real-FreeRTOS traces in validation/freertos/traces/ (or $1):
# builds FreeRTOS-Kernel V11.2.0 (tasks.c, list.c, from the crates.io package
# freertos-next 0.12.0) with this directory's harness for Cortex-M3 (arm-none-eabi-gcc -O2,
# thumb), runs it instruction by instruction in unicorn (run.py), for generic and
# port-optimised task selection. Installs its tools when missing (apt as root, pip).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/traces}"
ticks="${TICKS:-41400}"

# shellcheck source=common.sh
. "$here/common.sh"
ensure_tools

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Fetch the kernel sources through cargo (they ship inside the freertos-next crate; they are
# not copied into this repository).
fetch_crates "$work/fetch" 'freertos-next = "=0.12.0"'
kernel="$(freertos_kernel "$work/fetch")"

cflags=(-mcpu=cortex-m3 -mthumb -O2 -g -ffreestanding -nostartfiles)
for sel in generic optimised; do
    opt=0
    [ "$sel" = optimised ] && opt=1
    arm-none-eabi-gcc "${cflags[@]}" -DconfigUSE_PORT_OPTIMISED_TASK_SELECTION=$opt \
        -I"$here/harness" -I"$kernel/include" \
        "$kernel/tasks.c" "$kernel/list.c" "$here/harness/harness.c" \
        -Wl,-Ttext=0x08000000 -Wl,-Tdata=0x20000000 -Wl,-e,_start -lc -lgcc \
        -o "$work/kernel-$sel.elf"
    flag=()
    [ "$sel" = generic ] && flag=(--generic)
    python3 "$here/run.py" "$work/kernel-$sel.elf" "$work/out-$sel" --ticks "$ticks" "${flag[@]}"
done
# The same generic kernel with job lengths drawn from 50-100 % of the budget (seed 1).
python3 "$here/run.py" "$work/kernel-generic.elf" "$work/out-generic-varied" --ticks "$ticks" \
    --generic --vary 1
# Replace the earlier result only once every run succeeded.
mkdir -p "$out"
for sel in generic optimised generic-varied; do
    rm -rf "$out/$sel.tmp" && mv "$work/out-$sel" "$out/$sel.tmp"
    rm -rf "$out/$sel" && mv "$out/$sel.tmp" "$out/$sel"
done
{
    echo "kernel: FreeRTOS-Kernel $(grep -o 'V11\.[0-9.]*' "$kernel/tasks.c" | head -1) (crates.io freertos-next 0.12.0)"
    echo "compiler: $(arm-none-eabi-gcc --version | head -1)"
    echo "flags: ${cflags[*]}"
    echo "emulator: unicorn $(python3 -c 'import unicorn; print(unicorn.__version__)')"
    echo "ticks: $ticks"
} >"$out/PROVENANCE.txt"
cat "$out/PROVENANCE.txt"
