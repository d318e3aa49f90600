//! Writing fitted costs into a system, and into the TOML file it was read from without
//! touching anything else.

use super::line::Line;
use super::piecewise::TickModel;
use crate::system::{KernelCosts, System};
use latscope_core::Picos;

/// Which model parameters a fit sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// x = tasks released at the tick, y = tick duration: `tick_base`, `tick_per_release`.
    Tick,
    /// x = levels scanned, y = context-switch duration: `switch_base` (the value at one
    /// level), `switch_per_level`.
    Switch,
    /// x = queue position, y = insertion time: `insert_base`, `insert_per_position`.
    Insert,
    /// y = context-switch duration with port-optimised selection (x ignored):
    /// `switch_optimised`, a constant.
    SwitchOptimised,
    /// y = duration of a resource's lock call (mutex take, ceiling raise,
    /// `taskENTER_CRITICAL`; x ignored): `lock`, a constant (every kernel model).
    Lock,
    /// y = duration of the unlock call (x ignored): `unlock`, a constant.
    Unlock,
    /// y = duration of the priority-inheritance call of a task that finds a mutex taken
    /// (x ignored): `inherit`, a constant.
    Inherit,
}

/// A fitted model, ready to be written into a system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fitted {
    Line(Line),
    /// The piecewise tick.
    Tick(TickModel),
    Constant(f64),
}

impl From<&Line> for Fitted {
    fn from(l: &Line) -> Fitted {
        Fitted::Line(*l)
    }
}

impl From<&Fitted> for Fitted {
    fn from(f: &Fitted) -> Fitted {
        *f
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ApplyError {
    #[error(
        "the system's kernel model is \"{have}\", but {what} parameters belong to model \"{want}\""
    )]
    WrongModel {
        have: &'static str,
        want: &'static str,
        what: &'static str,
    },
    #[error(
        "the fitted {0} is negative ({1:.3} ns); a cost cannot be negative (check the samples)"
    )]
    Negative(&'static str, f64),
    #[error(
        "the fitted {0} ({1:e} ns) is beyond the largest duration latscope represents \
         (about 106 days; check the samples)"
    )]
    TooLarge(&'static str, f64),
    #[error(
        "the {0} target takes a model of another shape (internal: line / piecewise / constant)"
    )]
    Shape(&'static str),
}

fn ps(ns: f64, what: &'static str) -> Result<Picos, ApplyError> {
    if ns.is_nan() {
        return Err(ApplyError::TooLarge(what, ns));
    }
    if ns < -1e-9 {
        return Err(ApplyError::Negative(what, ns));
    }
    let v = (ns.max(0.0) * 1000.0).ceil();
    // i64::MAX as f64 rounds up to 2^63, which does not fit: compare with `<`.
    if v < i64::MAX as f64 {
        Ok(Picos(v as i64))
    } else {
        Err(ApplyError::TooLarge(what, ns))
    }
}

