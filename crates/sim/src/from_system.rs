//! Builds the engine's [`SimConfig`] from the shared system description
//! (`latscope_model::system::System`). Every overhead figure comes from the model's own
//! cost functions (`TickCosts::tick_cost`, `switch_cost`, `optimised_switch_cost`,
//! `ListScanCosts::insertion_cost`, `SleepState::wake_latency`, `Platform::irq_entry`),
//! evaluated once into the engine's tables, so the analysis and the simulator charge
//! the same numbers.

use crate::config::*;
use latscope_core::time::parse_duration;
use latscope_core::Picos;
use latscope_model::resource::Protocol;
use latscope_model::system::{Arrival, KernelCosts, Scheduler, System, TaskSelection};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Which execution time each job gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExecMode {
    /// The task's `exec_time_file` when it has one, otherwise its WCET.
    #[default]
    Auto,
    /// Always the WCET.
    Wcet,
    /// Uniform between BCET and WCET (ignores execution-time files).
    Uniform,
}

/// How interrupts arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IrqMode {
    /// Strictly periodic at the minimum inter-arrival time, first at 0 (worst case).
    #[default]
    Worst,
    /// First at a random offset in `[0, min)`, then gaps uniform in `[min, 2 min]`; an
    /// interrupt declared `periodic` in the system file stays strictly periodic.
    Random,
}

