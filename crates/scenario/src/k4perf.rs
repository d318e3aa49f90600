//! "K4perf": interrupt-to-actor activation of the message-passing kernel-v4 on an RP2350
//! at 125 MHz.
//!
//! The document measured twice: cycle counts with the DWT counter, and times with an
//! oscilloscope. The cycle counts are inputs and their conversion to time is the
//! document's own arithmetic (`derived`). The oscilloscope readings agree with the cycle
//! counts, a cross-check the document itself made ("these measurements jibe well"):
//! latscope's rows on them are `check`s, not predictions. The cold-cache path is
//! predicted from the warm path's parts, scaled by one cold factor calibrated on the
//! handler alone, with the tolerance the document's figures allow.

use crate::documents::K4PERF;
use crate::row::{Figure, Figures};
use crate::simulated::{irq_to_task_us, report_json, simulate, write_vcd};
use crate::{Info, Options, Outcome, ScenarioError};
use latscope_core::Picos;
use latscope_model::overheads::irqpath::IrqPathCosts;
use latscope_model::system::{CacheState, KernelCosts, Platform, System};
use latscope_sim::FromSystemOptions;

pub const INFO: Info = Info {
    name: "k4perf",
    title: "Interrupt-to-actor activation in cycles and time (kernel-v4, RP2350 at 125 MHz)",
    document: &K4PERF,
    summary: "cycle model vs oscilloscope, cold path predicted from the warm parts, troublemaker simulated",
    live: false,
};

const NAME: &str = "k4perf";
pub(crate) const SYSTEM: &str = include_str!("../../../scenarios/k4perf/system.toml");

const fn fig(id: &'static str, value: f64, unit: &'static str, place: &'static str) -> Figure {
    Figure::new(id, value, unit, place)
}

pub(crate) const FIGURES: &[Figure] = &[
    fig("clock", 125.0, "MHz", "Results ('The RP2350 MCU runs at 125 MHz')"),
    fig("entry", 12.0, "cycles", "footnote 1 (Cortex-M33 hardware interrupt latency, 12 clock cycles)"),
    fig("prologue cycles", 26.0, "cycles", "cross check ('right after the handler prologue, there are 26 clock cycles')"),
    fig("prologue ns", 208.0, "ns", "cross check ('26 clock cycles, ie. 208 nanoseconds')").from(&["prologue cycles", "clock"]),
    fig("GPIO cycles", 29.0, "cycles", "cross check ('right after the GPIO pin is set high by the handler, we get 29 cycles')"),
    fig("GPIO ns", 232.0, "ns", "cross check ('29 cycles, ie. 232 nanoseconds')").from(&["GPIO cycles", "clock"]),
    fig("actor cycles", 281.0, "cycles", "cross check ('the activated actor is 281 clock cycles')"),
    fig("actor us", 2.25, "us", "cross check ('281 clock cycles, ie. 2.25 microseconds')").from(&["actor cycles", "clock"]),
    fig("scope handler", 230.0, "ns", "oscilloscope, red trace ('about 230 nanoseconds')"),
    fig("scope actor", 2.3, "us", "oscilloscope, blue trace ('about 2.3 microseconds')"),
    fig("cold handler", 3.3, "us", "flash cache impact ('The raw interrupt latency is now over 3.3 microseconds')"),
    fig("cold actor", 29.0, "us", "flash cache impact ('actor activation nearly takes 29 microseconds')"),
    fig("dispatching actor", 3.1, "us", "non-minimalistic interrupt handler ('the actor is activated only after just above 3.1 microseconds')"),
    fig("dispatching latency same", 1.0, "yes=1", "non-minimalistic interrupt handler ('the interrupt latency stays the same')"),
    fig("non-secure entry", 21.0, "cycles", "footnote 1 ('the hardware latency would be 21 cycles due to the extended stacking')"),
    fig("non-secure wash", 1.0, "yes=1", "footnote 1 ('the procedure prologue would not need to push all the additional registers, so it would be a wash')"),
    fig("troublemaker", 1.0, "yes=1", "the troublemaker ('has no impact on the above measurements')"),
];

fn figures() -> Figures {
    Figures {
        doc: &K4PERF,
        list: FIGURES,
    }
}

/// Cycles the handler spends from its first useful instruction to the GPIO write
/// (29 - 26 in the document's DWT counts).
const GPIO_SET_CYCLES: u64 = 3;

pub(crate) fn system() -> Result<System, ScenarioError> {
    crate::load_system(NAME, SYSTEM)
}

