#!/usr/bin/env python3
"""Run the real FreeRTOS kernel (built by run.sh into an ARM ELF) instruction by instruction
in unicorn and record what latscope needs to check its calibration and analysis:

* ticks.csv      one row per tick: tasks released, instructions of xTaskIncrementTick
* switches.csv   one row per vTaskSwitchContext: levels scanned, instructions
* delays.csv     one row per xTaskDelayUntil call (through the harness): instructions
* jobs.csv       one row per job: task, release and finish instant (cycles), response
* events.csv     (with --events) the ground truth for trace recorders: every tick's start
                 and end, every release, every switch-in and every job's end, in cycles

A trace recorder built into the kernel (validation/freertos/tracerecorder/,
validation/freertos/systemview/) reads its timestamps from the Cortex-M cycle counter
(DWT_CYCCNT, 0xE0001004), which this driver serves as the same clock it records with;
--dump writes a recorder's RAM buffer out at the end; --tick-fn calls a harness wrapper
that marks the tick interrupt's entry and exit for the recorder. --gpio records the pins a
harness built with gpio/harness_gpio.c drives (tick ISR, task A) plus the tick timer's
output, and writes them as a sigrok session at the CPU clock (one sample per cycle).

Time is the executed instruction count, 1 instruction = 1 cycle at 84 MHz (the clock of
Miranda, de Oliveira, Carminati: Analysis of FreeRTOS Overheads on Periodic Tasks). The
driver plays the ten task bodies: a job runs its fixed cycle budget, the tick interrupt
preempts it every 84,000 cycles (xTaskIncrementTick, then vTaskSwitchContext when it asks
for a switch, as PendSV would), and at its end it calls xTaskDelayUntil and, when that
yields, vTaskSwitchContext. Kernel calls are atomic: a tick due during one runs when it
returns (the kernel's own critical sections would delay it the same way).
"""
import argparse
import csv
import os
import random
import sys

from elftools.elf.elffile import ELFFile
from unicorn import Uc, UC_ARCH_ARM, UC_MODE_THUMB, UC_HOOK_CODE
from unicorn.arm_const import UC_ARM_REG_PC, UC_ARM_REG_LR, UC_ARM_REG_SP, UC_ARM_REG_R0

CPU_HZ = 84_000_000
TICK = CPU_HZ // 1000
STOP = 0x0900_0000  # return address of every call: emulation stops when the PC gets there
PPB = 0xE000_0000  # Cortex-M private peripheral bus (DWT, SCB, CoreDebug)
DWT_PAGE = 0xE000_1000  # DWT_CTRL at +0, DWT_CYCCNT at +4
GPIO_PAGE = 0x4001_0000  # STM32F1 APB2 peripherals; GPIOB_BSRR at +0xC10 (--gpio)
GPIO_BSRR = 0x4001_0C10
GPIO_PINS = ["IRQ", "SysTick", "Task"]  # pin n = bit n (gpio/harness_gpio.c)
# Table 1 of Miranda, de Oliveira, Carminati: the ten periods (ms). Priorities here are
# rate monotonic (the paper runs all ten at priority 2; distinct priorities make
# preemption, which the response-time check needs).
PERIODS_MS = [5, 10, 15, 20, 30, 40, 23, 12, 45, 50]
NAMES = "ABCDEFGHIJ"
UTIL_PER_TASK = 0.06  # each body runs 6 % of its period: 60 % in all, plus the kernel


