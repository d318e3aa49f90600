//! The terminal form of measured chains: the end-to-end figures, then one line per hop.

use super::ChainResult;
use latscope_core::summary::{nan, ResultSummary};
use latscope_core::time::format_ns_f64;

fn stats(s: &ResultSummary) -> String {
    let f = |x| format_ns_f64(nan(x));
    format!(
        "min {}  mean {}  p50 {}  p99 {}  max {}",
        f(s.min_ns),
        f(s.mean_ns),
        f(s.p50_ns),
        f(s.p99_ns),
        f(s.max_ns)
    )
}

/// The chains as `latscope trace` prints them (empty without chains).
pub fn text(chains: &[ChainResult]) -> String {
    let mut s = String::new();
    for c in chains {
        s += &format!("\n{} [chain: {}]\n", c.name, c.definition);
        if c.count == 0 {
            s += "  no complete instance\n";
        } else {
            s += &format!(
                "  count {}  {} (at {})",
                c.count,
                stats(&c.total),
                format_ns_f64(c.max_at_ns.unwrap_or(f64::NAN))
            );
            s.push('\n');
        }
        if c.unmatched > 0 {
            s += &format!("  unmatched: {} instances\n", c.unmatched);
        }
        for l in &c.links {
            s += &format!("  {} -> {}: ", l.from, l.to);
            if c.count > 0 {
                s += &stats(&l.summary);
            }
            if l.lost > 0 {
                s += &format!(
                    "{}{} unmatched here",
                    if c.count > 0 { "; " } else { "" },
                    l.lost
                );
            }
            s.push('\n');
        }
        if c.worst.len() > 1 {
            s += "  worst:";
            for w in &c.worst {
                s += &format!(
                    " {} at {};",
                    format_ns_f64(w.value_ns),
                    format_ns_f64(w.at_ns)
                );
            }
            s.pop();
            s.push('\n');
        }
    }
    s
}
