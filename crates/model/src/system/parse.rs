//! Reads a system description (TOML text, or JSON through [`super::json`]) and validates
//! it into the model, with errors that name the file, line, table and key.

use super::context::{table_at, task_label, Ctx};
use super::error::{Diagnostic, SystemError};
use super::model::*;
use super::raw::*;
use super::write::format_exact;
use crate::overheads::irqpath::{IrqPathCosts, IrqPathStage};
use crate::overheads::listscan::ListScanCosts;
use crate::overheads::tick::TickCosts;
use crate::overheads::tickless::SleepState;
use latscope_core::time::Picos;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

impl System {
    /// Reads a system description; JSON when the extension is `.json` or the text starts
    /// with `{`, TOML otherwise. Relative `exec_time_file` paths are resolved against the
    /// file's directory.
    pub fn from_path(path: &Path) -> Result<System, SystemError> {
        let text = std::fs::read_to_string(path).map_err(|e| SystemError::Io {
            path: path.display().to_string(),
            error: e,
        })?;
        let name = path.display().to_string();
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            || text.trim_start().starts_with('{');
        let mut sys = if is_json {
            System::from_json_str(&text, &name)?
        } else {
            System::from_toml_str(&text, &name)?
        };
        if let Some(dir) = path.parent() {
            for t in &mut sys.tasks {
                if let Some(f) = &t.exec_time_file {
                    if f.is_relative() {
                        t.exec_time_file = Some(dir.join(f));
                    }
                }
            }
        }
        Ok(sys)
    }

    /// Parses TOML text; `source_name` is used in error messages.
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<System, SystemError> {
        let ctx = Ctx {
            file: source_name,
            text,
            lines: true,
        };
        parse(&ctx)
    }

    /// Parses JSON text of the same structure. The JSON is read straight into the file
    /// structure (no conversion to TOML text); errors name the table and the key, and
    /// the line and column for JSON syntax errors.
    pub fn from_json_str(text: &str, source_name: &str) -> Result<System, SystemError> {
        let raw = super::json::read(text).map_err(|e| {
            SystemError::Invalid(Box::new(Diagnostic {
                file: source_name.to_string(),
                line: e.line,
                column: e.column,
                table: e.table,
                key: e.key,
                message: e.message,
            }))
        })?;
        let ctx = Ctx {
            file: source_name,
            text,
            lines: false,
        };
        build(&ctx, &raw)
    }
}

/// Reads TOML text into the file structure, then validates it.
fn parse(ctx: &Ctx) -> Result<System, SystemError> {
    let raw: RawFile = toml::from_str(ctx.text).map_err(|e| {
        let span = e.span();
        let table = span
            .as_ref()
            .map(|s| table_at(ctx.text, s.start))
            .unwrap_or_default();
        let msg = e.message().trim().to_string();
        ctx.err(span, &table, None, msg)
    })?;
    build(ctx, &raw)
}

/// Validates the file structure into a [`System`].
fn build(ctx: &Ctx, raw: &RawFile) -> Result<System, SystemError> {
    let platform = build_platform(ctx, raw.platform.get_ref())?;
    let hz = Some(platform.cpu_hz);
    let mut kernel = build_kernel(ctx, raw.kernel.get_ref(), hz)?;
    if let Some(c) = &raw.kernel.get_ref().costs {
        kernel.ipi = ctx.opt_dur(&c.get_ref().ipi, "kernel.costs", "ipi", hz)?;
    }
    kernel.cores = build_cores(ctx, &raw.core, platform.cores)?;
    super::tick_broadcast::build(ctx, raw, &mut kernel, platform.cores, hz)?;
    // Task and interrupt names share one namespace.
    let mut names: HashMap<String, String> = HashMap::new();
    let mut tasks = build_tasks(ctx, &raw.task, &kernel, hz, &mut names)?;
    let mut platform = platform;
    let (placement, task_cores) = super::global::task_cores(ctx, raw, platform.cores)?;
    platform.placement = placement;
    for (t, c) in tasks.iter_mut().zip(task_cores) {
        t.core = c;
    }
    let mut interrupts = build_interrupts(ctx, &raw.interrupt, &mut tasks, hz, &mut names)?;
    for (i, (x, rx)) in interrupts.iter_mut().zip(&raw.interrupt).enumerate() {
        let label = format!("interrupt[{i}] \"{}\"", x.name);
        x.core = core_of(ctx, &rx.get_ref().core, &label, platform.cores)?;
    }
    let critical_sections = match &raw.critical_sections {
        Some(c) => CriticalSections {
            kernel: ctx.opt_dur(&c.kernel, "critical_sections", "kernel", hz)?,
            application: ctx.opt_dur(&c.application, "critical_sections", "application", hz)?,
        },
        None => CriticalSections::default(),
    };
    let resources = super::resources::build(ctx, raw, &tasks, &interrupts, hz)?;
    same_core_resources(ctx, raw, &resources, &tasks, &interrupts)?;
    let chains = super::chains::build(ctx, raw, &tasks, &interrupts, &kernel, hz)?;

    let sys = System {
        source: ctx.file.to_string(),
        platform,
        kernel,
        tasks,
        interrupts,
        critical_sections,
        resources,
        chains,
    };
    super::global::check_supported(ctx, raw, &sys)?;
    Ok(sys)
}

