//! List-scan scheduler run at every tick (kernel-v1-like).
//!
//! Source: "KernelPerf" measurements of an Oberon kernel-v1 on an RP2040-class MCU
//! (KernelPerf): with 16 threads and an 8 ms tick the scheduler runs about 58 us, made of
//! a status check of about 1.3 us per installed thread and, for each thread put on the
//! run queue, an insertion that starts at 0.6 us and grows by about 0.2 us per queue
//! position traversed (linear walk of a linked list). A thread context switch costs
//! about 1.25 us.

use super::affine;
use latscope_core::Picos;
use serde::Serialize;

/// Costs of the list-scan scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ListScanCosts {
    /// Status check per installed thread, every tick (KernelPerf: ~1.3 us).
    pub check_per_thread: Picos,
    /// Run-queue insertion at position 0 (KernelPerf: ~0.6 us).
    pub insert_base: Picos,
    /// Extra insertion time per queue position traversed (KernelPerf: ~0.2 us).
    pub insert_per_position: Picos,
    /// Thread context switch (KernelPerf: ~1.25 us).
    pub switch: Picos,
}

impl ListScanCosts {
    /// `insert(p) = insert_base + p * insert_per_position` for an insertion that walks
    /// past `p` queued threads.
    pub fn insertion_cost(&self, position: u32) -> Picos {
        affine(self.insert_base, self.insert_per_position, position as u64)
    }

    /// One scheduler run: `installed * check_per_thread + sum(insert(p) for p in
    /// inserted_positions)`.
    pub fn scheduler_run(&self, installed: u32, inserted_positions: &[u32]) -> Picos {
        let checks = affine(Picos::ZERO, self.check_per_thread, installed as u64);
        inserted_positions
            .iter()
            .fold(checks, |acc, &p| acc + self.insertion_cost(p))
    }

    /// The worst scheduler run with `installed` threads of which `released` are put on
    /// the queue: each inserted behind all earlier ones (positions 0, 1, .., released-1),
    /// as with equal priorities in KernelPerf's test case 0.
    pub fn worst_scheduler_run(&self, installed: u32, released: u32) -> Picos {
        let r = released as u64;
        let checks = affine(Picos::ZERO, self.check_per_thread, installed as u64);
        let inserts = affine(Picos::ZERO, self.insert_base, r);
        let walk = affine(
            Picos::ZERO,
            self.insert_per_position,
            r * r.saturating_sub(1) / 2,
        );
        checks + inserts + walk
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(x: i64) -> Picos {
        Picos::from_ns(x)
    }

    #[test]
    fn seed003_sixteen_threads() {
        let c = ListScanCosts {
            check_per_thread: ns(1300),
            insert_base: ns(600),
            insert_per_position: ns(200),
            switch: ns(1250),
        };
        let positions: Vec<u32> = (0..16).collect();
        // 16 * 1.3 + 16 * 0.6 + 0.2 * (0 + .. + 15) = 20.8 + 9.6 + 24 = 54.4 us;
        // the seed measured about 58 us (and about 35 us for the insertions alone).
        assert_eq!(c.scheduler_run(16, &positions), ns(54_400));
        assert_eq!(c.worst_scheduler_run(16, 16), ns(54_400));
        // Test case 11 (rising priorities: each inserted at the head): 16 * (1.3 + 0.6).
        assert_eq!(c.scheduler_run(16, &[0; 16]), ns(30_400));
        assert_eq!(c.scheduler_run(16, &[]), ns(20_800));
    }
}
