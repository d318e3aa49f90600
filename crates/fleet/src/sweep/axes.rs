//! Configuration axes: `--set KEY=V1,V2,…` over any key of the system file's `platform`,
//! `kernel` (with `kernel.costs.*`) and `critical_sections` tables. Each configuration is
//! the template with its keys replaced, written back as TOML and read again by the system
//! parser, so a key or value the file format would refuse is refused here with the same
//! message.

use super::SweepError;
use latscope_model::System;

/// One axis: a key and the values it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
}

/// One point of the axes' cartesian product, as a system.
#[derive(Debug, Clone)]
pub struct Config {
    /// `kernel.tick_hz=100 kernel.task_selection=generic` (`template` without axes).
    pub name: String,
    pub system: System,
}

const ROOTS: [&str; 3] = ["platform", "kernel", "critical_sections"];

impl Axis {
    /// Parses `KEY=V1,V2,…`; the error names the flag (`--set`) for callers outside clap.
    pub fn parse(text: &str) -> Result<Axis, SweepError> {
        text.parse().map_err(|e| match e {
            SweepError::Invalid(m) => SweepError::Invalid(format!("--set {text:?}: {m}")),
            e => e,
        })
    }
}

/// A value as TOML: a number, boolean or quoted string as written, anything else a string
/// (`generic`, `1.5us`, `84 MHz`).
fn toml_value(text: &str) -> toml::Value {
    match format!("v = {text}").parse::<toml::Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(text.into())),
        Err(_) => toml::Value::String(text.to_string()),
    }
}

/// Why a `--set` key cannot be set in the system document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetKeyError {
    #[error("empty key")]
    Empty,
    /// A part of the dotted path names a value, not a table.
    #[error("{0} is a value, not a table")]
    NotATable(String),
    /// The key names a whole table.
    #[error("{0} is a table; give one of its keys")]
    IsATable(String),
}

fn set_key(doc: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), SetKeyError> {
    let parts: Vec<&str> = key.split('.').collect();
    let (leaf, path) = parts.split_last().ok_or(SetKeyError::Empty)?;
    let mut table = doc;
    let mut at = String::new();
    for p in path {
        if !at.is_empty() {
            at.push('.');
        }
        at.push_str(p);
        let entry = table
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(SetKeyError::NotATable(at)),
        };
    }
    if let Some(toml::Value::Table(_)) = table.get(*leaf) {
        return Err(SetKeyError::IsATable(key.to_string()));
    }
    table.insert(leaf.to_string(), value);
    Ok(())
}

/// The configurations: the cartesian product of the axes, the first axis varying slowest,
/// each validated by the system parser. No axes: the template alone.
pub fn configs(template: &System, axes: &[Axis]) -> Result<Vec<Config>, SweepError> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.key == a.key) {
            return Err(SweepError::Invalid(format!(
                "--set {}: the key is given twice; list all its values in one --set",
                a.key
            )));
        }
    }
    let base: toml::Table = template
        .to_toml_string()
        .parse()
        .map_err(|e| SweepError::Invalid(format!("the template does not write back: {e}")))?;
    let total: usize = axes.iter().map(|a| a.values.len()).product();
    let mut out = Vec::with_capacity(total);
    for k in 0..total {
        let mut doc = base.clone();
        let mut names = Vec::with_capacity(axes.len());
        let mut rest = k;
        let mut picks = vec![0usize; axes.len()];
        for (i, a) in axes.iter().enumerate().rev() {
            picks[i] = rest % a.values.len();
            rest /= a.values.len();
        }
        for (a, &p) in axes.iter().zip(&picks) {
            let v = &a.values[p];
            set_key(&mut doc, &a.key, toml_value(v))
                .map_err(|e| SweepError::Invalid(format!("--set {}={v}: {e}", a.key)))?;
            names.push(format!("{}={v}", a.key));
        }
        let name = if names.is_empty() {
            "template".to_string()
        } else {
            names.join(" ")
        };
        let text = toml::to_string(&doc)
            .map_err(|e| SweepError::Invalid(format!("configuration {name}: {e}")))?;
        let mut system = System::from_toml_str(&text, &name).map_err(|e| {
            SweepError::Invalid(format!(
                "--set {}: the system file format refuses it: {e}",
                names.join(" ")
            ))
        })?;
        system.source = template.source.clone();
        out.push(Config { name, system });
    }
    Ok(out)
}

