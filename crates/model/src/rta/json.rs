//! Reading an `analyze --json` result back: the fixed words it writes and the
//! interference list (`[{name, ns}]`, held in memory as shares of interned names).

use super::{Interference, Share};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::sync::Arc;

latscope_core::words!(pub(crate) fn kind_word = ["analyze"]);
latscope_core::words!(pub(crate) fn model_word = ["tick", "listscan", "irqpath"]);
latscope_core::words!(pub(crate) fn tick_mode_word = ["pessimistic", "partitioned"]);

/// One interfering task's share of a response time, as written.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "InterferenceShare")]
struct Named {
    name: String,
    ns: f64,
}

impl<'de> Deserialize<'de> for Interference {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Interference, D::Error> {
        let v = Vec::<Named>::deserialize(d)?;
        let names: Arc<[Arc<str>]> = v.iter().map(|n| Arc::from(n.name.as_str())).collect();
        Ok(Interference {
            names: Some(names),
            items: v
                .iter()
                .enumerate()
                .map(|(i, n)| Share {
                    task: i as u32,
                    ns: n.ns,
                })
                .collect(),
            keep: usize::MAX,
            others_ns: 0.0,
            min_ns: 0.0,
            min_at: 0,
        })
    }
}

impl JsonSchema for Interference {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Interference".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Vec::<Named>::json_schema(g)
    }
}
