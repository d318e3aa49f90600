//! Suutari, "Tickless scheduling latency": pico]OS on an STM32F411 (EMW3165).
//!
//! The document reads component times off a logic analyzer (SysTick handler, PendSV,
//! CPU wake-up, HSE oscillator restart, the longer switch after wake-up) and adds them
//! up itself: the 8 us and 807 us latencies and the "100 times" are its own sums, so
//! latscope's are `derived`. Its yes/no observations (timers stay on time thanks to the
//! RTC wake-up's safety margin, interrupts nobody can predict pay the whole wake-up) hold
//! in latscope's model by construction: the margin in system.toml was set to cover the
//! wake-up it is then said to cover. So they are findings, and the document offers
//! nothing latscope can predict independently: the scenario says so.

use crate::documents::TICKLESS;
use crate::row::{Figure, Figures};
use crate::simulated::{
    irq_to_task_us, max_response_us, report_json, simulate, typical_tick_to_task_us, write_vcd,
};
use crate::{run_err, Info, Options, Outcome, ScenarioError};
use latscope_core::Picos;
use latscope_model::system::{KernelCosts, System};
use latscope_sim::FromSystemOptions;

pub const INFO: Info = Info {
    name: "tickless-idle",
    title: "Interrupt-to-task latency with the tick running and in tickless sleep",
    document: &TICKLESS,
    summary: "SysTick + PendSV path vs CPU wake + HSE restart + switch; timers kept on time by the RTC wake-up's safety margin",
    live: false,
};

const NAME: &str = "tickless-idle";
pub(crate) const SYSTEM: &str = include_str!("../../../scenarios/tickless-idle/system.toml");

const fn fig(id: &'static str, value: f64, unit: &'static str, place: &'static str) -> Figure {
    Figure::new(id, value, unit, place)
}

pub(crate) const FIGURES: &[Figure] = &[
    fig("SysTick", 5.0, "us", "tick running ('SysTick interrupt handler seems to execute under 5 microseconds')"),
    fig("PendSV", 3.5, "us", "tick running ('PendSV handler that does the context switch in this case takes 3.5 microseconds')"),
    fig("tick latency", 8.0, "us", "tick running ('a little more than 8 microseconds' from interrupt to task)").from(&["SysTick", "PendSV"]),
    fig("CPU wake", 80.0, "us", "tickless ('80 us for CPU to start up from sleep')"),
    fig("HSE restart", 720.0, "us", "tickless ('720 us for HSE oscillator to restart')"),
    fig("switch after wake", 6.6, "us", "tickless ('Context switch to application task takes 6.6 us')"),
    fig("extra SVCall", 1.0, "yes=1", "tickless (6.6 us is 'a little bit longer ... needing an extra SVCall interrupt')"),
    fig("tickless latency", 807.0, "us", "tickless ('the worst case latency is about 807 us')").from(&["CPU wake", "HSE restart", "switch after wake"]),
    fig("100 times", 100.0, "x", "tickless ('100 times more than in previous case')").from(&["tickless latency", "tick latency"]),
    fig("RTC margin", 1.0, "yes=1", "safety margin ('it always wakes up a few ticks too early, giving HSE oscillator time to startup')"),
    fig("timers unaffected", 1.0, "yes=1", "safety margin ('doesn't hurt timer operations much')"),
    fig("interrupts pay", 1.0, "yes=1", "safety margin ('extra latency is present on other interrupts, because there is no way to predict them')"),
];

fn figures() -> Figures {
    Figures {
        doc: &TICKLESS,
        list: FIGURES,
    }
}

/// "Doesn't hurt timer operations much": within 1 % of the 807 us wake-up latency.
const TIMER_TOLERANCE_US: f64 = 8.07;

