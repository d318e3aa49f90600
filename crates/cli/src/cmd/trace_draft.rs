//! `latscope trace TRACE --system-out FILE`: a system description draft (the TOML `analyze`
//! reads, docs/system-format.md) from what a recording showed: each task with its
//! priority in the system's convention (larger = more urgent), its observed period (or
//! minimum inter-arrival time) and its observed maximum execution as the WCET; each
//! interrupt handler with its minimum inter-arrival time and maximum duration; the tick
//! rate from the tick handler's period; the tick costs fitted from the tick's durations
//! against the tasks it released. Every figure is an observation of one recording, not a
//! bound, and the file says so beside each one.

use latscope_core::events::{ActorKind, EventTrace};
use latscope_core::time::Picos;
use latscope_model::fit::{apply, fit_target, update_toml_text, Sample, Target};
use latscope_model::system::format_exact;
use latscope_model::System;
use latscope_trace::tasks::{self, TaskTimingResult, Timeline};
use std::collections::{HashMap, HashSet};

/// A duration for the TOML file, exact, rounded up to the nanosecond (a WCET is never
/// made smaller) and at least 1 ns.
fn dur_up(ns: f64) -> String {
    let ns = ns.ceil().max(1.0);
    quoted(&format_exact(Picos((ns as i64).saturating_mul(1000))))
}

/// A duration for the TOML file, exact, rounded down to the nanosecond (a minimum
/// inter-arrival time is never made larger) and at least 1 ns.
fn dur_down(ns: f64) -> String {
    let ns = ns.floor().max(1.0);
    quoted(&format_exact(Picos((ns as i64).saturating_mul(1000))))
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Priorities in the system's convention (larger = more urgent, idle at 0): RTOS
/// recordings already use it; Linux (perf: the kernel's prio, smaller = more urgent) is
/// ranked; tasks without a recorded priority are ranked rate-monotonic.
fn priorities(r: &TaskTimingResult, periods: &[Option<f64>]) -> (Vec<u32>, &'static str) {
    let n = r.tasks.len();
    let all_known = r.tasks.iter().all(|t| t.priority.is_some());
    let rank = |key: &dyn Fn(usize) -> f64| -> Vec<u32> {
        // Dense ranks, the least urgent (largest key) 1: equal keys share a priority
        // (Linux threads of one nice level, tasks of one period).
        let mut keys: Vec<f64> = (0..n).map(key).collect();
        keys.sort_by(|a, b| b.total_cmp(a));
        keys.dedup();
        (0..n)
            .map(|i| {
                let k = key(i);
                keys.iter()
                    .position(|&x| x == k)
                    .map_or(1, |p| p as u32 + 1)
            })
            .collect()
    };
    if all_known && r.recording.format != "perf" {
        let fits = r
            .tasks
            .iter()
            .all(|t| t.priority.is_some_and(|p| (0..=65_535).contains(&p)));
        if fits {
            return (
                r.tasks
                    .iter()
                    .map(|t| t.priority.unwrap_or(0) as u32)
                    .collect(),
                "as recorded (larger = more urgent)",
            );
        }
    }
    if all_known {
        // Linux: smaller prio = more urgent.
        let p = rank(&|i| r.tasks[i].priority.unwrap_or(0) as f64);
        return (p, "ranked from the kernel's prio (smaller = more urgent)");
    }
    let p = rank(&|i| periods[i].unwrap_or(f64::INFINITY));
    (
        p,
        "not in the recording: ranked rate-monotonic (shorter period = more urgent)",
    )
}

/// The draft's text and notes for the user (what was left out and why).
pub fn draft(
    trace: &EventTrace,
    tl: &Timeline,
    r: &TaskTimingResult,
) -> anyhow::Result<(String, Vec<String>)> {
    let mut d = Draft {
        trace,
        tl,
        r,
        s: String::new(),
        notes: Vec::new(),
        used: HashSet::new(),
        releases_of: HashMap::new(),
    };
    d.header();
    d.platform_and_kernel();
    let drafted = d.tasks();
    anyhow::ensure!(
        drafted > 0,
        "no task has a complete job and two releases in {}: nothing to draft",
        r.recording.source
    );
    d.interrupts();
    d.fit_tick_costs()
}

/// A draft being written: the text so far, the notes for the user, and what later
/// entries need to know of earlier ones.
struct Draft<'a> {
    trace: &'a EventTrace,
    tl: &'a Timeline,
    r: &'a TaskTimingResult,
    s: String,
    notes: Vec<String>,
    /// Names written so far (each entry's name is unique in the file).
    used: HashSet<String>,
    /// Written names of the tasks an interrupt releases (interrupt name → task name).
    releases_of: HashMap<String, String>,
}

