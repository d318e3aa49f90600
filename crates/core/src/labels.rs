//! Labels on results: the user's `--label KEY=VALUE` pairs plus what identifies the
//! machine a result came from (host name, kernel release, CPU model, latscope version).
//!
//! Every result a command writes carries them in one top-level `labels` object, so runs
//! from a fleet of hosts or boards can be told apart, merged (`latscope merge`), exported
//! as columns and exposed as Prometheus labels. Keys are therefore restricted to what all
//! of those accept: `[A-Za-z_][A-Za-z0-9_]*`, not starting with `__` (reserved by
//! Prometheus), and not one of the keys latscope fills in itself ([`RESERVED`]).
//!
//! The machine's facts are read without panicking: where a file cannot be read (another
//! OS, a container without /proc) the value falls back to the environment or to what
//! the standard library knows, never to an error.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Keys latscope fills in itself; a user label may not use them.
pub const HOST_KEYS: [&str; 4] = ["host", "kernel", "cpu_model", "latscope_version"];

/// Keys a user label may not use: the machine's own keys, and the names latscope uses
/// next to the labels (metric labels `cpu`, `policy`, `interval`, `le`; exported columns).
pub const RESERVED: [&str; 8] = [
    "host",
    "kernel",
    "cpu_model",
    "latscope_version",
    "cpu",
    "policy",
    "interval",
    "le",
];

/// A label that cannot be used, with the text the user gave.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--label '{given}': {problem}")]
pub struct LabelError {
    pub given: String,
    pub problem: String,
}

/// The `labels` object of a result: sorted by key, so the JSON is stable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Labels(pub BTreeMap<String, String>);

impl Labels {
    /// The user's labels (already checked) plus this machine's facts.
    pub fn with_host(user: BTreeMap<String, String>) -> Labels {
        let mut m = user;
        for (k, v) in HostInfo::read().pairs() {
            m.insert(k.to_string(), v);
        }
        Labels(m)
    }
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
    /// Only the labels the user gave (without the machine's keys).
    pub fn user(&self) -> impl Iterator<Item = (&str, &str)> {
        self.iter().filter(|(k, _)| !HOST_KEYS.contains(k))
    }
}

/// Why a key may not name a user label.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the key is empty (write KEY=VALUE)")]
    Empty,
    #[error(
        "key '{0}' must be letters, digits and '_' and not start with a digit \
         (it becomes a Prometheus label and a column name)"
    )]
    Characters(String),
    #[error("key '{0}': names starting with '__' are reserved by Prometheus")]
    Prometheus(String),
    #[error("key '{0}' is reserved (latscope sets {reserved} itself)", reserved = RESERVED.join(", "))]
    Reserved(String),
}

/// Whether `key` may name a user label; the reason when it may not.
pub fn check_key(key: &str) -> Result<(), KeyError> {
    if key.is_empty() {
        return Err(KeyError::Empty);
    }
    let mut chars = key.chars();
    let first = chars.next().unwrap_or('_');
    if !(first.is_ascii_alphabetic() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(KeyError::Characters(key.to_string()));
    }
    if key.starts_with("__") {
        return Err(KeyError::Prometheus(key.to_string()));
    }
    if RESERVED.contains(&key) {
        return Err(KeyError::Reserved(key.to_string()));
    }
    Ok(())
}

/// One `KEY=VALUE` (the value may contain `=`; it must not be empty).
pub fn parse_label(given: &str) -> Result<(String, String), LabelError> {
    let err = |problem: String| LabelError {
        given: given.to_string(),
        problem,
    };
    let Some((k, v)) = given.split_once('=') else {
        return Err(err("no '=' (write KEY=VALUE, e.g. board=rpi4)".into()));
    };
    let k = k.trim();
    check_key(k).map_err(|e| err(e.to_string()))?;
    if v.is_empty() {
        return Err(err(format!("the value of '{k}' is empty")));
    }
    if v.chars().any(char::is_control) {
        return Err(err(format!(
            "the value of '{k}' contains a control character"
        )));
    }
    Ok((k.to_string(), v.to_string()))
}

/// Every `--label` given, checked: a malformed one, an empty or reserved key or a key
/// given twice is an error naming it.
pub fn parse_labels<S: AsRef<str>>(given: &[S]) -> Result<BTreeMap<String, String>, LabelError> {
    let mut m = BTreeMap::new();
    for g in given {
        let (k, v) = parse_label(g.as_ref())?;
        if let Some(old) = m.get(&k) {
            return Err(LabelError {
                given: g.as_ref().to_string(),
                problem: format!("key '{k}' given twice (first as {k}={old})"),
            });
        }
        m.insert(k, v);
    }
    Ok(m)
}

/// What identifies this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostInfo {
    pub host: String,
    pub kernel: String,
    pub cpu_model: String,
    pub latscope_version: String,
}

impl HostInfo {
    /// This machine, read from `/`.
    pub fn read() -> HostInfo {
        HostInfo::read_from(Path::new("/"))
    }