#[derive(Clone, Debug, Default)]
pub struct FromSystemOptions {
    pub exec: ExecMode,
    pub irq: IrqMode,
    /// Seed for the interrupt offsets of [`IrqMode::Random`].
    pub seed: u64,
    /// Sleep state by name (default: the one with the longest wake-up latency).
    pub sleep_state: Option<String>,
    /// Disable tickless idle even when the file lists sleep states.
    pub no_tickless: bool,
    /// `configEXPECTED_IDLE_TIME_BEFORE_SLEEP` (default 2).
    pub min_idle_ticks: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum FromSystemError {
    // The OS error is the source (not repeated here): `{:#}` chains print it once.
    #[error("cannot read execution-time file {path}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    ExecFile {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{0}")]
    Unsupported(String),
    /// The configuration cannot be simulated. The message does not repeat the system
    /// file's name (callers name the file they read, as `latscope simulate` does).
    #[error("{err}")]
    Config {
        source_name: String,
        err: ConfigError,
    },
}

/// Names of the sleep-state parts that are a context switch: the engine charges the
/// switch itself, so only the excess over a normal switch is kept as `switch_extra`.
fn is_switch_part(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("switch") || n.contains("svc") || n.contains("pendsv")
}

/// Converts a system description; see the module documentation.
pub fn from_system(sys: &System, o: &FromSystemOptions) -> Result<SimConfig, FromSystemError> {
    let n = sys.tasks.len();
    let maxp = sys.tasks.iter().map(|t| t.priority).max().unwrap_or(0);
    let tick_period = sys.kernel.tick_period();
    let mut irq_entry = sys.platform.irq_entry();
    let mut irq_extra = Picos::ZERO;
    let mut normal_switch = Picos::ZERO;
    // A one-core system (or a core's view, which carries its core's policy as core 0's).
    let edf = sys.kernel.scheduler_of(0) == Scheduler::Edf;
    let kernel = match &sys.kernel.costs {
        KernelCosts::Tick(c) => {
            let switch_cost = match sys.kernel.task_selection {
                // EDF: the deadline-ordered choice costs what the generic selection's
                // walk over every task costs, the figure the EDF analysis charges.
                TaskSelection::Generic if edf => {
                    normal_switch = c.switch_cost(n as u32);
                    SwitchCost::Constant(normal_switch)
                }
                TaskSelection::Generic => {
                    // The table has one entry per priority number the selection loop can
                    // walk past, so the priorities must stay in a realistic range.
                    if let Some(t) = sys.tasks.iter().find(|t| t.priority > MAX_GENERIC_PRIORITY) {
                        return Err(FromSystemError::Config {
                            source_name: sys.source.clone(),
                            err: ConfigError::Task {
                                task: t.name.clone(),
                                what: format!(
                                    "key priority: {} is above {MAX_GENERIC_PRIORITY}, the largest \
                                     priority the simulator supports with generic task selection \
                                     (it charges every priority number the selection walks past); \
                                     renumber the priorities or use task_selection = \"optimised\"",
                                    t.priority
                                ),
                            },
                        });
                    }
                    normal_switch = c.switch_cost(1);
                    // engine index = empty levels walked past; the model counts loop
                    // iterations with 0 treated as 1 (the FreeRTOS overheads paper Table 4).
                    SwitchCost::PerLevel((0..=maxp + 1).map(|k| c.switch_cost(k)).collect())
                }
                TaskSelection::Optimised => {
                    normal_switch = c.optimised_switch_cost();
                    SwitchCost::Constant(c.optimised_switch_cost())
                }
            };
            Kernel::Tick(TickKernel {
                tick_cost: (0..=n as u32).map(|r| c.tick_cost(r)).collect(),
                switch_cost,
                time_slicing: sys.kernel.time_slicing && !edf,
                edf,
            })
        }
        KernelCosts::Listscan(_) if edf => {
            return Err(FromSystemError::Unsupported(
                "kernel.scheduler = \"edf\" is simulated with the tick kernel only \
                 (the list-scan kernel runs its threads by priority)"
                    .into(),
            ))
        }
        KernelCosts::Listscan(c) => Kernel::ListScan(ListScanKernel {
            check_cost: c.check_per_thread,
            insert_cost: (0..n.max(1) as u32).map(|p| c.insertion_cost(p)).collect(),
            switch_cost: c.switch,
        }),
        KernelCosts::Irqpath(c) => {
            // kernel-v4-like: constant tick and switch; the interrupt path's stages are
            // charged to every interrupt handler (entry from the stage when given).
            let st = c.stage(false);
            if let Some(e) = st.entry {
                irq_entry = e;
            }
            irq_extra = st.prologue + st.send + st.dispatch;
            normal_switch = c.switch;
            Kernel::Tick(TickKernel {
                tick_cost: vec![c.tick],
                switch_cost: SwitchCost::Constant(c.switch),
                time_slicing: sys.kernel.time_slicing && !edf,
                edf,
            })
        }
    };
    let is_tick = matches!(kernel, Kernel::Tick(_));
    let mut tasks = Vec::with_capacity(n);
    let res = &sys.resources;
    let sections = |v: &[latscope_model::resource::Section]| -> Vec<SimSection> {
        v.iter()
            .map(|s| SimSection {
                resource: s.resource,
                at: s.at,
                duration: s.duration,
            })
            .collect()
    };
    for (ti, t) in sys.tasks.iter().enumerate() {
        let exec = match (o.exec, &t.exec_time_file) {
            (ExecMode::Auto, Some(f)) => {
                ExecTime::Empirical(read_exec_file_for(f, &t.name, t.wcet)?)
            }
            (ExecMode::Uniform, _) => ExecTime::Uniform {
                bcet: t.bcet.min(t.wcet),
                wcet: t.wcet,
            },
            _ => ExecTime::Fixed(t.wcet),
        };
        let activation = match t.released_by {
            Some(q) if is_tick => Activation::Interrupt(q),
            Some(_) => {
                return Err(FromSystemError::Unsupported(format!(
                "task '{}': interrupt-released threads are not simulated with the list-scan model",
                t.name
            )))
            }
            // A chain's event link: released by another task's completion.
            None => match (sys.chains.is_empty(), sys.activator(ti)) {
                (false, Some(a)) => Activation::Task(a),
                _ => Activation::Periodic,
            },
        };
        let period = match t.arrival {
            Arrival::Periodic(p) | Arrival::Sporadic(p) => p,
        };
        tasks.push(SimTask {
            name: t.name.clone(),
            priority: t.priority,
            period,
            offset: t.offset,
            deadline: t.deadline,
            jitter: t.jitter,
            exec,
            critical: sys.critical_sections.application,
            activation,
            sections: sections(res.of_task(ti)),
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed ^ 0x5eed_1a7e_c0de_u64);
    let interrupts = sys
        .interrupts
        .iter()
        .enumerate()
        .map(|(qi, q)| {
            let min = q.min_interarrival;
            let arrival = match o.irq {
                // The file's offset is the first arrival (a measured phasing replayed).
                IrqMode::Worst => IrqArrival::Periodic {
                    period: min,
                    offset: q.offset,
                },
                IrqMode::Random => {
                    // drawn for every interrupt, so that the others' draws do not depend
                    // on which ones are periodic
                    let shift = Picos(rng.gen_range(0..min.0.max(1)));
                    if q.periodic {
                        // declared periodic in the system file: a timer stays a timer
                        IrqArrival::Periodic {
                            period: min,
                            offset: q.offset,
                        }
                    } else {
                        IrqArrival::Sporadic {
                            min,
                            max: Picos(min.0.saturating_mul(2)),
                            offset: q.offset + shift,
                        }
                    }
                }
            };
            SimIrq {
                name: q.name.clone(),
                priority: q.priority,
                above_kernel: q.above_kernel,
                wcet: q.wcet + irq_extra,
                arrival,
                sections: sections(res.of_interrupt(qi)),
            }
        })
        .collect();
    if let (Some(name), true) = (&o.sleep_state, sys.kernel.sleep_states.is_empty()) {
        return Err(FromSystemError::Unsupported(format!(
            "sleep state '{name}' requested but the file has no sleep states ([[kernel.sleep_state]])"
        )));
    }
    let tickless = if o.no_tickless || sys.kernel.sleep_states.is_empty() || !is_tick {
        None
    } else {
        let st = match &o.sleep_state {
            Some(name) => sys
                .kernel
                .sleep_states
                .iter()
                .find(|s| &s.name == name)
                .ok_or_else(|| {
                    FromSystemError::Unsupported(format!(
                        "no sleep state '{name}'; the file has: {}",
                        sys.kernel
                            .sleep_states
                            .iter()
                            .map(|s| s.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?,
            None => sys
                .kernel
                .sleep_states
                .iter()
                .max_by_key(|s| s.wake_latency())
                .ok_or_else(|| FromSystemError::Unsupported("no sleep state".into()))?,
        };
        let switch_part: Picos = st
            .parts
            .iter()
            .filter(|(n, _)| is_switch_part(n))
            .fold(Picos::ZERO, |a, (_, p)| a + *p);
        let exit = st.wake_latency() - switch_part;
        let extra = if switch_part.0 > 0 {
            Picos((switch_part.0 - (irq_entry + normal_switch).0).max(0))
        } else {
            Picos::ZERO
        };
        Some(Tickless {
            min_idle_ticks: o.min_idle_ticks.unwrap_or(2).max(2),
            margin_ticks: st.safety_margin_ticks as u64,
            state: st.name.clone(),
            exit_latency: exit,
            switch_extra: extra,
        })
    };
    let cfg = SimConfig {
        tick_period,
        tick_hz: Some(sys.kernel.tick_hz),
        irq_entry,
        kernel,
        tasks,
        interrupts,
        tickless,
        resources: res
            .list
            .iter()
            .map(|r| SimResource {
                name: r.name.clone(),
                protocol: match r.protocol {
                    Protocol::Inheritance => SimProtocol::Inheritance,
                    Protocol::Ceiling => SimProtocol::Ceiling,
                    Protocol::Critical => SimProtocol::Critical,
                },
            })
            .collect(),
        lock_costs: SimLockCosts {
            lock: res.costs.lock,
            unlock: res.costs.unlock,
            inherit: res.costs.inherit,
        },
        devices: Vec::new(),
        outputs: Vec::new(),
    };
    cfg.validate().map_err(|err| FromSystemError::Config {
        source_name: sys.source.clone(),
        err,
    })?;
    Ok(cfg)
}

/// Reads an empirical execution-time distribution: one value per line, each a duration
/// with its unit (`12.5us`); blank lines and `#` comments are skipped; in a CSV line the
/// first field counts. A first line that is not a duration is a header; a header field
/// ending in `_ps`, `_ns`, `_us`, `_ms` or `_s` gives bare numbers that unit.
pub fn read_exec_file(path: &Path) -> Result<Vec<Picos>, FromSystemError> {
    let text = std::fs::read_to_string(path).map_err(|e| FromSystemError::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    parse_exec_text(&text, &path.display().to_string())
}

/// [`read_exec_file`] for a task: every value must be positive and at most the task's
/// WCET (the WCET is an upper bound by definition); an error names the file and line.
pub fn read_exec_file_for(
    path: &Path,
    task: &str,
    wcet: Picos,
) -> Result<Vec<Picos>, FromSystemError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FromSystemError::Io {
        path: name.clone(),
        source: e,
    })?;
    check_exec_values(parse_exec_lines(&text, &name)?, &name, task, wcet)
}

/// Checks parsed `(line, value)` pairs against a task's WCET; see [`read_exec_file_for`].
pub fn check_exec_values(
    values: Vec<(usize, Picos)>,
    name: &str,
    task: &str,
    wcet: Picos,
) -> Result<Vec<Picos>, FromSystemError> {
    let fmt = |p: Picos| latscope_core::time::format_ps(p.0 as i128);
    for &(line, v) in &values {
        let message = if v.0 <= 0 {
            format!("execution time {} must be positive", fmt(v))
        } else if v > wcet {
            format!("{} exceeds task \"{task}\"'s WCET {}", fmt(v), fmt(wcet))
        } else {
            continue;
        };
        return Err(FromSystemError::ExecFile {
            path: name.into(),
            line,
            message,
        });
    }
    Ok(values.into_iter().map(|(_, v)| v).collect())
}

/// See [`read_exec_file`]; `name` is used in errors.
pub fn parse_exec_text(text: &str, name: &str) -> Result<Vec<Picos>, FromSystemError> {
    Ok(parse_exec_lines(text, name)?
        .into_iter()
        .map(|(_, v)| v)
        .collect())
}

/// [`parse_exec_text`] with the 1-based line number of every value.
pub fn parse_exec_lines(text: &str, name: &str) -> Result<Vec<(usize, Picos)>, FromSystemError> {
    let mut unit: Option<&str> = None;
    let mut out = Vec::new();
    let mut first = true;
    for (ln, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let field = line.split([',', ';', '\t']).next().unwrap_or("").trim();
        let is_first = std::mem::replace(&mut first, false);
        let parsed = match unit {
            Some(u) if field.parse::<f64>().is_ok() => parse_duration(&format!("{field}{u}")),
            _ => parse_duration(field),
        };
        match parsed {
            Ok(p) if p.0 >= 0 => out.push((ln + 1, p)),
            Ok(_) => {
                return Err(FromSystemError::ExecFile {
                    path: name.into(),
                    line: ln + 1,
                    message: format!("negative execution time '{field}'"),
                })
            }
            Err(e) => {
                if is_first && field.parse::<f64>().is_err() {
                    let f = field.to_ascii_lowercase();
                    unit = ["_ps", "_ns", "_us", "_ms", "_s"]
                        .iter()
                        .find(|s| f.ends_with(*s))
                        .map(|s| &s[1..]);
                    continue;
                }
                return Err(FromSystemError::ExecFile {
                    path: name.into(),
                    line: ln + 1,
                    message: format!("'{field}': {e}"),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(FromSystemError::ExecFile {
            path: name.into(),
            line: 0,
            message: "no execution times in the file".into(),
        });
    }
    Ok(out)
}
