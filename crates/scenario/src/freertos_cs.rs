//! Seed 001, Table 3 / Table 4: the FreeRTOS context switch's cost grows with the
//! priority levels `taskSELECT_HIGHEST_PRIORITY_TASK` scans (generic task selection).

use crate::{Info, Options, Outcome, Row, ScenarioError};
use latscope_model::overheads::tick::levels_scanned;
use latscope_model::system::{KernelCosts, System};

pub const INFO: Info = Info {
    name: "freertos-context-switch",
    title: "FreeRTOS context-switch cost by priority levels scanned (Table 3, Table 4)",
    seed: "seed 001",
    summary: "switch cost model fitted on Table 4, loop counts of every switch pair, simulated switch census",
    live: false,
};

const NAME: &str = "freertos-context-switch";
pub(crate) const SYSTEM: &str =
    include_str!("../../../scenarios/freertos-context-switch/system.toml");

/// A switch from one task to another, by name.
type Pair = (&'static str, &'static str);

/// Table 4: loop iterations, measured worst switch time (us), and the switches listed.
pub(crate) const TABLE4: [(u32, f64, &[Pair]); 5] = [
    (
        1,
        1.5,
        &[
            ("A", "B"),
            ("B", "A"),
            ("B", "C"),
            ("C", "A"),
            ("C", "B"),
            ("C", "D"),
            ("D", "A"),
            ("D", "B"),
            ("D", "C"),
            ("IDLE", "A"),
            ("IDLE", "B"),
            ("IDLE", "C"),
            ("IDLE", "D"),
        ],
    ),
    (2, 2.875, &[("A", "C"), ("B", "D")]),
    (3, 3.255, &[("A", "D"), ("D", "IDLE")]),
    (4, 3.875, &[("B", "IDLE"), ("C", "IDLE")]),
    (5, 4.375, &[("A", "IDLE")]),
];

pub(crate) fn system() -> Result<System, ScenarioError> {
    crate::load_system(NAME, SYSTEM)
}

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let sys = system()?;
    let mut out = Outcome::new(&INFO, opts);
    let KernelCosts::Tick(c) = sys.kernel.costs else {
        return Err(crate::run_err(NAME)(
            "system.toml does not use the tick model",
        ));
    };
    for (k, us, _) in TABLE4 {
        out.rows.push(
            Row::input(
                &format!("switch with {k} loop iteration(s)"),
                us,
                c.switch_cost(k).as_us_f64(),
                "us",
            )
            .source("seed 001, Table 4")
            .method("least-squares line over Table 4 (calibration)"),
        );
    }
    // The loop-count rule (from - to going down, 1 going up) against the pairs of Table 4.
    let prio = |n: &str| -> u32 {
        sys.tasks
            .iter()
            .find(|t| t.name == n)
            .map(|t| t.priority)
            .unwrap_or(0)
    };
    let mut listed = 0;
    let mut matching = 0;
    let mut mismatches = Vec::new();
    for (k, _, pairs) in TABLE4 {
        for (from, to) in pairs {
            listed += 1;
            let got = levels_scanned(prio(from), prio(to));
            if got == k {
                matching += 1;
            } else {
                mismatches.push(format!("CS({from},{to}): rule {got}, Table 4 {k}"));
            }
        }
    }
    out.rows.push(
        Row::prediction(
            "Table 4 switches whose loop count the from−to rule gives",
            listed as f64,
            matching as f64,
            "pairs",
            0.15,
        )
        .source("seed 001, Table 4 (20 switches listed)")
        .method("levels_scanned(from, to) with Table 3 priorities, idle = 0"),
    );
    if !mismatches.is_empty() {
        out.notes.push(format!(
            "Table 4 is not fully consistent with its own rule ('subtracting the priority'): {}. latscope keeps the rule.",
            mismatches.join("; ")
        ));
    }
    crate::simulated::freertos_cs(&sys, opts, &mut out)?;
    Ok(out)
}
