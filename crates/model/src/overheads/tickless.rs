//! Tickless idle: sleep states and their wake-up latency.
//!
//! Source: "Tickless scheduling latency" measurements of pico]OS on an STM32F411
//! (the pico]OS tickless report): in the deepest state the worst wake-up is about 807 us = 80 us CPU
//! start-up + 720 us HSE oscillator restart + 6.6 us context switch. Timed wake-ups are
//! unaffected because the kernel wakes a few ticks early (a safety margin); interrupts
//! nobody can predict pay the whole wake-up latency.

use latscope_core::Picos;
use serde::Serialize;

/// One sleep state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SleepState {
    pub name: String,
    /// The parts of the wake-up latency (e.g. `cpu_wake`, `oscillator_restart`,
    /// `context_switch`), in the file's order.
    pub parts: Vec<(String, Picos)>,
    /// Ticks the kernel wakes up early before a timed event.
    pub safety_margin_ticks: u32,
}

impl SleepState {
    /// Total wake-up latency: the sum of the parts (the pico]OS tickless report: 80 + 720 + 6.6 us).
    pub fn wake_latency(&self) -> Picos {
        self.parts.iter().fold(Picos::ZERO, |a, (_, p)| a + *p)
    }

    /// Extra latency of an unpredictable interrupt arriving while asleep: the whole
    /// wake-up latency.
    pub fn unpredictable_extra(&self) -> Picos {
        self.wake_latency()
    }

    /// Lateness of a timed wake-up: `max(0, wake_latency - safety_margin_ticks * tick)`.
    /// Zero when the margin covers the wake-up (the pico]OS tickless report's timers).
    pub fn timed_lateness(&self, tick: Picos) -> Picos {
        let margin = Picos(tick.0.saturating_mul(self.safety_margin_ticks as i64));
        Picos((self.wake_latency().0 - margin.0).max(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed000_deep_sleep() {
        let s = SleepState {
            name: "stop".into(),
            parts: vec![
                ("cpu_wake".into(), Picos::from_us(80)),
                ("oscillator_restart".into(), Picos::from_us(720)),
                ("context_switch".into(), Picos::from_ns(6600)),
            ],
            safety_margin_ticks: 1,
        };
        assert_eq!(s.wake_latency(), Picos::from_ns(806_600));
        assert_eq!(s.timed_lateness(Picos::from_ms(1)), Picos::ZERO);
        assert_eq!(
            s.timed_lateness(Picos::from_us(500)),
            Picos::from_ns(306_600)
        );
        assert_eq!(s.unpredictable_extra(), Picos::from_ns(806_600));
    }
}