pub fn run(opts: &Options) -> Result<Outcome, ScenarioError> {
    let f = figures();
    let sys = system()?;
    let mut out = Outcome::new(&INFO, f.list, opts);
    let KernelCosts::Irqpath(c) = &sys.kernel.costs else {
        return Err(crate::run_err(NAME)(
            "system.toml does not use the irqpath model",
        ));
    };
    let p = &sys.platform;
    warm_rows(&f, p, c, &mut out);
    cold_rows(&f, p, c, &mut out);
    dispatching_rows(&f, p, c, &mut out);
    non_secure_rows(&f, &mut out);
    simulated(&sys, opts, &mut out)?;
    Ok(out)
}

/// The warm path in cycles and time (system.toml against the document's DWT counts),
/// and the document's own cross-check against the oscilloscope.
fn warm_rows(f: &Figures, p: &Platform, c: &IrqPathCosts, out: &mut Outcome) {
    let entry = p.irq_entry_in(CacheState::Warm);
    let cyc = |t: Picos| t.0 as f64 * p.cpu_hz as f64 / 1e12;
    let warm = c.stage(false);
    let useful = warm.handler_latency(entry);
    let gpio = useful + p.cycles(GPIO_SET_CYCLES);
    let actor = warm.activation_latency(entry);
    out.rows
        .push(f.input("CPU clock", "clock", p.cpu_hz as f64 / 1e6));
    out.rows.push(f.input(
        "hardware interrupt entry (Cortex-M33, secure)",
        "entry",
        p.irq_entry_cycles as f64,
    ));
    out.rows.push(
        f.input("handler useful work starts", "prologue cycles", cyc(useful))
            .method("system.toml: entry + prologue"),
    );
    out.rows.push(
        f.input("handler GPIO set", "GPIO cycles", cyc(gpio))
            .method("system.toml: entry + prologue + 3 cycles"),
    );
    out.rows.push(
        f.input("actor ah runs", "actor cycles", cyc(actor))
            .method("system.toml: entry + prologue + send + dispatch"),
    );
    for (words, id, t, from) in [
        (
            "end of the handler prologue",
            "prologue ns",
            useful,
            "prologue cycles",
        ),
        ("handler GPIO set", "GPIO ns", gpio, "GPIO cycles"),
    ] {
        out.rows.push(
            f.derived(words, id, t.as_ns_f64(), &[from, "clock"])
                .method("cycles / 125 MHz (the document's conversion)"),
        );
    }
    out.rows.push(
        f.derived(
            "actor ah runs",
            "actor us",
            actor.as_us_f64(),
            &["actor cycles", "clock"],
        )
        .method("cycles / 125 MHz (the document's conversion)"),
    );
    out.rows.push(
        f.check(
            "handler GPIO set, oscilloscope",
            "scope handler",
            gpio.as_ns_f64(),
            &["GPIO cycles", "clock"],
        )
        .method("DWT cycle model at 125 MHz against the oscilloscope: the document's own cross-check of its two instruments, redone"),
    );
    out.rows.push(
        f.check(
            "actor activation, oscilloscope",
            "scope actor",
            actor.as_us_f64(),
            &["actor cycles", "clock"],
        )
        .method("DWT cycle model at 125 MHz against the oscilloscope: the document's own cross-check of its two instruments, redone"),
    );
}

/// Cold cache: one factor (cold time per warm cycle) calibrated on the handler's GPIO
/// set, applied to every part of the path (system.toml's cold stage).
fn cold_rows(f: &Figures, p: &Platform, c: &IrqPathCosts, out: &mut Outcome) {
    let cold = c.stage(true);
    let cold_entry = p.irq_entry_in(CacheState::Cold);
    let per_cycle = 3.3 / 29.0;
    // The one tolerance rule: the document's resolution. "Over 3.3 us" is read to 0.1 us
    // (±0.05 us) and the factor carries it to every one of the path's 281 warm cycles
    // (281 / 29 times); "nearly 29 us" is read to whole microseconds (±0.5 us).
    let carried = 0.05 * 281.0 / 29.0;
    let cold_tol = carried + 0.5;
    let cold_why = format!(
        "±{cold_tol:.2} us: the handler's 'over 3.3 us' is read to 0.1 us (±0.05 us), and the \
         one cold factor carries that to the actor's 281 warm cycles (x 281/29 = ±{carried:.2} \
         us); the actor's 'nearly 29 us' is given to whole microseconds (±0.5 us)"
    );
    out.rows.push(
        f.input(
            "cold cache: raw interrupt latency (GPIO set)",
            "cold handler",
            cold.handler_latency(cold_entry).as_us_f64() + GPIO_SET_CYCLES as f64 * per_cycle,
        )
        .method(&format!(
            "system.toml cold stage: every warm cycle costs 3.3 us / 29 = {:.4} us cold",
            per_cycle
        )),
    );
    out.rows.push(
        f.prediction_abs(
            "cold cache: actor activation",
            "cold actor",
            cold.activation_latency(cold_entry).as_us_f64(),
            cold_tol,
            &["cold handler", "GPIO cycles", "actor cycles", "entry"],
        )
        .tolerance_because(&cold_why)
        .method("system.toml cold stage: the warm parts (12 + 14 + 203 + 52 cycles) scaled by the factor calibrated on the handler"),
    );
    if let Some(r) = out.rows.last_mut().filter(|r| r.is_miss()) {
        r.explanation = Some(
            "One cold factor per warm cycle overshoots although the document's words bound the \
             figure from the other side (the handler 'over' 3.3 us, the actor 'nearly' 29 us): \
             cold cost is paid per flash cache line fetched, not per cycle, and the kernel's \
             send and dispatch code reuses lines more than the handler's first instructions do."
                .into(),
        );
    }
}

