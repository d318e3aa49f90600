//! The system description shared by `latscope analyze` and `latscope simulate`.
//!
//! A system is a platform (CPU clock, interrupt entry latency, cache states), a kernel
//! (tick rate, scheduling options, overhead model and its costs, tickless sleep states),
//! tasks, interrupts and the longest interrupts-disabled sections. The file format is TOML
//! (JSON with the same structure is accepted); it is documented in `docs/system-format.md`
//! and `docs/system.schema.json`.
//!
//! Every time is stored as integer [`Picos`]. Durations in the file are strings with a
//! unit (`"1.5us"`, `"5 ms"`, `"12 cycles"`); a bare number is accepted only where the key
//! names the unit (`cpu_hz`, `tick_hz`, `irq_entry_cycles`, `safety_margin_ticks`).
//!
//! Errors name the file, the line and column (TOML only), the table (`task[3] "B"`) and
//! the key.

use crate::overheads::irqpath::{IrqPathCosts, IrqPathStage};
use crate::overheads::listscan::ListScanCosts;
use crate::overheads::tick::TickCosts;
use crate::overheads::tickless::SleepState;
use latscope_core::time::{parse_duration_cycles, parse_frequency_hz, Picos, UnitError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

// ---------------------------------------------------------------------------------------
// Public model
// ---------------------------------------------------------------------------------------

/// A complete, validated system description.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct System {
    /// Where the description came from (a path or a name given by the caller).
    pub source: String,
    pub platform: Platform,
    pub kernel: Kernel,
    /// Tasks in file order.
    pub tasks: Vec<Task>,
    /// Interrupt handlers in file order.
    pub interrupts: Vec<Interrupt>,
    pub critical_sections: CriticalSections,
}

/// The processor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Platform {
    /// CPU clock in hertz.
    pub cpu_hz: u64,
    /// Hardware interrupt entry latency in cycles (12 on Cortex-M3/M4/M33), the `L` of
    /// seed 001's equations (1) and (2).
    pub irq_entry_cycles: u64,
    pub cache: CacheModel,
}

/// Cache states and which one the analysis assumes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheModel {
    /// The state charged by the analysis (`warm` unless the file says otherwise).
    pub assume: CacheState,
    /// Extra interrupt entry time with a warm cache (normally zero).
    pub warm_extra: Picos,
    /// Extra interrupt entry time with a cold cache (seed 004: the raw interrupt latency
    /// grows from 232 ns to over 3.3 us when the handler is fetched from flash).
    pub cold_extra: Picos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheState {
    Warm,
    Cold,
}

impl Platform {
    /// Hardware interrupt entry time `L` in the given cache state:
    /// `irq_entry_cycles / cpu_hz` plus the state's extra entry cost.
    pub fn irq_entry_in(&self, state: CacheState) -> Picos {
        let base = Picos::from_cycles(self.irq_entry_cycles, self.cpu_hz);
        base + match state {
            CacheState::Warm => self.cache.warm_extra,
            CacheState::Cold => self.cache.cold_extra,
        }
    }
    /// `L` in the cache state the analysis assumes.
    pub fn irq_entry(&self) -> Picos {
        self.irq_entry_in(self.cache.assume)
    }
    /// The duration of `cycles` CPU cycles.
    pub fn cycles(&self, cycles: u64) -> Picos {
        Picos::from_cycles(cycles, self.cpu_hz)
    }
}

/// Which overhead model the kernel follows (see `docs/models.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// Tick-driven fixed-priority kernel (FreeRTOS-like, seed 001).
    Tick,
    /// List-scan scheduler run at every tick (kernel-v1-like, seed 003).
    Listscan,
    /// Message-passing interrupt-to-task activation (kernel-v4-like, seed 004).
    Irqpath,
}

impl ModelKind {
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Tick => "tick",
            ModelKind::Listscan => "listscan",
            ModelKind::Irqpath => "irqpath",
        }
    }
}

/// The kernel's overhead model with its costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum KernelCosts {
    Tick(TickCosts),
    Listscan(ListScanCosts),
    Irqpath(IrqPathCosts),
}