/// A resource shared across cores needs a multiprocessor protocol (MPCP, MSRP) that the
/// analysis and the simulator do not model, so every user of a resource must sit on one
/// core.
fn same_core_resources(
    ctx: &Ctx,
    raw: &RawFile,
    res: &crate::resource::Resources,
    tasks: &[Task],
    interrupts: &[Interrupt],
) -> Result<(), SystemError> {
    let mut first: Vec<Option<(u32, String)>> = vec![None; res.list.len()];
    let users = tasks
        .iter()
        .zip(&res.tasks)
        .map(|(t, s)| (t.core, format!("task \"{}\"", t.name), s))
        .chain(
            interrupts
                .iter()
                .zip(&res.interrupts)
                .map(|(x, s)| (x.core, format!("interrupt \"{}\"", x.name), s)),
        );
    for (core, who, sections) in users {
        for sec in sections {
            let Some(slot) = first.get_mut(sec.resource) else {
                continue;
            };
            match slot {
                None => *slot = Some((core, who.clone())),
                Some((c, other)) if *c != core => {
                    let name = &res.list[sec.resource].name;
                    let span = raw.resource.get(sec.resource).map(|r| r.span());
                    return Err(ctx.err(
                        span,
                        &format!("resource \"{name}\""),
                        None,
                        format!(
                            "used by {other} on core {c} and by {who} on core {core}: \
                             a resource shared across cores is not modelled (MPCP/MSRP); \
                             pin its users to one core"
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The most cores a description may declare (small multicore parts have 2 to 8; the
/// cap keeps per-core arrays small whatever the file says).
pub const MAX_CORES: u32 = 64;

/// A `core` key: absent is core 0; otherwise it must name one of the platform's cores.
fn core_of(
    ctx: &Ctx,
    v: &Option<Spanned<i64>>,
    label: &str,
    cores: u32,
) -> Result<u32, SystemError> {
    match v {
        None => Ok(0),
        Some(c) if (0..cores as i64).contains(c.get_ref()) => Ok(*c.get_ref() as u32),
        Some(c) => Err(ctx.err(
            Some(c.span()),
            label,
            Some("core"),
            format!(
                "core {} does not exist: platform.cores is {cores}, so cores are numbered 0 ..= {}",
                c.get_ref(),
                cores - 1
            ),
        )),
    }
}

fn build_platform(ctx: &Ctx, p: &RawPlatform) -> Result<Platform, SystemError> {
    let cpu_hz = ctx.freq(&p.cpu_hz, "platform", "cpu_hz")?;
    let hz = Some(cpu_hz);
    let irq_entry_cycles = match &p.irq_entry_cycles {
        Some(c) if *c.get_ref() < 0 => {
            return Err(ctx.err(
                Some(c.span()),
                "platform",
                Some("irq_entry_cycles"),
                "must not be negative",
            ))
        }
        Some(c) => *c.get_ref() as u64,
        None => 0,
    };
    let cache = match &p.cache {
        None => CacheModel {
            assume: CacheState::Warm,
            warm_extra: Picos::ZERO,
            cold_extra: Picos::ZERO,
        },
        Some(c) => CacheModel {
            assume: c.assume.unwrap_or(CacheState::Warm),
            warm_extra: ctx.opt_dur(&c.warm, "platform.cache", "warm", hz)?,
            cold_extra: ctx.opt_dur(&c.cold, "platform.cache", "cold", hz)?,
        },
    };
    let cores = match &p.cores {
        Some(c) if !(1..=MAX_CORES as i64).contains(c.get_ref()) => {
            return Err(ctx.err(
                Some(c.span()),
                "platform",
                Some("cores"),
                format!("{} cores: give 1 ..= {MAX_CORES}", c.get_ref()),
            ))
        }
        Some(c) => *c.get_ref() as u32,
        None => 1,
    };
    Ok(Platform {
        cpu_hz,
        irq_entry_cycles,
        cache,
        cores,
        placement: Placement::Partitioned,
    })
}

fn build_kernel(ctx: &Ctx, k: &RawKernel, hz: Option<u64>) -> Result<Kernel, SystemError> {
    let tick_hz = ctx.freq(&k.tick_hz, "kernel", "tick_hz")?;
    if tick_hz > 1_000_000_000 {
        return Err(ctx.err(
            Some(k.tick_hz.span()),
            "kernel",
            Some("tick_hz"),
            format!("{tick_hz} Hz is not a plausible tick rate (at most 1 GHz)"),
        ));
    }
    let model = k.model.unwrap_or(ModelKind::Tick);
    let empty = RawCosts::default();
    let (costs_raw, costs_span) = match &k.costs {
        Some(c) => (c.get_ref(), Some(c.span())),
        None => (&empty, None),
    };
    let costs = build_costs(ctx, model, costs_raw, costs_span, hz)?;
    let mut sleep_states = Vec::new();
    for (i, s) in k.sleep_state.iter().enumerate() {
        let s = s.get_ref();
        let label = format!("kernel.sleep_state[{i}] \"{}\"", s.name.get_ref());
        let margin = match &s.safety_margin_ticks {
            Some(m) if *m.get_ref() < 0 => {
                return Err(ctx.err(
                    Some(m.span()),
                    &label,
                    Some("safety_margin_ticks"),
                    "must not be negative",
                ))
            }
            Some(m) => *m.get_ref() as u32,
            None => 0,
        };
        let mut parts = Vec::new();
        for (name, v) in &s.parts {
            parts.push((
                name.clone(),
                ctx.dur(v, &label, &format!("parts.{name}"), hz, false)?,
            ));
        }
        sleep_states.push(SleepState {
            name: s.name.get_ref().clone(),
            parts,
            safety_margin_ticks: margin,
        });
    }
    Ok(Kernel {
        tick_hz,
        costs,
        task_selection: k.task_selection.unwrap_or(TaskSelection::Generic),
        tick_mode: k.tick_mode.unwrap_or(TickMode::Partitioned),
        time_slicing: k.time_slicing.unwrap_or(false),
        allow_equal_priorities: k.allow_equal_priorities.unwrap_or(true),
        sleep_states,
        ipi: Picos::ZERO,
        scheduler: k.scheduler.unwrap_or_default(),
        cores: Vec::new(),
        tick_source: Default::default(),
        tick_core: 0,
        ipi_send: Picos::ZERO,
        tick_relay: Default::default(),
    })
}

/// The `[[core]]` tables: ids below `cores`, each at most once.
fn build_cores(
    ctx: &Ctx,
    raw: &[Spanned<RawCore>],
    cores: u32,
) -> Result<Vec<CoreSettings>, SystemError> {
    let mut out: Vec<CoreSettings> = Vec::new();
    for (i, c) in raw.iter().enumerate() {
        let table = format!("core[{i}]");
        let id = *c.get_ref().id.get_ref();
        if id < 0 || id >= cores as i64 {
            return Err(ctx.err(
                Some(c.get_ref().id.span()),
                &table,
                Some("id"),
                format!(
                    "core {id} does not exist: the platform has {cores} core{} (ids 0..{})",
                    if cores == 1 { "" } else { "s" },
                    cores.saturating_sub(1)
                ),
            ));
        }
        if out.iter().any(|o| o.id == id as u32) {
            return Err(ctx.err(
                Some(c.get_ref().id.span()),
                &table,
                Some("id"),
                format!("core {id} is described twice"),
            ));
        }
        out.push(CoreSettings {
            id: id as u32,
            scheduler: c.get_ref().scheduler,
        });
    }
    Ok(out)
}

fn build_tasks(
    ctx: &Ctx,
    raw_tasks: &[Spanned<RawTask>],
    kernel: &Kernel,
    hz: Option<u64>,
    names: &mut HashMap<String, String>,
) -> Result<Vec<Task>, SystemError> {
    if raw_tasks.is_empty() {
        return Err(ctx.err(
            None,
            "",
            Some("task"),
            "no [[task]] tables: a system needs at least one task",
        ));
    }
    let mut tasks = Vec::with_capacity(raw_tasks.len());
    let mut prio_owner: HashMap<u32, usize> = HashMap::new();
    for (i, st) in raw_tasks.iter().enumerate() {
        let t = st.get_ref();
        let name = t.name.get_ref().trim().to_string();
        let label = task_label(i, &name);
        if name.is_empty() {
            return Err(ctx.err(
                Some(t.name.span()),
                &label,
                Some("name"),
                "the name is empty",
            ));
        }
        if let Some(prev) = names.insert(name.clone(), label.clone()) {
            return Err(ctx.err(
                Some(t.name.span()),
                &label,
                Some("name"),
                format!("the name \"{name}\" is already used by {prev}"),
            ));
        }
        let arrival =
            match (&t.period, &t.min_interarrival) {
                (Some(p), None) => Arrival::Periodic(ctx.dur(p, &label, "period", hz, true)?),
                (None, Some(m)) => {
                    Arrival::Sporadic(ctx.dur(m, &label, "min_interarrival", hz, true)?)
                }
                (Some(_), Some(m)) => return Err(ctx.err(
                    Some(m.span()),
                    &label,
                    Some("min_interarrival"),
                    "give either `period` (periodic) or `min_interarrival` (sporadic), not both",
                )),
                (None, None) => {
                    return Err(ctx.err(
                        Some(st.span()),
                        &label,
                        Some("period"),
                        "missing: give `period` (periodic) or `min_interarrival` (sporadic)",
                    ))
                }
            };
        let wcet = ctx.dur(&t.wcet, &label, "wcet", hz, true)?;
        let bcet = match &t.bcet {
            Some(b) => {
                let v = ctx.dur(b, &label, "bcet", hz, false)?;
                if v > wcet {
                    return Err(ctx.err(
                        Some(b.span()),
                        &label,
                        Some("bcet"),
                        format!(
                            "BCET {} exceeds the WCET {}",
                            format_exact(v),
                            format_exact(wcet)
                        ),
                    ));
                }
                v
            }
            None => wcet,
        };
        let prio = *t.priority.get_ref();
        if !(0..=u32::MAX as i64).contains(&prio) {
            return Err(ctx.err(
                Some(t.priority.span()),
                &label,
                Some("priority"),
                format!("{prio} is out of range (0 ..= {})", u32::MAX),
            ));
        }
        let priority = prio as u32;
        if let Some(&other) = prio_owner.get(&priority) {
            if !kernel.allow_equal_priorities {
                return Err(ctx.err(
                    Some(t.priority.span()),
                    &label,
                    Some("priority"),
                    format!(
                        "priority {priority} is already used by {} and kernel.allow_equal_priorities is false",
                        task_label(other, &tasks.get(other).map_or(String::new(), |x: &Task| x.name.clone()))
                    ),
                ));
            }
        } else {
            prio_owner.insert(priority, i);
        }
        let deadline = match &t.deadline {
            Some(d) => ctx.dur(d, &label, "deadline", hz, true)?,
            None => arrival.period(),
        };
        if wcet > deadline {
            let (span, key) = match &t.deadline {
                Some(d) => (d.span(), "deadline"),
                None => (t.wcet.span(), "wcet"),
            };
            return Err(ctx.err(
                Some(span),
                &label,
                Some(key),
                format!(
                    "WCET {} exceeds the deadline {}: the task can never meet it",
                    format_exact(wcet),
                    format_exact(deadline)
                ),
            ));
        }
        let offset = ctx.opt_dur(&t.offset, &label, "offset", hz)?;
        let jitter = ctx.opt_dur(&t.jitter, &label, "jitter", hz)?;
        let blocking = ctx.opt_dur(&t.blocking, &label, "blocking", hz)?;
        let exec_time_file = match &t.exec_time_file {
            Some(f) if f.get_ref().trim().is_empty() => {
                return Err(ctx.err(
                    Some(f.span()),
                    &label,
                    Some("exec_time_file"),
                    "the path is empty",
                ))
            }
            Some(f) => Some(PathBuf::from(f.get_ref())),
            None => None,
        };
        tasks.push(Task {
            name,
            arrival,
            wcet,
            bcet,
            priority,
            deadline,
            offset,
            jitter,
            blocking,
            exec_time_file,
            released_by: None,
            core: 0,
        });
    }
    Ok(tasks)
}

fn build_interrupts(
    ctx: &Ctx,
    raw_irqs: &[Spanned<RawInterrupt>],
    tasks: &mut [Task],
    hz: Option<u64>,
    names: &mut HashMap<String, String>,
) -> Result<Vec<Interrupt>, SystemError> {
    let mut interrupts = Vec::new();
    for (i, si) in raw_irqs.iter().enumerate() {
        let r = si.get_ref();
        let name = r.name.get_ref().trim().to_string();
        let label = format!("interrupt[{i}] \"{name}\"");
        if name.is_empty() {
            return Err(ctx.err(
                Some(r.name.span()),
                &label,
                Some("name"),
                "the name is empty",
            ));
        }
        if let Some(prev) = names.insert(name.clone(), label.clone()) {
            return Err(ctx.err(
                Some(r.name.span()),
                &label,
                Some("name"),
                format!("the name \"{name}\" is already used by {prev}"),
            ));
        }
        let min_interarrival =
            ctx.dur(&r.min_interarrival, &label, "min_interarrival", hz, true)?;
        let wcet = ctx.dur(&r.wcet, &label, "wcet", hz, true)?;
        if wcet > min_interarrival {
            return Err(ctx.err(
                Some(r.wcet.span()),
                &label,
                Some("wcet"),
                format!(
                    "WCET {} exceeds the minimum inter-arrival time {}",
                    format_exact(wcet),
                    format_exact(min_interarrival)
                ),
            ));
        }
        let priority = match &r.priority {
            Some(p) if !(0..=u32::MAX as i64).contains(p.get_ref()) => {
                return Err(ctx.err(
                    Some(p.span()),
                    &label,
                    Some("priority"),
                    format!("{} is out of range (0 ..= {})", p.get_ref(), u32::MAX),
                ))
            }
            Some(p) => *p.get_ref() as u32,
            None => 0,
        };
        let releases = match &r.releases {
            Some(tn) => {
                let want = tn.get_ref().trim();
                let idx = tasks.iter().position(|t| t.name == want).ok_or_else(|| {
                    ctx.err(
                        Some(tn.span()),
                        &label,
                        Some("releases"),
                        format!(
                            "no task is called \"{want}\" (tasks: {})",
                            tasks
                                .iter()
                                .map(|t| t.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })?;
                if let Some(other) = tasks[idx].released_by {
                    let other_name: &str = &interrupts
                        .get(other)
                        .map_or(String::new(), |x: &Interrupt| x.name.clone());
                    return Err(ctx.err(
                        Some(tn.span()),
                        &label,
                        Some("releases"),
                        format!(
                            "task \"{want}\" is already released by interrupt \"{other_name}\""
                        ),
                    ));
                }
                // Every interrupt releases a job of the task (simulator), so the task's
                // own min_interarrival must not promise fewer jobs (audit D12).
                let task_t = tasks[idx].period();
                if min_interarrival < task_t {
                    return Err(ctx.err(
                        Some(r.min_interarrival.span()),
                        &label,
                        Some("min_interarrival"),
                        format!(
                            "{} is shorter than the min_interarrival {} of the task it \
                             releases (\"{want}\"): every interrupt releases a job, so make \
                             the task's min_interarrival at most {}",
                            format_exact(min_interarrival),
                            format_exact(task_t),
                            format_exact(min_interarrival)
                        ),
                    ));
                }
                tasks[idx].released_by = Some(i);
                Some(idx)
            }
            None => None,
        };
        let offset = ctx.opt_dur(&r.offset, &label, "offset", hz)?;
        interrupts.push(Interrupt {
            offset,
            name,
            min_interarrival,
            wcet,
            priority,
            above_kernel: r.above_kernel.unwrap_or(false),
            releases,
            periodic: r.periodic.unwrap_or(false),
            core: 0,
        });
    }
    Ok(interrupts)
}

fn build_costs(
    ctx: &Ctx,
    model: ModelKind,
    c: &RawCosts,
    span: Option<Range<usize>>,
    hz: Option<u64>,
) -> Result<KernelCosts, SystemError> {
    const T: &str = "kernel.costs";
    // Keys that belong to another model are an error, not silently ignored.
    let present: [(&str, bool, &[ModelKind]); 14] = [
        ("tick_base", c.tick_base.is_some(), &[ModelKind::Tick]),
        (
            "tick_first_release",
            c.tick_first_release.is_some(),
            &[ModelKind::Tick],
        ),
        (
            "tick_last_release",
            c.tick_last_release.is_some(),
            &[ModelKind::Tick],
        ),
        (
            "tick_per_release",
            c.tick_per_release.is_some(),
            &[ModelKind::Tick],
        ),
        ("switch_base", c.switch_base.is_some(), &[ModelKind::Tick]),
        (
            "switch_per_level",
            c.switch_per_level.is_some(),
            &[ModelKind::Tick],
        ),
        (
            "switch_optimised",
            c.switch_optimised.is_some(),
            &[ModelKind::Tick],
        ),
        (
            "check_per_thread",
            c.check_per_thread.is_some(),
            &[ModelKind::Listscan],
        ),
        (
            "insert_base",
            c.insert_base.is_some(),
            &[ModelKind::Listscan],
        ),
        (
            "insert_per_position",
            c.insert_per_position.is_some(),
            &[ModelKind::Listscan],
        ),
        (
            "switch",
            c.switch.is_some(),
            &[ModelKind::Listscan, ModelKind::Irqpath],
        ),
        ("tick", c.tick.is_some(), &[ModelKind::Irqpath]),
        ("warm", c.warm.is_some(), &[ModelKind::Irqpath]),
        ("cold", c.cold.is_some(), &[ModelKind::Irqpath]),
    ];
    for (key, is_there, models) in present {
        if is_there && !models.contains(&model) {
            let owners: Vec<&str> = models.iter().map(|m| m.name()).collect();
            return Err(ctx.err(
                span.clone(),
                T,
                Some(key),
                format!(
                    "this cost belongs to kernel model \"{}\", but kernel.model is \"{}\"",
                    owners.join("\" / \""),
                    model.name()
                ),
            ));
        }
    }
    let d = |v: &Option<SDur>, key: &str| ctx.opt_dur(v, T, key, hz);
    Ok(match model {
        ModelKind::Tick => {
            let switch_base = d(&c.switch_base, "switch_base")?;
            let per = d(&c.tick_per_release, "tick_per_release")?;
            // Optional costs that follow another one when not given stay `None`, so that
            // the default keeps following (a fit that sets the other writes only it).
            let opt = |v: &Option<SDur>, key: &str| match v {
                Some(v) => ctx.dur(v, T, key, hz, false).map(Some),
                None => Ok(None),
            };
            TickCosts {
                tick_base: d(&c.tick_base, "tick_base")?,
                tick_per_release: per,
                tick_first_release: opt(&c.tick_first_release, "tick_first_release")?,
                tick_last_release: opt(&c.tick_last_release, "tick_last_release")?,
                switch_base,
                switch_per_level: d(&c.switch_per_level, "switch_per_level")?,
                switch_optimised: opt(&c.switch_optimised, "switch_optimised")?,
            }
            .into()
        }
        ModelKind::Listscan => KernelCosts::Listscan(ListScanCosts {
            check_per_thread: d(&c.check_per_thread, "check_per_thread")?,
            insert_base: d(&c.insert_base, "insert_base")?,
            insert_per_position: d(&c.insert_per_position, "insert_per_position")?,
            switch: d(&c.switch, "switch")?,
        }),
        ModelKind::Irqpath => {
            let stage =
                |s: &Option<RawStage>, name: &str| -> Result<Option<IrqPathStage>, SystemError> {
                    let Some(s) = s else { return Ok(None) };
                    let t = format!("{T}.{name}");
                    Ok(Some(IrqPathStage {
                        entry: match &s.entry {
                            Some(e) => Some(ctx.dur(e, &t, "entry", hz, false)?),
                            None => None,
                        },
                        prologue: ctx.opt_dur(&s.prologue, &t, "prologue", hz)?,
                        send: ctx.opt_dur(&s.send, &t, "send", hz)?,
                        dispatch: ctx.opt_dur(&s.dispatch, &t, "dispatch", hz)?,
                    }))
                };
            KernelCosts::Irqpath(IrqPathCosts {
                tick: d(&c.tick, "tick")?,
                switch: d(&c.switch, "switch")?,
                warm: stage(&c.warm, "warm")?.unwrap_or_default(),
                cold: stage(&c.cold, "cold")?,
            })
        }
    })
}