/// The dispatching handler (pinHandler2): 3.1 - 2.3 us of pin dispatch, as the figures
/// imply, is handler work after the prologue, before the send.
fn dispatching_rows(f: &Figures, p: &Platform, c: &IrqPathCosts, out: &mut Outcome) {
    let entry = p.irq_entry_in(CacheState::Warm);
    let warm = c.stage(false);
    let actor = warm.activation_latency(entry);
    let extra = Picos::from_ns(800);
    let dispatching = latscope_model::overheads::irqpath::IrqPathStage {
        send: warm.send + extra,
        ..*warm
    };
    let same = dispatching.handler_latency(entry) == warm.handler_latency(entry)
        && dispatching.activation_latency(entry) > actor;
    out.rows.push(
        f.finding(
            "dispatching handler: interrupt latency unchanged (by construction: the extra work follows the GPIO set)",
            "dispatching latency same",
            same,
            &["prologue cycles", "GPIO cycles", "scope actor", "dispatching actor"],
        )
        .method(&format!(
            "model: the warm path with 0.8 us more handler work before the send; handler latency {:.0} ns either way, activation {:.3} us",
            dispatching.handler_latency(entry).as_ns_f64(),
            dispatching.activation_latency(entry).as_us_f64()
        )),
    );
    out.rows.push(f.not_compared(
        "dispatching handler: actor activation",
        "dispatching actor",
        &["actor cycles", "clock"],
        "The document names pinHandler2 but does not list its code, and its time is the only \
         figure about it: no per-part or per-instruction cost of the minimal handler says how \
         long finding the pin takes. What the figures imply: 3.1 - 2.3 = 0.8 us, about 100 \
         cycles at 125 MHz, of extra handler work before the message is sent.",
    ));
}

/// The non-secure handler's entry, and why the document's figures cannot settle whether
/// it reaches useful work as early.
fn non_secure_rows(f: &Figures, out: &mut Outcome) {
    out.rows.push(f.input(
        "hardware entry, non-secure handler",
        "non-secure entry",
        21.0,
    ));
    out.rows.push(f.not_compared(
        "non-secure handler reaches useful work as early (a wash)",
        "non-secure wash",
        &["non-secure entry", "entry", "prologue cycles"],
        "The extended stacking costs 21 - 12 = 9 more cycles; for a wash the secure prologue \
         must spend 9 cycles pushing registers the non-secure one would skip (as PUSH {r4-r11} \
         does: 1 + 8 cycles on a Cortex-M33). The document gives only the prologue's total \
         (14 cycles, three instructions of which read the cycle counter), so this cannot be \
         checked from its figures.",
    ));
}

