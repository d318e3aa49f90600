#!/usr/bin/env python3
"""Run the real FreeRTOS kernel (built by run.sh into an ARM ELF) instruction by instruction
in unicorn and record what latscope needs to check its calibration and analysis:

* ticks.csv      one row per tick: tasks released, instructions of xTaskIncrementTick
* switches.csv   one row per vTaskSwitchContext: levels scanned, instructions
* delays.csv     one row per xTaskDelayUntil call (through the harness): instructions
* jobs.csv       one row per job: task, release and finish instant (cycles), response

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
            for s in elf.get_section_by_name(".symtab").iter_symbols():
                if s.name:
                    self.sym[s.name] = s["st_value"]
        self.count = 0
        self.uc.hook_add(UC_HOOK_CODE, self._hook)

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
        uc.emu_start(self.sym[name] | 1, STOP)
        return uc.reg_read(UC_ARM_REG_R0), self.count - start

    def u32(self, name, index=0):
        return int.from_bytes(self.uc.mem_read(self.sym[name] + 4 * index, 4), "little")

    def set_u32(self, name, index, value):
        self.uc.mem_write(self.sym[name] + 4 * index, value.to_bytes(4, "little"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("elf")
    ap.add_argument("out_dir")
    ap.add_argument("--ticks", type=int, default=41_400, help="ticks to run (41,400 = one hyperperiod)")
    ap.add_argument("--generic", action="store_true", help="generic task selection (levels from uxTopReadyPriority)")
    ap.add_argument("--vary", type=int, metavar="SEED",
                    help="each job runs a uniformly random 50-100 %% of its budget (seeded), not all of it")
    a = ap.parse_args()
    k = Kernel(a.elf)
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
    rng = random.Random(a.vary)

    def job_budget(i):
        return budget[i] if a.vary is None else rng.randint(budget[i] // 2, budget[i])

    for i in range(10):
        remaining[i] = job_budget(i)

    def switch():
        top = k.u32("uxTopReadyPriority") if a.generic else None
        k.set_u32("harness_yield_pending", 0, 0)
        _, n = k.call("vTaskSwitchContext")
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
            _, n = k.call("harness_delay_until", cur)
            t += n
            delay_rows.append((NAMES[cur], n))
            jobs_rows.append((NAMES[cur], release[cur], t, t - release[cur]))
            if k.u32("harness_yield_pending"):
                t += switch()
            else:
                sys.exit(f"task {NAMES[cur]} did not block at tick {tick_no}")
            continue
        if cur is not None:
            remaining[cur] -= next_tick - t
        t = max(t, next_tick)
        before = k.call("harness_blocked")[0]
        r, n = k.call("xTaskIncrementTick")
        tick_no += 1
        released = before - k.call("harness_blocked")[0]
        tick_rows.append((released, n))
        t_tick = next_tick
        t += n
        # a task released at this tick: its new job starts now
        for i in range(10):
            if remaining[i] == 0 and tick_no % PERIODS_MS[i] == 0:
                remaining[i] = job_budget(i)
                release[i] = t_tick
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
