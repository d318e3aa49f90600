//! Why a measuring (or noise) thread could not run: its CPU, scheduling or timer could
//! not be set up. Each thread reports its own; the phase joins them into one
//! [`crate::MeasureError::Setup`], so the message names every CPU that failed.

/// One thread's failure; `errno` is the system's text for the failed call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThreadError {
    #[error("CPU {0} is beyond the affinity mask size")]
    BeyondMask(u32),
    #[error("cannot pin to CPU {cpu}: {errno}")]
    Pin { cpu: u32, errno: String },
    #[error("cannot set SCHED_{policy} {priority} on CPU {cpu}: {errno}")]
    Scheduling {
        policy: String,
        priority: i32,
        cpu: u32,
        errno: String,
    },
    #[error("timerfd_create failed: {0}")]
    TimerfdCreate(String),
    #[error("timerfd_settime failed: {0}")]
    TimerfdSet(String),
    #[error("read from timerfd failed: {0}")]
    TimerfdRead(String),
}
