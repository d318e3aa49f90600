//! A scenario result as the terminal shows it (`latscope scenario run NAME`): the table,
//! the banner, the headline, each explanation once and the notes. The binary prints it;
//! the verdict column is [`crate::Row::verdict_of`]'s word, as in every other output.

use crate::markdown::{banner, num};
use crate::Outcome;

/// The whole terminal text; `color` paints verdicts with ANSI colours.
pub fn text(out: &Outcome, color: bool, verdict_line: &str) -> String {
    let paint = |s: &str, code: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut s = format!("{} — {}\nsource: {}\n", out.name, out.title, out.source);
    let w = out
        .rows
        .iter()
        .map(|r| r.figure.chars().count())
        .max()
        .unwrap_or(10)
        .min(64);
    // Every column as wide as its widest cell, so the verdict column starts at one place.
    let width = |f: &dyn Fn(&crate::Row) -> String, head: &str| {
        out.rows
            .iter()
            .map(|r| f(r).chars().count())
            .chain([head.len()])
            .max()
            .unwrap_or(0)
    };
    let dev_of = |r: &crate::Row| {
        r.deviation
            .map(|d| format!("{:+.1}%", d * 100.0))
            .unwrap_or_else(|| "-".into())
    };
    let wp = width(&|r| num(r.published), "published");
    let wl = width(&|r| num(r.latscope), "latscope");
    let wu = width(&|r| r.unit.clone(), "unit");
    let wr = width(&|r| r.role.as_str().to_string(), "role");
    let wd = width(&|r| dev_of(r), "dev");
    s.push_str(&format!(
        "{:<w$}  {:>wp$}  {:>wl$}  {:<wu$}  {:<wr$}  {:>wd$}  verdict\n",
        "figure", "published", "latscope", "unit", "role", "dev"
    ));
    for r in &out.rows {
        let dev = dev_of(r);
        let v = r.verdict_of();
        let code = match v {
            crate::Verdict::Within | crate::Verdict::FindingAgrees => "32",
            crate::Verdict::Outside | crate::Verdict::OutsideExplained => "31;1",
            crate::Verdict::FindingDiffers | crate::Verdict::NotCompared => "33",
            _ => "2",
        };
        let tol = match (r.role, r.tolerance_abs, r.tolerance) {
            (crate::Role::Prediction, Some(t), _) => format!(" (±{} {})", num(t), r.unit),
            (crate::Role::Prediction, None, Some(t)) => format!(" (±{:.0}%)", t * 100.0),
            _ => String::new(),
        };
        let fig: String = r.figure.chars().take(w).collect();
        s.push_str(&format!(
            "{:<w$}  {:>wp$}  {:>wl$}  {:<wu$}  {:<wr$}  {:>wd$}  {}{tol}\n",
            fig,
            num(r.published),
            num(r.latscope),
            r.unit,
            r.role.as_str(),
            dev,
            paint(v.word(), code)
        ));
    }
    s.push_str(&format!("{}\n", banner(&out.summary)));
    // The verdict the report's first screen and overview show: `verdict_line`, from
    // latscope_results::Verdict (the caller's, since results depends on this crate).
    s.push_str(&format!("{verdict_line}\n"));
    s.push_str(&format!("{}\n", out.headline));
    // Each explanation once, with the rows it explains.
    let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in &out.rows {
        if let Some(e) = r.explanation.as_deref() {
            match why.iter_mut().find(|(t, _)| *t == e) {
                Some((_, figs)) => figs.push(&r.figure),
                None => why.push((e, vec![&r.figure])),
            }
        }
    }
    for (e, figs) in why {
        s.push_str(&format!("why ({}): {e}\n", figs.join("; ")));
    }
    for n in &out.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}
