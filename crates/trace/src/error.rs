//! One error type for every importer and measurement: it always names the file, where in
//! it (zip entry, line, byte offset) and the problem.

use std::fmt;

/// Where in the input a problem was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The file as a whole.
    File,
    /// 1-based line number of a text file.
    Line(u64),
    /// Byte offset in a binary file.
    Byte(u64),
    /// A zip entry, optionally with a byte offset inside it.
    Entry(String, Option<u64>),
    /// A free-form place (a spec key, a command-line argument).
    Other(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::File => Ok(()),
            Place::Line(l) => write!(f, "line {l}"),
            Place::Byte(b) => write!(f, "byte offset {b}"),
            Place::Entry(e, None) => write!(f, "entry '{e}'"),
            Place::Entry(e, Some(o)) => write!(f, "entry '{e}', byte offset {o}"),
            Place::Other(s) => f.write_str(s),
        }
    }
}

/// A trace error: a file, a place in it, and what is wrong.
///
/// The Display text is complete on its own; no variant reports its cause again as an
/// error `source()`, so `anyhow`'s `{:#}` chain prints each message once.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{file}: {err}")]
    Io { file: String, err: std::io::Error },
    #[error("{file}: {}{msg}", place_prefix(.place))]
    Format {
        file: String,
        place: Place,
        msg: String,
    },
    #[error(transparent)]
    Capture(#[from] latscope_core::capture::CaptureError),
    #[error("{0}")]
    Usage(String),
}

fn place_prefix(p: &Place) -> String {
    match p {
        Place::File => String::new(),
        p => format!("{p}: "),
    }
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn format(file: &str, place: Place, msg: impl Into<String>) -> Error {
        Error::Format {
            file: file.to_string(),
            place,
            msg: msg.into(),
        }
    }
    pub fn io(file: &str, source: std::io::Error) -> Error {
        Error::Io {
            file: file.to_string(),
            err: source,
        }
    }
    pub fn usage(msg: impl Into<String>) -> Error {
        Error::Usage(msg.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message once: `{:#}` of an anyhow chain repeats a `source()` that the
    /// Display text already contains.
    #[test]
    fn no_variant_repeats_its_cause_as_source() {
        use std::error::Error as _;
        let cap = latscope_core::capture::Capture {
            source: "t.vcd".into(),
            ..Default::default()
        };
        let e: Error = cap.channel_index("nosuch").unwrap_err().into();
        assert!(e.source().is_none(), "{e}");
        let e = Error::io("f.sr", std::io::Error::other("boom"));
        assert!(e.source().is_none());
        assert_eq!(e.to_string(), "f.sr: boom");
    }
}