impl KernelCosts {
    pub fn kind(&self) -> ModelKind {
        match self {
            KernelCosts::Tick(_) => ModelKind::Tick,
            KernelCosts::Listscan(_) => ModelKind::Listscan,
            KernelCosts::Irqpath(_) => ModelKind::Irqpath,
        }
    }
}

/// How the highest-priority ready task is found (FreeRTOS
/// `configUSE_PORT_OPTIMISED_TASK_SELECTION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSelection {
    /// Walk down the ready lists one priority level at a time (cost grows with levels).
    Generic,
    /// One count-leading-zeros instruction (constant cost).
    #[serde(alias = "optimized")]
    Optimised,
}

/// How the analysis charges the tick handler (seed 001, section 5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TickMode {
    /// Every tick pays for releasing all n tasks.
    Pessimistic,
    /// A base tick pseudo-task plus one pseudo-task per task with that task's period.
    Partitioned,
}

impl TickMode {
    pub fn name(self) -> &'static str {
        match self {
            TickMode::Pessimistic => "pessimistic",
            TickMode::Partitioned => "partitioned",
        }
    }
}

/// The kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Kernel {
    /// Tick rate in hertz.
    pub tick_hz: u64,
    pub costs: KernelCosts,
    pub task_selection: TaskSelection,
    pub tick_mode: TickMode,
    /// Round-robin among ready tasks of equal priority at every tick.
    pub time_slicing: bool,
    /// Whether two tasks may share a priority (FreeRTOS allows it).
    pub allow_equal_priorities: bool,
    /// Tickless-idle sleep states (empty: the tick always runs).
    pub sleep_states: Vec<SleepState>,
}

impl Kernel {
    /// The tick period, `1 s / tick_hz`, truncated to whole picoseconds (a truncated
    /// period is shorter, which makes every tick-based bound slightly pessimistic).
    pub fn tick_period(&self) -> Picos {
        Picos(1_000_000_000_000 / self.tick_hz.max(1) as i64)
    }
    pub fn model(&self) -> ModelKind {
        self.costs.kind()
    }
}

/// How a task's jobs arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "t", rename_all = "lowercase")]
pub enum Arrival {
    /// Strictly periodic with this period.
    Periodic(Picos),
    /// Sporadic with this minimum inter-arrival time.
    Sporadic(Picos),
}

impl Arrival {
    /// The period or minimum inter-arrival time.
    pub fn period(self) -> Picos {
        match self {
            Arrival::Periodic(t) | Arrival::Sporadic(t) => t,
        }
    }
}

/// A task (FreeRTOS convention: a larger priority number is a higher priority).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    pub name: String,
    pub arrival: Arrival,
    pub wcet: Picos,
    pub bcet: Picos,
    pub priority: u32,
    /// Relative deadline (default: the period).
    pub deadline: Picos,
    pub offset: Picos,
    /// Release jitter given in the file (the tick-driven release delay is added by the
    /// analysis, not stored here).
    pub jitter: Picos,
    /// Longest blocking by lower-priority tasks (e.g. a lower-priority critical section).
    pub blocking: Picos,
    /// Optional execution-time distribution file for the simulator, resolved relative
    /// to the system file's directory.
    pub exec_time_file: Option<PathBuf>,
    /// The interrupt (index into [`System::interrupts`]) whose handler releases this
    /// task, if any.
    pub released_by: Option<usize>,
}

impl Task {
    pub fn period(&self) -> Picos {
        self.arrival.period()
    }
}

/// An interrupt handler.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interrupt {
    pub name: String,
    pub min_interarrival: Picos,
    pub wcet: Picos,
    /// Hardware priority among interrupts (larger = more urgent).
    pub priority: u32,
    /// Above the kernel's interrupt mask (not delayed by kernel critical sections, may
    /// not call the kernel).
    pub above_kernel: bool,
    /// The task this handler releases (index into [`System::tasks`]).
    pub releases: Option<usize>,
}

/// Longest interrupts-disabled sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CriticalSections {
    pub kernel: Picos,
    pub application: Picos,
}

