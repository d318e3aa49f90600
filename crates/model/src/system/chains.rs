//! `[[chain]]` tables: reading, validation (errors name the file, line, chain and step)
//! and writing. The model is [`crate::chain`].

use super::context::Ctx;
use super::error::SystemError;
use super::model::{Interrupt, Kernel, ModelKind, System, Task};
use super::raw::{RawFile, SDur};
use super::write::format_exact;
use crate::chain::{Chain, Link, ReadAt, Step};
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChain {
    pub(super) name: Spanned<String>,
    pub(super) steps: Spanned<Vec<Spanned<String>>>,
    pub(super) links: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub(super) deadline: Option<SDur>,
    /// When the sampled links' readers read: "release" (default) or "start".
    #[serde(default)]
    pub(super) read: Option<Spanned<String>>,
}

fn step_label(sys_tasks: &[Task], irqs: &[Interrupt], s: Step) -> String {
    match s {
        Step::Task(i) => format!("task \"{}\"", sys_tasks[i].name),
        Step::Interrupt(i) => format!("interrupt \"{}\"", irqs[i].name),
    }
}

pub(super) fn build(
    ctx: &Ctx,
    raw: &RawFile,
    tasks: &[Task],
    interrupts: &[Interrupt],
    kernel: &Kernel,
    hz: Option<u64>,
) -> Result<Vec<Chain>, SystemError> {
    let mut chains: Vec<Chain> = Vec::with_capacity(raw.chain.len());
    // Which task releases each task through an event link, and in which chain: a task
    // has one activation (the tick, an interrupt, or one predecessor).
    let mut activator: Vec<Option<(usize, String)>> = vec![None; tasks.len()];
    for (ci, rc) in raw.chain.iter().enumerate() {
        let rc = rc.get_ref();
        let name = rc.name.get_ref().trim().to_string();
        let label = format!("chain[{ci}] \"{name}\"");
        if name.is_empty() {
            return Err(ctx.err(
                Some(rc.name.span()),
                &label,
                Some("name"),
                "the name is empty",
            ));
        }
        if chains.iter().any(|c| c.name == name) {
            return Err(ctx.err(
                Some(rc.name.span()),
                &label,
                Some("name"),
                format!("duplicate chain name \"{name}\""),
            ));
        }
        let raw_steps = rc.steps.get_ref();
        if raw_steps.len() < 2 {
            return Err(ctx.err(
                Some(rc.steps.span()),
                &label,
                Some("steps"),
                format!(
                    "a chain needs at least two steps, this one has {}",
                    raw_steps.len()
                ),
            ));
        }
        let mut steps = Vec::with_capacity(raw_steps.len());
        for (k, s) in raw_steps.iter().enumerate() {
            let want = s.get_ref().trim();
            let step = if let Some(i) = tasks.iter().position(|t| t.name == want) {
                Step::Task(i)
            } else if let Some(i) = interrupts.iter().position(|x| x.name == want) {
                Step::Interrupt(i)
            } else {
                let all: Vec<&str> = tasks
                    .iter()
                    .map(|t| t.name.as_str())
                    .chain(interrupts.iter().map(|x| x.name.as_str()))
                    .collect();
                return Err(ctx.err(
                    Some(s.span()),
                    &label,
                    Some("steps"),
                    format!(
                        "step {k}: no task or interrupt is called \"{want}\" (names: {})",
                        all.join(", ")
                    ),
                ));
            };
            if steps.contains(&step) {
                return Err(ctx.err(
                    Some(s.span()),
                    &label,
                    Some("steps"),
                    format!("step {k}: \"{want}\" is already an earlier step of this chain"),
                ));
            }
            steps.push(step);
        }
        let raw_links = rc.links.get_ref();
        if raw_links.len() + 1 != steps.len() {
            return Err(ctx.err(
                Some(rc.links.span()),
                &label,
                Some("links"),
                format!(
                    "{} links for {} steps: give one link per pair of neighbouring steps ({})",
                    raw_links.len(),
                    steps.len(),
                    steps.len() - 1
                ),
            ));
        }
        let mut links = Vec::with_capacity(raw_links.len());
        for (k, l) in raw_links.iter().enumerate() {
            let link = match l.get_ref().trim() {
                "event" => Link::Event,
                "sampled" => Link::Sampled,
                other => {
                    return Err(ctx.err(
                        Some(l.span()),
                        &label,
                        Some("links"),
                        format!("link {k}: \"{other}\" is not a link kind (event, sampled)"),
                    ))
                }
            };
            let (from, to) = (steps[k], steps[k + 1]);
            let here = format!(
                "link {k} ({} -> {})",
                step_label(tasks, interrupts, from),
                step_label(tasks, interrupts, to)
            );
            let bad = |msg: String| ctx.err(Some(l.span()), &label, Some("links"), msg);
            let Step::Task(b) = to else {
                return Err(bad(format!(
                    "{here}: an interrupt arrives from its hardware source, so it can only \
                     be the first step of a chain (a {} link cannot lead into it)",
                    link.name()
                )));
            };
            match (link, from) {
                (Link::Event, Step::Interrupt(q)) => {
                    if interrupts[q].releases != Some(b) {
                        return Err(bad(format!(
                            "{here}: an event link from an interrupt needs the interrupt to \
                             release the task (`releases = \"{}\"` in the interrupt's table)",
                            tasks[b].name
                        )));
                    }
                }
                (Link::Event, Step::Task(a)) => {
                    if kernel.model() == ModelKind::Listscan {
                        return Err(bad(format!(
                            "{here}: the list-scan kernel releases threads only by their \
                             counters, so a task cannot release another (use a sampled link)"
                        )));
                    }
                    if let Some(q) = tasks[b].released_by {
                        return Err(bad(format!(
                            "{here}: task \"{}\" is already released by interrupt \"{}\"",
                            tasks[b].name, interrupts[q].name
                        )));
                    }
                    if !matches!(tasks[b].arrival, super::model::Arrival::Sporadic(_)) {
                        return Err(bad(format!(
                            "{here}: a task released by another task's completion must be \
                             sporadic: give task \"{}\" a `min_interarrival` instead of a \
                             `period`",
                            tasks[b].name
                        )));
                    }
                    if tasks[b].period() > tasks[a].period() {
                        return Err(bad(format!(
                            "{here}: every job of \"{}\" releases a job of \"{}\", so the \
                             latter's min_interarrival {} must be at most {}",
                            tasks[a].name,
                            tasks[b].name,
                            format_exact(tasks[b].period()),
                            format_exact(tasks[a].period())
                        )));
                    }
                    match &activator[b] {
                        Some((x, other)) if *x != a => {
                            return Err(bad(format!(
                                "{here}: task \"{}\" is already released by task \"{}\" in \
                                 {other}; a task has one activation",
                                tasks[b].name, tasks[*x].name
                            )))
                        }
                        _ => activator[b] = Some((a, label.clone())),
                    }
                }
                (Link::Sampled, _) => {
                    if let Some(q) = tasks[b].released_by {
                        return Err(bad(format!(
                            "{here}: a sampled link's reader runs on its own period, but \
                             task \"{}\" is released by interrupt \"{}\"",
                            tasks[b].name, interrupts[q].name
                        )));
                    }
                }
            }
            links.push(link);
        }
        let deadline = match &rc.deadline {
            Some(d) => Some(ctx.dur(d, &label, "deadline", hz, true)?),
            None => None,
        };
        let read = read_at(ctx, rc, &label, &links)?;
        chains.push(Chain {
            name,
            steps,
            links,
            deadline,
            read,
        });
    }
    // A sampled link's reader must be released by the tick, not by an event link of
    // another chain (checked once every chain is known).
    for (ci, (c, rc)) in chains.iter().zip(&raw.chain).enumerate() {
        for (k, l) in c.links.iter().enumerate() {
            if let (Link::Sampled, Step::Task(b)) = (l, c.steps[k + 1]) {
                if let Some((a, other)) = &activator[b] {
                    let rl = &rc.get_ref().links.get_ref()[k];
                    return Err(ctx.err(
                        Some(rl.span()),
                        &format!("chain[{ci}] \"{}\"", c.name),
                        Some("links"),
                        format!(
                            "link {k}: a sampled link's reader runs on its own period, but \
                             task \"{}\" is released by task \"{}\" in {other}",
                            tasks[b].name, tasks[*a].name
                        ),
                    ));
                }
            }
        }
    }
    Ok(chains)
}

