#!/usr/bin/env python3
"""Run the real FreeRTOS kernel (built by run.sh into an ARM ELF) instruction by instruction
in unicorn and record what latscope needs to check its calibration and analysis:

* ticks.csv      one row per tick: tasks released, instructions of xTaskIncrementTick
* switches.csv   one row per vTaskSwitchContext: levels scanned, instructions
* delays.csv     one row per xTaskDelayUntil call (through the harness): instructions
* jobs.csv       one row per job: task, release and finish instant (cycles), response
* events.csv     (with --events) the ground truth for trace recorders: every tick's start
                 and end, every release, every switch-in and every job's end, in cycles;
                 with --set isr also every peripheral interrupt's start and end

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

--set isr runs the second task set instead (the ELF built with -DHARNESS_SET_ISR): four of
the Table 1 tasks (A-D, 5-20 ms, rate monotonic) below a handler task that a peripheral
interrupt releases. The driver plays that interrupt at seeded sporadic instants, at least
ISR_MIN_GAP cycles apart (2.7 ms: not a multiple of the tick), through harness_irq: the
recorder's ISR hooks around vTaskNotifyGiveFromISR, then portYIELD_FROM_ISR. The handler
task waits in ulTaskNotifyTake(pdTRUE, portMAX_DELAY): the driver stops that call at its
yield (the CPU context saved, the task on its own stack) and resumes it when the kernel
switches the task back in, so the notification is taken after the wake-up as on a real
CPU; then the task runs its budget and waits again.
"""
import argparse
import csv
import os
import random
import sys

