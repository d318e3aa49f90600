//! The per-run `trace` object of the `measure` JSON (with `--trace-above`): where the
//! interrupt/thread split came from, how much of the trace arrived, and what was lost.

use super::lost::CpuLoss;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceSummary {
    /// `timerlat` (the kernel's timerlat tracer) or `tracepoints`: where the
    /// interrupt/thread split of `total.irq_latency_ns`/`thread_latency_ns` came from.
    pub source: String,
    /// Why the timerlat tracer was not used (null when it was).
    pub source_reason: Option<String>,
    /// Trace events read.
    pub events: u64,
    /// Events latscope dropped from its own full per-CPU windows.
    pub window_dropped: u64,
    /// Events the kernel's ring buffers lost (overrun or dropped), all CPUs.
    pub lost_events: u64,
    /// Per traced CPU: lost-events markers, the ring buffer's counters.
    pub cpus: Vec<CpuLoss>,
    /// Samples whose timer handler the trace showed / did not show.
    pub samples_split: u64,
    pub samples_unsplit: u64,
    /// timerlat activations paired (0 with tracepoints).
    pub timerlat_activations: u64,
    /// Spikes kept whose window lost events (their `incomplete` says why).
    pub spikes_incomplete: u64,
    /// Spikes above the threshold beyond the 1000 kept.
    pub spikes_not_kept: u64,
}