impl Draft<'_> {
    /// `name`, or `name_2`, `name_3`, … when an entry already has it.
    fn unique(&mut self, name: &str) -> String {
        let mut n = name.to_string();
        let mut k = 2;
        while !self.used.insert(n.clone()) {
            n = format!("{name}_{k}");
            k += 1;
        }
        n
    }

    /// A part left out: a comment in the file and a note for the user.
    fn left_out(&mut self, why: String) {
        self.s += &format!("\n# {why}\n");
        self.notes.push(why);
    }

    /// The file's opening comment: where it comes from, that its figures are
    /// observations, and any loss of events.
    fn header(&mut self) {
        let r = self.r;
        self.s += &format!(
            "# System description DRAFTED by `latscope trace --system-out` from {} ({}, {} recorded).\n",
            r.recording.source,
            r.recording.format,
            latscope_core::time::format_ns_f64(r.recording.length_ns)
        );
        self.s += "# Every figure below is an OBSERVATION of this one recording, not a bound: replace each\n\
              # WCET by a real bound (a measured worst case with a margin, or a static analysis) before\n\
              # trusting `latscope analyze`, and check the periods against the design.\n";
        if r.lost_events.count > 0 || !r.lost_events.windows.is_empty() {
            self.s += &format!(
                "# WARNING: the recorder lost {} events in {} window(s){}; the figures may miss the worst case.\n",
                r.lost_events.count,
                r.lost_events.windows.len(),
                if r.lost_events.inferred > 0 {
                    format!(
                        " ({} of them holes it did not report, count unknown)",
                        r.lost_events.inferred
                    )
                } else {
                    String::new()
                }
            );
        }
    }

    /// `[platform]` (the recorder's clock) and `[kernel]` (the tick rate from the tick
    /// handler's median period), placeholders where the recording does not say.
    fn platform_and_kernel(&mut self) {
        self.s += "\n[platform]\n";
        match self.trace.clock_hz.filter(|&h| h > 0) {
            Some(hz) => self.s += &format!("cpu_hz = {hz}    # the recorder's timestamp clock\n"),
            None => self.s +=
                "cpu_hz = 1_000_000_000    # PLACEHOLDER: the recording does not give the CPU clock\n",
        }
        self.s += "\n[kernel]\n";
        let tick = self.r.tick();
        let tick_period = tick.and_then(|t| t.inter_arrival.get("p50"));
        match tick_period {
            Some(p) if p > 0.0 && (1e9 / p).round() >= 1.0 && (1e9 / p).round() <= 1e9 => {
                self.s += &format!(
                    "tick_hz = {}    # from the tick handler's median period, {}\n",
                    (1e9 / p).round() as u64,
                    latscope_core::time::format_ns_f64(p)
                )
            }
            _ => {
                self.s +=
                    "tick_hz = 1000    # PLACEHOLDER: no tick handler period in the recording\n";
                self.notes.push(
                    "no tick period in the recording: tick_hz = 1000 is a placeholder".into(),
                );
            }
        }
        self.s += "model = \"tick\"\n[kernel.costs]\n";
    }

    /// A `[[task]]` per task with a complete job and two releases; the number written.
    fn tasks(&mut self) -> usize {
        let r = self.r;
        let periods: Vec<Option<f64>> =
            r.tasks.iter().map(|t| t.inter_arrival.get("p50")).collect();
        let (prio, how) = priorities(r, &periods);
        let mut drafted = 0;
        for (i, t) in r.tasks.iter().enumerate() {
            drafted += usize::from(self.task(t, prio[i], how));
        }
        drafted
    }

    /// The handler that released every job of task `t` (with two runs or more), if one
    /// did: the task is then sporadic, at most as often as the handler runs. Its very first
    /// release may come from elsewhere: a handler task is made ready when it is created
    /// and runs once to reach its first wait.
    fn released_by(&self, t: &tasks::TaskTiming) -> Option<&'_ tasks::IsrTiming> {
        self.r.isrs.iter().find(|i| {
            i.kind == "isr"
                && i.inter_arrival.count > 0
                && i.started_jobs.len() == 1
                && i.started_jobs[0].task == t.name
                && (i.started_jobs[0].jobs == t.releases
                    || (i.started_jobs[0].jobs + 1 == t.releases
                        && first_release_outside(self.trace, self.tl, t, &i.name)))
        })
    }

    /// Task `t`'s entry (or a note why it is left out); true when written.
    fn task(&mut self, t: &tasks::TaskTiming, prio: u32, how: &str) -> bool {
        let (Some(exec), Some(min_gap), Some(p50), Some(max_gap)) = (
            t.execution.get("max"),
            t.inter_arrival.get("min"),
            t.inter_arrival.get("p50"),
            t.inter_arrival.get("max"),
        ) else {
            self.left_out(format!(
                "task {:?} left out: {} complete job(s) and {} release interval(s) in the recording \
                 (a WCET needs a complete job, a period two releases)",
                t.name, t.jobs, t.inter_arrival.count
            ));
            return false;
        };
        let name = self.unique(&t.name);
        self.s += "\n[[task]]\n";
        self.s += &format!("name = {}\n", quoted(&name));
        let span = self.task_arrival(t, &name, min_gap, p50, max_gap);
        self.s += &format!(
            "wcet = {}    # OBSERVED maximum execution over {} job(s), NOT a bound: replace it\n",
            dur_up(exec),
            t.jobs
        );
        if exec.ceil().max(1.0) > span {
            self.s += &format!(
                "deadline = {}    # the observed execution exceeds the release interval\n",
                dur_up(exec)
            );
        }
        self.s += &format!("priority = {prio}    # {how}\n");
        if let Some(resp) = t.response.get("max") {
            self.s += &format!(
                "# observed worst response {}\n",
                latscope_core::time::format_ns_f64(resp)
            );
        }
        true
    }

    /// Task `t`'s arrival line (written as `name`): released by an interrupt, periodic
    /// (release intervals within 2 % or two clock ticks of each other) or sporadic. Returns
    /// the interval written, in ns.
    fn task_arrival(
        &mut self,
        t: &tasks::TaskTiming,
        name: &str,
        min_gap: f64,
        p50: f64,
        max_gap: f64,
    ) -> f64 {
        let res = self.r.recording.resolution_ns.unwrap_or(0.0);
        let periodic = max_gap - min_gap <= (0.02 * p50).max(2.0 * res);
        let by_irq = self
            .released_by(t)
            .and_then(|x| x.inter_arrival.get("min").map(|g| (x.name.clone(), g)));
        if let Some((irq, irq_gap)) = by_irq {
            let gap = min_gap.min(irq_gap).floor().max(1.0);
            self.s += &format!(
                "min_interarrival = {}    # released by interrupt {:?}: at most as often as it runs\n",
                dur_down(gap),
                irq
            );
            self.releases_of.insert(irq, name.to_string());
            gap
        } else if periodic {
            self.s += &format!(
                "period = {}    # observed: median release interval ({} releases, {} to {})\n",
                dur_up(p50),
                t.inter_arrival.count + 1,
                latscope_core::time::format_ns_f64(min_gap),
                latscope_core::time::format_ns_f64(max_gap)
            );
            p50.ceil().max(1.0)
        } else {
            self.s += &format!(
                "min_interarrival = {}    # observed: shortest release interval ({} releases)\n",
                dur_down(min_gap),
                t.inter_arrival.count + 1
            );
            min_gap.floor().max(1.0)
        }
    }

    /// An `[[interrupt]]` per handler that ran twice or more (the tick is the kernel's,
    /// above); its WCET may not exceed its minimum inter-arrival time.
    fn interrupts(&mut self) {
        let r = self.r;
        for i in r.isrs.iter().filter(|i| i.kind == "isr") {
            let (Some(d), Some(gap)) = (i.duration.get("max"), i.inter_arrival.get("min")) else {
                self.left_out(format!(
                    "interrupt {:?} left out: {} run(s) in the recording (a minimum inter-arrival \
                     time needs two)",
                    i.name, i.count
                ));
                continue;
            };
            let gap = gap.floor().max(1.0);
            let wcet = d.ceil().max(1.0).min(gap);
            let name = self.unique(&i.name);
            self.s += "\n[[interrupt]]\n";
            self.s += &format!("name = {}\n", quoted(&name));
            self.s += &format!(
                "min_interarrival = {}    # observed: shortest interval between its runs ({} runs)\n",
                dur_down(gap),
                i.count
            );
            self.s += &format!(
                "wcet = {}    # OBSERVED maximum duration (nested handlers excluded), NOT a bound\n",
                dur_up(wcet)
            );
            if let Some(task) = self.releases_of.get(&i.name) {
                self.s += &format!(
                    "releases = {}    # every job of that task started in this handler\n",
                    quoted(task)
                );
            }
            self.s += "# priority, above_kernel: not in the recording; set them from the design\n";
        }
    }

    /// The finished text: the tick costs fitted from the tick's durations against the
    /// tasks it released (the safe fit, as `latscope fit --target tick` writes it), or a
    /// note why `[kernel.costs]` stays empty; the text checked to parse before and after.
    fn fit_tick_costs(mut self) -> anyhow::Result<(String, Vec<String>)> {
        let s = &self.s;
        let samples = tick_samples(&tasks::tick_rows(self.trace, self.tl));
        let sys = System::from_toml_str(s, "the draft")
            .map_err(|e| anyhow::anyhow!("the draft does not parse (a bug): {e}"))?;
        let mut text = s.clone();
        match fit_target(&samples, Target::Tick, false) {
            Ok(fit) => {
                let mut fitted = sys.clone();
                let model = fit.safe_model();
                if apply(&mut fitted, Target::Tick, model).is_ok() {
                    if let Ok(t) = update_toml_text(s, &fitted, Target::Tick, model) {
                        text = t.replace(
                            "[kernel.costs]\n",
                            "[kernel.costs]    # tick costs: the safe fit above every observed tick (`latscope fit --target tick`)\n",
                        );
                    }
                }
            }
            Err(e) => self.notes.push(format!(
                "tick costs not fitted ({e}); [kernel.costs] is empty"
            )),
        }
        System::from_toml_str(&text, "the draft")
            .map_err(|e| anyhow::anyhow!("the draft does not parse (a bug): {e}"))?;
        Ok((text, self.notes))
    }
}

