//! The measurement flags whose meaning another flag completes, as typed values: a
//! `--period` without an inline `nominal=` takes `--nominal`, a `--busy` or `--count`
//! without an inline `window=`/`per=` takes `--window` or `--per`. Each is parsed on its
//! own when it is read (clap's `value_parser`, or the Python keyword, through `FromStr`),
//! so a malformed one is refused before any file is opened, and completed with the
//! defaults by `request`, without parsing it again.

use super::parse::{count_request, need_per, parse_busy, parse_per, parse_period};
use super::{Kind, Per, Request};
use crate::error::{Error, Result};
use latscope_core::time::Picos;
use std::fmt;
use std::str::FromStr;

/// `--period CH[:EDGE][,nominal=1ms]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodSpec(Request);

impl PeriodSpec {
    /// The request, with `default_nominal` (`--nominal`) unless a nominal is inline.
    pub fn request(&self, default_nominal: Option<Picos>) -> Request {
        let mut r = self.0.clone();
        if let Kind::Period { nominal, .. } = &mut r.kind {
            *nominal = nominal.or(default_nominal);
        }
        r
    }
}

impl FromStr for PeriodSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<PeriodSpec> {
        parse_period(s, None).map(PeriodSpec)
    }
}

/// `--busy CH[:LEVEL][,window=1ms|,per=CH2[:EDGE|:LEVEL]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct BusySpec(Request);

impl BusySpec {
    /// The request, with `default` (`--window`/`--per`, else the whole capture) unless
    /// windows are inline.
    pub fn request(&self, default: &Per) -> Request {
        let mut r = self.0.clone();
        if let Kind::Busy { per, .. } = &mut r.kind {
            if *per == Per::Whole {
                *per = default.clone();
            }
        }
        r
    }
}

impl FromStr for BusySpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<BusySpec> {
        parse_busy(s, &Per::Whole).map(BusySpec)
    }
}

/// `--count CH[:EDGE],per=CH2` or `CH[:EDGE],window=1ms`.
#[derive(Clone, Debug, PartialEq)]
pub struct CountSpec(Request);

impl CountSpec {
    /// The request, with `default` (`--window`/`--per`) unless windows are inline;
    /// refused when there is neither (a count needs windows to count in).
    pub fn request(&self, default: &Per) -> Result<Request> {
        let mut r = self.0.clone();
        if let Kind::Count { per, .. } = &mut r.kind {
            if *per == Per::Whole {
                *per = default.clone();
            }
        }
        need_per(r)
    }
}

impl FromStr for CountSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<CountSpec> {
        count_request(s, &Per::Whole).map(CountSpec)
    }
}

/// `--per CH2[:EDGE|:LEVEL]`: the periods (an edge, rise by default) or the pulses (a
/// level) of a channel as windows.
impl FromStr for Per {
    type Err = Error;
    fn from_str(s: &str) -> Result<Per> {
        parse_per(s, "--per")
    }
}

impl fmt::Display for PeriodSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.definition)
    }
}

impl fmt::Display for BusySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.definition)
    }
}

impl fmt::Display for CountSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.definition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::parse::{parse_busy, parse_count, parse_period};

    fn refused<T: FromStr<Err = Error> + fmt::Debug>(s: &str) -> String {
        match s.parse::<T>() {
            Ok(v) => panic!("'{s}' accepted as {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Parsed on its own and completed later gives the request parsed with the defaults
    /// at hand: the same as the one-step parsers.
    #[test]
    fn completed_specs_equal_the_one_step_parse() {
        let nominal = Some(Picos::from_ms(1));
        for s in ["T", "T:fall,nominal=2ms"] {
            let p: PeriodSpec = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
            assert_eq!(p.request(nominal), parse_period(s, nominal).unwrap(), "{s}");
            assert_eq!(p.request(None), parse_period(s, None).unwrap(), "{s}");
        }
        let per: Per = "SysTick".parse().unwrap();
        let window = Per::Window(Picos::from_ms(1));
        for s in ["Task", "Task:low,per=Clk:high", "Task,window=5ms"] {
            let b: BusySpec = s.parse().unwrap();
            for d in [&Per::Whole, &per, &window] {
                assert_eq!(b.request(d), parse_busy(s, d).unwrap(), "{s} {d:?}");
            }
        }
        for s in ["Task:rise", "Task,per=Clk", "Task,window=5ms"] {
            let c: CountSpec = s.parse().unwrap();
            for d in [&per, &window] {
                assert_eq!(
                    c.request(d).unwrap(),
                    parse_count(s, d).unwrap(),
                    "{s} {d:?}"
                );
            }
        }
    }

    #[test]
    fn a_count_without_windows_is_refused_when_completed() {
        let c: CountSpec = "Task".parse().unwrap();
        let e = c.request(&Per::Whole).unwrap_err().to_string();
        assert!(
            e.starts_with("--count 'Task': say what to count per"),
            "{e}"
        );
    }

    #[test]
    fn malformed_specs_are_refused_when_read() {
        let e = refused::<PeriodSpec>("clk:sideways");
        assert!(
            e.contains("unknown edge 'sideways'") && e.contains("(use rise, fall or any)"),
            "{e}"
        );
        assert!(refused::<PeriodSpec>("T,nominal=5").contains("has no unit"));
        assert!(refused::<PeriodSpec>("T,nominal=-1ms").contains("must be positive"));
        assert!(refused::<PeriodSpec>(",nominal=1ms").contains("no channel named"));
        assert!(refused::<BusySpec>("t:rise").contains("unknown level 'rise'"));
        assert!(refused::<BusySpec>("t,windw=1ms").contains("unknown option 'windw'"));
        assert!(refused::<CountSpec>("t,per=clk:middle").contains("unknown edge or level 'middle'"));
        let e = refused::<Per>("clk:middle");
        assert!(e.contains("unknown edge or level 'middle' in --per"), "{e}");
        assert!(matches!(
            "clk:low".parse::<Per>().unwrap(),
            Per::Pulses { level: false, .. }
        ));
        assert!(matches!(
            "clk:fall".parse::<Per>().unwrap(),
            Per::Periods(_)
        ));
    }
}
