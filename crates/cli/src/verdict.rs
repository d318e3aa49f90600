//! The verdict lines a command prints after its figures: the text of
//! [`latscope_results::Verdict`], the function the report's first screen and overview
//! use as well, so the terminal, the HTML and the Markdown say the same.

use latscope_results::Verdict;
use std::io::{self, Write};

/// "PASS: …" and, when the result has one, "  worst …: cause".
pub fn write(out: &mut impl Write, v: &Verdict) -> io::Result<()> {
    writeln!(out, "{}", v.headline())?;
    if let Some(w) = &v.worst {
        writeln!(out, "  {}", w.line())?;
    }
    Ok(())
}

/// [`write`] to standard output.
pub fn print(v: &Verdict) {
    let _ = write(&mut io::stdout().lock(), v);
}
