//! latscope-sim: a fast, deterministic discrete-event simulator of tick-driven kernels
//! with overheads (FreeRTOS-like preemptive tick kernel, kernel-v1-like list-scan
//! scheduler, tickless idle). Semantics and every same-instant rule: docs/simulator.md.
//!
//! * [`config`]: the engine's flat input ([`SimConfig`]), filled from the shared system
//!   description by [`from_system`];
//! * [`engine`]: the event loop ([`Sim`]);
//! * [`report`]: the results (`--json`);
//! * [`offsets`]: the offset-aware worst responses of a deterministic set.

pub mod analysis;
pub mod chains;
pub mod config;
pub mod engine;
pub mod from_system;
pub mod global;
pub mod length;
pub mod multicore;
pub mod observed;
pub mod offsets;
pub mod report;

pub use config::{
    Activation, ConfigError, ExecTime, IrqArrival, Kernel, ListScanKernel, SimConfig, SimDevice,
    SimIrq, SimLockCosts, SimOutput, SimProtocol, SimResource, SimSection, SimTask, SwitchCost,
    TickKernel, Tickless, WaitMode,
};
pub use engine::{fmt_ns, DeviceStats, Sim, SimOptions, TickRow};
pub use from_system::{from_system, ExecMode, FromSystemError, FromSystemOptions, IrqMode};
pub use length::{run_length, LengthError, LengthNames};
pub use multicore::MultiSim;
pub use report::SimReport;