/// The value of `--set` (clap's `value_parser` and Python read it through this).
impl std::str::FromStr for Axis {
    type Err = SweepError;
    fn from_str(text: &str) -> Result<Axis, SweepError> {
        let bad = |why: String| {
            SweepError::Invalid(format!(
                "{why} (expected KEY=V1,V2,…, e.g. kernel.tick_hz=100,1000)"
            ))
        };
        let (key, vals) = text.split_once('=').ok_or_else(|| bad("no '='".into()))?;
        let key = key.trim();
        let parts: Vec<&str> = key.split('.').collect();
        if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
            return Err(bad(format!(
                "{key:?} is not a dotted key such as kernel.tick_hz"
            )));
        }
        if !ROOTS.contains(&parts[0]) {
            let why = match parts[0] {
                "task" => "the tasks are generated by the sweep".to_string(),
                "interrupt" | "resource" => format!(
                    "[[{}]] is a list of tables; change it in the template file",
                    parts[0]
                ),
                other => format!("the system file has no table [{other}]"),
            };
            return Err(bad(format!(
                "{key:?}: {why}; --set takes keys under {}",
                ROOTS.join(", ")
            )));
        }
        let values: Vec<String> = vals.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(bad("an empty value".into()));
        }
        for (i, v) in values.iter().enumerate() {
            if values[..i].contains(v) {
                return Err(bad(format!("the value {v:?} is listed twice")));
            }
        }
        Ok(Axis {
            key: key.to_string(),
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latscope_model::generate::freertos_template;
    use latscope_model::system::TaskSelection;

    #[test]
    fn product_first_axis_slowest_and_applied() {
        let t = freertos_template();
        let axes = vec![
            Axis::parse("kernel.tick_hz=100,1000").unwrap(),
            Axis::parse("kernel.task_selection=generic,optimised").unwrap(),
        ];
        let c = configs(&t, &axes).unwrap();
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "kernel.tick_hz=100 kernel.task_selection=generic",
                "kernel.tick_hz=100 kernel.task_selection=optimised",
                "kernel.tick_hz=1000 kernel.task_selection=generic",
                "kernel.tick_hz=1000 kernel.task_selection=optimised",
            ]
        );
        assert_eq!(c[0].system.kernel.tick_hz, 100);
        assert_eq!(c[3].system.kernel.tick_hz, 1000);
        assert_eq!(c[1].system.kernel.task_selection, TaskSelection::Optimised);
        assert_eq!(c[2].system.kernel.task_selection, TaskSelection::Generic);
        // A duration key deep in kernel.costs.
        let c = configs(
            &t,
            &[Axis::parse("kernel.costs.tick_base=1us,3us").unwrap()],
        )
        .unwrap();
        assert_ne!(c[0].system.kernel.costs, c[1].system.kernel.costs);
        assert_eq!(configs(&t, &[]).unwrap()[0].name, "template");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused_clearly() {
        let t = freertos_template();
        let e = configs(&t, &[Axis::parse("kernel.tick_rate=100").unwrap()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("tick_rate"), "{e}");
        let e = configs(&t, &[Axis::parse("kernel.tick_hz=fast").unwrap()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("kernel.tick_hz=fast"), "{e}");
        let e = configs(&t, &[Axis::parse("kernel.task_selection=clever").unwrap()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("clever"), "{e}");
        for (t, why) in [
            ("task.wcet=1ms", "generated"),
            ("interrupt.wcet=1ms", "template file"),
            ("board.x=1", "no table [board]"),
            ("kernel.tick_hz", "no '='"),
            ("kernel.tick_hz=100,,1000", "empty value"),
            ("kernel.tick_hz=100,100", "twice"),
            ("tick_hz=100", "dotted key"),
        ] {
            let e = Axis::parse(t).unwrap_err().to_string();
            assert!(e.contains(why), "{t}: {e}");
        }
        let a = Axis::parse("kernel.tick_hz=100").unwrap();
        assert!(configs(&freertos_template(), &[a.clone(), a]).is_err());
        let e = configs(
            &freertos_template(),
            &[Axis::parse("kernel.costs=1").unwrap()],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("is a table"), "{e}");
    }
}
