//! Why a system description was rejected, and where.

use std::fmt;

/// Why a system description was rejected.
#[derive(Debug, thiserror::Error)]
pub enum SystemError {
    /// The OS error is part of the message and deliberately not an error `source`, so
    /// that a caller printing the chain (anyhow's `{:#}`) shows it once (audit D19.1).
    #[error("cannot read {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{0}")]
    Invalid(Box<Diagnostic>),
}

impl SystemError {
    /// The structured diagnostic, when the problem is in the content.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            SystemError::Invalid(d) => Some(d),
            SystemError::Io { .. } => None,
        }
    }
}

/// Where a problem is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    /// 1-based line (TOML input only).
    pub line: Option<usize>,
    /// 1-based column (TOML input only).
    pub column: Option<usize>,
    /// The table, e.g. `kernel.costs` or `task[3] "B"` (0-based index).
    pub table: Option<String>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        f.write_str(": ")?;
        match (&self.table, &self.key) {
            (Some(t), Some(k)) => write!(f, "in {t}, key `{k}`: ")?,
            (Some(t), None) => write!(f, "in {t}: ")?,
            (None, Some(k)) => write!(f, "key `{k}`: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
}
