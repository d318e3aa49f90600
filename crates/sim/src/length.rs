//! How long a simulation runs when the user gives no duration: one hyperperiod, capped.
//! The CLI and the Python binding both decide it here, with the option names of their
//! own front end in the messages.

use crate::config::SimConfig;
use latscope_core::time::format_ps;
use latscope_core::Picos;

/// The option names a front end uses for the duration and its cap.
#[derive(Clone, Copy, Debug)]
pub struct LengthNames<'a> {
    pub duration: &'a str,
    pub max_duration: &'a str,
}

/// A simulation length that cannot be run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0} must be positive")]
pub struct LengthError(pub String);

/// The time to simulate: `duration` when given, else the hyperperiod when it is at most
/// `cap`, else `cap`; with a note when the hyperperiod was cut or does not exist.
pub fn run_length(
    cfg: &SimConfig,
    duration: Option<Picos>,
    cap: Picos,
    names: LengthNames,
) -> Result<(Picos, Option<String>), LengthError> {
    let (until, note) = match duration {
        Some(d) => (d, None),
        None => match cfg.hyperperiod() {
            Some(h) if h <= cap => (h, None),
            Some(h) => (
                cap,
                Some(format!(
                    "hyperperiod {} is longer than {}; simulating {}",
                    format_ps(h.0 as i128),
                    names.max_duration,
                    format_ps(cap.0 as i128)
                )),
            ),
            None => (
                cap,
                Some(format!(
                    "no hyperperiod (no periodic task or overflow); simulating {}",
                    format_ps(cap.0 as i128)
                )),
            ),
        },
    };
    if until.0 <= 0 {
        // Without a duration the length came from the cap.
        let name = if duration.is_some() {
            names.duration
        } else {
            names.max_duration
        };
        return Err(LengthError(name.to_string()));
    }
    Ok((until, note))
}
