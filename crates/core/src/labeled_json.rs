//! The JSON text of a result with its `labels` object, as every front end writes it: the
//! CLI's `--json` and the Python binding's `save()` and `to_dict()` give the same bytes.
//! Pretty ([`crate::json_pretty::Pretty`]), the result's keys in the order its type
//! declares them and `labels` last, streamed to the writer: nothing of the document is
//! built in memory first (a `serde_json::Value` of a 10,000-task analysis took several
//! times the size of its text).

use crate::json_pretty::Pretty;
use crate::labels::Labels;
use serde::Serialize;

/// A result object followed by its `labels` key.
#[derive(Serialize)]
struct Labeled<'a, T: Serialize> {
    #[serde(flatten)]
    result: &'a T,
    labels: &'a Labels,
}

/// Writes `result` (a JSON object) with `labels` to `w`, without a final newline.
pub fn write_labeled<W: std::io::Write>(
    w: W,
    result: &impl Serialize,
    labels: &Labels,
) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(w, Pretty::default());
    Labeled { result, labels }.serialize(&mut ser)
}

#[cfg(test)]
mod tests {
    use super::write_labeled;
    use crate::labels::Labels;

    #[derive(serde::Serialize)]
    struct Inner {
        x: u8,
    }

    /// A result with its fields in the order its type declares them (not sorted).
    #[derive(serde::Serialize)]
    struct Doc {
        zeta: Option<f64>,
        alpha: Vec<Inner>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u8>,
        name: &'static str,
    }

    /// The text is the result's pretty JSON, its keys in declared order, with `labels`
    /// last: the values, their formatting and the indentation are those of
    /// `serde_json::to_string_pretty`, and it parses to the document built in memory.
    #[test]
    fn labels_follow_the_result_keys_in_declared_order() {
        let labels = Labels(
            [("board".to_string(), "rpi4".to_string())]
                .into_iter()
                .collect(),
        );
        let r = Doc {
            zeta: Some(0.1 + 0.2),
            alpha: vec![Inner { x: 1 }, Inner { x: 2 }],
            gone: None,
            name: "a \"quoted\" name",
        };
        let mut out = Vec::new();
        write_labeled(&mut out, &r, &labels).unwrap();
        let text = String::from_utf8(out).unwrap();
        let want = "{\n  \"zeta\": 0.30000000000000004,\n  \"alpha\": [\n    {\n      \"x\": 1\n    },\n    {\n      \"x\": 2\n    }\n  ],\n  \"name\": \"a \\\"quoted\\\" name\",\n  \"labels\": {\n    \"board\": \"rpi4\"\n  }\n}";
        assert_eq!(text, want);
        let mut v = serde_json::to_value(&r).unwrap();
        v.as_object_mut()
            .unwrap()
            .insert("labels".into(), serde_json::to_value(&labels).unwrap());
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }
}