    /// Read under `root` (a fixture directory in tests).
    pub fn read_from(root: &Path) -> HostInfo {
        let file = |p: &str| {
            std::fs::read_to_string(root.join(p))
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let env = |k: &str| std::env::var(k).ok().filter(|s| !s.trim().is_empty());
        let host = file("proc/sys/kernel/hostname")
            .or_else(|| file("etc/hostname"))
            .or_else(|| env("HOSTNAME"))
            .or_else(|| env("COMPUTERNAME"))
            .unwrap_or_else(|| "unknown".into());
        // The release alone (as `uname -r`), like a measure result's `kernel`.
        let kernel = file("proc/sys/kernel/osrelease")
            .unwrap_or_else(|| kernel_name(std::env::consts::OS).to_string());
        let cpu_model = file("proc/cpuinfo")
            .and_then(|t| cpu_model_of(&t))
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        HostInfo {
            host,
            kernel,
            cpu_model,
            latscope_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    pub fn pairs(&self) -> [(&'static str, String); 4] {
        [
            ("host", self.host.clone()),
            ("kernel", self.kernel.clone()),
            ("cpu_model", self.cpu_model.clone()),
            ("latscope_version", self.latscope_version.clone()),
        ]
    }
}

fn kernel_name(os: &str) -> &str {
    match os {
        "linux" => "Linux",
        "macos" => "Darwin",
        other => other,
    }
}

/// The CPU model named in /proc/cpuinfo: `model name` (x86, most Arm kernels), the board
/// `Model` line (Raspberry Pi), `cpu model` (MIPS), `cpu` (PowerPC), `uarch` (RISC-V),
/// `Hardware`, in that order of preference.
pub fn cpu_model_of(cpuinfo: &str) -> Option<String> {
    let field = |name: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim().eq_ignore_ascii_case(name) && !v.trim().is_empty())
                .then(|| v.trim().to_string())
        })
    };
    [
        "model name",
        "Model",
        "cpu model",
        "cpu",
        "uarch",
        "Hardware",
    ]
    .iter()
    .find_map(|f| field(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_labels_parse_sorted() {
        let m = parse_labels(&["rack=b7", "board=rpi4", "note=a=b"]).unwrap();
        let v: Vec<_> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(v, ["board=rpi4", "note=a=b", "rack=b7"]);
    }

    #[test]
    fn bad_labels_are_refused_with_the_reason() {
        let e = |s: &[&str]| parse_labels(s).unwrap_err().to_string();
        assert!(e(&["board"]).contains("no '='"), "{}", e(&["board"]));
        assert!(e(&["=x"]).contains("key is empty"));
        assert!(e(&["a=1", "a=2"]).contains("given twice (first as a=1)"));
        assert!(e(&["host=x"]).contains("reserved"));
        assert!(e(&["cpu=3"]).contains("reserved"));
        assert!(e(&["1a=x"]).contains("not start with a digit"));
        assert!(e(&["a-b=x"]).contains("letters, digits"));
        assert!(e(&["__x=1"]).contains("reserved by Prometheus"));
        assert!(e(&["a="]).contains("empty"));
        assert!(e(&["a=x\ny"]).contains("control"));
        assert!(e(&["board"]).starts_with("--label 'board':"));
    }

    #[test]
    fn host_facts_from_a_fixture_root() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc/sys/kernel")).unwrap();
        std::fs::write(d.path().join("proc/sys/kernel/hostname"), "board7\n").unwrap();
        std::fs::write(d.path().join("proc/sys/kernel/osrelease"), "6.6.1-rt\n").unwrap();
        std::fs::write(
            d.path().join("proc/cpuinfo"),
            "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n",
        )
        .unwrap();
        let h = HostInfo::read_from(d.path());
        assert_eq!(h.host, "board7");
        assert_eq!(h.kernel, "6.6.1-rt");
        assert_eq!(h.cpu_model, "Raspberry Pi 4 Model B Rev 1.4");
        assert_eq!(h.latscope_version, env!("CARGO_PKG_VERSION"));
        // Nothing readable: fallbacks, no panic, nothing empty.
        let e = tempfile::tempdir().unwrap();
        let h = HostInfo::read_from(e.path());
        assert!(!h.host.is_empty() && !h.kernel.is_empty() && !h.cpu_model.is_empty());
        assert_eq!(h.cpu_model, std::env::consts::ARCH);
    }

    #[test]
    fn x86_cpuinfo_model_name() {
        let t = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6130\n";
        assert_eq!(
            cpu_model_of(t).as_deref(),
            Some("Intel(R) Xeon(R) Gold 6130")
        );
        assert_eq!(cpu_model_of("processor : 0\n"), None);
    }

    #[test]
    fn with_host_keeps_user_labels_and_adds_the_machine() {
        let l = Labels::with_host(parse_labels(&["board=rpi4"]).unwrap());
        assert_eq!(l.get("board"), Some("rpi4"));
        for k in HOST_KEYS {
            assert!(l.get(k).is_some_and(|v| !v.is_empty()), "{k}");
        }
        assert_eq!(l.user().collect::<Vec<_>>(), [("board", "rpi4")]);
        let j = serde_json::to_value(&l).unwrap();
        assert_eq!(j["board"], "rpi4");
    }
}
