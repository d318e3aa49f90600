//! `--label KEY=VALUE`, shared by every command that writes a result (measure, trace,
//! analyze, simulate, scenario, sweep): checked before any work, and written into the
//! result's top-level `labels` object with the machine's own keys
//! (latscope_core::labels).

use latscope_core::labels::{parse_labels, Labels};

// The `--label` option; flatten it into a command's `Args`.
// (A plain comment, not `///`: clap would take a doc comment as the command's `about`,
// replacing the one main.rs gives, because commands' arguments are built deferred.)
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LabelArgs {
    /// Attach KEY=VALUE to the result (repeatable), e.g. --label board=rpi4 --label
    /// rack=b7. Stored in the JSON's top-level `labels` object next to `host`,
    /// `kernel`, `cpu_model` and `latscope_version`, which latscope fills in itself.
    /// Keys: letters, digits and '_' (they become Prometheus labels and column names)
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub label: Vec<String>,
}

impl LabelArgs {
    /// The user's labels, checked, plus this machine's facts. A bad label is an error
    /// (exit 2) naming it.
    pub fn resolve(&self) -> anyhow::Result<Labels> {
        Ok(Labels::with_host(parse_labels(&self.label)?))
    }
}

/// Writes a result with its `labels` object as pretty JSON to `path` (`-`: standard
/// output), streamed through [`crate::out::stream`]: the result's keys in the order its
/// type declares them, then `labels`. Nothing of the document is built in memory first
/// (a `serde_json::Value` of a 10,000-task analysis was ten times the size of its text),
/// and a file appears only once it is whole.
pub fn write_json(
    path: &std::path::Path,
    result: &impl serde::Serialize,
    labels: &Labels,
) -> anyhow::Result<()> {
    crate::out::stream(path, "--json", |w| write_labeled(w, result, labels))
}

/// A result object followed by its `labels` key.
#[derive(serde::Serialize)]
struct Labeled<'a, T: serde::Serialize> {
    #[serde(flatten)]
    result: &'a T,
    labels: &'a Labels,
}

/// The pretty JSON of `result` with `labels`, and a final newline, to `w`.
pub fn write_labeled(
    w: &mut impl std::io::Write,
    result: &impl serde::Serialize,
    labels: &Labels,
) -> anyhow::Result<()> {
    use serde::Serialize as _;
    let mut ser =
        serde_json::Serializer::with_formatter(&mut *w, crate::json_pretty::Pretty::default());
    Labeled { result, labels }.serialize(&mut ser)?;
    w.write_all(b"\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::write_labeled;
    use latscope_core::labels::Labels;

    #[derive(serde::Serialize)]
    struct Inner {
        x: u8,
    }

    /// A result with its fields in the order its type declares them (not sorted).
    #[derive(serde::Serialize)]
    struct Result {
        zeta: Option<f64>,
        alpha: Vec<Inner>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u8>,
        name: &'static str,
    }

    /// The streamed text is the result's pretty JSON, its keys in declared order, with
    /// `labels` last and a final newline: the same text as before streaming, but for
    /// the key order (the values, their formatting and the indentation are unchanged).
    #[test]
    fn labels_follow_the_result_keys_in_declared_order() {
        let labels = Labels(
            [("board".to_string(), "rpi4".to_string())]
                .into_iter()
                .collect(),
        );
        let r = Result {
            zeta: Some(0.1 + 0.2),
            alpha: vec![Inner { x: 1 }, Inner { x: 2 }],
            gone: None,
            name: "a \"quoted\" name",
        };
        let mut out = Vec::new();
        write_labeled(&mut out, &r, &labels).unwrap();
        let text = String::from_utf8(out).unwrap();
        let want = "{\n  \"zeta\": 0.30000000000000004,\n  \"alpha\": [\n    {\n      \"x\": 1\n    },\n    {\n      \"x\": 2\n    }\n  ],\n  \"name\": \"a \\\"quoted\\\" name\",\n  \"labels\": {\n    \"board\": \"rpi4\"\n  }\n}\n";
        assert_eq!(text, want);
        // The same values as the document built in memory and written sorted.
        let mut v = serde_json::to_value(&r).unwrap();
        v.as_object_mut()
            .unwrap()
            .insert("labels".into(), serde_json::to_value(&labels).unwrap());
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }
}