class Kernel:
    def __init__(self, path):
        self.uc = Uc(UC_ARCH_ARM, UC_MODE_THUMB)
        self.sym = {}
        with open(path, "rb") as f:
            elf = ELFFile(f)
            self.uc.mem_map(0x0800_0000, 0x10_0000)
            self.uc.mem_map(0x2000_0000, 0x10_0000)
            self.uc.mem_map(STOP, 0x1000)
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]:
                    self.uc.mem_write(seg["p_vaddr"], seg.data())
            self.size = {}
            for s in elf.get_section_by_name(".symtab").iter_symbols():
                if s.name:
                    self.sym[s.name] = s["st_value"]
                    self.size[s.name] = s["st_size"]
        # The cycle counter a recorder reads: the driver's clock at the start of the
        # current call plus the instructions executed in it so far.
        self.uc.mem_map(PPB, DWT_PAGE - PPB)
        self.uc.mmio_map(DWT_PAGE, 0x1000, self._dwt_read, None, self._dwt_write, None)
        self.uc.mem_map(DWT_PAGE + 0x1000, 0x10_0000 - 0x2000)
        self.clock = 0
        self.call_start = 0
        self.dwt_ctrl = 0
        self.count = 0
        self.uc.hook_add(UC_HOOK_CODE, self._hook)
        self.gpio_writes = None  # (cycles, BSRR value) with --gpio

    def record_gpio(self):
        """Maps the GPIO port and records every write to its set/reset register."""
        self.gpio_writes = []
        self.uc.mmio_map(GPIO_PAGE, 0x1000, lambda *_: 0, None, self._gpio_write, None)

    def _gpio_write(self, uc, offset, size, value, data):
        if GPIO_PAGE + offset == GPIO_BSRR:
            self.gpio_writes.append((self.now(), value))

    def now(self):
        """The clock as a recorder inside the current call sees it (cycles)."""
        return self.clock + self.count - self.call_start

    def _dwt_read(self, uc, offset, size, data):
        if offset == 4:
            return self.now() & 0xFFFF_FFFF
        if offset == 0:
            return self.dwt_ctrl
        return 0

    def _dwt_write(self, uc, offset, size, value, data):
        if offset == 0:
            self.dwt_ctrl = value

    def _hook(self, uc, addr, size, data):
        self.count += 1

    def call(self, name, *args):
        """Calls a kernel or harness function; returns (r0, instructions executed)."""
        uc = self.uc
        for i, a in enumerate(args):
            uc.reg_write(UC_ARM_REG_R0 + i, a)
        uc.reg_write(UC_ARM_REG_SP, 0x200F_FF00)
        uc.reg_write(UC_ARM_REG_LR, STOP | 1)
        start = self.count
        self.call_start = start
        uc.emu_start(self.sym[name] | 1, STOP)
        return uc.reg_read(UC_ARM_REG_R0), self.count - start

    def at(self, t):
        """Sets the driver's clock for the next call."""
        self.clock = t
        return self

    def u32(self, name, index=0):
        return int.from_bytes(self.uc.mem_read(self.sym[name] + 4 * index, 4), "little")

    def set_u32(self, name, index, value):
        self.uc.mem_write(self.sym[name] + 4 * index, value.to_bytes(4, "little"))


