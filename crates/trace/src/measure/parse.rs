//! Parsing of the measurement arguments:
//!
//! ```text
//! --pulse   CH[:high|:low]
//! --latency A[:rise|:fall|:any]->B[:rise|:fall|:any][,window=10us]
//! --period  CH[:rise|:fall|:any][,nominal=1ms]
//! --busy    CH[:high|:low][,window=1ms | ,per=CH2[:rise|:fall|:high|:low]]
//! --count   CH[:rise|:fall|:any],per=CH2[:rise|:fall|:high|:low] | ,window=1ms
//! ```

use super::{ChanRef, Kind, Per, Request};
use crate::error::{Error, Result};
use latscope_core::capture::Edge;
use latscope_core::time::{parse_duration, Picos};

fn split_opts(s: &str) -> (&str, Vec<(&str, &str)>) {
    // options start at the first ',' followed by key=
    let mut parts = s.split(',');
    let head = parts.next().unwrap_or("");
    let mut opts = Vec::new();
    for p in parts {
        match p.split_once('=') {
            Some((k, v)) => opts.push((k.trim(), v.trim())),
            None => opts.push((p.trim(), "")),
        }
    }
    (head.trim(), opts)
}

/// Splits `CH:qualifier`. A suffix of letters after the last ':' is a qualifier
/// (an edge or a level, checked by the caller, so `clk:sideways` is reported as an
/// unknown level and not as an unknown channel `clk:sideways`); anything else belongs
/// to the channel name. A channel whose own name ends in `:letters` is named `#N`.
fn qualifier(s: &str) -> (&str, Option<&str>) {
    if let Some((a, b)) = s.rsplit_once(':') {
        let q = b.trim();
        if !q.is_empty() && q.chars().all(|c| c.is_ascii_alphabetic()) {
            return (a.trim(), Some(q));
        }
    }
    (s.trim(), None)
}

fn edge(q: Option<&str>, what: &str, default: Edge) -> Result<Edge> {
    match q.map(|x| x.to_ascii_lowercase()).as_deref() {
        None => Ok(default),
        Some("rise" | "rising" | "r") => Ok(Edge::Rise),
        Some("fall" | "falling" | "f") => Ok(Edge::Fall),
        Some("any" | "both") => Ok(Edge::Any),
        Some(_) => Err(Error::usage(format!(
            "unknown edge '{}' in {what} (use rise, fall or any)",
            q.unwrap_or_default()
        ))),
    }
}

fn level(q: Option<&str>, what: &str) -> Result<bool> {
    match q.map(|x| x.to_ascii_lowercase()).as_deref() {
        None | Some("high" | "h") => Ok(true),
        Some("low" | "l") => Ok(false),
        Some(_) => Err(Error::usage(format!(
            "unknown level '{}' in {what} (use high or low)",
            q.unwrap_or_default()
        ))),
    }
}

fn dur(v: &str, what: &str) -> Result<Picos> {
    let p = parse_duration(v).map_err(|e| Error::usage(format!("{what}: {e}")))?;
    if p.0 <= 0 {
        return Err(Error::usage(format!("{what}: must be positive")));
    }
    Ok(p)
}

fn need_channel(c: &str, what: &str) -> Result<()> {
    if c.is_empty() {
        return Err(Error::usage(format!("{what}: no channel named")));
    }
    Ok(())
}

fn unknown(what: &str, k: &str) -> Error {
    Error::usage(format!("{what}: unknown option '{k}'"))
}

/// `CH[:high|:low]`
pub fn parse_pulse(s: &str) -> Result<Request> {
    let what = format!("--pulse '{s}'");
    let (c, q) = qualifier(s);
    need_channel(c, &what)?;
    Ok(Request::new(
        Kind::Pulse {
            channel: c.to_string(),
            level: level(q, &what)?,
        },
        s,
    ))
}

fn chanref(s: &str, what: &str) -> Result<ChanRef> {
    let (c, q) = qualifier(s);
    need_channel(c, what)?;
    Ok(ChanRef {
        channel: c.to_string(),
        edge: edge(q, what, Edge::Rise)?,
    })
}

/// `A[:edge]->B[:edge][,window=10us]`
pub fn parse_latency(s: &str) -> Result<Request> {
    let what = format!("--latency '{s}'");
    let (head, opts) = split_opts(s);
    let (a, b) = head
        .split_once("->")
        .ok_or_else(|| Error::usage(format!("{what}: expected 'A:rise->B:rise'")))?;
    let mut window = None;
    for (k, v) in opts {
        match k {
            "window" | "max" => window = Some(dur(v, &what)?),
            _ => return Err(unknown(&what, k)),
        }
    }
    Ok(Request::new(
        Kind::Latency {
            from: chanref(a, &what)?,
            to: chanref(b, &what)?,
            window,
        },
        s,
    ))
}

/// `CH[:edge][,nominal=1ms]`; `default_nominal` applies when none is given inline.
pub fn parse_period(s: &str, default_nominal: Option<Picos>) -> Result<Request> {
    let what = format!("--period '{s}'");
    let (head, opts) = split_opts(s);
    let mut nominal = default_nominal;
    for (k, v) in opts {
        match k {
            "nominal" => nominal = Some(dur(v, &what)?),
            _ => return Err(unknown(&what, k)),
        }
    }
    Ok(Request::new(
        Kind::Period {
            on: chanref(head, &what)?,
            nominal,
        },
        s,
    ))
}

