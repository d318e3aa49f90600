//! Margins (`latscope analyze --sensitivity`): how far a schedulable system is from the
//! edge, and how far an unschedulable one is from schedulable.
//!
//! Three questions, each answered exactly on the integer picosecond grid by bisection
//! over the full analysis (overheads, blocking, jitter, the chosen tick mode):
//!
//! * the **critical scaling factor** (Lehoczky, Sha & Ding, "The rate monotonic
//!   scheduling algorithm: exact characterization and average case behavior", RTSS 1989):
//!   the largest factor `f` by which every task's WCET can be multiplied with every task
//!   still meeting its deadline. The WCETs at `f = x / C_ref` are
//!   `floor(C_i * x / C_ref)`, where `C_ref` is the largest WCET, so the grid step is one
//!   picosecond of the largest WCET; the reported `x` is schedulable and `x + 1` is not.
//! * each task's **WCET margin** alone: the largest `d` (picoseconds, negative when the
//!   task must shrink) such that the system with that task's WCET `C_i + d` is
//!   schedulable; `d + 1` is not.
//! * the **highest tick rate** (lowest tick period) keeping the system schedulable with
//!   the model's tick costs: an integer rate `r` that is schedulable while `r + 1` is not.
//!
//! Each answer names the task that misses its deadline first just past it.
//!
//! Schedulability is monotone in every WCET (a larger WCET never lowers a response time),
//! so the bisections for the first two are exact. It is *not* monotone in the tick rate:
//! the tick-driven release delay of a task whose period is a whole number of ticks is
//! smaller than off the tick grid, so a rate above the reported one may happen to pass
//! again. The bisection runs upward from the file's rate and reports the first boundary
//! (the answer to "how far can I raise the tick from here"); `notes` say so.
//! Interrupt handlers' WCETs and the kernel costs are not scaled: they are the platform's,
//! not the application's.
//!
//! With `[[chain]]` tables the predicate is the whole analysis with the chains
//! ([`crate::chain::margins`]): every task within its deadline with the holistic
//! jitter, and every chain with a `deadline` within it (its event bound or maximum
//! reaction time). A bound grows with every WCET, so the bisections stay exact; a
//! chain that misses first is named `chain "NAME"` where a task name would stand.

use crate::rta::{analyze_mode, AnalysisOptions};
use crate::system::{System, TickMode};
use latscope_core::Picos;
use serde::Serialize;

/// The margins of a system (`sensitivity` in `analyze --sensitivity --json`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Sensitivity {
    /// The tick mode the margins were computed in.
    #[serde(deserialize_with = "crate::rta::json::tick_mode_word")]
    pub tick_mode: latscope_core::words::Word,
    /// Critical scaling factor of all task WCETs (null: no task set scaling helps, the
    /// system misses even with every WCET at zero).
    pub scaling_factor: Option<f64>,
    /// The factor exactly, as `numerator / denominator` picoseconds of the largest WCET.
    pub scaling_exact: Option<Ratio>,
    /// The task that misses first just above the factor.
    pub critical_task: Option<String>,
    /// Each task's WCET margin alone, in file order.
    pub tasks: Vec<TaskMargin>,
    /// Highest integer tick rate keeping the system schedulable (null: none found, or no
    /// limit up to 1 GHz; see `max_tick_note`).
    pub max_tick_hz: Option<u64>,
    /// The task that misses first at `max_tick_hz + 1`.
    pub max_tick_critical_task: Option<String>,
    /// How the tick rate answer is to be read.
    pub max_tick_note: String,
    /// Assumptions (human-readable).
    pub notes: Vec<std::borrow::Cow<'static, str>>,
}

/// `numerator / denominator`.
#[derive(
    Debug, Clone, Copy, Serialize, serde::Deserialize, PartialEq, Eq, schemars::JsonSchema,
)]
pub struct Ratio {
    pub numerator: i64,
    pub denominator: i64,
}

/// One task's WCET margin.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct TaskMargin {
    pub name: String,
    /// How much the task's WCET may grow (negative: must shrink) with the system still
    /// schedulable; null when even a zero WCET does not make it schedulable.
    pub wcet_margin_ns: Option<f64>,
    /// The same in picoseconds (exact).
    pub wcet_margin_ps: Option<i64>,
    /// The task that misses first when the margin is exceeded by one picosecond.
    pub critical_task: Option<String>,
}