/// True when the first release of task `t` happened outside every run of the handler
/// named `isr` (so the handler made none but possibly the others).
fn first_release_outside(
    trace: &EventTrace,
    tl: &Timeline,
    t: &tasks::TaskTiming,
    isr: &str,
) -> bool {
    let find = |kind: fn(ActorKind) -> bool, name: &str, id: Option<u64>| {
        trace
            .actors
            .iter()
            .position(|a| kind(a.kind) && a.name == name && id.is_none_or(|i| i == a.id))
            .and_then(|k| tl.actors.get(k))
    };
    let (Some(task), Some(handler)) = (
        find(|k| k == ActorKind::Task, &t.name, Some(t.id)),
        find(|k| k == ActorKind::Isr, isr, None),
    ) else {
        return false;
    };
    let Some(&first) = task.releases.first() else {
        return false;
    };
    !handler
        .runs
        .iter()
        .any(|run| run.enter <= first && first <= run.exit)
}

/// The tick series as fit samples: x = tasks released, y = duration; `row` is the line of
/// the same row in the `--series` CSV (the header is line 1).
pub fn tick_samples(rows: &[tasks::TickRow]) -> Vec<Sample> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| Sample {
            x: f64::from(r.released),
            y_ns: r.duration.0 as f64 / 1000.0,
            row: i + 2,
        })
        .collect()
}
