//! One actor's timing from its walked jobs (a task) or runs (an interrupt handler or the
//! tick): the samples the summaries are made of, the worst instances, and which of them a
//! lost-event window makes suspect.

use super::result::{
    CountStats, IsrInstance, IsrTiming, JobInstance, ReleasedRow, StartedJobs, TaskTiming,
};
use super::summarize::summarize;
use super::walk::ActorTimeline;
use super::{Frame, PS_NS};
use latscope_core::events::{Actor, ActorKind};
use latscope_core::stats::{Location, Samples};
use std::collections::BTreeMap;

/// A task's per-job samples, gathered in one pass over its jobs.
struct Jobs {
    latency: Samples,
    response: Samples,
    execution: Samples,
    preemptions: CountStats,
    suspect: u64,
    instances: Vec<JobInstance>,
}

/// The timing of task `i` (`actor`, walked as `a`).
pub(super) fn task(fr: &Frame, i: usize, actor: &Actor, a: &ActorTimeline) -> TaskTiming {
    let (res, bins) = (fr.res, fr.opts.bins);
    let mut j = jobs(fr, i, a);
    // Largest response first; among equal ones the earliest.
    j.instances.sort_by(|x, y| {
        y.response_ns
            .total_cmp(&x.response_ns)
            .then(x.job.cmp(&y.job))
    });
    j.instances.truncate(fr.opts.worst);
    let mut gaps = fr.gaps(a.releases.iter().copied());
    TaskTiming {
        name: actor.name.clone(),
        priority: actor.priority,
        id: actor.id,
        jobs: a.jobs.len() as u64,
        cut_off: a.cut_off,
        releases: a.releases.len() as u64,
        suspect: j.suspect,
        start_latency: summarize(&mut j.latency, res, bins),
        response: summarize(&mut j.response, res, bins),
        execution: summarize(&mut j.execution, res, bins),
        preemptions: j.preemptions,
        inter_arrival: summarize(&mut gaps, res, bins),
        run_ns: a.run_ps as f64 / PS_NS,
        cpu_percent: fr.percent(a.run_ps),
        worst: j.instances,
    }
}

/// Start latency, response, execution and preemptions of every job of task `i`, each
/// job's instance row, and how many jobs a lost-event window touches.
fn jobs(fr: &Frame, i: usize, a: &ActorTimeline) -> Jobs {
    let mut out = Jobs {
        latency: Samples::with_capacity(a.jobs.len()),
        response: Samples::with_capacity(a.jobs.len()),
        execution: Samples::with_capacity(a.jobs.len()),
        preemptions: CountStats::default(),
        suspect: 0,
        instances: Vec::with_capacity(a.jobs.len()),
    };
    for (k, j) in a.jobs.iter().enumerate() {
        let loc = Location {
            at: fr.rel(j.release),
            source: k as u32,
        };
        let latency = j.first_run.map(|f| f.0.saturating_sub(j.release.0));
        if let Some(l) = latency {
            out.latency.push(l, loc);
        }
        let response = j.end.0.saturating_sub(j.release.0);
        out.response.push(response, loc);
        out.execution.push(j.execution, loc);
        let p = u64::from(j.preemptions);
        let pre = &mut out.preemptions;
        pre.total += p;
        if p > pre.max || pre.max_at_ns.is_none() {
            pre.max = p;
            pre.max_at_ns = Some(fr.ns(j.release));
        }
        let s = fr.losses.touches(j.release, j.end, &j.cpus, i as u32);
        out.suspect += u64::from(s);
        out.instances.push(JobInstance {
            job: k as u64,
            release_ns: fr.ns(j.release),
            start_latency_ns: latency.map(|l| l as f64 / PS_NS),
            response_ns: response as f64 / PS_NS,
            execution_ns: j.execution as f64 / PS_NS,
            preemptions: p,
            suspect: s,
        });
    }
    out
}

/// A handler's per-run samples, gathered in one pass over its runs.
struct Runs {
    duration: Samples,
    suspect: u64,
    released: u64,
    /// Per number of tasks a run released: its count and extreme durations.
    by_released: BTreeMap<u64, ReleasedRow>,
    /// Per task (actor index): the jobs the handler's runs started.
    started: BTreeMap<u32, u64>,
    instances: Vec<IsrInstance>,
}

/// The timing of interrupt handler or tick `i` (`actor`, walked as `a`).
pub(super) fn isr(fr: &Frame, i: usize, actor: &Actor, a: &ActorTimeline) -> IsrTiming {
    let (res, bins) = (fr.res, fr.opts.bins);
    let mut r = runs(fr, i, a);
    let mut gaps = fr.gaps(a.runs.iter().map(|r| r.enter));
    r.instances.sort_by(|x, y| {
        y.duration_ns
            .total_cmp(&x.duration_ns)
            .then(x.at_ns.total_cmp(&y.at_ns))
    });
    r.instances.truncate(fr.opts.worst);
    let tick = actor.kind == ActorKind::Tick;
    IsrTiming {
        name: actor.name.clone(),
        kind: if tick { "tick" } else { "isr" },
        priority: actor.priority,
        id: actor.id,
        count: a.runs.len() as u64,
        suspect: r.suspect,
        duration: summarize(&mut r.duration, res, bins),
        inter_arrival: summarize(&mut gaps, res, bins),
        released: r.released,
        started_jobs: r
            .started
            .into_iter()
            .filter_map(|(t, jobs)| {
                fr.trace.actors.get(t as usize).map(|x| StartedJobs {
                    task: x.name.clone(),
                    jobs,
                })
            })
            .collect(),
        run_ns: a.run_ps as f64 / PS_NS,
        cpu_percent: fr.percent(a.run_ps),
        worst: r.instances,
        by_released: if tick {
            r.by_released.into_values().collect()
        } else {
            Vec::new()
        },
    }
}

/// Duration, releases and started jobs of every run of handler `i`, each run's instance
/// row, and how many runs a lost-event window touches.
fn runs(fr: &Frame, i: usize, a: &ActorTimeline) -> Runs {
    let mut out = Runs {
        duration: Samples::with_capacity(a.runs.len()),
        suspect: 0,
        released: 0,
        by_released: BTreeMap::new(),
        started: BTreeMap::new(),
        instances: Vec::with_capacity(a.runs.len()),
    };
    for (k, r) in a.runs.iter().enumerate() {
        out.duration.push(
            r.duration,
            Location {
                at: fr.rel(r.enter),
                source: k as u32,
            },
        );
        let s = fr.losses.touches(r.enter, r.exit, &[r.cpu], i as u32);
        out.suspect += u64::from(s);
        out.released += u64::from(r.released);
        for &t in &r.started {
            *out.started.entry(t).or_insert(0) += 1;
        }
        let d = r.duration as f64 / PS_NS;
        let row = out
            .by_released
            .entry(u64::from(r.released))
            .or_insert(ReleasedRow {
                released: u64::from(r.released),
                count: 0,
                min_ns: d,
                max_ns: d,
                max_at_ns: fr.ns(r.enter),
            });
        row.count += 1;
        row.min_ns = row.min_ns.min(d);
        if d > row.max_ns {
            row.max_ns = d;
            row.max_at_ns = fr.ns(r.enter);
        }
        out.instances.push(IsrInstance {
            at_ns: fr.ns(r.enter),
            duration_ns: d,
            released: u64::from(r.released),
            suspect: s,
        });
    }
    out
}
