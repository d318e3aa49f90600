//! Helpers shared by the simulator's integration tests (one module of the `it` test
//! binary): builders for small hand-checked configurations and the pieces the random
//! cross-checks have in common.
#![allow(dead_code)]

use latscope_core::Picos;
use latscope_sim::*;

pub fn us(x: i64) -> Picos {
    Picos::from_us(x)
}
pub fn ms(x: i64) -> Picos {
    Picos::from_ms(x)
}

pub fn task(name: &str, prio: u32, period: Picos, wcet: Picos) -> SimTask {
    SimTask {
        sections: vec![],
        name: name.into(),
        priority: prio,
        period,
        offset: Picos::ZERO,
        deadline: period,
        jitter: Picos::ZERO,
        exec: ExecTime::Fixed(wcet),
        critical: Picos::ZERO,
        activation: Activation::Periodic,
    }
}

/// A tick kernel: tick cost = base + per * released, switch = sw_base + sw_per * levels.
pub fn tick_cfg(
    tasks: Vec<SimTask>,
    base: Picos,
    per: Picos,
    sw_base: Picos,
    sw_per: Picos,
) -> SimConfig {
    let n = tasks.len();
    SimConfig {
        resources: vec![],
        lock_costs: Default::default(),
        devices: vec![],
        outputs: vec![],
        tick_period: ms(1),
        tick_hz: None,
        irq_entry: Picos::ZERO,
        kernel: Kernel::Tick(TickKernel {
            tick_cost: (0..=n as i64).map(|k| Picos(base.0 + per.0 * k)).collect(),
            switch_cost: SwitchCost::PerLevel(
                (0..64).map(|k| Picos(sw_base.0 + sw_per.0 * k)).collect(),
            ),
            time_slicing: true,
            edf: false,
        }),
        tasks,
        interrupts: vec![],
        tickless: None,
    }
}

pub fn free(tasks: Vec<SimTask>) -> SimConfig {
    tick_cfg(tasks, Picos::ZERO, Picos::ZERO, Picos::ZERO, Picos::ZERO)
}

pub fn run(cfg: SimConfig, until: Picos) -> (Sim, SimReport) {
    let mut s = Sim::new(
        cfg,
        SimOptions {
            seed: 1,
            series: true,
            capture: true,
            percentiles: true,
            source: "test".into(),
        },
    )
    .expect("valid config");
    s.run_until(until);
    let r = s.report();
    (s, r)
}

/// Pulses (start, end) at high level on a channel of the capture, in picoseconds.
pub fn pulses(s: &Sim, ch: &str) -> Vec<(i64, i64)> {
    let cap = s.capture();
    cap.validate().expect("valid capture");
    let c = cap.channel(ch).expect("channel");
    c.pulses(true).map(|(a, b)| (a.0, b.0)).collect()
}

/// The priority distances of the report's switch groups, in their order, with each
/// group's count.
pub fn switch_distances(r: &SimReport) -> Vec<(i64, u64)> {
    let groups = r.switches.by_priority_distance.iter();
    groups.map(|g| (g.distance.unwrap(), g.count)).collect()
}

/// Makes task `b` released by a source of period `t`: sporadic at that period (the random
/// chain cross-checks, single- and multicore).
pub fn sporadic(sys: &mut latscope_model::System, b: usize, t: Picos) {
    let task = &mut sys.tasks[b];
    task.arrival = latscope_model::system::Arrival::Sporadic(t);
    task.deadline = t;
    if task.wcet > t {
        task.wcet = Picos(t.0 / 4);
    }
    task.bcet = task.bcet.min(task.wcet);
}

/// The steps and links of a chain of tasks `a`, `b` and, when given, `c`, every link of
/// kind `link` (the event and sampled shapes of the random chain cross-checks).
pub fn task_chain(
    a: usize,
    b: usize,
    c: Option<usize>,
    link: latscope_model::chain::Link,
) -> (
    Vec<latscope_model::chain::Step>,
    Vec<latscope_model::chain::Link>,
) {
    use latscope_model::chain::Step;
    match c {
        Some(c) => (
            vec![Step::Task(a), Step::Task(b), Step::Task(c)],
            vec![link, link],
        ),
        None => (vec![Step::Task(a), Step::Task(b)], vec![link]),
    }
}

/// Adds chain `name` (steps, links; read at release) to `sys` and records its tasks in
/// `used` (the random multicore chain cross-checks keep a task in one chain only).
pub fn push_chain(
    sys: &mut latscope_model::System,
    used: &mut Vec<usize>,
    name: String,
    (steps, links): (
        Vec<latscope_model::chain::Step>,
        Vec<latscope_model::chain::Link>,
    ),
) {
    for s in &steps {
        if let latscope_model::chain::Step::Task(i) = s {
            used.push(*i);
        }
    }
    sys.chains.push(latscope_model::chain::Chain {
        name,
        steps,
        links,
        deadline: None,
        read: latscope_model::chain::ReadAt::Release,
    });
}

/// Simulates random multicore set `k` as the multicore cross-checks do: `k` seeds the
/// simulator and the derived execution times, interrupts arrive at random in every third
/// set (the worst case otherwise), `exec` replaces the default execution-time mode.
pub fn run_multi_seeded(
    sys: &latscope_model::System,
    k: usize,
    exec: Option<ExecMode>,
    until: Picos,
) -> SimReport {
    let mut o = FromSystemOptions {
        irq: if k.is_multiple_of(3) {
            IrqMode::Random
        } else {
            IrqMode::Worst
        },
        seed: k as u64,
        ..Default::default()
    };
    if let Some(exec) = exec {
        o.exec = exec;
    }
    let mut sim = MultiSim::new(
        sys,
        &o,
        SimOptions {
            seed: k as u64,
            ..Default::default()
        },
    )
    .expect("simulable");
    sim.run_until(until);
    sim.report()
}

/// Checks one simulated chain of random set `k` against its analysed bound: the observed
/// latency and, where both exist, the data age never above the bound, and the ratio
/// observed / bound counted in `hist` (tenths). `None` when the chain has no bound or was
/// not observed (nothing compared); otherwise whether the data age was compared too.
pub fn check_chain(
    k: usize,
    sys: &latscope_model::System,
    bound: &latscope_model::chain::analysis::ChainResult,
    seen: &latscope_sim::chains::ChainReport,
    hist: &mut [usize; 11],
) -> Option<bool> {
    let b = bound.bound_ps.map(|p| p as f64 / 1000.0)?;
    let o = seen.max_ns?;
    assert!(
        o <= b + 1e-6,
        "set {k}: chain {:?} observed {o} ns > bound {b} ns\n{}",
        bound.steps,
        sys.to_toml_string()
    );
    hist[((o / b) * 10.0).floor().clamp(0.0, 10.0) as usize] += 1;
    let (Some(ab), Some(ao)) = (bound.age_ns, seen.age_max_ns) else {
        return Some(false);
    };
    assert!(
        ao <= ab + 1e-6,
        "set {k}: chain {:?} data age {ao} ns > bound {ab} ns\n{}",
        bound.steps,
        sys.to_toml_string()
    );
    Some(true)
}