def write_sigrok(path, writes, ticks):
    """Writes the pins as a sigrok session (.sr: a zip of `version`, an INI `metadata` and
    the samples, one byte per sample, in `logic-1-N` chunks) at the CPU clock, so every
    edge lands on the cycle the kernel wrote it. Pin 0 (IRQ) is the tick timer's compare
    output: high from each tick's due instant for half a tick. The capture ends at the
    last tick's due instant plus one tick."""
    import zipfile

    edges = []  # (cycle, pin, level)
    for tick in range(1, ticks + 1):
        edges.append((tick * TICK, 0, 1))
        edges.append((tick * TICK + TICK // 2, 0, 0))
    for t, value in writes:
        for pin in range(1, len(GPIO_PINS)):
            if value & (1 << pin):
                edges.append((t, pin, 1))
            if value & (1 << (pin + 16)):
                edges.append((t, pin, 0))
    edges.sort(key=lambda e: e[0])  # stable: writes at one instant keep their order
    total = (ticks + 1) * TICK
    samples = bytearray(total)
    level, at = 0, 0
    for t, pin, v in edges:
        t = min(t, total)
        if t > at:
            samples[at:t] = bytes([level]) * (t - at)
            at = t
        level = (level | (1 << pin)) if v else (level & ~(1 << pin))
    samples[at:total] = bytes([level]) * (total - at)
    meta = ["[global]", "sigrok version=0.5.2", "", "[device 1]", "capturefile=logic-1",
            f"total probes={len(GPIO_PINS)}", f"samplerate={CPU_HZ // 1_000_000} MHz",
            "total analog=0"]
    meta += [f"probe{i + 1}={name}" for i, name in enumerate(GPIO_PINS)]
    meta += ["unitsize=1", ""]
    chunk = 4 << 20
    # A fixed date for every entry, so the same run gives the same bytes.
    stamp = (2024, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(path, "w") as z:
        def put(name, data):
            info = zipfile.ZipInfo(name, stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data, compresslevel=9)
        put("version", "2")
        put("metadata", "\n".join(meta))
        for n, start in enumerate(range(0, total, chunk)):
            put(f"logic-1-{n + 1}", bytes(samples[start:start + chunk]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("elf")
    ap.add_argument("out_dir")
    ap.add_argument("--ticks", type=int, default=41_400, help="ticks to run (41,400 = one hyperperiod)")
    ap.add_argument("--generic", action="store_true", help="generic task selection (levels from uxTopReadyPriority)")
    ap.add_argument("--vary", type=int, metavar="SEED",
                    help="each job runs a uniformly random 50-100 %% of its budget (seeded), not all of it")
    ap.add_argument("--tick-fn", default="xTaskIncrementTick",
                    help="function the tick interrupt calls (harness_tick wraps xTaskIncrementTick in the "
                         "recorder's ISR entry and exit)")
    ap.add_argument("--events", action="store_true", help="also write events.csv (ground truth for recorders)")
    ap.add_argument("--dump", action="append", default=[], metavar="SYMBOL=FILE",
                    help="at the end, write the bytes of SYMBOL (e.g. a recorder's RAM buffer) to FILE")
    ap.add_argument("--gpio", metavar="FILE.sr",
                    help="record the harness's GPIO pins (gpio/harness_gpio.c) and the tick timer's output "
                         "as a sigrok session")
    a = ap.parse_args()
    k = Kernel(a.elf)
    if a.gpio:
        k.record_gpio()
    order = sorted(range(10), key=lambda i: PERIODS_MS[i])
    prio = [0] * 10
    for rank, i in enumerate(order):
        prio[i] = 10 - rank  # 10 = highest (shortest period) .. 1
    for i in range(10):
        k.set_u32("harness_period_ticks", i, PERIODS_MS[i])
        k.set_u32("harness_priority", i, prio[i])
    k.call("harness_init")
    if k.u32("harness_asserts"):
        sys.exit("configASSERT failed during harness_init")
    handle = {k.u32("harness_handles", i): i for i in range(10)}
    budget = [round(UTIL_PER_TASK * p * TICK) for p in PERIODS_MS]
    remaining = [0] * 10
    release = [0] * 10
    jobs_rows, tick_rows, switch_rows, delay_rows = [], [], [], []
    events = []  # (cycles, kind, task) ground truth for recorders (--events)
    rng = random.Random(a.vary)

    def job_budget(i):
        return budget[i] if a.vary is None else rng.randint(budget[i] // 2, budget[i])

    for i in range(10):
        remaining[i] = job_budget(i)
        events.append((0, "release", NAMES[i]))
    first = handle.get(k.u32("pxCurrentTCB"))
    events.append((0, "switch_in", NAMES[first] if first is not None else "IDLE"))

    def switch():
        top = k.u32("uxTopReadyPriority") if a.generic else None
        k.set_u32("harness_yield_pending", 0, 0)
        _, n = k.at(t).call("vTaskSwitchContext")
        new = handle.get(k.u32("pxCurrentTCB"))
        events.append((t + n, "switch_in", NAMES[new] if new is not None else "IDLE"))
        if a.generic:
            levels = top - k.u32("uxTopReadyPriority") + 1
        else:
            levels = ""
        switch_rows.append((levels, n))
        return n

    t = 0
    tick_no = 0
    while tick_no < a.ticks:
        next_tick = (tick_no + 1) * TICK
        cur = handle.get(k.u32("pxCurrentTCB"))
        if cur is not None and t + remaining[cur] <= next_tick:
            t += remaining[cur]
            remaining[cur] = 0
            _, n = k.at(t).call("harness_delay_until", cur)
            t += n
            delay_rows.append((NAMES[cur], n))
            jobs_rows.append((NAMES[cur], release[cur], t, t - release[cur]))
            events.append((t, "finish", NAMES[cur]))
            if k.u32("harness_yield_pending"):
                t += switch()
            else:
                sys.exit(f"task {NAMES[cur]} did not block at tick {tick_no}")
            continue
        if cur is not None:
            remaining[cur] -= next_tick - t
        t = max(t, next_tick)
        before = k.call("harness_blocked")[0]
        events.append((t, "tick_start", ""))
        r, n = k.at(t).call(a.tick_fn)
        tick_no += 1
        released = before - k.call("harness_blocked")[0]
        tick_rows.append((released, n))
        t_tick = next_tick
        t += n
        events.append((t, "tick_end", ""))
        # a task released at this tick: its new job starts now
        for i in range(10):
            if remaining[i] == 0 and tick_no % PERIODS_MS[i] == 0:
                remaining[i] = job_budget(i)
                release[i] = t_tick
                events.append((t_tick, "release", NAMES[i]))
        if r or k.u32("harness_yield_pending"):
            t += switch()
        if k.u32("harness_asserts"):
            sys.exit(f"configASSERT failed at tick {tick_no}")
    os.makedirs(a.out_dir, exist_ok=True)

    def write(name, header, rows):
        with open(os.path.join(a.out_dir, name), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)

    write("ticks.csv", ["released", "cycles"], tick_rows)
    write("switches.csv", ["levels", "cycles"], switch_rows)
    write("delays.csv", ["task", "cycles"], delay_rows)
    write("jobs.csv", ["task", "release_cycles", "finish_cycles", "response_cycles"], jobs_rows)
    if a.events:
        write("events.csv", ["cycles", "event", "task"], events)
    if a.gpio:
        write_sigrok(a.gpio, k.gpio_writes, a.ticks)
    for spec in a.dump:
        sym, _, path = spec.partition("=")
        if sym not in k.sym or not path:
            sys.exit(f"--dump {spec}: no symbol {sym!r} in the ELF (or no FILE)")
        with open(path, "wb") as f:
            f.write(bytes(k.uc.mem_read(k.sym[sym], k.size[sym])))
    worst_rows = []
    sys_lines = [
        "# Ten tasks with the periods of Table 1 of Miranda, de Oliveira, Carminati: Analysis",
        "# of FreeRTOS Overheads on Periodic Tasks, rate-monotonic priorities, run on the real",
        "# FreeRTOS kernel by validation/freertos/run.sh. WCET = the body's fixed budget plus",
        "# the worst measured xTaskDelayUntil call of that task. Kernel costs: `latscope fit",
        "# --write` from ticks.csv and switches.csv. irq_entry_cycles = 0: the emulation",
        "# charges no exception entry.",
        "[platform]",
        f"cpu_hz = {CPU_HZ}",
        "irq_entry_cycles = 0",
        "",
        "[kernel]",
        "tick_hz = 1000",
        'model = "tick"',
        f'task_selection = "{"generic" if a.generic else "optimised"}"',
        'tick_mode = "partitioned"',
        "time_slicing = true",
    ]
    for i in range(10):
        mine = [r for r in jobs_rows if r[0] == NAMES[i]]
        worst = max(mine, key=lambda r: (r[3], -r[1]))
        worst = next(r for r in mine if r[3] == worst[3])
        delay = max(n for name, n in delay_rows if name == NAMES[i])
        worst_rows.append((NAMES[i], prio[i], PERIODS_MS[i], budget[i], delay, len(mine), worst[3], worst[1]))
        sys_lines += [
            "",
            "[[task]]",
            f'name = "{NAMES[i]}"',
            f'period = "{PERIODS_MS[i]}ms"',
            f'wcet = "{budget[i] + delay} cycles"',
            f"priority = {prio[i]}",
        ]
    write(
        "worst.csv",
        ["task", "priority", "period_ms", "budget_cycles", "worst_delay_until_cycles", "jobs",
         "worst_response_cycles", "worst_release_cycles"],
        worst_rows,
    )
    with open(os.path.join(a.out_dir, "system.toml"), "w") as f:
        f.write("\n".join(sys_lines) + "\n")
    print(f"{a.ticks} ticks, {len(jobs_rows)} jobs, {len(switch_rows)} switches -> {a.out_dir}")
    print("budgets (cycles):", dict(zip(NAMES, budget)), "priorities:", dict(zip(NAMES, prio)))


if __name__ == "__main__":
    main()
