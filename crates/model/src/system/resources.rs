//! `[[resource]]` tables and the `critical = [..]` sections of tasks and interrupt
//! handlers: reading, validation (errors name the file, line, table and key) and
//! writing. The model is [`crate::resource`].

use super::context::{task_label, Ctx};
use super::error::SystemError;
use super::model::{Interrupt, Task};
use super::raw::{RawFile, SDur};
use super::write::format_exact;
use crate::resource::{LockCosts, Protocol, Resource, Resources, Section};
use latscope_core::time::Picos;
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawResource {
    pub(super) name: Spanned<String>,
    pub(super) protocol: Spanned<Protocol>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSection {
    pub(super) resource: Spanned<String>,
    pub(super) duration: SDur,
    #[serde(default)]
    pub(super) at: Option<SDur>,
    #[serde(default)]
    pub(super) inside: Option<Spanned<String>>,
}

pub(super) fn build(
    ctx: &Ctx,
    raw: &RawFile,
    tasks: &[Task],
    interrupts: &[Interrupt],
    hz: Option<u64>,
) -> Result<Resources, SystemError> {
    let mut list: Vec<Resource> = Vec::new();
    for (i, r) in raw.resource.iter().enumerate() {
        let r = r.get_ref();
        let name = r.name.get_ref().trim().to_string();
        let label = format!("resource[{i}] \"{name}\"");
        if name.is_empty() {
            return Err(ctx.err(
                Some(r.name.span()),
                &label,
                Some("name"),
                "the name is empty",
            ));
        }
        if list.iter().any(|x| x.name == name) {
            return Err(ctx.err(
                Some(r.name.span()),
                &label,
                Some("name"),
                format!("duplicate resource name \"{name}\""),
            ));
        }
        list.push(Resource {
            name,
            protocol: *r.protocol.get_ref(),
        });
    }
    let costs = match raw.kernel.get_ref().costs.as_ref().map(|c| c.get_ref()) {
        Some(c) => LockCosts {
            lock: ctx.opt_dur(&c.lock, "kernel.costs", "lock", hz)?,
            unlock: ctx.opt_dur(&c.unlock, "kernel.costs", "unlock", hz)?,
            inherit: ctx.opt_dur(&c.inherit, "kernel.costs", "inherit", hz)?,
        },
        None => LockCosts::default(),
    };
    let mut task_sections = Vec::with_capacity(tasks.len());
    for (i, (rt, t)) in raw.task.iter().zip(tasks).enumerate() {
        let label = task_label(i, &t.name);
        task_sections.push(sections(
            ctx,
            &list,
            &rt.get_ref().critical,
            &label,
            t.wcet,
            hz,
            None,
        )?);
    }
    let mut irq_sections = Vec::with_capacity(interrupts.len());
    for (i, (ri, x)) in raw.interrupt.iter().zip(interrupts).enumerate() {
        let label = format!("interrupt[{i}] \"{}\"", x.name);
        irq_sections.push(sections(
            ctx,
            &list,
            &ri.get_ref().critical,
            &label,
            x.wcet,
            hz,
            Some(x.above_kernel),
        )?);
    }
    let any = task_sections
        .iter()
        .chain(&irq_sections)
        .any(|v| !v.is_empty());
    Ok(Resources {
        list,
        tasks: if any { task_sections } else { Vec::new() },
        interrupts: if any { irq_sections } else { Vec::new() },
        costs,
    })
}

/// The sections of one job. `irq`: `Some(above_kernel)` for an interrupt handler.
#[allow(clippy::too_many_arguments)]
fn sections(
    ctx: &Ctx,
    list: &[Resource],
    raw: &[Spanned<RawSection>],
    label: &str,
    wcet: Picos,
    hz: Option<u64>,
    irq: Option<bool>,
) -> Result<Vec<Section>, SystemError> {
    let mut out: Vec<Section> = Vec::with_capacity(raw.len());
    for (k, s) in raw.iter().enumerate() {
        let sp = s.span();
        let s = s.get_ref();
        let key = |f: &str| format!("critical[{k}].{f}");
        let name = s.resource.get_ref();
        let Some(resource) = list.iter().position(|r| &r.name == name) else {
            let known: Vec<&str> = list.iter().map(|r| r.name.as_str()).collect();
            return Err(ctx.err(
                Some(s.resource.span()),
                label,
                Some(&key("resource")),
                if known.is_empty() {
                    format!("unknown resource \"{name}\": declare it in a [[resource]] table")
                } else {
                    format!(
                        "unknown resource \"{name}\" (declared: {})",
                        known.join(", ")
                    )
                },
            ));
        };
        let protocol = list[resource].protocol;
        match (irq, protocol) {
            (Some(_), Protocol::Inheritance) => {
                return Err(ctx.err(
                    Some(s.resource.span()),
                    label,
                    Some(&key("resource")),
                    format!(
                        "\"{name}\" is an inheritance mutex: an interrupt handler cannot take \
                         one (it cannot block, and FreeRTOS forbids mutexes in interrupts); \
                         use a resource with protocol = \"critical\""
                    ),
                ))
            }
            (Some(_), Protocol::Ceiling) => {
                return Err(ctx.err(
                    Some(s.resource.span()),
                    label,
                    Some(&key("resource")),
                    format!(
                        "\"{name}\" is a ceiling resource: resources shared with interrupt \
                         handlers are not modelled; use protocol = \"critical\" (a critical \
                         section from the handler)"
                    ),
                ))
            }
            (Some(true), Protocol::Critical) => {
                return Err(ctx.err(
                    Some(s.resource.span()),
                    label,
                    Some(&key("resource")),
                    "a handler above the kernel's interrupt mask (above_kernel = true) may not \
                     enter a kernel critical section",
                ))
            }
            _ => {}
        }
        let duration = ctx.dur(&s.duration, label, &key("duration"), hz, true)?;
        let at = match &s.at {
            Some(a) => ctx.dur(a, label, &key("at"), hz, false)?,
            None => Picos::ZERO,
        };
        let end = at.0.checked_add(duration.0).unwrap_or(i64::MAX);
        if end > wcet.0 {
            return Err(ctx.err(
                Some(s.duration.span()),
                label,
                Some(&key("duration")),
                format!(
                    "the section from {} for {} ends at {}, past the WCET {}",
                    format_exact(at),
                    format_exact(duration),
                    format_exact(Picos(end)),
                    format_exact(wcet)
                ),
            ));
        }
        if out.iter().any(|o| o.resource == resource && o.end() > at) {
            return Err(ctx.err(
                Some(s.resource.span()),
                label,
                Some(&key("resource")),
                format!("\"{name}\" is taken again while this job still holds it"),
            ));
        }
        let inside = match &s.inside {
            None => {
                // Sections of one job run in order: an outer section starts after the
                // previous one ends.
                if let Some(prev) = out.last() {
                    let prev_end = out.iter().map(|o| o.end()).max().unwrap_or(prev.end());
                    if at < prev_end {
                        return Err(ctx.err(
                            Some(sp),
                            label,
                            Some(&key("at")),
                            format!(
                                "starts at {}, before the previous section ends ({}): sections \
                                 run in order; nest it with inside = \"<resource>\"",
                                format_exact(at),
                                format_exact(prev_end)
                            ),
                        ));
                    }
                }
                None
            }
            Some(outer) => {
                let found = out
                    .iter()
                    .rposition(|o| list[o.resource].name == *outer.get_ref());
                let Some(idx) = found else {
                    return Err(ctx.err(
                        Some(outer.span()),
                        label,
                        Some(&key("inside")),
                        format!(
                            "no earlier section of this job holds \"{}\"",
                            outer.get_ref()
                        ),
                    ));
                };
                let o = out[idx];
                if at < o.at || Picos(end) > o.end() {
                    return Err(ctx.err(
                        Some(outer.span()),
                        label,
                        Some(&key("inside")),
                        format!(
                            "the section ({} to {}) is not within its \"{}\" section ({} to {})",
                            format_exact(at),
                            format_exact(Picos(end)),
                            outer.get_ref(),
                            format_exact(o.at),
                            format_exact(o.end())
                        ),
                    ));
                }
                if list[o.resource].protocol != protocol {
                    return Err(ctx.err(
                        Some(outer.span()),
                        label,
                        Some(&key("inside")),
                        format!(
                            "nesting a {} resource inside a {} one is not modelled",
                            protocol.name(),
                            list[o.resource].protocol.name()
                        ),
                    ));
                }
                Some(idx)
            }
        };
        out.push(Section {
            resource,
            duration,
            at,
            inside,
        });
    }
    Ok(out)
}

/// Adds the resources, the lock costs and the sections to a written description.
pub(super) fn write(
    r: &Resources,
    root: &mut toml::Table,
    tasks: &mut [toml::Value],
    interrupts: &mut [toml::Value],
) {
    use toml::Value as V;
    let d = |p: Picos| V::String(format_exact(p));
    if !r.list.is_empty() {
        let arr = r
            .list
            .iter()
            .map(|x| {
                let mut t = toml::Table::new();
                t.insert("name".into(), V::String(x.name.clone()));
                t.insert("protocol".into(), V::String(x.protocol.name().into()));
                V::Table(t)
            })
            .collect();
        root.insert("resource".into(), V::Array(arr));
    }
    if let Some(V::Table(costs)) = root
        .get_mut("kernel")
        .and_then(|k| k.as_table_mut())
        .and_then(|k| {
            if !k.contains_key("costs") {
                k.insert("costs".into(), V::Table(toml::Table::new()));
            }
            k.get_mut("costs")
        })
    {
        for (key, v) in [
            ("lock", r.costs.lock),
            ("unlock", r.costs.unlock),
            ("inherit", r.costs.inherit),
        ] {
            if v != Picos::ZERO {
                costs.insert(key.into(), d(v));
            }
        }
    }
    let put = |v: &mut toml::Value, secs: &[Section]| {
        if secs.is_empty() {
            return;
        }
        let arr = secs
            .iter()
            .map(|s| {
                let mut t = toml::Table::new();
                t.insert(
                    "resource".into(),
                    V::String(r.list[s.resource].name.clone()),
                );
                t.insert("duration".into(), d(s.duration));
                if s.at != Picos::ZERO {
                    t.insert("at".into(), d(s.at));
                }
                if let Some(o) = s.inside {
                    t.insert(
                        "inside".into(),
                        V::String(r.list[secs[o].resource].name.clone()),
                    );
                }
                V::Table(t)
            })
            .collect();
        if let Some(t) = v.as_table_mut() {
            t.insert("critical".into(), V::Array(arr));
        }
    };
    for (i, v) in tasks.iter_mut().enumerate() {
        put(v, r.of_task(i));
    }
    for (x, v) in interrupts.iter_mut().enumerate() {
        put(v, r.of_interrupt(x));
    }
}
