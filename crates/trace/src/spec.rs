//! TOML spec files: measurements that name channels by role, so one spec serves
//! captures whose channels are wired or named differently.
//!
//! ```toml
//! from = "10ms"            # optional range, from the capture start
//! to = "2s"
//! worst = 10               # optional, k worst instances
//!
//! [channels]               # role = channel name or "#index" in the capture
//! tick = "SysTick"
//! irq = "#1"
//! task = "Task 1"
//!
//! [[measure]]
//! pulse = "tick"           # same syntax as the command line, roles allowed
//! [[measure]]
//! name = "irq-to-task"     # optional name for output and limits
//! latency = "irq:rise->task:rise"
//! window = "50us"
//! [[measure]]
//! period = "tick:rise"
//! nominal = "1ms"
//! [[measure]]
//! busy = "task"
//! per = "tick"             # or window = "1ms"
//! [[measure]]
//! count = "task:rise"
//! per = "tick"
//!
//! limits = ["tick.max<5us", "irq-to-task.p99<20us"]   # put before any [table]
//! ```

use crate::error::{Error, Place, Result};
use crate::measure::{self, parse::parse_per, Limit, Per, Request};
use latscope_core::time::{parse_duration, Picos};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct File {
    from: Option<String>,
    to: Option<String>,
    worst: Option<usize>,
    #[serde(default)]
    channels: BTreeMap<String, String>,
    #[serde(default)]
    measure: Vec<Entry>,
    #[serde(default)]
    limits: Vec<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: Option<String>,
    pulse: Option<String>,
    latency: Option<String>,
    period: Option<String>,
    busy: Option<String>,
    count: Option<String>,
    window: Option<String>,
    per: Option<String>,
    nominal: Option<String>,
}

/// A loaded spec: requests with roles already replaced by channel names.
#[derive(Debug, Default)]
pub struct Spec {
    pub from: Option<Picos>,
    pub to: Option<Picos>,
    pub worst: Option<usize>,
    pub requests: Vec<Request>,
    pub limits: Vec<Limit>,
    /// `[channels]`: role → channel name or `#index`.
    pub roles: BTreeMap<String, String>,
    /// The spec file's name, for messages.
    pub file: String,
}

impl Spec {
    /// Checks that every role names exactly one channel of `cap`; the error names the
    /// spec file and the role (a bare "no channel 'x'" would not say where 'x' came from).
    pub fn check_roles(&self, cap: &latscope_core::capture::Capture) -> Result<()> {
        for (role, ch) in &self.roles {
            cap.channel_index(ch).map_err(|e| {
                Error::format(
                    &self.file,
                    Place::Other(format!("[channels] role '{role}' = '{ch}'")),
                    e.to_string(),
                )
            })?;
        }
        Ok(())
    }
}

/// Replaces role names by channel names in a channel expression: each channel
/// position (before ':' qualifiers, on both sides of '->', after 'per=') is looked up.
fn subst(expr: &str, roles: &BTreeMap<String, String>) -> String {
    let one = |s: &str| -> String {
        let (c, q) = match s.rsplit_once(':') {
            Some((c, q)) if !q.contains('=') && q.chars().all(|x| x.is_ascii_alphabetic()) => {
                (c, Some(q))
            }
            _ => (s, None),
        };
        let c2 = roles
            .get(c.trim())
            .cloned()
            .unwrap_or_else(|| c.to_string());
        match q {
            Some(q) => format!("{c2}:{q}"),
            None => c2,
        }
    };
    expr.split("->").map(one).collect::<Vec<_>>().join("->")
}