impl CriticalSections {
    pub fn longest(&self) -> Picos {
        self.kernel.max(self.application)
    }
}

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

    /// Parses JSON text of the same structure (errors name table and key, not lines).
    pub fn from_json_str(text: &str, source_name: &str) -> Result<System, SystemError> {
        let value: toml::Value = serde_json::from_str(text).map_err(|e| {
            SystemError::Invalid(Box::new(Diagnostic {
                file: source_name.to_string(),
                line: Some(e.line()),
                column: Some(e.column()),
                table: None,
                key: None,
                message: format!("not valid JSON for a system description: {e}"),
            }))
        })?;
        let toml_text = toml::to_string(&value).map_err(|e| {
            SystemError::Invalid(Box::new(Diagnostic {
                file: source_name.to_string(),
                line: None,
                column: None,
                table: None,
                key: None,
                message: format!("cannot convert JSON to the system structure: {e}"),
            }))
        })?;
        let ctx = Ctx {
            file: source_name,
            text: &toml_text,
            lines: false,
        };
        parse(&ctx)
    }

    /// The description as TOML in the documented format (used by `latscope fit` and
    /// `latscope generate`). Parsing the result gives back an equal system (apart from
    /// `source`).
    pub fn to_toml_string(&self) -> String {
        let v = self.to_value();
        toml::to_string(&v).unwrap_or_default()
    }

    /// The description as JSON in the documented format.
    pub fn to_json_string(&self) -> String {
        let v = self.to_value();
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    /// Index of the task called `name`.
    pub fn task_index(&self, name: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.name == name)
    }

    fn to_value(&self) -> toml::Value {
        use toml::Value as V;
        let d = |p: Picos| V::String(format_exact(p));
        let mut root = toml::Table::new();

        let mut pf = toml::Table::new();
        pf.insert("cpu_hz".into(), V::Integer(self.platform.cpu_hz as i64));
        pf.insert(
            "irq_entry_cycles".into(),
            V::Integer(self.platform.irq_entry_cycles as i64),
        );
        let c = &self.platform.cache;
        if c.assume != CacheState::Warm
            || c.warm_extra != Picos::ZERO
            || c.cold_extra != Picos::ZERO
        {
            let mut ct = toml::Table::new();
            ct.insert(
                "assume".into(),
                V::String(
                    match c.assume {
                        CacheState::Warm => "warm",
                        CacheState::Cold => "cold",
                    }
                    .into(),
                ),
            );
            ct.insert("warm".into(), d(c.warm_extra));
            ct.insert("cold".into(), d(c.cold_extra));
            pf.insert("cache".into(), V::Table(ct));
        }
        root.insert("platform".into(), V::Table(pf));

        let k = &self.kernel;
        let mut kt = toml::Table::new();
        kt.insert("tick_hz".into(), V::Integer(k.tick_hz as i64));
        kt.insert("model".into(), V::String(k.model().name().into()));
        kt.insert(
            "task_selection".into(),
            V::String(
                match k.task_selection {
                    TaskSelection::Generic => "generic",
                    TaskSelection::Optimised => "optimised",
                }
                .into(),
            ),
        );
        kt.insert("tick_mode".into(), V::String(k.tick_mode.name().into()));
        kt.insert("time_slicing".into(), V::Boolean(k.time_slicing));
        kt.insert(
            "allow_equal_priorities".into(),
            V::Boolean(k.allow_equal_priorities),
        );
        let mut costs = toml::Table::new();
        match &k.costs {
            KernelCosts::Tick(c) => {
                costs.insert("tick_base".into(), d(c.tick_base));
                costs.insert("tick_per_release".into(), d(c.tick_per_release));
                costs.insert("switch_base".into(), d(c.switch_base));
                costs.insert("switch_per_level".into(), d(c.switch_per_level));
                costs.insert("switch_optimised".into(), d(c.switch_optimised));
            }
            KernelCosts::Listscan(c) => {
                costs.insert("check_per_thread".into(), d(c.check_per_thread));
                costs.insert("insert_base".into(), d(c.insert_base));
                costs.insert("insert_per_position".into(), d(c.insert_per_position));
                costs.insert("switch".into(), d(c.switch));
            }
            KernelCosts::Irqpath(c) => {
                costs.insert("tick".into(), d(c.tick));
                costs.insert("switch".into(), d(c.switch));
                let stage = |s: &IrqPathStage| {
                    let mut t = toml::Table::new();
                    if let Some(e) = s.entry {
                        t.insert("entry".into(), d(e));
                    }
                    t.insert("prologue".into(), d(s.prologue));
                    t.insert("send".into(), d(s.send));
                    t.insert("dispatch".into(), d(s.dispatch));
                    V::Table(t)
                };
                costs.insert("warm".into(), stage(&c.warm));
                if let Some(cold) = &c.cold {
                    costs.insert("cold".into(), stage(cold));
                }
            }
        }
        kt.insert("costs".into(), V::Table(costs));
        if !k.sleep_states.is_empty() {
            let mut arr = Vec::new();
            for s in &k.sleep_states {
                let mut st = toml::Table::new();
                st.insert("name".into(), V::String(s.name.clone()));
                st.insert(
                    "safety_margin_ticks".into(),
                    V::Integer(s.safety_margin_ticks as i64),
                );
                let mut parts = toml::Table::new();
                for (n, p) in &s.parts {
                    parts.insert(n.clone(), d(*p));
                }
                st.insert("parts".into(), V::Table(parts));
                arr.push(V::Table(st));
            }
            kt.insert("sleep_state".into(), V::Array(arr));
        }
        root.insert("kernel".into(), V::Table(kt));

        let cs = &self.critical_sections;
        if *cs != CriticalSections::default() {
            let mut t = toml::Table::new();
            t.insert("kernel".into(), d(cs.kernel));
            t.insert("application".into(), d(cs.application));
            root.insert("critical_sections".into(), V::Table(t));
        }

        let mut tasks = Vec::new();
        for t in &self.tasks {
            let mut tt = toml::Table::new();
            tt.insert("name".into(), V::String(t.name.clone()));
            match t.arrival {
                Arrival::Periodic(p) => tt.insert("period".into(), d(p)),
                Arrival::Sporadic(p) => tt.insert("min_interarrival".into(), d(p)),
            };
            tt.insert("wcet".into(), d(t.wcet));
            if t.bcet != t.wcet {
                tt.insert("bcet".into(), d(t.bcet));
            }
            tt.insert("priority".into(), V::Integer(t.priority as i64));
            if t.deadline != t.period() {
                tt.insert("deadline".into(), d(t.deadline));
            }
            for (key, v) in [
                ("offset", t.offset),
                ("jitter", t.jitter),
                ("blocking", t.blocking),
            ] {
                if v != Picos::ZERO {
                    tt.insert(key.into(), d(v));
                }
            }
            if let Some(f) = &t.exec_time_file {
                tt.insert("exec_time_file".into(), V::String(f.display().to_string()));
            }
            tasks.push(V::Table(tt));
        }
        root.insert("task".into(), V::Array(tasks));

        if !self.interrupts.is_empty() {
            let mut irqs = Vec::new();
            for i in &self.interrupts {
                let mut it = toml::Table::new();
                it.insert("name".into(), V::String(i.name.clone()));
                it.insert("min_interarrival".into(), d(i.min_interarrival));
                it.insert("wcet".into(), d(i.wcet));
                it.insert("priority".into(), V::Integer(i.priority as i64));
                it.insert("above_kernel".into(), V::Boolean(i.above_kernel));
                if let Some(r) = i.releases {
                    it.insert("releases".into(), V::String(self.tasks[r].name.clone()));
                }
                irqs.push(V::Table(it));
            }
            root.insert("interrupt".into(), V::Array(irqs));
        }
        V::Table(root)
    }
}

