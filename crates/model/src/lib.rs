//! latscope-model: the system description shared by analysis and simulation, kernel
//! overhead models (tick, list-scan, interrupt path, tickless idle), response-time
//! analysis with those overheads, calibration fits and random task-set generation.

pub mod chain;
pub mod edf;
pub mod fit;
pub mod generate;
pub mod overheads;
pub mod priority;
pub mod range;
pub mod resource;
pub mod rta;
pub mod sensitivity;
pub mod system;

pub use range::AnalysisError;
pub use rta::{analyze, AnalysisOptions, AnalysisResult, SwitchCharge};
pub use system::{System, SystemError};
