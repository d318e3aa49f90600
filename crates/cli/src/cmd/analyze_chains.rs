//! `latscope analyze`: the end-to-end chains' bounds, their composition and deadline
//! verdicts (docs/analysis.md, "End-to-end chains").

use latscope_model::rta::AnalysisResult;
use std::io::Write;

use super::analyze::t;

/// One block per chain: the bound (event) or reaction time and data age (sampled), the
/// deadline verdict and what each step contributes.
pub(super) fn print(out: &mut impl Write, r: &AnalysisResult) -> std::io::Result<()> {
    if r.chains.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "end-to-end chains:")?;
    for c in &r.chains {
        let mut path = String::new();
        for (k, s) in c.steps.iter().enumerate() {
            if k > 0 {
                let arrow = if c.links.get(k - 1).map(String::as_str) == Some("sampled") {
                    " ~> "
                } else {
                    " -> "
                };
                path.push_str(arrow);
            }
            path.push_str(s);
        }
        let figure = match (c.kind.as_str(), c.bound_ps) {
            ("event", Some(p)) => format!("bound {}", t(p as f64 / 1000.0)),
            (_, Some(p)) => format!(
                "reaction {}, data age {}",
                t(p as f64 / 1000.0),
                c.age_ns.map_or_else(|| "unbounded".into(), t)
            ),
            (_, None) => "unbounded".into(),
        };
        let verdict = match (c.deadline_ns, c.meets_deadline) {
            (Some(d), Some(true)) => format!(", deadline {} met", t(d)),
            (Some(d), _) => format!(", deadline {} MISSED", t(d)),
            _ => String::new(),
        };
        writeln!(out, "  {} ({}): {path}: {figure}{verdict}", c.name, c.kind)?;
        if !c.composition.is_empty() && c.bound_ps.is_some() {
            let parts: Vec<String> = c
                .composition
                .iter()
                .map(|p| format!("{} {} {}", p.step, p.part, t(p.ns)))
                .collect();
            writeln!(out, "    = {}", parts.join(" + "))?;
        }
        if let (Some(dr), Some(used)) = (c.davare_reaction_ns, &c.duerr_links) {
            let on = if used.is_empty() {
                "no link qualifies, so Davare et al.'s terms throughout".to_string()
            } else {
                let list: Vec<String> = used.iter().map(|k| k.to_string()).collect();
                format!("Dürr et al. 2019 on link {}", list.join(", "))
            };
            writeln!(
                out,
                "    (readers read at start: {on}; Davare et al. 2007: reaction {}, data age {})",
                t(dr),
                c.davare_age_ns.map_or_else(|| "unbounded".into(), t)
            )?;
        }
        if let Some(why) = &c.unbounded_reason {
            writeln!(out, "    ({why})")?;
        }
    }
    Ok(())
}