fn simulated(sys: &System, opts: &Options, out: &mut Outcome) -> Result<(), ScenarioError> {
    let f = figures();
    let dur = Picos::from_ms(if opts.quick { 1_000 } else { 10_000 });
    let fo = FromSystemOptions::default();
    let with_al = simulate(NAME, sys, &fo, dur, opts.out_dir.is_some())?;
    let mut quiet = sys.clone();
    quiet.tasks.retain(|t| t.name != "al");
    let without_al = simulate(NAME, &quiet, &fo, dur, false)?;
    let (a, b) = (with_al.report(), without_al.report());
    let la = irq_to_task_us(&a, sys, "ah");
    let lb = irq_to_task_us(&b, sys, "ah");
    out.rows.push(
        f.finding(
            "al looping has no impact on ah's activation (simulated; by construction: al has the lowest priority)",
            "troublemaker",
            (la / lb - 1.0).abs() <= 0.01,
            &["actor cycles", "clock"],
        )
        .method(&format!(
            "worst simulated interrupt-to-ah latency {la:.3} us with al, {lb:.3} us without (yes within 1 %)"
        )),
    );
    // The document's 281 cycles are one typical activation: set beside the simulation's
    // median, which no tick coincidence moves.
    let median = crate::simulated::release_to_start_us(&a, sys, "ah", true);
    let mut mrow = f
        .check(
            "interrupt to actor ah, median in the simulation",
            "actor us",
            median,
            &["actor cycles", "clock", "entry"],
        )
        .method("simulate system.toml, median interrupt-to-ah latency (from the response-time median less ah's own work)");
    if (median - 2.25).abs() > 0.05 {
        mrow = mrow.explain(&format!(
            "The simulated median ({median:.3} us) is {:.0} cycles above the document's cycle \
             count (281 cycles, 2.248 us). system.toml now charges the measured path once \
             (earlier it added the handler's 232 ns and an assumed 1 us switch on top: 3.58 us); \
             of the rest, 1 cycle is the interrupt's minimal own time and about 12 cycles, the \
             size of the entry latency L, are not traced yet.",
            (median - 2.248) * 125.0
        ));
    }
    out.rows.push(mrow);
    let mut row = f
        .check(
            "interrupt to actor ah, worst in the simulation",
            "actor us",
            la,
            &["actor cycles", "clock", "entry"],
        )
        .method(&format!(
            "simulate system.toml for {} s (the warm path built from the document's cycle counts), worst interrupt-to-ah latency",
            dur.as_secs_f64()
        ));
    if (la - 2.25).abs() > 0.05 {
        row = row.explain(&format!(
            "The simulation's worst case ({la:.2} us against 2.25 us, {:.1} x) lets the interrupt \
             coincide with the 1 ms tick, whose 2 us in system.toml is assumed (the document \
             gives no tick cost); the document's figure is one activation, not the worst case.",
            la / 2.25
        ));
    }
    out.rows.push(row);
    out.rows.push(chain_row(sys)?);
    write_vcd(NAME, &with_al, opts, out, "k4perf.vcd")?;
    out.results.push(report_json(NAME, &with_al, 500)?);
    Ok(())
}

/// The document's path, GPIO interrupt -> handler -> message -> actor ah, as an event
/// chain on the kernel-v4 costs (issue 28 item 5): its analysed worst case beside the
/// document's measured activation. Not compared: the bound runs to ah's completion in
/// the worst phasing (tick coinciding), the document's figure is one activation to
/// ah's start.
fn chain_row(sys: &System) -> Result<crate::row::Row, ScenarioError> {
    use latscope_model::chain::{Chain, Link, Step};
    let f = figures();
    let (Some(gpio), Some(ah)) = (
        sys.interrupts.iter().position(|x| x.name == "gpio"),
        sys.task_index("ah"),
    ) else {
        return Err(crate::run_err(NAME)(
            "system.toml lacks interrupt gpio or task ah",
        ));
    };
    let mut with_chain = sys.clone();
    with_chain.chains.push(Chain {
        name: "gpio-to-ah".into(),
        steps: vec![Step::Interrupt(gpio), Step::Task(ah)],
        links: vec![Link::Event],
        deadline: None,
        read: latscope_model::chain::ReadAt::Release,
    });
    let res =
        latscope_model::rta::analyze(&with_chain, &latscope_model::AnalysisOptions::default())
            .map_err(crate::run_err(NAME))?;
    let Some(c) = res.chains.first() else {
        return Err(crate::run_err(NAME)("the chain was not analysed"));
    };
    let bound_us = c.bound_ns.map_or(f64::NAN, |b| b / 1000.0);
    let parts: Vec<String> = c
        .composition
        .iter()
        .map(|p| format!("{} {} {:.3} us", p.step, p.part, p.ns / 1000.0))
        .collect();
    let mut r = f.not_compared(
        "GPIO interrupt -> handler -> message -> actor ah, event-chain bound (analysed)",
        "actor us",
        &["actor cycles", "clock", "entry"],
        "a bound, not a typical value: it runs to the end of ah's own 1 us of work and \
         lets the interrupt meet the 1 ms tick (2 us assumed); the document's 2.25 us is \
         one activation to ah's start.",
    );
    r.latscope = bound_us;
    Ok(r.method(&format!(
        "analyze system.toml with [[chain]] steps = [\"gpio\", \"ah\"], links = [\"event\"] \
         (holistic analysis): {bound_us:.3} us = {}",
        parts.join(" + ")
    )))
}
