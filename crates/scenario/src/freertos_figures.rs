//! The published figures of Miranda, de Oliveira, Carminati: "Analysis of FreeRTOS
//! Overheads on Periodic Tasks", shared by the tick and the context-switch scenarios.

use crate::documents::FREERTOS;
use crate::row::{Figure, Figures};

const fn fig(id: &'static str, value: f64, unit: &'static str, place: &'static str) -> Figure {
    Figure::new(id, value, unit, place)
}

pub(crate) const FIGURES: &[Figure] = &[
    fig("L", 12.0, "cycles", "section 5.3 (interrupt latency L of the Cortex-M4)"),
    fig("clock", 84.0, "MHz", "section 4 (test frequency fixed at 84 MHz)"),
    fig("Table 1", 10.0, "tasks", "Table 1 (ten periodic tasks, 5 to 50 ms, priority 2)"),
    fig("Table 3", 4.0, "tasks", "Table 3 (tasks A-D, 5-8 ms, priorities 6-3, idle 0)"),
    fig("tick best case", 1.5, "us", "section 7.1 ('Best-Case Execution Time is approximately 1.5 us')"),
    fig("tick mode", 1.5, "us", "section 7.1 (the most frequent value of the samples, 1.5 us)"),
    fig("insertion", 3.7, "us", "section 7.1 ('the worst measured value to introduce this task into its respective ready list is 3.7 us')"),
    fig("ten insertions", 37.0, "us", "section 7.1 ('if each pseudo-task has 3.7 us, the total overhead on Tick is 37 us')").from(&["insertion", "Table 1"]),
    fig("tick WCET", 60.75, "us", "section 7.1 and Figure 4 ('observed WCET of Tick for ten tasks is approximately 60.75 us')"),
    fig("gap", 22.07, "us", "section 7.1 ('the estimated overhead differs 22.07 us from the Tick Worst-Case measured time')").from(&["tick WCET", "tick mode", "ten insertions"]),
    fig("pseudo-task", 5.9, "us", "section 7.1 ('each pseudo-task takes 5.9 us')").from(&["insertion", "Table 2 share"]),
    fig("Table 2 share", 2.207, "us", "Table 2 (C = (3.7 + 2.207) us per pseudo-task)").from(&["gap", "Table 1"]),
    fig("Figure 4 peaks", 6.0, "peaks", "Figure 4 ('six execution peaks' in 250 s, 'caused by the simultaneous arrival of all tasks')"),
    fig("peaks at critical instant", 1.0, "yes=1", "section 7.1 (the peaks are 'caused by the simultaneous arrival of all tasks')"),
    fig("mode is idle tick", 1.0, "yes=1", "section 7.1 (the mode is 1.5 us 'because no task is unblocked or arrives')"),
    fig("partitioning less pessimistic", 1.0, "yes=1", "sections 5.3 and 8 (pseudo-tasks 'reduce the pessimism of the analysis')"),
    fig("Table 4, 1 iteration", 1.5, "us", "Table 4 (1 loop iteration, about 1.5 us)"),
    fig("Table 4, 2 iterations", 2.875, "us", "Table 4 (2 loop iterations: CS(A,C), CS(B,D), about 2.875 us)"),
    fig("Table 4, 3 iterations", 3.255, "us", "Table 4 (3 loop iterations: CS(A,D), CS(D,IDLE), about 3.255 us)"),
    fig("Table 4, 4 iterations", 3.875, "us", "Table 4 (4 loop iterations: CS(B,IDLE), CS(C,IDLE), about 3.875 us)"),
    fig("Table 4, 5 iterations", 4.375, "us", "Table 4 (5 loop iterations: CS(A,IDLE), about 4.375 us)"),
    fig("Table 4 pairs", 20.0, "pairs", "Table 4 (20 switches listed with their loop iterations)"),
    fig("loop rule", 1.0, "yes=1", "section 7.2 (loops = priority of the leaving task minus that of the arriving one; 1 going up)"),
    fig("costliest switch", 1.0, "yes=1", "sections 6.2 and 8 (worst switch: from the highest-priority task to the idle task)"),
    fig("distinct A", 5.0, "times", "section 7.2 ('Task A has five distinct context switch times')"),
    fig("distinct B", 6.0, "times", "section 7.2 ('Task B presents six different execution times')"),
    fig("distinct C", 6.0, "times", "section 7.2 ('Task C presents six different execution times')"),
];

pub(crate) fn figures() -> Figures {
    Figures {
        doc: &FREERTOS,
        list: FIGURES,
    }
}
