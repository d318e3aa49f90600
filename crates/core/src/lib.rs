//! latscope-core: the data model every latscope front end shares.
//!
//! * [`arith`]: gcd and the overflow-checked lcm of periods (hyperperiods);
//! * [`time`]: integer time with the unit in the type ([`Nanos`], [`Picos`]) and exact
//!   parsing of `1.5us`-style durations;
//! * [`stats`]: the one statistics module (moments, HDR histogram, exact samples);
//! * [`capture`]: the one capture model (digital edge lists, analog samples);
//! * [`events`]: the one event-trace model (RTOS recorders, Linux scheduler traces);
//! * [`flag`]: the one wording of a refused flag value (CLI and Python alike);
//! * [`labels`]: the `labels` object of every result (user labels and host facts);
//! * [`outfile`]: outputs written through a temporary file and a rename;
//! * [`summary`]: the typed summary every result's JSON carries (measure, trace and
//!   simulate write it; report and fit read it back);
//! * [`jsonnum`]: how results write numbers (NaN as `null`, whole numbers without fraction).
//!
//! No CLI concerns live here: functions return errors, never print or exit.

pub mod arith;
pub mod capture;
pub mod events;
pub mod flag;
pub mod frequency;
pub mod json_pretty;
pub mod jsonnum;
pub mod labeled_json;
pub mod labels;
pub mod outfile;
pub mod stats;
pub mod summary;
pub mod textpos;
pub mod time;
pub mod words;

pub use capture::{AnalogChannel, Capture, CaptureError, DigitalChannel, Edge};
pub use stats::{Accumulator, Bucket, Histogram, Location, Moments, Samples, Summary};
pub use time::{parse_duration, parse_duration_ns, Nanos, Picos, UnitError};