/// Why a margin could not be computed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SensitivityError {
    #[error("the system has no tasks")]
    NoTasks,
}

/// The first task (in descending priority order) that misses its deadline, or `None`
/// when every task meets it. Stops at the first deadline passed.
pub fn first_miss(sys: &System, opts: &AnalysisOptions, mode: TickMode) -> Option<String> {
    let o = AnalysisOptions {
        stop_at_deadline: true,
        ..opts.clone()
    };
    if crate::chain::margins::needs_whole(sys) {
        // Chains: the holistic analysis, and a chain past its end-to-end deadline misses.
        return match crate::chain::margins::analyze_mode_chains(sys, &o, mode) {
            Ok((tasks, chain)) => tasks
                .into_iter()
                .find(|t| !t.schedulable)
                .map(|t| t.name.to_string())
                .or_else(|| chain.map(|c| crate::chain::margins::chain_label(&c))),
            Err(e) => Some(out_of_range_task(sys, &e)),
        };
    }
    match analyze_mode(sys, &o, mode) {
        Ok(tasks) => tasks
            .into_iter()
            .find(|t| !t.schedulable)
            .map(|t| t.name.to_string()),
        // Past the analysis range nothing is proven: the set counts as missing, charged to
        // the task the error names (or the lowest-priority task when it names none).
        Err(e) => Some(out_of_range_task(sys, &e)),
    }
}

fn out_of_range_task(sys: &System, e: &crate::range::AnalysisError) -> String {
    let crate::range::AnalysisError::OutOfRange { place, .. } = e;
    place
        .strip_prefix("task \"")
        .and_then(|r| r.strip_suffix('"'))
        .map(str::to_string)
        .or_else(|| {
            sys.tasks
                .iter()
                .min_by_key(|t| t.priority)
                .map(|t| t.name.clone())
        })
        .unwrap_or_default()
}

/// The system with every task's WCET scaled by `num / den` (rounded down to whole
/// picoseconds); BCETs are capped at the new WCETs. The tasks' critical sections
/// (their offsets and durations) scale with them: they are part of the WCET.
pub fn scale_wcets(sys: &System, num: i64, den: i64) -> System {
    let mut s = sys.clone();
    let den = den.max(1) as i128;
    let scale =
        |p: Picos| Picos((p.0 as i128 * num.max(0) as i128 / den).min(i64::MAX as i128) as i64);
    for t in &mut s.tasks {
        let c = scale(t.wcet);
        set_wcet(t, c);
    }
    for secs in &mut s.resources.tasks {
        for x in secs.iter_mut() {
            x.at = scale(x.at);
            x.duration = scale(x.duration);
        }
    }
    s
}

fn set_wcet(t: &mut crate::system::Task, c: Picos) {
    t.wcet = c;
    t.bcet = t.bcet.min(c);
}

