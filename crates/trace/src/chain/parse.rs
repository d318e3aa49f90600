//! Parsing of `--chain 'IRQ:rise->Task:switch->Out:fall[,name=NAME]'`.
//!
//! A step is a channel (or an event recording's actor) with what happens on it: an edge
//! of its channel (`rise`, the default, `fall`, `any`) or, in an event recording, one of
//! the actor's own events (`ready`, `switch`, `block`, `enter`, `exit`). Channel names
//! follow the other measurements: a name as in the capture or `#N`; a name that itself
//! ends in `:letters` is given by index.

use super::{ChainSpec, On, Step, Word};
use crate::error::{Error, Result};
use latscope_core::capture::Edge;

/// Splits `CH:qualifier` as the other measurements do: a suffix of letters after the
/// last ':' is the qualifier (checked by the caller).
fn qualifier(s: &str) -> (&str, Option<&str>) {
    if let Some((a, b)) = s.rsplit_once(':') {
        let q = b.trim();
        if !q.is_empty() && q.chars().all(|c| c.is_ascii_alphabetic()) {
            return (a.trim(), Some(q));
        }
    }
    (s.trim(), None)
}

fn on(q: Option<&str>, what: &str, step: &str) -> Result<On> {
    Ok(match q.map(str::to_ascii_lowercase).as_deref() {
        None | Some("rise" | "rising" | "r") => On::Edge(Edge::Rise),
        Some("fall" | "falling" | "f") => On::Edge(Edge::Fall),
        Some("any" | "both") => On::Edge(Edge::Any),
        Some("ready") => On::Event(Word::Ready),
        Some("switch") => On::Event(Word::Switch),
        Some("block") => On::Event(Word::Block),
        Some("enter") => On::Event(Word::Enter),
        Some("exit") => On::Event(Word::Exit),
        Some(_) => {
            return Err(Error::usage(format!(
                "{what}: step '{step}': unknown edge or event '{}' (edges of a channel: \
                 rise, fall, any; events of an event recording's actor: ready, switch, \
                 block, enter, exit)",
                q.unwrap_or_default()
            )))
        }
    })
}

/// Parses one `--chain` argument.
pub fn parse_chain(s: &str) -> Result<ChainSpec> {
    let what = format!("--chain '{s}'");
    // options start at the first ',' (as --latency's `,window=`)
    let mut parts = s.split(',');
    let head = parts.next().unwrap_or("").trim();
    let mut name = None;
    for p in parts {
        match p.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("name", v)) if !v.is_empty() => name = Some(v.to_string()),
            Some(("name", _)) => return Err(Error::usage(format!("{what}: empty name="))),
            _ => {
                return Err(Error::usage(format!(
                    "{what}: unknown option '{}' (use name=NAME)",
                    p.trim()
                )))
            }
        }
    }
    if head.is_empty() {
        return Err(Error::usage(format!(
            "{what}: no steps; expected at least two, e.g. 'IRQ:rise->Task:rise->Out:rise'"
        )));
    }
    let mut steps = Vec::new();
    for (k, raw) in head.split("->").enumerate() {
        let (c, q) = qualifier(raw);
        if c.is_empty() {
            return Err(Error::usage(format!(
                "{what}: step {} names no channel",
                k + 1
            )));
        }
        steps.push(Step {
            channel: c.to_string(),
            on: on(q, &what, raw.trim())?,
        });
    }
    if steps.len() < 2 {
        return Err(Error::usage(format!(
            "{what}: a chain needs at least two steps joined by '->' (one step has no \
             latency; for the period of one channel use --period)"
        )));
    }
    let default = steps.iter().map(Step::label).collect::<Vec<_>>().join("->");
    Ok(ChainSpec {
        name: name.unwrap_or(default),
        definition: s.to_string(),
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_edges_events_and_name() {
        let c = parse_chain("IRQ->Task:switch-> Out:fall ,name=path").unwrap();
        assert_eq!(c.name, "path");
        assert_eq!(c.steps.len(), 3);
        assert_eq!(c.steps[0].on, On::Edge(Edge::Rise));
        assert_eq!(c.steps[1].on, On::Event(Word::Switch));
        assert_eq!(c.steps[2].channel, "Out");
        assert_eq!(c.steps[2].on, On::Edge(Edge::Fall));
        let d = parse_chain("A:rise->#3:any").unwrap();
        assert_eq!(d.name, "A:rise->#3:any");
    }

    #[test]
    fn hostile_specs_are_clear_errors() {
        for (spec, needle) in [
            ("", "no steps"),
            ("  ", "no steps"),
            ("IRQ:rise", "at least two steps"),
            ("IRQ->", "step 2 names no channel"),
            ("->Task", "step 1 names no channel"),
            ("IRQ:sideways->Task", "unknown edge or event 'sideways'"),
            ("IRQ->Task,window=5us", "unknown option 'window=5us'"),
            ("IRQ->Task,name=", "empty name"),
        ] {
            let e = parse_chain(spec).unwrap_err().to_string();
            assert!(e.contains(needle), "{spec:?}: {e}");
            assert!(e.starts_with(&format!("--chain '{spec}'")), "{e}");
        }
    }
}