/// Parses a spec from TOML text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Spec> {
    let f: File = toml::from_str(text).map_err(|e| {
        let place = match e.span() {
            Some(sp) => {
                Place::Line(text[..sp.start.min(text.len())].matches('\n').count() as u64 + 1)
            }
            None => Place::File,
        };
        Error::format(file, place, e.message().to_string())
    })?;
    let roles = &f.channels;
    let err = |i: usize, m: String| {
        Error::format(file, Place::Other(format!("[[measure]] #{}", i + 1)), m)
    };
    let d = |s: &Option<String>, key: &str| -> Result<Option<Picos>> {
        s.as_deref()
            .map(|v| {
                parse_duration(v).map_err(|e| {
                    Error::format(file, Place::Other(format!("key '{key}'")), e.to_string())
                })
            })
            .transpose()
    };
    let mut out = Spec {
        from: d(&f.from, "from")?,
        to: d(&f.to, "to")?,
        worst: f.worst,
        roles: f.channels.clone(),
        file: file.to_string(),
        ..Default::default()
    };
    for (i, e) in f.measure.iter().enumerate() {
        let given = [&e.pulse, &e.latency, &e.period, &e.busy, &e.count]
            .iter()
            .filter(|x| x.is_some())
            .count();
        if given != 1 {
            return Err(err(
                i,
                "give exactly one of pulse, latency, period, busy, count".into(),
            ));
        }
        let mut opts = String::new();
        if let Some(w) = &e.window {
            opts += &format!(",window={w}");
        }
        if let Some(p) = &e.per {
            opts += &format!(",per={}", subst(p, roles));
        }
        if let Some(n) = &e.nominal {
            opts += &format!(",nominal={n}");
        }
        let wrap = |r: Result<Request>| r.map_err(|x| err(i, x.to_string()));
        let mut req = if let Some(p) = &e.pulse {
            wrap(measure::parse_pulse(&subst(p, roles)))?
        } else if let Some(l) = &e.latency {
            wrap(measure::parse_latency(&format!(
                "{}{opts}",
                subst(l, roles)
            )))?
        } else if let Some(p) = &e.period {
            wrap(measure::parse_period(
                &format!("{}{opts}", subst(p, roles)),
                None,
            ))?
        } else if let Some(b) = &e.busy {
            wrap(measure::parse_busy(
                &format!("{}{opts}", subst(b, roles)),
                &Per::Whole,
            ))?
        } else if let Some(c) = &e.count {
            wrap(measure::parse_count(
                &format!("{}{opts}", subst(c, roles)),
                &Per::Whole,
            ))?
        } else {
            unreachable!("checked above")
        };
        if let Some(n) = &e.name {
            req.name = n.clone();
        }
        out.requests.push(req);
    }
    for l in &f.limits {
        let mut lim = Limit::parse(l)
            .map_err(|e| Error::format(file, Place::Other("limits".into()), e.to_string()))?;
        // a limit may name a role: map it to the measurement's default name
        if let Some(c) = roles.get(&lim.name) {
            lim.name = c.clone();
        } else if let Some((r, rest)) = lim.name.split_once('.') {
            if let Some(c) = roles.get(r) {
                lim.name = format!("{c}.{rest}");
            }
        }
        out.limits.push(lim);
    }
    let _ = parse_per;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Kind;

    #[test]
    fn roles_and_errors() {
        let s = parse(
            "limits = [\"tick.max<5us\"]\n[channels]\ntick = \"SysTick\"\ntask = \"#2\"\n[[measure]]\npulse = \"tick\"\n[[measure]]\nname = \"load\"\nbusy = \"task\"\nper = \"tick:rise\"\n",
            "s.toml",
        )
        .unwrap();
        assert_eq!(s.requests[0].name, "SysTick");
        assert_eq!(s.requests[1].name, "load");
        assert!(matches!(&s.requests[1].kind, Kind::Busy { channel, .. } if channel == "#2"));
        assert_eq!(s.limits[0].name, "SysTick");
        let e = parse("[[measure]]\npuls = \"x\"\n", "s.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("s.toml") && e.contains("line"), "{e}");
        let e = parse("[[measure]]\npulse = \"x\"\nbusy = \"y\"\n", "s.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("exactly one"), "{e}");
    }

    /// A role mapped to a channel the capture lacks names the spec file and the role.
    #[test]
    fn unknown_role_channel_names_spec_and_role() {
        use latscope_core::capture::{Capture, DigitalChannel};
        let s = parse(
            "[channels]\ntick = \"nosuch\"\n[[measure]]\npulse = \"tick\"\n",
            "k.toml",
        )
        .unwrap();
        let cap = Capture {
            source: "t1.vcd".into(),
            channels: vec![DigitalChannel {
                name: "clk".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let e = s.check_roles(&cap).unwrap_err().to_string();
        assert!(
            e.starts_with("k.toml: ")
                && e.contains("role 'tick'")
                && e.contains("no channel 'nosuch' in t1.vcd"),
            "{e}"
        );
        let ok = parse("[channels]\ntick = \"#0\"\n", "k.toml").unwrap();
        assert!(ok.check_roles(&cap).is_ok());
    }
}
