//! Writing an assignment back into the system file it was made from: only the
//! `priority` keys change, so the user's comments and layout survive `--write`.

use super::Assigned;
use crate::system::System;

/// Why the priorities could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("not valid TOML: {0}")]
    Parse(String),
    #[error("task {0:?} is not a [[task]] entry of the file")]
    Missing(String),
    #[error("`task` is not an array of tables")]
    NotAnArray,
    #[error("the edited file does not read back as intended ({0})")]
    Verify(String),
}

/// Writes the assigned priorities into the TOML text the system was read from, changing
/// only the `priority` keys of the `[[task]]` entries (comments, order, formats and every
/// other key stay as written).
pub fn update_priorities_toml(text: &str, order: &[Assigned]) -> Result<String, WriteError> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| WriteError::Parse(e.to_string()))?;
    let item = doc.get_mut("task").ok_or(WriteError::NotAnArray)?;
    let mut tables: Vec<&mut dyn toml_edit::TableLike> = Vec::new();
    match item {
        toml_edit::Item::ArrayOfTables(a) => {
            for t in a.iter_mut() {
                tables.push(t);
            }
        }
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => {
            for v in a.iter_mut() {
                match v {
                    toml_edit::Value::InlineTable(t) => tables.push(t),
                    _ => return Err(WriteError::NotAnArray),
                }
            }
        }
        _ => return Err(WriteError::NotAnArray),
    }
    for a in order {
        let t = tables
            .iter_mut()
            .find(|t| t.get("name").and_then(|v| v.as_str()) == Some(a.name.as_str()))
            .ok_or_else(|| WriteError::Missing(a.name.clone()))?;
        let mut new = toml_edit::Value::from(a.priority as i64);
        match t.get_mut("priority").and_then(|i| i.as_value_mut()) {
            Some(old) => {
                *new.decor_mut() = old.decor().clone();
                *old = new;
            }
            None => {
                t.insert("priority", toml_edit::Item::Value(new));
            }
        }
    }
    let out = doc.to_string();
    let back = System::from_toml_str(&out, "the updated file")
        .map_err(|e| WriteError::Verify(e.to_string()))?;
    for a in order {
        let ok = back
            .tasks
            .iter()
            .any(|t| t.name == a.name && t.priority == a.priority);
        if !ok {
            return Err(WriteError::Verify(format!(
                "task {:?} does not read back with priority {}",
                a.name, a.priority
            )));
        }
    }
    Ok(out)
}
