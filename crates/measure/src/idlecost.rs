//! The cost of the idle states, measured instead of read from the idle driver's table
//! (`--probe-idle`): two short runs with the same settings, one as the machine is and
//! one while a PM QoS request of 0 µs forbids every idle state but polling. In a guest
//! the driver's exit latencies say little (haltpoll reports 0 µs while a halted vCPU
//! waits for the host to run it again); the difference of the two p50s is what an idle
//! state costs a wake-up here.

use crate::env::{Item, Status};
use crate::MeasureError;

/// Length of each of the two probe runs.
pub const PROBE_NS: i64 = 300_000_000;

/// Why the idle probe could not give its two p50s.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{label} probe run failed: {source}")]
    Run {
        label: &'static str,
        source: MeasureError,
    },
    #[error("{0} probe run took no sample")]
    NoSample(&'static str),
    /// The PM QoS request could not be held (its message names the file).
    #[error(transparent)]
    Hold(MeasureError),
}

/// The `idle_state_cost` item from the p50 without and with the PM QoS hold (ns), or the
/// reason the probe could not run.
pub fn item(result: Result<(i64, i64), ProbeError>) -> Item {
    const EFFECT: &str = "When a CPU sleeps in an idle state, a wake-up first pays the state's exit (and, in a guest, the host scheduling the halted vCPU again). The two probe runs of 0.3 s differ only in a PM QoS request of 0 µs held during the second; --pm-qos 0 holds it for a whole run (a machine-wide effect).";
    let (status, value) = match result {
        Err(why) => (Status::Unknown, format!("not measured: {why}")),
        Ok((free, held)) => {
            let cost = free - held;
            let pct = cost as f64 * 100.0 / free.max(1) as f64;
            let st = if pct > 10.0 { Status::Warn } else { Status::Ok };
            (
                st,
                format!(
                    "p50 {:.1} µs as the machine is, {:.1} µs with idle states forbidden (PM QoS 0 µs): idle states cost {:+.1} µs ({pct:+.0} %) per wake-up",
                    free as f64 / 1e3,
                    held as f64 / 1e3,
                    cost as f64 / 1e3
                ),
            )
        }
    };
    Item {
        name: "idle_state_cost".into(),
        status,
        value,
        effect: EFFECT.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_difference_decides() {
        let it = item(Ok((40_000, 32_800)));
        assert_eq!(it.status, Status::Warn);
        assert!(it.value.contains("+7.2 µs (+18 %)"), "{}", it.value);
        let it = item(Ok((30_000, 29_500)));
        assert_eq!(it.status, Status::Ok);
        let it = item(Err(ProbeError::Hold(MeasureError::Setup(
            "cannot open dev/cpu_dma_latency".into(),
        ))));
        assert_eq!(it.status, Status::Unknown);
        assert!(it.value.contains("cpu_dma_latency"));
    }
}
