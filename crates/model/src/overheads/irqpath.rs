//! Interrupt-to-task activation path of a message-passing kernel (kernel-v4-like).
//!
//! Source: "K4perf" measurements of an Oberon kernel-v4 on an RP2350 at 125 MHz
//! (K4perf): hardware entry of 12 cycles plus the handler prologue reach useful work
//! after 26 cycles (208 ns); the activated task runs after 281 cycles (2.25 us). With a
//! cold flash cache the raw interrupt latency exceeds 3.3 us and the task activation
//! takes nearly 29 us. The path is: hardware entry, handler prologue, message send (take
//! a message from the pool, post it), ready-queue dispatch (the ready-queue interrupt
//! runs the task).

use latscope_core::Picos;
use serde::Serialize;

/// One cache state's stage costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct IrqPathStage {
    /// Hardware entry time; `None` uses the platform's `irq_entry_cycles` (plus its
    /// cache extra).
    pub entry: Option<Picos>,
    /// Handler prologue up to the first useful instruction.
    pub prologue: Picos,
    /// Taking a message from the pool and sending it to the task.
    pub send: Picos,
    /// Ready-queue dispatch until the task's first instruction.
    pub dispatch: Picos,
}

/// Costs of the interrupt-to-task path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct IrqPathCosts {
    /// Constant cost of one kernel tick.
    pub tick: Picos,
    /// Constant cost of a task-to-task switch.
    pub switch: Picos,
    pub warm: IrqPathStage,
    /// Cold-cache stage costs (`None`: same as warm).
    pub cold: Option<IrqPathStage>,
}

impl IrqPathStage {
    /// Entry plus prologue: when the handler starts useful work (K4perf: 26 cycles).
    pub fn handler_latency(&self, platform_entry: Picos) -> Picos {
        self.entry.unwrap_or(platform_entry) + self.prologue
    }
    /// `entry + prologue + send + dispatch`: from the interrupt request to the task's
    /// first instruction (K4perf: 281 cycles warm, ~29 us cold).
    pub fn activation_latency(&self, platform_entry: Picos) -> Picos {
        self.handler_latency(platform_entry) + self.send + self.dispatch
    }
}

impl IrqPathCosts {
    /// The stage costs of a cache state (cold falls back to warm when not given).
    pub fn stage(&self, cold: bool) -> &IrqPathStage {
        match (cold, &self.cold) {
            (true, Some(c)) => c,
            _ => &self.warm,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed004_cycle_counts() {
        let cyc = |n| Picos::from_cycles(n, 125_000_000);
        let warm = IrqPathStage {
            entry: None,
            prologue: cyc(14),
            send: cyc(200),
            dispatch: cyc(55),
        };
        assert_eq!(warm.handler_latency(cyc(12)), Picos::from_ns(208));
        assert_eq!(warm.activation_latency(cyc(12)), Picos::from_ns(2248));
        let c = IrqPathCosts {
            warm,
            ..Default::default()
        };
        assert_eq!(c.stage(true), &warm);
    }
}