/// Writes a fitted model into the system's cost table (rounded up to the picosecond, so
/// an upper bound stays an upper bound). Only the fitted costs change: a cost that
/// follows a fitted one by default (`switch_optimised` follows `switch_base`, the first
/// and last release follow `tick_per_release`) keeps following it.
pub fn apply(sys: &mut System, target: Target, model: impl Into<Fitted>) -> Result<(), ApplyError> {
    let have = sys.kernel.model().name();
    let model = model.into();
    let wrong =
        |want: &'static str, what: &'static str| ApplyError::WrongModel { have, want, what };
    if let Some(key) = target.lock_key() {
        // The resource calls' costs belong to every kernel model (docs/resources.md).
        let Fitted::Constant(v) = model else {
            return Err(ApplyError::Shape(target.name()));
        };
        let c = &mut sys.resources.costs;
        let slot = match target {
            Target::Lock => &mut c.lock,
            Target::Unlock => &mut c.unlock,
            _ => &mut c.inherit,
        };
        *slot = ps(v, key)?;
        return Ok(());
    }
    match (target, model, &mut sys.kernel.costs) {
        (Target::Tick, Fitted::Line(line), KernelCosts::Tick(c)) => {
            c.tick_base = ps(line.intercept_ns, "tick_base")?;
            c.tick_per_release = ps(line.slope_ns, "tick_per_release")?;
        }
        (Target::Tick, Fitted::Tick(m), KernelCosts::Tick(c)) => {
            c.tick_base = ps(m.base_ns, "tick_base")?;
            c.tick_first_release = Some(ps(m.first_ns, "tick_first_release")?);
            c.tick_per_release = ps(m.per_ns, "tick_per_release")?;
            c.tick_last_release = Some(ps(m.last_ns, "tick_last_release")?);
        }
        (Target::Switch, Fitted::Line(line), KernelCosts::Tick(c)) => {
            c.switch_base = ps(line.at(1.0), "switch_base")?;
            c.switch_per_level = ps(line.slope_ns, "switch_per_level")?;
        }
        (Target::SwitchOptimised, Fitted::Constant(v), KernelCosts::Tick(c)) => {
            c.switch_optimised = Some(ps(v, "switch_optimised")?);
        }
        (Target::Insert, Fitted::Line(line), KernelCosts::Listscan(c)) => {
            c.insert_base = ps(line.intercept_ns, "insert_base")?;
            c.insert_per_position = ps(line.slope_ns, "insert_per_position")?;
        }
        (Target::Tick, _, KernelCosts::Tick(_))
        | (Target::Switch, _, KernelCosts::Tick(_))
        | (Target::SwitchOptimised, _, KernelCosts::Tick(_))
        | (Target::Insert, _, KernelCosts::Listscan(_)) => {
            return Err(ApplyError::Shape(target.name()))
        }
        (Target::Tick, _, _) => return Err(wrong("tick", "tick")),
        (Target::Switch, _, _) | (Target::SwitchOptimised, _, _) => {
            return Err(wrong("tick", "switch"))
        }
        (Target::Insert, _, _) => return Err(wrong("listscan", "insertion")),
        (Target::Lock | Target::Unlock | Target::Inherit, _, _) => {
            return Err(ApplyError::Shape(target.name()))
        }
    }
    Ok(())
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Tick => "tick",
            Target::Switch => "switch",
            Target::Insert => "insert",
            Target::SwitchOptimised => "switch-optimised",
            Target::Lock => "lock",
            Target::Unlock => "unlock",
            Target::Inherit => "inherit",
        }
    }

    /// The `[kernel.costs]` key of a resource-call target.
    pub fn lock_key(self) -> Option<&'static str> {
        match self {
            Target::Lock => Some("lock"),
            Target::Unlock => Some("unlock"),
            Target::Inherit => Some("inherit"),
            _ => None,
        }
    }

    /// Whether the target's model is a constant (x is not used).
    pub fn is_constant(self) -> bool {
        matches!(self, Target::SwitchOptimised) || self.lock_key().is_some()
    }
}

/// Why the fitted values could not be written into a TOML file's text.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EditError {
    #[error("not valid TOML: {0}")]
    Parse(String),
    #[error("`{0}` is not a table")]
    NotATable(&'static str),
    #[error("the edited file does not read back as intended ({0}); use --out FILE.json to write the system as JSON instead")]
    Verify(String),
}

/// The `[kernel.costs]` keys [`apply`] sets for a target and model, with their values
/// after it.
fn fitted_keys(sys: &System, target: Target, model: &Fitted) -> Vec<(&'static str, Picos)> {
    let c = &sys.resources.costs;
    match target {
        Target::Lock => return vec![("lock", c.lock)],
        Target::Unlock => return vec![("unlock", c.unlock)],
        Target::Inherit => return vec![("inherit", c.inherit)],
        _ => {}
    }
    match (target, model, &sys.kernel.costs) {
        (Target::Tick, Fitted::Tick(_), KernelCosts::Tick(c)) => vec![
            ("tick_base", c.tick_base),
            ("tick_first_release", c.first_release()),
            ("tick_per_release", c.tick_per_release),
            ("tick_last_release", c.last_release()),
        ],
        (Target::Tick, _, KernelCosts::Tick(c)) => vec![
            ("tick_base", c.tick_base),
            ("tick_per_release", c.tick_per_release),
        ],
        (Target::Switch, _, KernelCosts::Tick(c)) => vec![
            ("switch_base", c.switch_base),
            ("switch_per_level", c.switch_per_level),
        ],
        (Target::SwitchOptimised, _, KernelCosts::Tick(c)) => {
            vec![("switch_optimised", c.optimised_switch_cost())]
        }
        (Target::Insert, _, KernelCosts::Listscan(c)) => vec![
            ("insert_base", c.insert_base),
            ("insert_per_position", c.insert_per_position),
        ],
        _ => Vec::new(),
    }
}

/// Drops the space after the last value of an inline table before a key is appended
/// (`{ a = 1 }` + b gives `{ a = 1, b = 2 }`, not `{ a = 1 , b = 2 }`).
fn untrail_last(t: &mut dyn toml_edit::TableLike) {
    if let Some(v) = t.iter_mut().last().and_then(|(_, i)| i.as_value_mut()) {
        v.decor_mut().set_suffix("");
    }
}