/// Formats a duration exactly, in the largest unit that keeps it readable
/// (`1.5us`, `142.857ns`, `5ms`, `0ns`).
pub fn format_exact(p: Picos) -> String {
    let v = p.0 as i128;
    let a = v.unsigned_abs();
    let (div, unit): (u128, &str) = if a >= 1_000_000_000_000 {
        (1_000_000_000_000, "s")
    } else if a >= 1_000_000_000 {
        (1_000_000_000, "ms")
    } else if a >= 1_000_000 {
        (1_000_000, "us")
    } else if a >= 1_000 || a == 0 {
        (1_000, "ns")
    } else {
        (1, "ps")
    };
    let int = a / div;
    let frac = a % div;
    let sign = if v < 0 { "-" } else { "" };
    if frac == 0 {
        return format!("{sign}{int}{unit}");
    }
    let width = div.ilog10() as usize;
    let f = format!("{frac:0width$}");
    format!("{sign}{int}.{}{unit}", f.trim_end_matches('0'))
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// Why a system description was rejected.
#[derive(Debug, thiserror::Error)]
pub enum SystemError {
    /// The OS error is part of the message and deliberately not an error `source`, so
    /// that a caller printing the chain (anyhow's `{:#}`) shows it once (audit D19.1).
    #[error("cannot read {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{0}")]
    Invalid(Box<Diagnostic>),
}

impl SystemError {
    /// The structured diagnostic, when the problem is in the content.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            SystemError::Invalid(d) => Some(d),
            SystemError::Io { .. } => None,
        }
    }
}

