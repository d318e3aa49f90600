//! A small checker for the JSON Schema subset that docs/measure-schema.json uses
//! (`type`, `enum`, `required`, `properties`, `items`, `allOf`, `minimum`, local `$ref`),
//! so tests can hold the written JSON to the documented schema.

use serde_json::Value;

/// Checks `doc` against `schema`; returns every violation as `path: problem`.
pub fn check(schema: &Value, doc: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    walk(schema, schema, doc, "$", &mut errs);
    errs
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let p = r.strip_prefix("#")?;
    root.pointer(p)
}

fn walk(root: &Value, s: &Value, v: &Value, path: &str, errs: &mut Vec<String>) {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        match resolve(root, r) {
            Some(t) => walk(root, t, v, path, errs),
            None => errs.push(format!("{path}: unresolvable $ref {r}")),
        }
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        for sub in all {
            walk(root, sub, v, path, errs);
        }
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)),
            _ => true,
        };
        if !ok {
            errs.push(format!("{path}: expected type {t}, found {v}"));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !e.contains(v) {
            errs.push(format!(
                "{path}: {v} is not one of {}",
                Value::Array(e.clone())
            ));
        }
    }
    if let (Some(m), Some(x)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if x < m {
            errs.push(format!("{path}: {x} is below the minimum {m}"));
        }
    }
    if let Some(obj) = v.as_object() {
        if let Some(req) = s.get("required").and_then(Value::as_array) {
            for k in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(k) {
                    errs.push(format!("{path}: missing required key '{k}'"));
                }
            }
        }
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (k, sub) in props {
                if let Some(x) = obj.get(k) {
                    walk(root, sub, x, &format!("{path}.{k}"), errs);
                }
            }
        }
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            walk(root, items, x, &format!("{path}[{i}]"), errs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset_rules() {
        let s = json!({
            "type": "object",
            "required": ["a", "b"],
            "properties": {
                "a": {"type": "integer", "minimum": 0},
                "b": {"type": "array", "items": {"$ref": "#/$defs/e"}},
                "c": {"type": ["string", "null"]}
            },
            "$defs": {"e": {"enum": ["x", "y"]}}
        });
        assert!(check(&s, &json!({"a": 1, "b": ["x"], "c": null})).is_empty());
        assert_eq!(check(&s, &json!({"a": 1})).len(), 1);
        assert_eq!(check(&s, &json!({"a": -1, "b": []})).len(), 1);
        assert_eq!(check(&s, &json!({"a": 1.5, "b": ["z"], "c": 3})).len(), 3);
    }
}