from elftools.elf.elffile import ELFFile
from unicorn import Uc, UC_ARCH_ARM, UC_MODE_THUMB, UC_HOOK_CODE, UC_HOOK_MEM_WRITE
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
# The second set (--set isr): tasks A-D of Table 1, each running 12 % of its period (48 %),
# below a handler task released by a peripheral interrupt at least ISR_MIN_GAP cycles
# apart (plus a seeded uniform 0-2 ticks), which runs HANDLER_BUDGET cycles per release
# (at most 11 %). The handler's response (its budget plus the ticks and switches in it) is
# far below ISR_MIN_GAP, so no interrupt arrives while its job is open.
ISR_SET_PERIODS_MS = [5, 10, 15, 20]
ISR_SET_UTIL = 0.12
HANDLER = "Handler"  # the handler task (harness.c: the last task)
IRQ = "Periph"  # the peripheral interrupt, as the recorders name it
ISR_MIN_GAP = 226_800  # 2.7 ms
ISR_JITTER = 2 * TICK
HANDLER_BUDGET = 25_200  # 0.3 ms
HANDLER_SP = 0x200F_8000  # the handler task's own stack (the driver's calls use 0x200FFF00)


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
        # Suspending a call at its yield (--set isr): a write to harness_yield_pending stops
        # the emulation before the next instruction.
        self.suspend_on_yield = False
        self.stop_next = False
        if "harness_notify_take" in self.sym:
            y = self.sym["harness_yield_pending"]
            self.uc.hook_add(UC_HOOK_MEM_WRITE, self._yield_written, begin=y, end=y + 3)

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
        if self.stop_next:
            # Stopped before this instruction, which runs (and is counted) on resumption.
            self.stop_next = False
            uc.emu_stop()
            return
        self.count += 1

    def _yield_written(self, uc, access, addr, size, value, data):
        if self.suspend_on_yield:
            self.stop_next = True

    def call(self, name, *args, sp=0x200F_FF00):
        """Calls a kernel or harness function; returns (r0, instructions executed)."""
        uc = self.uc
        for i, a in enumerate(args):
            uc.reg_write(UC_ARM_REG_R0 + i, a)
        uc.reg_write(UC_ARM_REG_SP, sp)
        uc.reg_write(UC_ARM_REG_LR, STOP | 1)
        start = self.count
        self.call_start = start
        uc.emu_start(self.sym[name] | 1, STOP)
        return uc.reg_read(UC_ARM_REG_R0), self.count - start

    def call_until_yield(self, name, sp):
        """Calls a function that may block the calling task: stops at its first yield.
        Returns (saved CPU context or None when it returned without yielding, instructions
        executed)."""
        self.suspend_on_yield = True
        try:
            _, n = self.call(name, sp=sp)
        finally:
            self.suspend_on_yield = False
        if self.uc.reg_read(UC_ARM_REG_PC) == STOP:
            return None, n
        return self.uc.context_save(), n

    def resume(self, ctx):
        """Resumes a call that call_until_yield suspended, to its end; returns the
        instructions executed."""
        uc = self.uc
        uc.context_restore(ctx)
        start = self.count
        self.call_start = start
        uc.emu_start(uc.reg_read(UC_ARM_REG_PC) | 1, STOP)
        return self.count - start

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
    ap.add_argument("--set", choices=["table1", "isr"], default="table1",
                    help="task set: the ten Table 1 tasks, or (ELF built with -DHARNESS_SET_ISR) tasks A-D "
                         "and a handler task released by a sporadic peripheral interrupt")
    ap.add_argument("--irq-seed", type=int, default=25,
                    help="seed of the peripheral interrupt's instants (--set isr)")
    a = ap.parse_args()
    isr_set = a.set == "isr"
    k = Kernel(a.elf)
    if a.gpio:
        k.record_gpio()
    if isr_set != ("harness_irq" in k.sym):
        sys.exit(f"{a.elf}: --set {a.set} needs the harness built "
                 f"{'with' if isr_set else 'without'} -DHARNESS_SET_ISR")
    if isr_set:
        names = [NAMES[i] for i in range(len(ISR_SET_PERIODS_MS))] + [HANDLER]
        periods = ISR_SET_PERIODS_MS + [None]
        util = ISR_SET_UTIL
    else:
        names, periods, util = list(NAMES), PERIODS_MS, UTIL_PER_TASK
    ntasks = len(names)
    # Rate monotonic; the handler task (no period) above every periodic task.
    order = sorted(range(ntasks), key=lambda i: periods[i] or 0)
    prio = [0] * ntasks
    for rank, i in enumerate(order):
        prio[i] = ntasks - rank  # ntasks = highest (shortest period) .. 1
    for i in range(ntasks):
        k.set_u32("harness_period_ticks", i, periods[i] or 0)
        k.set_u32("harness_priority", i, prio[i])
    _, n_init = k.call("harness_init")
    if k.u32("harness_asserts"):
        sys.exit("configASSERT failed during harness_init")
    handle = {k.u32("harness_handles", i): i for i in range(ntasks)}
    budget = [round(util * p * TICK) if p else HANDLER_BUDGET for p in periods]
    remaining = [0] * ntasks
    release = [0] * ntasks
    jobs_rows, tick_rows, switch_rows, delay_rows = [], [], [], []
    events = []  # (cycles, kind, task) ground truth for recorders (--events)
    rng = random.Random(a.vary)
    irq_rng = random.Random(a.irq_seed)
    h = ntasks - 1 if isr_set else None  # the handler task
    # The handler task's wait: its saved context while suspended in ulTaskNotifyTake, and
    # whether it still waits for the interrupt (False: released, not yet resumed).
    h_ctx, h_waiting = None, False
    next_irq = ISR_MIN_GAP + irq_rng.randint(0, ISR_JITTER) if isr_set else None

    def job_budget(i):
        return budget[i] if a.vary is None else rng.randint(budget[i] // 2, budget[i])

    for i in range(ntasks):
        # The handler task's first job is its start: it waits for the interrupt at once.
        remaining[i] = 0 if i == h else job_budget(i)
        events.append((0, "release", names[i]))
    # The ten-task run restarts the clock at 0 when harness_init returns (its first kernel
    # call comes long after the cycles a recorder saw during the init). In the second set
    # the handler task calls the kernel at once: the clock goes on from the init's end, so
    # a recorder's timestamps never run backwards.
    t0 = n_init if isr_set else 0
    first = handle.get(k.u32("pxCurrentTCB"))
    events.append((t0, "switch_in", names[first] if first is not None else "IDLE"))

    def switch():
        top = k.u32("uxTopReadyPriority") if a.generic else None
        k.set_u32("harness_yield_pending", 0, 0)
        _, n = k.at(t).call("vTaskSwitchContext")
        new = handle.get(k.u32("pxCurrentTCB"))
        events.append((t + n, "switch_in", names[new] if new is not None else "IDLE"))
        if a.generic:
            levels = top - k.u32("uxTopReadyPriority") + 1
        else:
            levels = ""
        switch_rows.append((levels, n))
        return n

    t = t0
    tick_no = 0
    while tick_no < a.ticks:
        next_tick = (tick_no + 1) * TICK
        cur = handle.get(k.u32("pxCurrentTCB"))
        if cur is not None and cur == h and h_ctx is not None and not h_waiting:
            # The handler task runs again: the rest of its ulTaskNotifyTake takes the
            # notification (kernel time in the task, part of its job).
            n = k.at(t).resume(h_ctx)
            h_ctx = None
            t += n
            if k.u32("harness_asserts"):
                sys.exit(f"configASSERT failed resuming {HANDLER} at tick {tick_no}")
            continue
        if cur is not None and t + remaining[cur] <= next_tick and (
                next_irq is None or t + remaining[cur] <= next_irq):
            t += remaining[cur]
            remaining[cur] = 0
            if cur == h:
                h_ctx, n = k.at(t).call_until_yield("harness_notify_take", HANDLER_SP)
                if h_ctx is None:
                    sys.exit(f"{HANDLER} did not block at tick {tick_no}")
                h_waiting = True
            else:
                _, n = k.at(t).call("harness_delay_until", cur)
            t += n
            delay_rows.append((names[cur], n))
            jobs_rows.append((names[cur], release[cur], t, t - release[cur]))
            events.append((t, "finish", names[cur]))
            if k.u32("harness_yield_pending"):
                t += switch()
            else:
                sys.exit(f"task {names[cur]} did not block at tick {tick_no}")
            continue
        if next_irq is not None and next_irq < next_tick:
            # The peripheral interrupt (a tick due at the same instant goes first).
            due = next_irq
            if cur is not None:
                remaining[cur] -= max(0, due - t)
            t = max(t, due)
            if not h_waiting:
                sys.exit(f"the interrupt at {due} found {HANDLER} still in its job")
            before = k.call("harness_blocked")[0]
            events.append((t, "isr_start", IRQ))
            r, n = k.at(t).call("harness_irq")
            t += n
            events.append((t, "isr_end", IRQ))
            if before - k.call("harness_blocked")[0] != 1:
                sys.exit(f"the interrupt at {due} did not release {HANDLER}")
            h_waiting = False
            remaining[h] = budget[h]
            release[h] = due
            events.append((due, "release", HANDLER))
            if r or k.u32("harness_yield_pending"):
                t += switch()
            if k.u32("harness_asserts"):
                sys.exit(f"configASSERT failed in the interrupt at {due}")
            next_irq = due + ISR_MIN_GAP + irq_rng.randint(0, ISR_JITTER)
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
        for i in range(ntasks):
            if periods[i] and remaining[i] == 0 and tick_no % periods[i] == 0:
                remaining[i] = job_budget(i)
                release[i] = t_tick
                events.append((t_tick, "release", names[i]))
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
    head = [
        "# Tasks A-D of Table 1 of Miranda, de Oliveira, Carminati: Analysis of FreeRTOS",
        "# Overheads on Periodic Tasks, and a handler task released by a sporadic interrupt",
        "# (run.py --set isr), on the real FreeRTOS kernel. WCET = the body's fixed budget plus",
        "# the worst measured blocking call of that task. Kernel costs: `latscope fit",
    ] if isr_set else [
        "# Ten tasks with the periods of Table 1 of Miranda, de Oliveira, Carminati: Analysis",
        "# of FreeRTOS Overheads on Periodic Tasks, rate-monotonic priorities, run on the real",
        "# FreeRTOS kernel by validation/freertos/run.sh. WCET = the body's fixed budget plus",
        "# the worst measured xTaskDelayUntil call of that task. Kernel costs: `latscope fit",
    ]
    sys_lines = head + [
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
    for i in range(ntasks):
        mine = [r for r in jobs_rows if r[0] == names[i]]
        worst = max(mine, key=lambda r: (r[3], -r[1]))
        worst = next(r for r in mine if r[3] == worst[3])
        delay = max(n for name, n in delay_rows if name == names[i])
        worst_rows.append((names[i], prio[i], periods[i] or "", budget[i], delay, len(mine), worst[3], worst[1]))
        arrival = f'period = "{periods[i]}ms"' if periods[i] else f'min_interarrival = "{ISR_MIN_GAP} cycles"'
        sys_lines += [
            "",
            "[[task]]",
            f'name = "{names[i]}"',
            arrival,
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
    print("budgets (cycles):", dict(zip(names, budget)), "priorities:", dict(zip(names, prio)))


if __name__ == "__main__":
    main()
