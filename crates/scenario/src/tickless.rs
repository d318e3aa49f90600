//! Seed 000, "Tickless scheduling latency": pico]OS on an STM32F411.
//!
//! Inputs are the document's component readings (SysTick handler, PendSV, CPU wake,
//! HSE oscillator restart, the longer switch after wake-up). Predictions are the
//! end-to-end latencies the document read off its logic analyzer, computed from the
//! components by the model and by the simulator.

use crate::{Info, Options, Outcome, Row, ScenarioError};
use latscope_model::system::{KernelCosts, System};

pub const INFO: Info = Info {
    name: "tickless-idle",
    title: "Interrupt-to-task latency with the tick running and in tickless sleep",
    seed: "seed 000",
    summary: "SysTick + PendSV path vs CPU wake + HSE restart + switch; timers kept on time by the safety margin",
    live: false,
};

const NAME: &str = "tickless-idle";
pub(crate) const SYSTEM: &str = include_str!("../../../scenarios/tickless-idle/system.toml");

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
    let sleep = sys
        .kernel
        .sleep_states
        .first()
        .ok_or(ScenarioError::Bundled {
            scenario: NAME,
            file: "system.toml",
            message: "no [[kernel.sleep_state]]".into(),
        })?;
    let l = sys.platform.irq_entry();
    let part = |name: &str| {
        sleep
            .parts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_us_f64())
            .unwrap_or(f64::NAN)
    };
    let src = "seed 000";
    out.rows.push(
        Row::input("SysTick handler", 5.0, c.tick_cost(1).as_us_f64(), "us")
            .source(src)
            .method("given (upper bound 'under 5 us')"),
    );
    out.rows.push(
        Row::input(
            "PendSV context switch, tick running",
            3.5,
            c.optimised_switch_cost().as_us_f64(),
            "us",
        )
        .source(src)
        .method("given"),
    );
    out.rows.push(
        Row::input("CPU start-up from sleep", 80.0, part("cpu_wake"), "us")
            .source(src)
            .method("given"),
    );
    out.rows.push(
        Row::input(
            "HSE oscillator restart",
            720.0,
            part("oscillator_restart"),
            "us",
        )
        .source(src)
        .method("given"),
    );
    out.rows.push(
        Row::input(
            "context switch after wake-up",
            6.6,
            part("context_switch"),
            "us",
        )
        .source(src)
        .method("given"),
    );

    // Model: the interrupt is served by the tick handler, which readies the task; the
    // deferred switch runs right after: L + C_tick + L + C_cs.
    let running = l + c.tick_cost(1) + l + c.optimised_switch_cost();
    out.rows.push(
        Row::prediction(
            "interrupt-to-task latency, tick running",
            8.0,
            running.as_us_f64(),
            "us",
            0.15,
        )
        .source("seed 000 ('a little more than 8 microseconds')")
        .method("model: L + SysTick + L + PendSV"),
    );
    let asleep = sleep.wake_latency() + l;
    out.rows.push(
        Row::prediction(
            "worst interrupt-to-task latency in tickless sleep",
            807.0,
            asleep.as_us_f64(),
            "us",
            0.05,
        )
        .source("seed 000 ('about 807 us')")
        .method("model: L + CPU wake + HSE restart + switch"),
    );
    out.rows.push(
        Row::prediction(
            "tickless / tick-running latency ratio",
            100.0,
            asleep.0 as f64 / running.0 as f64,
            "x",
            0.15,
        )
        .source("seed 000 ('100 times more')")
        .method("ratio of the two predictions above"),
    );
    let tick = sys.kernel.tick_period();
    out.rows.push(
        Row::prediction_abs(
            "timers on time in tickless mode, safety margin on (1 = yes)",
            1.0,
            if sleep.timed_lateness(tick).0 == 0 {
                1.0
            } else {
                0.0
            },
            "yes=1",
            0.0,
        )
        .source("seed 000 ('doesn't hurt timer operations')")
        .method("model: max(0, wake latency - margin ticks x tick) is zero"),
    );
    out.notes.push(format!(
        "Without the safety margin a timed wake-up would be {:.1} us late: the margin of {} tick(s) hides the whole wake-up from timers, but not from interrupts nobody can predict.",
        sleep.wake_latency().as_us_f64(),
        sleep.safety_margin_ticks
    ));
    crate::simulated::tickless(&sys, opts, &mut out)?;
    Ok(out)
}
