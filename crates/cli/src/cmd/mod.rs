//! One file per subcommand. Each exposes `Args` (clap) and `run(Args) -> Result<ExitCode>`.
//! Errors returned here are printed by `main` with exit status 2 (bad input or failure);
//! a check that ran and failed (compare, --limit) returns `Ok(ExitCode::from(1))`.

pub mod analyze;
pub mod compare;
pub mod convert;
pub mod fit;
pub mod generate;
pub mod measure;
pub mod report;
pub mod scenario;
pub mod simulate;
pub mod trace;