/// Writes the fitted keys of `sys` (after [`apply`]) into the TOML text the system was
/// read from, changing nothing else: comments, the order of tables and keys, number
/// formats and the other keys stay as the user wrote them (audit D11). A key that is
/// present keeps its surrounding whitespace and trailing comment; a missing one is
/// appended to `[kernel.costs]` (inline or not).
pub fn update_toml_text(
    text: &str,
    sys: &System,
    target: Target,
    model: impl Into<Fitted>,
) -> Result<String, EditError> {
    let model = model.into();
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| EditError::Parse(e.to_string()))?;
    let root = doc.as_table_mut();
    if !root.contains_key("kernel") {
        root.insert("kernel", toml_edit::table());
    }
    let kernel_item = root
        .get_mut("kernel")
        .ok_or(EditError::NotATable("kernel"))?;
    // A missing cost table is created in the kernel table's style: `[kernel.costs]`
    // under a `[kernel]` table, `costs = { .. }` inside an inline `kernel = { .. }`
    // (a table item inside an inline table would be dropped when written).
    let inline = kernel_item.is_inline_table();
    let kernel = kernel_item
        .as_table_like_mut()
        .ok_or(EditError::NotATable("kernel"))?;
    if !kernel.contains_key("costs") {
        if inline {
            untrail_last(kernel);
        }
        let item = if inline {
            toml_edit::Item::Value(toml_edit::Value::InlineTable(toml_edit::InlineTable::new()))
        } else {
            toml_edit::table()
        };
        kernel.insert("costs", item);
    }
    let costs_item = kernel
        .get_mut("costs")
        .ok_or(EditError::NotATable("kernel.costs"))?;
    let costs_inline = costs_item.is_inline_table();
    let costs = costs_item
        .as_table_like_mut()
        .ok_or(EditError::NotATable("kernel.costs"))?;
    for (key, v) in fitted_keys(sys, target, &model) {
        let mut new = toml_edit::Value::from(crate::system::format_exact(v));
        match costs.get_mut(key).and_then(|i| i.as_value_mut()) {
            Some(old) => {
                *new.decor_mut() = old.decor().clone();
                *old = new;
            }
            None => {
                if costs_inline {
                    untrail_last(costs);
                }
                costs.insert(key, toml_edit::Item::Value(new));
            }
        }
    }
    let out = doc.to_string();
    // The edited text must read back with exactly the fitted costs: anything else
    // (a layout this edit does not handle) is an error, never a silently unchanged file.
    let back = System::from_toml_str(&out, "the updated file")
        .map_err(|e| EditError::Verify(e.to_string()))?;
    if back.kernel.costs != sys.kernel.costs {
        return Err(EditError::Verify(
            "the fitted values did not land in [kernel.costs]".into(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Audit D11: only the fitted keys change; comments, order and formats stay.
    #[test]
    fn update_toml_text_keeps_the_rest() {
        let text =
            "# provenance: the FreeRTOS overheads paper\n[platform]\ncpu_hz = 84_000_000 # M4\n\n\
                    [kernel]\ntick_hz = 1000\n[kernel.costs]\n# measured\n\
                    tick_base = \"1us\"   # old\nswitch_base = \"1.5us\"\n\
                    switch_per_level = \"0.72us\"\n\n\
                    [[task]]\nname = \"a\"\nperiod = \"1ms\"\nwcet = \"1us\"\npriority = 1\n";
        let mut sys = System::from_toml_str(text, "x.toml").unwrap();
        let line = Line {
            intercept_ns: 1500.0,
            slope_ns: 5907.0,
        };
        apply(&mut sys, Target::Tick, &line).unwrap();
        let out = update_toml_text(text, &sys, Target::Tick, &line).unwrap();
        let want = text
            .replace(
                "tick_base = \"1us\"   # old",
                "tick_base = \"1.5us\"   # old",
            )
            .replace(
                "switch_per_level = \"0.72us\"\n",
                "switch_per_level = \"0.72us\"\ntick_per_release = \"5.907us\"\n",
            );
        assert_eq!(out, want);
        let back = System::from_toml_str(&out, "x.toml").unwrap();
        assert_eq!(back.kernel.costs, sys.kernel.costs);
        // Inline cost tables are edited in place too.
        let inline = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                      costs = { tick_base = \"1us\", tick_per_release = \"2us\" }\n\
                      [[task]]\nname = \"a\"\nperiod = \"1ms\"\nwcet = \"1us\"\npriority = 1\n";
        let mut sys = System::from_toml_str(inline, "y.toml").unwrap();
        apply(&mut sys, Target::Tick, &line).unwrap();
        let out = update_toml_text(inline, &sys, Target::Tick, &line).unwrap();
        assert_eq!(
            out,
            inline.replace(
                "{ tick_base = \"1us\", tick_per_release = \"2us\" }",
                "{ tick_base = \"1.5us\", tick_per_release = \"5.907us\" }"
            )
        );
    }
}
