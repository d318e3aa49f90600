//! The honesty rules of a scenario table, checked on its result: every problem found is
//! returned in words (an empty list means the table keeps the rules).

use crate::{Outcome, Role};

/// Words no user should meet: internal names of the source documents.
const JARGON: [&str; 2] = ["seed 0", "seeds/"];

/// The figures the document derived from `id`, directly or through others (`Figure::from`).
pub fn derived_from_figure<'a>(out: &'a Outcome, id: &str) -> Vec<&'a str> {
    let mut found: Vec<&str> = Vec::new();
    let mut todo: Vec<&str> = vec![id];
    while let Some(x) = todo.pop() {
        for f in &out.figures {
            if f.from.contains(&x) && !found.contains(&&*f.id) && f.id != id {
                found.push(&f.id);
                todo.push(&f.id);
            }
        }
    }
    found
}

/// Checks `out` against the rules of `row.rs`:
/// * every row compares with a figure of the document's list (`figure_id`), and every
///   name in `uses` is on that list;
/// * an input uses nothing; a prediction never uses its own figure nor one the document
///   derived from it (`Figure::from`, followed through);
/// * a prediction has a verdict (`within`), a tolerance and the reason for it; a finding
///   has a verdict; a row not compared has an explanation; other roles have no verdict;
/// * a derived row that restates another row names an existing row;
/// * the stored `verdict` is [`crate::Row::verdict_of`]'s;
/// * a row's published value and unit are the figure's;
/// * no user-visible text names a document by an internal number.
pub fn audit(out: &Outcome) -> Vec<String> {
    let mut bad = Vec::new();
    let known = |id: &str| out.figures.iter().find(|f| f.id == id);
    for r in &out.rows {
        let at = format!("{}: row '{}'", out.name, r.figure);
        match known(&r.figure_id) {
            None => bad.push(format!(
                "{at}: compares with '{}', not a figure of the document",
                r.figure_id
            )),
            Some(f) => {
                if f.value.to_bits() != r.published.to_bits() || f.unit != r.unit {
                    bad.push(format!(
                        "{at}: published {} {} differs from figure '{}' ({} {})",
                        r.published, r.unit, f.id, f.value, f.unit
                    ));
                }
            }
        }
        for u in &r.uses {
            if known(u).is_none() {
                bad.push(format!("{at}: uses '{u}', not a figure of the document"));
            }
        }
        if r.verdict != r.verdict_of() {
            bad.push(format!(
                "{at}: stored verdict '{}' is not the row's ('{}')",
                r.verdict.word(),
                r.verdict_of().word()
            ));
        }
        match r.role {
            Role::Input if !r.uses.is_empty() => {
                bad.push(format!("{at}: an input uses {:?}", r.uses))
            }
            Role::Prediction => {
                if r.uses.contains(&r.figure_id) {
                    bad.push(format!(
                        "{at}: a prediction uses its own published figure '{}'",
                        r.figure_id
                    ));
                }
                for d in derived_from_figure(out, &r.figure_id) {
                    if r.uses.iter().any(|u| u == d) {
                        bad.push(format!(
                            "{at}: a prediction uses '{d}', which the document derived from the predicted '{}'",
                            r.figure_id
                        ));
                    }
                }
                if r.within.is_none() {
                    bad.push(format!("{at}: a prediction without verdict"));
                }
                if r.tolerance.is_none() && r.tolerance_abs.is_none() {
                    bad.push(format!("{at}: a verdict without a tolerance"));
                }
                if r.tolerance_reason.as_deref().is_none_or(|s| s.len() < 20) {
                    bad.push(format!("{at}: a tolerance without its reason"));
                }
            }
            Role::Finding => {
                if r.within.is_none() {
                    bad.push(format!("{at}: a finding without verdict"));
                }
            }
            Role::NotCompared => {
                if r.explanation.as_deref().is_none_or(str::is_empty) {
                    bad.push(format!("{at}: not compared, without an explanation"));
                }
                if r.within.is_some() {
                    bad.push(format!("{at}: not compared, with a verdict"));
                }
            }
            _ => {
                if r.within.is_some() {
                    bad.push(format!("{at}: a {} with a verdict", r.role.as_str()));
                }
            }
        }
        if let Some(from) = &r.derived_from {
            if !out.rows.iter().any(|o| &o.figure == from) {
                bad.push(format!("{at}: restates '{from}', which is not a row"));
            }
        }
        if r.source.is_empty() {
            bad.push(format!("{at}: no source"));
        }
    }
    let mut texts: Vec<&str> = vec![&out.title, &out.source];
    for r in &out.rows {
        texts.extend([r.figure.as_str(), &r.source, &r.method]);
        texts.extend(r.explanation.as_deref());
    }
    texts.extend(out.notes.iter().map(String::as_str));
    for t in texts {
        let low = t.to_lowercase();
        if let Some(j) = JARGON.iter().find(|j| low.contains(*j)) {
            bad.push(format!("{}: '{j}' in user-visible text: {t}", out.name));
        }
    }
    bad
}

/// Predictions outside their tolerance, by figure words.
pub fn misses(out: &Outcome) -> Vec<&str> {
    out.rows
        .iter()
        .filter(|r| r.is_miss())
        .map(|r| r.figure.as_str())
        .collect()
}