/// Where a problem is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    /// 1-based line (TOML input only).
    pub line: Option<usize>,
    /// 1-based column (TOML input only).
    pub column: Option<usize>,
    /// The table, e.g. `kernel.costs` or `task[3] "B"` (0-based index).
    pub table: Option<String>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        f.write_str(": ")?;
        match (&self.table, &self.key) {
            (Some(t), Some(k)) => write!(f, "in {t}, key `{k}`: ")?,
            (Some(t), None) => write!(f, "in {t}: ")?,
            (None, Some(k)) => write!(f, "key `{k}`: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
}

// ---------------------------------------------------------------------------------------
// Raw (file) structures
// ---------------------------------------------------------------------------------------

/// A duration as written: a string with a unit; numbers are rejected with advice.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum RawDur {
    Text(String),
    Int(i64),
    Float(f64),
}

/// A frequency: an integer (hertz) or a string with a unit ("84 MHz").
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum RawFreq {
    Int(i64),
    Text(String),
}

type SDur = Spanned<RawDur>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    platform: Spanned<RawPlatform>,
    kernel: Spanned<RawKernel>,
    #[serde(default)]
    task: Vec<Spanned<RawTask>>,
    #[serde(default)]
    interrupt: Vec<Spanned<RawInterrupt>>,
    #[serde(default)]
    critical_sections: Option<RawCritical>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlatform {
    cpu_hz: Spanned<RawFreq>,
    #[serde(default)]
    irq_entry_cycles: Option<Spanned<i64>>,
    #[serde(default)]
    cache: Option<RawCache>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCache {
    #[serde(default)]
    assume: Option<CacheState>,
    #[serde(default)]
    warm: Option<SDur>,
    #[serde(default)]
    cold: Option<SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    tick_hz: Spanned<RawFreq>,
    #[serde(default)]
    model: Option<ModelKind>,
    #[serde(default)]
    task_selection: Option<TaskSelection>,
    #[serde(default)]
    tick_mode: Option<TickMode>,
    #[serde(default)]
    time_slicing: Option<bool>,
    #[serde(default)]
    allow_equal_priorities: Option<bool>,
    #[serde(default)]
    costs: Option<Spanned<RawCosts>>,
    #[serde(default)]
    sleep_state: Vec<Spanned<RawSleep>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCosts {
    // tick
    tick_base: Option<SDur>,
    tick_per_release: Option<SDur>,
    switch_base: Option<SDur>,
    switch_per_level: Option<SDur>,
    switch_optimised: Option<SDur>,
    // listscan
    check_per_thread: Option<SDur>,
    insert_base: Option<SDur>,
    insert_per_position: Option<SDur>,
    // listscan + irqpath
    switch: Option<SDur>,
    // irqpath
    tick: Option<SDur>,
    warm: Option<RawStage>,
    cold: Option<RawStage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStage {
    #[serde(default)]
    entry: Option<SDur>,
    #[serde(default)]
    prologue: Option<SDur>,
    #[serde(default)]
    send: Option<SDur>,
    #[serde(default)]
    dispatch: Option<SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSleep {
    name: Spanned<String>,
    #[serde(default)]
    safety_margin_ticks: Option<Spanned<i64>>,
    parts: BTreeMap<String, SDur>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTask {
    name: Spanned<String>,
    #[serde(default)]
    period: Option<SDur>,
    #[serde(default)]
    min_interarrival: Option<SDur>,
    wcet: SDur,
    #[serde(default)]
    bcet: Option<SDur>,
    priority: Spanned<i64>,
    #[serde(default)]
    deadline: Option<SDur>,
    #[serde(default)]
    offset: Option<SDur>,
    #[serde(default)]
    jitter: Option<SDur>,
    #[serde(default)]
    blocking: Option<SDur>,
    #[serde(default)]
    exec_time_file: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInterrupt {
    name: Spanned<String>,
    min_interarrival: SDur,
    wcet: SDur,
    #[serde(default)]
    priority: Option<Spanned<i64>>,
    #[serde(default)]
    above_kernel: Option<bool>,
    #[serde(default)]
    releases: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCritical {
    #[serde(default)]
    kernel: Option<SDur>,
    #[serde(default)]
    application: Option<SDur>,
}

// ---------------------------------------------------------------------------------------
// Parsing and validation
// ---------------------------------------------------------------------------------------

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    /// Whether line numbers refer to what the user wrote (false for converted JSON).
    lines: bool,
}

impl Ctx<'_> {
    fn err(
        &self,
        span: Option<Range<usize>>,
        table: &str,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> SystemError {
        let (line, column) = match (&span, self.lines) {
            (Some(s), true) => {
                let (l, c) = line_col(self.text, s.start);
                (Some(l), Some(c))
            }
            _ => (None, None),
        };
        SystemError::Invalid(Box::new(Diagnostic {
            file: self.file.to_string(),
            line,
            column,
            table: if table.is_empty() {
                None
            } else {
                Some(table.to_string())
            },
            key: key.map(str::to_string),
            message: message.into(),
        }))
    }

    /// A duration value; `min` is the smallest allowed value (`Some(0)`: non-negative,
    /// `Some(1)`: positive).
    fn dur(
        &self,
        v: &SDur,
        table: &str,
        key: &str,
        cpu_hz: Option<u64>,
        positive: bool,
    ) -> Result<Picos, SystemError> {
        let span = Some(v.span());
        let p = match v.get_ref() {
            RawDur::Text(s) => parse_duration_cycles(s, cpu_hz).map_err(|e| {
                let hint = match e {
                    UnitError::MissingUnit(_) | UnitError::UnknownUnit { .. } => "",
                    _ => " (units: ps, ns, us, ms, s, cycles)",
                };
                self.err(span.clone(), table, Some(key), format!("{e}{hint}"))
            })?,
            RawDur::Int(n) => {
                return Err(self.err(
                    span,
                    table,
                    Some(key),
                    format!(
                        "{n} has no unit; write a string such as \"{n}us\", \"{n}ms\" or \"{n} cycles\""
                    ),
                ))
            }
            RawDur::Float(x) => {
                return Err(self.err(
                    span,
                    table,
                    Some(key),
                    format!("{x} has no unit; write a string such as \"{x}us\" or \"{x}ms\""),
                ))
            }
        };
        if p.0 < 0 {
            return Err(self.err(
                span,
                table,
                Some(key),
                "a duration here must not be negative",
            ));
        }
        if positive && p.0 == 0 {
            return Err(self.err(span, table, Some(key), "must be greater than zero"));
        }
        Ok(p)
    }

    fn opt_dur(
        &self,
        v: &Option<SDur>,
        table: &str,
        key: &str,
        cpu_hz: Option<u64>,
    ) -> Result<Picos, SystemError> {
        match v {
            Some(v) => self.dur(v, table, key, cpu_hz, false),
            None => Ok(Picos::ZERO),
        }
    }

    fn freq(&self, v: &Spanned<RawFreq>, table: &str, key: &str) -> Result<u64, SystemError> {
        let span = Some(v.span());
        let hz = match v.get_ref() {
            RawFreq::Int(n) if *n > 0 => *n as u64,
            RawFreq::Int(n) => {
                return Err(self.err(
                    span,
                    table,
                    Some(key),
                    format!("{n} Hz: must be greater than zero"),
                ))
            }
            RawFreq::Text(s) => parse_frequency_hz(s)
                .map_err(|e| self.err(span.clone(), table, Some(key), e.to_string()))?,
        };
        if hz == 0 {
            return Err(self.err(span, table, Some(key), "must be greater than zero"));
        }
        Ok(hz)
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, col)
}

/// The table a byte offset lies in, from the headers written before it, e.g.
/// `task[2] "B"` or `kernel.costs`.
fn table_at(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    // Include the whole line the offset is on: a span starting at a `[[task]]` header
    // belongs to that new table.
    let end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
    let mut current = String::new();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut index: Option<usize> = None;
    for line in text[..end].lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("[[") {
            if let Some(end) = rest.find("]]") {
                let name = rest[..end].trim().to_string();
                let c = counts.entry(name.clone()).or_insert(0);
                index = Some(*c);
                *c += 1;
                current = name;
            }
        } else if let Some(rest) = t.strip_prefix('[') {
            if let Some(end) = rest.find(']') {
                current = rest[..end].trim().to_string();
                index = None;
            }
        }
    }
    match index {
        Some(i) => {
            let name = entry_name(text, &current, i);
            match name {
                Some(n) => format!("{current}[{i}] \"{n}\""),
                None => format!("{current}[{i}]"),
            }
        }
        None => current,
    }
}

/// The `name` key of the i-th entry of an array of tables, read leniently.
fn entry_name(text: &str, array: &str, i: usize) -> Option<String> {
    let v: toml::Table = toml::from_str(text).ok()?;
    let mut cur: &toml::Value = v.get(array.split('.').next()?)?;
    for part in array.split('.').skip(1) {
        cur = cur.get(part)?;
    }
    cur.as_array()?
        .get(i)?
        .get("name")?
        .as_str()
        .map(str::to_string)
}

fn task_label(i: usize, name: &str) -> String {
    format!("task[{i}] \"{name}\"")
}

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

    // platform
    let p = raw.platform.get_ref();
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
    let platform = Platform {
        cpu_hz,
        irq_entry_cycles,
        cache,
    };

    // kernel
    let k = raw.kernel.get_ref();
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
    let kernel = Kernel {
        tick_hz,
        costs,
        task_selection: k.task_selection.unwrap_or(TaskSelection::Generic),
        tick_mode: k.tick_mode.unwrap_or(TickMode::Partitioned),
        time_slicing: k.time_slicing.unwrap_or(false),
        allow_equal_priorities: k.allow_equal_priorities.unwrap_or(true),
        sleep_states,
    };

    // tasks
    if raw.task.is_empty() {
        return Err(ctx.err(
            None,
            "",
            Some("task"),
            "no [[task]] tables: a system needs at least one task",
        ));
    }
    let mut names: HashMap<String, String> = HashMap::new();
    let mut tasks = Vec::with_capacity(raw.task.len());
    let mut prio_owner: HashMap<u32, usize> = HashMap::new();
    for (i, st) in raw.task.iter().enumerate() {
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
        });
    }

    // interrupts
    let mut interrupts = Vec::new();
    for (i, si) in raw.interrupt.iter().enumerate() {
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
        interrupts.push(Interrupt {
            name,
            min_interarrival,
            wcet,
            priority,
            above_kernel: r.above_kernel.unwrap_or(false),
            releases,
        });
    }

    let critical_sections = match &raw.critical_sections {
        Some(c) => CriticalSections {
            kernel: ctx.opt_dur(&c.kernel, "critical_sections", "kernel", hz)?,
            application: ctx.opt_dur(&c.application, "critical_sections", "application", hz)?,
        },
        None => CriticalSections::default(),
    };

    Ok(System {
        source: ctx.file.to_string(),
        platform,
        kernel,
        tasks,
        interrupts,
        critical_sections,
    })
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
    let present: [(&str, bool, &[ModelKind]); 12] = [
        ("tick_base", c.tick_base.is_some(), &[ModelKind::Tick]),
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
            TickCosts {
                tick_base: d(&c.tick_base, "tick_base")?,
                tick_per_release: d(&c.tick_per_release, "tick_per_release")?,
                switch_base,
                switch_per_level: d(&c.switch_per_level, "switch_per_level")?,
                switch_optimised: match &c.switch_optimised {
                    Some(v) => ctx.dur(v, T, "switch_optimised", hz, false)?,
                    None => switch_base,
                },
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

impl From<TickCosts> for KernelCosts {
    fn from(c: TickCosts) -> Self {
        KernelCosts::Tick(c)
    }
}