/// Largest `x` in `[lo, hi)` with `ok(x)`, given `ok(lo)` and `!ok(hi)` (monotone).
fn bisect(mut lo: i64, mut hi: i64, mut ok: impl FnMut(i64) -> bool) -> i64 {
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Computes every margin. The analysis options are those of the report (overheads,
/// release delay); `mode` is the tick mode judged.
pub fn sensitivity(
    sys: &System,
    opts: &AnalysisOptions,
    mode: TickMode,
) -> Result<Sensitivity, SensitivityError> {
    if sys.tasks.is_empty() {
        return Err(SensitivityError::NoTasks);
    }
    let miss = |s: &System| first_miss(s, opts, mode);

    // Critical scaling factor, over the largest WCET's picoseconds.
    let (r, c_ref) = sys
        .tasks
        .iter()
        .enumerate()
        .map(|(k, t)| (k, t.wcet.0))
        .max_by_key(|&(k, c)| (c, std::cmp::Reverse(k)))
        .unwrap_or((0, 0));
    let scaled = |x: i64| scale_wcets(sys, x, c_ref);
    let (scaling_exact, critical_task) = if c_ref <= 0 {
        (None, None)
    } else if miss(&scaled(0)).is_some() {
        (None, miss(&scaled(0)))
    } else {
        // Past its deadline the reference task misses whatever else happens.
        let hi = sys.tasks[r].deadline.0.max(c_ref).saturating_add(1);
        let x = if miss(&scaled(c_ref)).is_none() {
            bisect(c_ref, hi, |x| miss(&scaled(x)).is_none())
        } else {
            bisect(0, c_ref, |x| miss(&scaled(x)).is_none())
        };
        (
            Some(Ratio {
                numerator: x,
                denominator: c_ref,
            }),
            miss(&scaled(x.saturating_add(1))),
        )
    };

    // Each task's margin alone.
    let mut tasks = Vec::with_capacity(sys.tasks.len());
    for (i, t) in sys.tasks.iter().enumerate() {
        let with = |d: i64| {
            let mut s = sys.clone();
            set_wcet(&mut s.tasks[i], Picos(t.wcet.0.saturating_add(d)));
            s
        };
        let ok = |d: i64| miss(&with(d)).is_none();
        let margin = if ok(0) {
            let hi = (t.deadline.0 - t.wcet.0).max(0).saturating_add(1);
            Some(bisect(0, hi, ok))
        } else if ok(-t.wcet.0) {
            Some(bisect(-t.wcet.0, 0, ok))
        } else {
            None
        };
        tasks.push(TaskMargin {
            name: t.name.clone(),
            wcet_margin_ns: margin.map(|d| d as f64 / 1000.0),
            wcet_margin_ps: margin,
            critical_task: match margin {
                Some(d) => miss(&with(d.saturating_add(1))),
                None => miss(&with(-t.wcet.0)),
            },
        });
    }

    // Highest tick rate.
    const MAX_HZ: i64 = 1_000_000_000;
    let at_hz = |hz: i64| {
        let mut s = sys.clone();
        s.kernel.tick_hz = hz as u64;
        s
    };
    let ok_hz = |hz: i64| miss(&at_hz(hz)).is_none();
    let file_hz = (sys.kernel.tick_hz as i64).clamp(1, MAX_HZ);
    let (max_tick_hz, max_tick_critical_task, max_tick_note) = if ok_hz(file_hz) {
        if ok_hz(MAX_HZ) {
            (
                None,
                None,
                "no limit: schedulable from the file's rate up to 1 GHz (the model's tick \
                 costs nothing, or too little to matter)"
                    .to_string(),
            )
        } else {
            let hz = bisect(file_hz, MAX_HZ, ok_hz);
            (
                Some(hz as u64),
                miss(&at_hz(hz + 1)),
                format!(
                    "the first rate above the file's {} Hz at which a task misses is {} Hz",
                    sys.kernel.tick_hz,
                    hz + 1
                ),
            )
        }
    } else if ok_hz(1) {
        let hz = bisect(1, file_hz, ok_hz);
        (
            Some(hz as u64),
            miss(&at_hz(hz + 1)),
            format!(
                "not schedulable at the file's {} Hz; a slower tick is: {} Hz passes, {} Hz \
                 misses",
                sys.kernel.tick_hz,
                hz,
                hz + 1
            ),
        )
    } else {
        (
            None,
            miss(&at_hz(file_hz)),
            format!(
                "not schedulable at the file's {} Hz nor at 1 Hz: the tick rate is not what \
                 makes it miss",
                sys.kernel.tick_hz
            ),
        )
    };

    Ok(Sensitivity {
        tick_mode: mode.name(),
        scaling_factor: scaling_exact.map(|r| r.numerator as f64 / r.denominator as f64),
        scaling_exact,
        critical_task,
        tasks,
        max_tick_hz,
        max_tick_critical_task,
        max_tick_note,
        notes: {
            let mut n: Vec<std::borrow::Cow<'static, str>> = vec![
                "exact on the picosecond grid: each answer passes and one picosecond (or one \
                 hertz) more misses",
                "task WCETs only: interrupt handlers and kernel costs are not scaled",
                "schedulability is not monotone in the tick rate (the tick-driven release delay \
                 is smaller for periods on the tick grid): max_tick_hz is the first boundary \
                 from the file's rate",
            ]
            .into_iter()
            .map(Into::into)
            .collect();
            if crate::chain::margins::needs_whole(sys) {
                n.push(
                    "judged with the whole analysis (chains, cores): every task within its \
                     deadline with the holistic release jitter, and every chain with a \
                     deadline within it (a chain that misses first is named chain \"NAME\")"
                        .into(),
                );
            }
            n
        },
    })
}
