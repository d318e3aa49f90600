//! A scenario result as Markdown: the "published vs latscope" table, the tally, why each
//! miss or uncompared row is what it is, and the notes. The scenario READMEs embed it
//! between two marker lines, regenerated from runs (`scenarios/regenerate`).

use crate::{Outcome, Role, Row};

/// First line of the generated block in a README.
pub const BEGIN: &str =
    "<!-- generated: latscope scenario run NAME --markdown; do not edit by hand -->";
/// Last line of the generated block.
pub const END: &str = "<!-- end of generated block -->";

/// A number as a reader wants it: integers bare, small numbers with 3-4 digits.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v == v.trunc() && v.abs() < 1e9 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The row's verdict word ([`Row::verdict_of`]), a miss in bold.
fn verdict(r: &Row) -> String {
    let v = r.verdict_of();
    if v.is_miss() {
        format!("**{}**", v.word())
    } else {
        v.word().to_string()
    }
}

fn tolerance(r: &Row) -> String {
    match (r.role, r.tolerance_abs, r.tolerance) {
        (Role::Prediction, Some(0.0), _) => "exact".into(),
        (Role::Prediction, Some(a), _) => format!("±{} {}", num(a), r.unit),
        (Role::Prediction, None, Some(t)) => format!("±{:.0} %", t * 100.0),
        _ => "–".into(),
    }
}

/// The banner over a table: compared predictions only (the same words in the terminal,
/// the Markdown and, from the JSON's `predictions`, the HTML report).
pub fn banner(t: &crate::Tally) -> String {
    if t.predictions == 0 {
        return format!(
            "no genuine prediction ({} findings, {} not compared, {} inputs, {} derived, {} checks shown, never counted)",
            t.findings, t.not_compared, t.inputs, t.derived, t.checks
        );
    }
    format!(
        "{} of {} predictions within tolerance; {} outside{} ({} findings, {} not compared, {} inputs, {} derived, {} checks shown, never counted)",
        t.within,
        t.predictions,
        t.outside,
        match (t.outside, t.explained) {
            (0, _) => String::new(),
            (o, e) if o == e => " (explained)".to_string(),
            (_, e) => format!(" ({e} explained)"),
        },
        t.findings,
        t.not_compared,
        t.inputs,
        t.derived,
        t.checks
    )
}

/// The table of rows alone (one line per row after the header).
pub fn table(out: &Outcome) -> String {
    let mut s = String::from(
        "| figure | role | published | latscope | unit | deviation | tolerance | verdict | uses |\n\
         |---|---|---:|---:|---|---:|---|---|---|\n",
    );
    for r in &out.rows {
        let dev = r
            .deviation
            .map(|d| match format!("{:+.1} %", d * 100.0).as_str() {
                "-0.0 %" => "+0.0 %".to_string(),
                s => s.to_string(),
            })
            .unwrap_or_else(|| "–".into());
        let uses = if r.uses.is_empty() {
            "–".to_string()
        } else {
            r.uses.join("; ")
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            cell(&r.figure),
            r.role.as_str(),
            num(r.published),
            num(r.latscope),
            cell(&r.unit),
            dev,
            tolerance(r),
            verdict(r),
            cell(&uses)
        ));
    }
    s
}

/// The whole generated block, markers included.
pub fn block(out: &Outcome, command: &str) -> String {
    let t = &out.summary;
    let mut s = format!("{}\n\n", BEGIN.replace("NAME", &out.name));
    s.push_str(&format!("From `{command}`; source: {}.\n\n", out.source));
    s.push_str(&table(out));
    s.push_str(&format!("\n**{}**\n", banner(t)));
    s.push_str(&format!("\n{}\n", out.headline));
    let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in &out.rows {
        if let Some(e) = r.explanation.as_deref() {
            match why.iter_mut().find(|(x, _)| *x == e) {
                Some((_, f)) => f.push(&r.figure),
                None => why.push((e, vec![&r.figure])),
            }
        }
    }
    if !why.is_empty() {
        s.push_str("\nWhy:\n\n");
        for (e, figs) in why {
            s.push_str(&format!("* *{}*: {}\n", figs.join("; "), e));
        }
    }
    s.push_str("\nHow each figure was obtained:\n\n");
    for r in out.rows.iter().filter(|r| !r.method.is_empty()) {
        s.push_str(&format!("* *{}*: {}\n", r.figure, r.method));
    }
    let reasons: Vec<&Row> = out
        .rows
        .iter()
        .filter(|r| r.tolerance_reason.is_some())
        .collect();
    if !reasons.is_empty() {
        s.push_str("\nTolerances, from the document's own resolution:\n\n");
        for r in reasons {
            s.push_str(&format!(
                "* *{}*: {}\n",
                r.figure,
                r.tolerance_reason.as_deref().unwrap_or_default()
            ));
        }
    }
    if !out.notes.is_empty() {
        s.push_str("\nNotes from the run:\n\n");
        for n in &out.notes {
            s.push_str(&format!("* {n}\n"));
        }
    }
    s.push_str(&format!("\n{END}\n"));
    s
}

/// The generated block of a README's text, markers included (None when absent).
pub fn generated_part(readme: &str) -> Option<&str> {
    let start = readme.find("<!-- generated: ")?;
    let end = readme[start..].find(END)? + start + END.len();
    Some(&readme[start..end])
}

/// First line of the scenario table in the top-level README.
pub const README_BEGIN: &str =
    "<!-- scenario table: generated by scenarios/readme-table from the scenarios' JSON; do not edit by hand -->";
/// Last line of that table.
pub const README_END: &str = "<!-- end of scenario table -->";

/// One line of the README's scenario table: genuine predictions only, and how many of the
/// document's figures could not be predicted and why.
pub fn readme_row(out: &Outcome) -> String {
    let t = &out.summary;
    let preds = if t.predictions == 0 {
        "none: the document offers nothing to predict independently".to_string()
    } else {
        let mut p = format!("{} of {} within tolerance", t.within, t.predictions);
        if t.outside > 0 {
            p.push_str(&format!(
                ", {} outside{}",
                t.outside,
                if t.explained == t.outside {
                    " (explained)".to_string()
                } else {
                    format!(" ({} explained)", t.explained)
                }
            ));
        }
        p
    };
    // The headline's second sentence: the figures by role.
    let figures = out
        .headline
        .split_once(". Of the document's ")
        .map(|(_, rest)| format!("of {}", rest.trim_end_matches('.')))
        .unwrap_or_default();
    format!(
        "| `{}` | {} | {} | {} |",
        out.name,
        cell(&out.source),
        cell(&preds),
        cell(&figures)
    )
}

/// The README's scenario table, markers included.
pub fn readme_table(outs: &[Outcome]) -> String {
    let mut s = format!(
        "{README_BEGIN}\n\n| scenario | document | genuine predictions | the document's figures |\n|---|---|---|---|\n"
    );
    for o in outs {
        s.push_str(&readme_row(o));
        s.push('\n');
    }
    s.push_str(&format!("\n{README_END}\n"));
    s
}
