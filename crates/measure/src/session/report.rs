//! Assembling a session's report from its phases: the settings as run, the figures of
//! whichever kind of run it was (plain, rounds, sweep, idle-versus-loaded), and the
//! tracing's split of each latency.

use super::phases::Phases;
use super::Plan;
use crate::engine::{Effective, MemLock, PhaseResult};
use crate::ftrace::live::TraceResult;
use crate::output::{self, CompareJson, CpuStats, SettingsJson, Stats, SweepPoint};
use crate::settings::Stop;

/// The settings as asked and as decided (policy fallback, memory lock).
pub(super) fn settings_json(plan: &Plan, eff: &Effective, memlock: MemLock) -> SettingsJson {
    let s = &plan.settings;
    let (duration_ns, loops) = match s.stop {
        Stop::Duration(d) => (Some(d), None),
        Stop::Loops(l) => (None, Some(l)),
    };
    SettingsJson {
        cpus: s.cpus.clone(),
        policy_requested: s.policy.as_str().into(),
        priority_requested: s.priority,
        policy: eff.policy.as_str().into(),
        priority: eff.priority,
        fallback: eff.fallback_reason.clone(),
        timer_mode: s.mode.as_str().into(),
        interval_ns: s.interval_ns,
        duration_ns,
        loops,
        overrun_policy: s.overrun.as_str().into(),
        pm_qos_us: plan.pm_qos_us,
        load: plan.loads.iter().map(|l| l.to_string()).collect(),
        compare_load: plan.compare_load.map(|l| l.to_string()),
        sweep: plan.sweep_text.clone(),
        memory_locked: memlock.locked,
        memory_lock_detail: memlock.detail,
        cyclictest_histogram_us: s.us_bins,
        timer_slack_ns: s.timer_slack_ns,
        rounds: plan.rounds,
        trace_above_ns: plan.trace_above_ns,
    }
}

/// The report's figures of one run, whichever kind it was.
pub(super) struct Figures {
    pub total: Stats,
    pub cpus: Vec<CpuStats>,
    pub sweep: Option<Vec<SweepPoint>>,
    pub rounds: Option<Vec<Stats>>,
    pub compare: Option<CompareJson>,
    /// The phase (or merged phases) written to the cyclictest histogram.
    pub histogram_phase: PhaseResult,
    /// The compare phases (idle, loaded) when --compare-load was given.
    pub compare_phases: Option<(PhaseResult, PhaseResult)>,
}

impl Figures {
    /// The figures of the phases; `run.phases` is not empty.
    pub fn of(plan: &Plan, run: &Phases) -> Figures {
        let phases = &run.phases;
        if plan.rounds.is_some() {
            let mut f = Figures::merged(phases);
            f.rounds = Some(
                phases
                    .iter()
                    .map(|p| output::merged_stats(&p.cpus))
                    .collect(),
            );
            f
        } else if plan.sweep.is_some() {
            let mut f = Figures::merged(phases);
            f.sweep = Some(sweep_points(phases, &run.intervals));
            f
        } else {
            Figures::first(plan, phases)
        }
    }

    /// All phases merged into one total (rounds, sweep).
    fn merged(phases: &[PhaseResult]) -> Figures {
        let histogram_phase = output::merge_phases(phases).unwrap_or_else(|| phases[0].clone());
        let j = output::phase_json(&histogram_phase);
        Figures {
            total: j.total,
            cpus: j.cpus,
            sweep: None,
            rounds: None,
            compare: None,
            histogram_phase,
            compare_phases: None,
        }
    }

    /// The first phase's total; with a loaded second phase, the comparison too.
    fn first(plan: &Plan, phases: &[PhaseResult]) -> Figures {
        let j = output::phase_json(&phases[0]);
        let mut compare = None;
        let mut compare_phases = None;
        if let (Some(cl), Some(loaded)) = (plan.compare_load, phases.get(1)) {
            let lj = output::phase_json(loaded);
            compare = Some(CompareJson {
                load: cl.to_string(),
                difference: output::difference(&j.total, &lj.total),
                idle: j.clone(),
                loaded: lj,
            });
            compare_phases = Some((phases[0].clone(), loaded.clone()));
        }
        Figures {
            total: j.total,
            cpus: j.cpus,
            sweep: None,
            rounds: None,
            compare,
            histogram_phase: phases[0].clone(),
            compare_phases,
        }
    }

    /// Splits the total into interrupt and thread latency where the tracing matched
    /// samples (tracepoints) or saw timerlat's activations.
    pub fn split_by(&mut self, t: &TraceResult) {
        if t.irq.moments.count() > 0 {
            self.total.irq_latency_ns = Some(Box::new(output::stats_of(&t.irq, 0, 0)));
            self.total.thread_latency_ns = Some(Box::new(output::stats_of(&t.thread, 0, 0)));
        }
    }
}

/// One point per sweep phase, at its interval.
fn sweep_points(phases: &[PhaseResult], intervals: &[i64]) -> Vec<SweepPoint> {
    phases
        .iter()
        .zip(intervals)
        .map(|(p, &iv)| {
            let j = output::phase_json(p);
            SweepPoint {
                interval_ns: iv,
                elapsed_ns: p.elapsed_ns,
                total: j.total,
                cpus: j.cpus,
            }
        })
        .collect()
}
