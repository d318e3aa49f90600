//! The measuring phases of one session: a plain run, the rounds, the sweep points, or
//! idle then loaded. Each kind of run is its own function so the session reads as one
//! sequence of steps.

use super::{Plan, Prepared, ProgressFn};
use crate::engine::{self, PhaseResult, SampleProducer};
use crate::env::Snapshot;
use crate::load::Load;
use crate::settings::Settings;
use crate::MeasureError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The phases measured and, for a sweep, the interval of each.
pub(super) struct Phases {
    pub phases: Vec<PhaseResult>,
    pub intervals: Vec<i64>,
}

/// What every phase shares: the plan, the decided policy, the stop flag, the sample
/// rings and the progress callback.
pub(super) struct PhaseRunner<'a, 'p> {
    pub plan: &'a Plan,
    pub prep: &'a Prepared,
    pub stop: &'a Arc<AtomicBool>,
    pub producers: &'a mut [Option<SampleProducer>],
    pub progress: &'a mut ProgressFn<'p>,
}

impl PhaseRunner<'_, '_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// One phase with these settings, reported under `label`.
    fn phase(
        &mut self,
        s: &Settings,
        index: u16,
        label: &str,
    ) -> Result<PhaseResult, MeasureError> {
        let progress = &mut *self.progress;
        engine::run_phase_live(
            s,
            &self.prep.effective,
            index,
            self.stop,
            self.producers,
            &mut |p| progress(label, p),
            self.plan.live.as_ref(),
        )
    }

    /// Runs whichever kind of run the plan asks for. `phase_snaps` receives the
    /// steal-time snapshots around the compare phases (idle, loaded), for explaining a
    /// loaded run that is faster.
    pub fn run(&mut self, phase_snaps: &mut Vec<(Snapshot, i64)>) -> Result<Phases, MeasureError> {
        if self.plan.sweep.is_some() {
            self.sweep()
        } else if self.plan.compare_load.is_some() {
            self.compare(phase_snaps)
        } else if let Some(r) = self.plan.rounds {
            self.rounds(r)
        } else {
            let s = self.plan.settings.clone();
            Ok(Phases {
                phases: vec![self.phase(&s, 0, "measuring")?],
                intervals: Vec::new(),
            })
        }
    }

    /// One phase per sweep point, each at its own sleep length.
    fn sweep(&mut self) -> Result<Phases, MeasureError> {
        let mut out = Phases {
            phases: Vec::new(),
            intervals: Vec::new(),
        };
        for (i, (iv, st)) in self.plan.sweep_schedule().into_iter().enumerate() {
            if self.stopped() {
                break;
            }
            let mut ps = self.plan.settings.clone();
            ps.interval_ns = iv;
            ps.stop = st;
            let label = format!("sweep {} ns", iv);
            out.phases.push(self.phase(&ps, i as u16, &label)?);
            out.intervals.push(iv);
        }
        Ok(out)
    }

    /// Idle, then with the extra load started, back to back.
    fn compare(&mut self, phase_snaps: &mut Vec<(Snapshot, i64)>) -> Result<Phases, MeasureError> {
        let root = &self.plan.root;
        let s = self.plan.settings.clone();
        let mut phases = Vec::new();
        phase_snaps.push((Snapshot::take(root), engine::now_ns()));
        let idle = self.phase(&s, 0, "idle")?;
        phase_snaps.push((Snapshot::take(root), engine::now_ns()));
        phases.push(idle);
        if let (Some(cl), false) = (self.plan.compare_load, self.stopped()) {
            let extra = Load::start(&[cl])?;
            std::thread::sleep(Duration::from_millis(100));
            let label = format!("loaded {cl}");
            let t = (Snapshot::take(root), engine::now_ns());
            let loaded = self.phase(&s, 1, &label);
            phase_snaps.push(t);
            phase_snaps.push((Snapshot::take(root), engine::now_ns()));
            extra.stop();
            phases.push(loaded?);
        }
        Ok(Phases {
            phases,
            intervals: Vec::new(),
        })
    }

    /// `r` rounds sharing the run's duration or loop count.
    fn rounds(&mut self, r: usize) -> Result<Phases, MeasureError> {
        let mut rs = self.plan.settings.clone();
        rs.stop = self.plan.round_stop();
        let mut phases = Vec::new();
        for i in 0..r {
            if self.stopped() {
                break;
            }
            let label = format!("round {}/{r}", i + 1);
            phases.push(self.phase(&rs, i as u16, &label)?);
        }
        Ok(Phases {
            phases,
            intervals: Vec::new(),
        })
    }
}
