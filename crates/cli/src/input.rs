//! `-` as an input file: standard input, for the commands whose readers take a path
//! (they sniff the format from the first bytes and may seek back). Standard input is read
//! once into a file named `stdin` in a temporary directory, which goes when the command
//! ends; errors then name that file. Captures (`trace`, `convert`) have their own
//! streaming path in latscope-trace and do not come here.

use anyhow::Context;
use std::path::{Path, PathBuf};

/// Holds the spooled copy of standard input alive while the command reads it.
#[derive(Default)]
pub struct Stdin {
    dir: Option<tempfile::TempDir>,
}

impl Stdin {
    /// `path` itself, or for `-` the spooled copy of standard input. Standard input can
    /// be read only once: a second `-` is an error naming `option`.
    pub fn resolve(&mut self, path: &Path, option: &str) -> anyhow::Result<PathBuf> {
        if !crate::out::is_stdio(path) {
            return Ok(path.to_path_buf());
        }
        if self.dir.is_some() {
            anyhow::bail!("{option}: `-` (standard input) given twice; it can be read only once");
        }
        let dir = tempfile::Builder::new()
            .prefix("latscope-stdin")
            .tempdir()
            .context("cannot create a temporary directory for standard input")?;
        let copy = dir.path().join("stdin");
        let mut file = std::fs::File::create(&copy)
            .with_context(|| format!("cannot create {}", copy.display()))?;
        std::io::copy(&mut std::io::stdin().lock(), &mut file)
            .with_context(|| format!("{option} -: cannot read standard input"))?;
        self.dir = Some(dir);
        Ok(copy)
    }
}
