//! The simulator legs of the scenarios, in one place so they share the conversion from
//! the system description and the way a simulation's JSON is attached.

use crate::{Options, Outcome, ScenarioError};
use latscope_model::system::System;

pub(crate) fn freertos_tick(
    _s: &System,
    _o: &Options,
    _out: &mut Outcome,
) -> Result<(), ScenarioError> {
    Ok(())
}
pub(crate) fn freertos_cs(
    _s: &System,
    _o: &Options,
    _out: &mut Outcome,
) -> Result<(), ScenarioError> {
    Ok(())
}
pub(crate) fn tickless(_s: &System, _o: &Options, _out: &mut Outcome) -> Result<(), ScenarioError> {
    Ok(())
}
pub(crate) fn k4perf(_s: &System, _o: &Options, _out: &mut Outcome) -> Result<(), ScenarioError> {
    Ok(())
}
