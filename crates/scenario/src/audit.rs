//! The honesty rules of a scenario table, checked on its result: every problem found is
//! returned in words (an empty list means the table keeps the rules).

use crate::{Outcome, Role};

/// Words no user should meet: internal names of the source documents.
const JARGON: [&str; 2] = ["seed 0", "seeds/"];

/// Checks `out` against the rules of `row.rs`:
/// * every row compares with a figure of the document's list (`figure_id`), and every
///   name in `uses` is on that list;
/// * an input uses nothing; a prediction never uses its own figure;
/// * a prediction has a verdict (`within`), or an explanation of why it has none;
///   one outside its tolerance carries an explanation too only if it is understood —
///   that is reported separately by [`misses`], not here;
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
                if r.within.is_none() && r.explanation.as_deref().is_none_or(str::is_empty) {
                    bad.push(format!("{at}: a prediction without verdict or explanation"));
                }
                if r.within.is_some() && r.tolerance.is_none() && r.tolerance_abs.is_none() {
                    bad.push(format!("{at}: a verdict without a tolerance"));
                }
            }
            _ => {
                if r.within.is_some() {
                    bad.push(format!("{at}: a {} with a verdict", r.role.as_str()));
                }
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