/// `CH2[:rise|:fall|:any]` → periods, `CH2:high|:low` → pulses.
pub fn parse_per(s: &str, what: &str) -> Result<Per> {
    let (c, q) = qualifier(s);
    need_channel(c, what)?;
    Ok(match q.map(|x| x.to_ascii_lowercase()).as_deref() {
        Some("high" | "h") => Per::Pulses {
            channel: c.into(),
            level: true,
        },
        Some("low" | "l") => Per::Pulses {
            channel: c.into(),
            level: false,
        },
        None | Some("rise" | "rising" | "r" | "fall" | "falling" | "f" | "any" | "both") => {
            Per::Periods(ChanRef {
                channel: c.into(),
                edge: edge(q, what, Edge::Rise)?,
            })
        }
        Some(_) => {
            return Err(Error::usage(format!(
                "unknown edge or level '{}' in {what} (use rise, fall or any for periods, high or low for pulses)",
                q.unwrap_or_default()
            )))
        }
    })
}

fn per_opts(opts: &[(&str, &str)], what: &str, default: &Per) -> Result<Per> {
    let mut per = default.clone();
    for &(k, v) in opts {
        match k {
            "window" => per = Per::Window(dur(v, what)?),
            "per" => per = parse_per(v, what)?,
            _ => return Err(unknown(what, k)),
        }
    }
    Ok(per)
}

/// `CH[:high|:low][,window=1ms|,per=CH2]`; `default` applies when neither is inline.
pub fn parse_busy(s: &str, default: &Per) -> Result<Request> {
    let what = format!("--busy '{s}'");
    let (head, opts) = split_opts(s);
    let (c, q) = qualifier(head);
    need_channel(c, &what)?;
    let per = per_opts(&opts, &what, default)?;
    Ok(Request::new(
        Kind::Busy {
            channel: c.into(),
            level: level(q, &what)?,
            per,
        },
        s,
    ))
}

/// `CH[:edge],per=CH2` (or `,window=1ms`).
pub fn parse_count(s: &str, default: &Per) -> Result<Request> {
    need_per(count_request(s, default)?)
}

/// `CH[:edge][,per=CH2|,window=1ms]`, with [`Per::Whole`] when neither is inline and
/// `default` is whole: what to count per may still come from `--per`/`--window`.
pub(super) fn count_request(s: &str, default: &Per) -> Result<Request> {
    let what = format!("--count '{s}'");
    let (head, opts) = split_opts(s);
    let per = per_opts(&opts, &what, default)?;
    Ok(Request::new(
        Kind::Count {
            on: chanref(head, &what)?,
            per,
        },
        s,
    ))
}

/// A count over the whole capture is one number, not a series: refused.
pub(super) fn need_per(r: Request) -> Result<Request> {
    if matches!(
        r.kind,
        Kind::Count {
            per: Per::Whole,
            ..
        }
    ) {
        return Err(Error::usage(format!(
            "--count '{}': say what to count per: ',per=CH2' (or --per CH2) or ',window=1ms'",
            r.definition
        )));
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax() {
        let r = parse_latency("IRQ:rise->Task:fall,window=10us").unwrap();
        assert_eq!(r.name, "IRQ->Task:fall");
        assert!(matches!(r.kind, Kind::Latency { window: Some(w), .. } if w == Picos::from_us(10)));
        assert!(parse_latency("IRQ Task").is_err());
        assert!(parse_latency("A->B,windw=1us").is_err());
        let p = parse_pulse("D 0:low").unwrap();
        assert_eq!(p.name, "D 0:low");
        assert_eq!(
            parse_period("T,nominal=1ms", None).unwrap().name,
            "T.period"
        );
        let b = parse_busy("Task,per=SysTick", &Per::Whole).unwrap();
        assert!(matches!(
            b.kind,
            Kind::Busy {
                per: Per::Periods(_),
                ..
            }
        ));
        assert!(parse_count("Task", &Per::Whole).is_err());
        let c = parse_count("Task", &Per::Window(Picos::from_ms(1))).unwrap();
        assert_eq!(c.name, "Task.count");
        assert!(parse_period("T,nominal=5", None).is_err());
    }

    /// A bad `:suffix` is an unknown level/edge, not part of the channel name.
    #[test]
    fn bad_qualifiers_are_named() {
        let e = parse_pulse("clk:sideways").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown level 'sideways' in --pulse 'clk:sideways' (use high or low)"
        );
        let e = parse_latency("a:up->b").unwrap_err().to_string();
        assert!(
            e.contains("unknown edge 'up'") && e.contains("(use rise, fall or any)"),
            "{e}"
        );
        let e = parse_period("clk:high", None).unwrap_err().to_string();
        assert!(e.contains("unknown edge 'high'"), "{e}");
        let e = parse_busy("t:rise", &Per::Whole).unwrap_err().to_string();
        assert!(e.contains("unknown level 'rise'"), "{e}");
        let e = parse_busy("t,per=clk:middle", &Per::Whole)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown edge or level 'middle'"), "{e}");
        // digits after ':' stay part of the name
        assert!(matches!(
            parse_pulse("bus:3").unwrap().kind,
            Kind::Pulse { ref channel, level: true } if channel == "bus:3"
        ));
    }
}