pub(crate) fn system() -> Result<System, ScenarioError> {
    crate::load_system(NAME, SYSTEM)
}

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let f = figures();
    let sys = system()?;
    let mut out = Outcome::new(&INFO, f.list, opts);
    let KernelCosts::Tick(c) = sys.kernel.costs else {
        return Err(run_err(NAME)("system.toml does not use the tick model"));
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
    out.rows.push(
        f.input("SysTick handler", "SysTick", c.tick_cost(1).as_us_f64())
            .method("system.toml tick_base (the upper bound 'under 5 us')"),
    );
    out.rows.push(
        f.input(
            "PendSV context switch, tick running",
            "PendSV",
            c.optimised_switch_cost().as_us_f64(),
        )
        .method("system.toml switch_optimised"),
    );
    out.rows
        .push(f.input("CPU start-up from sleep", "CPU wake", part("cpu_wake")));
    out.rows.push(f.input(
        "HSE oscillator restart",
        "HSE restart",
        part("oscillator_restart"),
    ));
    out.rows.push(f.input(
        "context switch after wake-up",
        "switch after wake",
        part("context_switch"),
    ));
    out.rows.push(
        f.derived(
            "switch after wake-up is longer (extra SVCall), 1 = yes",
            "extra SVCall",
            if part("context_switch") > c.optimised_switch_cost().as_us_f64() {
                1.0
            } else {
                0.0
            },
            &["switch after wake", "PendSV"],
        )
        .method(&format!(
            "6.6 us against 3.5 us: the deferred switch's extra SVCall costs {:.1} us",
            part("context_switch") - c.optimised_switch_cost().as_us_f64()
        )),
    );

    // The document's own sums: L + SysTick + L + PendSV, and L + wake parts.
    let running = l + c.tick_cost(1) + l + c.optimised_switch_cost();
    out.rows.push(
        f.derived(
            "interrupt-to-task latency, tick running",
            "tick latency",
            running.as_us_f64(),
            &["SysTick", "PendSV"],
        )
        .method("model: L + SysTick + L + PendSV (the document added 5 + 3.5)"),
    );
    let asleep = sleep.wake_latency() + l;
    out.rows.push(
        f.derived(
            "worst interrupt-to-task latency in tickless sleep",
            "tickless latency",
            asleep.as_us_f64(),
            &["CPU wake", "HSE restart", "switch after wake"],
        )
        .method("model: L + CPU wake + HSE restart + switch (the document's sum)"),
    );
    out.rows.push(
        f.derived(
            "tickless / tick-running latency ratio",
            "100 times",
            asleep.0 as f64 / running.0 as f64,
            &[
                "CPU wake",
                "HSE restart",
                "switch after wake",
                "SysTick",
                "PendSV",
            ],
        )
        .method("ratio of the two sums above"),
    );
    let tick = sys.kernel.tick_period();
    out.rows.push(
        f.finding(
            "the RTC wake-up's margin covers the HSE restart (by construction: the margin was set to cover it)",
            "RTC margin",
            sleep.timed_lateness(tick).0 == 0,
            &["CPU wake", "HSE restart", "switch after wake"],
        )
        .method(&format!(
            "model: wake latency {:.1} us <= margin {} tick(s) x {:.0} us",
            sleep.wake_latency().as_us_f64(),
            sleep.safety_margin_ticks,
            tick.as_us_f64()
        )),
    );
    simulated(&sys, opts, &mut out)?;
    out.notes.push(
        "Nothing here is a prediction: every figure of the note is a component read off the \
         analyzer (an input), the note's own sum of components (derived), or a yes/no that \
         latscope's model gives by construction (the wake-up margin in system.toml was set to \
         cover the 807 us wake-up, so timers are on time and unforeseen interrupts pay the \
         whole wake-up). The scenario shows the model assembled from the note; it proves \
         nothing beyond the note's arithmetic."
            .into(),
    );
    Ok(out)
}

fn simulated(sys: &System, opts: &Options, out: &mut Outcome) -> Result<(), ScenarioError> {
    let f = figures();
    let dur = Picos::from_ms(if opts.quick { 3_000 } else { 30_000 });
    let running = simulate(
        NAME,
        sys,
        &FromSystemOptions {
            no_tickless: true,
            ..Default::default()
        },
        dur,
        false,
    )?;
    let sleeping = simulate(
        NAME,
        sys,
        &FromSystemOptions::default(),
        dur,
        opts.out_dir.is_some(),
    )?;
    let (r1, r2) = (running.report(), sleeping.report());
    let extra_timer = max_response_us(&r2, "app") - max_response_us(&r1, "app");
    let wake = [
        "CPU wake",
        "HSE restart",
        "switch after wake",
        "SysTick",
        "PendSV",
    ];
    out.rows.push(
        f.finding(
            "timers on time in tickless mode (simulated)",
            "timers unaffected",
            extra_timer <= TIMER_TOLERANCE_US,
            &wake,
        )
        .method(&format!(
            "worst response of the 150 ms timer task, tickless minus tick running: {extra_timer:.3} us (yes when within 1 % of the 807 us wake-up)"
        )),
    );
    let irq_running = irq_to_task_us(&r1, sys, "irq_task");
    let irq_asleep = irq_to_task_us(&r2, sys, "irq_task");
    out.rows.push(
        f.finding(
            "interrupts arriving in sleep pay the whole wake-up (simulated)",
            "interrupts pay",
            irq_asleep - irq_running >= 720.0,
            &wake,
        )
        .method(&format!(
            "worst interrupt-to-task latency {irq_asleep:.1} us in tickless mode, {irq_running:.1} us with the tick running (yes when at least the HSE restart apart)"
        )),
    );
    out.rows.push(
        f.derived(
            "interrupt-to-task latency, tick running (simulated)",
            "tick latency",
            typical_tick_to_task_us(&r1, sys, "app"),
            &["SysTick", "PendSV"],
        )
        .method(
            "simulation without tickless idle: median response of the timer task minus its WCET",
        ),
    );
    out.rows.push(
        f.derived(
            "worst interrupt-to-task latency in tickless sleep (simulated)",
            "tickless latency",
            irq_asleep,
            &["CPU wake", "HSE restart", "switch after wake"],
        )
        .method("simulation with tickless idle: interrupts arrive while the CPU sleeps"),
    );
    out.notes.push(format!(
        "Simulated {} s in tickless mode: {} sleeps, {} RTC (timer) wake-ups, {} interrupt wake-ups; the timer task's worst response grew by {:.3} us.",
        dur.as_secs_f64(),
        r2.sleep.sleeps,
        r2.sleep.timer_wakeups,
        r2.sleep.interrupt_wakeups,
        extra_timer
    ));
    out.notes.push(
        "The document's test toggles power saving on every 150 ms pass; latscope runs the two modes as two simulations. Its clock and tick rate are not stated: 96 MHz and a 1 ms tick are assumed (they only set L = 12 cycles = 0.125 us and the margin's length).".into(),
    );
    write_vcd(NAME, &sleeping, opts, out, "tickless.vcd")?;
    out.results.push(report_json(NAME, &running, 500)?);
    out.results.push(report_json(NAME, &sleeping, 500)?);
    Ok(())
}