/// The chain's `read` key: when its sampled links' readers take their input.
fn read_at(ctx: &Ctx, rc: &RawChain, label: &str, links: &[Link]) -> Result<ReadAt, SystemError> {
    let Some(r) = &rc.read else {
        return Ok(ReadAt::Release);
    };
    let read = match r.get_ref().trim() {
        "release" => ReadAt::Release,
        "start" => ReadAt::Start,
        other => {
            return Err(ctx.err(
                Some(r.span()),
                label,
                Some("read"),
                format!(
                    "\"{other}\" is not a read time (release: the reader reads when it is \
                     released; start: when it first runs)"
                ),
            ))
        }
    };
    if read == ReadAt::Start && !links.contains(&Link::Sampled) {
        return Err(ctx.err(
            Some(r.span()),
            label,
            Some("read"),
            "read = \"start\" says when a sampled link's reader reads, but every link of \
             this chain is an event link",
        ));
    }
    Ok(read)
}

pub(super) fn write(sys: &System, root: &mut toml::Table) {
    use toml::Value as V;
    if sys.chains.is_empty() {
        return;
    }
    let arr = sys
        .chains
        .iter()
        .map(|c| {
            let mut t = toml::Table::new();
            t.insert("name".into(), V::String(c.name.clone()));
            t.insert(
                "steps".into(),
                V::Array(
                    c.steps
                        .iter()
                        .map(|s| V::String(sys.step_name(*s).to_string()))
                        .collect(),
                ),
            );
            t.insert(
                "links".into(),
                V::Array(c.links.iter().map(|l| V::String(l.name().into())).collect()),
            );
            if let Some(d) = c.deadline {
                t.insert("deadline".into(), V::String(format_exact(d)));
            }
            if !c.read.is_release() {
                t.insert("read".into(), V::String(c.read.name().into()));
            }
            V::Table(t)
        })
        .collect();
    root.insert("chain".into(), V::Array(arr));
}
