//! Seed 002: Linux wake-up latency, naive Python sleep loop on a Raspberry Pi 4 — run live
//! on the machine latscope runs on.

use crate::{Info, Options, Outcome, ScenarioError};

pub const INFO: Info = Info {
    name: "linux-wakeup",
    title:
        "Linux timer wake-up latency: naive sleep vs absolute RT, sleep sweep, idle vs 30 CPU hogs",
    seed: "seed 002",
    summary: "live on this machine, with the environment diagnosis",
    live: true,
};

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let out = Outcome::new(&INFO, opts);
    Ok(out)
}
