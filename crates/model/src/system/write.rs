//! Writes a system as TOML or JSON in the documented format.

use super::model::{
    Arrival, CacheState, CriticalSections, KernelCosts, Scheduler, System, TaskSelection,
};
use crate::overheads::irqpath::IrqPathStage;
use latscope_core::time::Picos;

impl System {
    /// The description as TOML in the documented format (used by `latscope fit` and
    /// `latscope generate`). Parsing the result gives back an equal system (apart from
    /// `source`).
    pub fn to_toml_string(&self) -> String {
        let v = self.to_value();
        toml::to_string(&v).unwrap_or_default()
    }

    /// The description as JSON in the documented format.
    pub fn to_json_string(&self) -> String {
        let v = self.to_value();
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    fn to_value(&self) -> toml::Value {
        use toml::Value as V;
        let d = |p: Picos| V::String(format_exact(p));
        let mut root = toml::Table::new();

        let mut pf = toml::Table::new();
        pf.insert("cpu_hz".into(), V::Integer(self.platform.cpu_hz as i64));
        pf.insert(
            "irq_entry_cycles".into(),
            V::Integer(self.platform.irq_entry_cycles as i64),
        );
        let c = &self.platform.cache;
        if c.assume != CacheState::Warm
            || c.warm_extra != Picos::ZERO
            || c.cold_extra != Picos::ZERO
        {
            let mut ct = toml::Table::new();
            ct.insert(
                "assume".into(),
                V::String(
                    match c.assume {
                        CacheState::Warm => "warm",
                        CacheState::Cold => "cold",
                    }
                    .into(),
                ),
            );
            ct.insert("warm".into(), d(c.warm_extra));
            ct.insert("cold".into(), d(c.cold_extra));
            pf.insert("cache".into(), V::Table(ct));
        }
        if self.platform.cores != 1 {
            pf.insert("cores".into(), V::Integer(self.platform.cores as i64));
        }
        root.insert("platform".into(), V::Table(pf));

        let k = &self.kernel;
        let mut kt = toml::Table::new();
        kt.insert("tick_hz".into(), V::Integer(k.tick_hz as i64));
        kt.insert("model".into(), V::String(k.model().name().into()));
        kt.insert(
            "task_selection".into(),
            V::String(
                match k.task_selection {
                    TaskSelection::Generic => "generic",
                    TaskSelection::Optimised => "optimised",
                }
                .into(),
            ),
        );
        kt.insert("tick_mode".into(), V::String(k.tick_mode.name().into()));
        kt.insert("time_slicing".into(), V::Boolean(k.time_slicing));
        kt.insert(
            "allow_equal_priorities".into(),
            V::Boolean(k.allow_equal_priorities),
        );
        // Written only when not the default, so fixed-priority files stay as they were.
        if k.scheduler != Scheduler::Fp {
            kt.insert("scheduler".into(), V::String(k.scheduler.name().into()));
        }
        if !k.tick_source.is_per_core() {
            kt.insert("tick_source".into(), V::String(k.tick_source.name().into()));
            kt.insert("tick_core".into(), V::Integer(k.tick_core.into()));
        }
        let mut costs = toml::Table::new();
        match &k.costs {
            KernelCosts::Tick(c) => {
                costs.insert("tick_base".into(), d(c.tick_base));
                costs.insert("tick_per_release".into(), d(c.tick_per_release));
                // Costs that follow another one by default are written only when given.
                if let Some(v) = c.tick_first_release {
                    costs.insert("tick_first_release".into(), d(v));
                }
                if let Some(v) = c.tick_last_release {
                    costs.insert("tick_last_release".into(), d(v));
                }
                costs.insert("switch_base".into(), d(c.switch_base));
                costs.insert("switch_per_level".into(), d(c.switch_per_level));
                if let Some(v) = c.switch_optimised {
                    costs.insert("switch_optimised".into(), d(v));
                }
            }
            KernelCosts::Listscan(c) => {
                costs.insert("check_per_thread".into(), d(c.check_per_thread));
                costs.insert("insert_base".into(), d(c.insert_base));
                costs.insert("insert_per_position".into(), d(c.insert_per_position));
                costs.insert("switch".into(), d(c.switch));
            }
            KernelCosts::Irqpath(c) => {
                costs.insert("tick".into(), d(c.tick));
                costs.insert("switch".into(), d(c.switch));
                let stage = |s: &IrqPathStage| {
                    let mut t = toml::Table::new();
                    if let Some(e) = s.entry {
                        t.insert("entry".into(), d(e));
                    }
                    t.insert("prologue".into(), d(s.prologue));
                    t.insert("send".into(), d(s.send));
                    t.insert("dispatch".into(), d(s.dispatch));
                    V::Table(t)
                };
                costs.insert("warm".into(), stage(&c.warm));
                if let Some(cold) = &c.cold {
                    costs.insert("cold".into(), stage(cold));
                }
            }
        }
        if k.ipi != Picos::ZERO {
            costs.insert("ipi".into(), d(k.ipi));
        }
        if k.ipi_send != Picos::ZERO {
            costs.insert("ipi_send".into(), d(k.ipi_send));
        }
        kt.insert("costs".into(), V::Table(costs));
        if !k.sleep_states.is_empty() {
            let mut arr = Vec::new();
            for s in &k.sleep_states {
                let mut st = toml::Table::new();
                st.insert("name".into(), V::String(s.name.clone()));
                st.insert(
                    "safety_margin_ticks".into(),
                    V::Integer(s.safety_margin_ticks as i64),
                );
                let mut parts = toml::Table::new();
                for (n, p) in &s.parts {
                    parts.insert(n.clone(), d(*p));
                }
                st.insert("parts".into(), V::Table(parts));
                arr.push(V::Table(st));
            }
            kt.insert("sleep_state".into(), V::Array(arr));
        }
        root.insert("kernel".into(), V::Table(kt));

        let cs = &self.critical_sections;
        if *cs != CriticalSections::default() {
            let mut t = toml::Table::new();
            t.insert("kernel".into(), d(cs.kernel));
            t.insert("application".into(), d(cs.application));
            root.insert("critical_sections".into(), V::Table(t));
        }

        let mut tasks = Vec::new();
        for t in &self.tasks {
            let mut tt = toml::Table::new();
            tt.insert("name".into(), V::String(t.name.clone()));
            match t.arrival {
                Arrival::Periodic(p) => tt.insert("period".into(), d(p)),
                Arrival::Sporadic(p) => tt.insert("min_interarrival".into(), d(p)),
            };
            tt.insert("wcet".into(), d(t.wcet));
            if t.bcet != t.wcet {
                tt.insert("bcet".into(), d(t.bcet));
            }
            tt.insert("priority".into(), V::Integer(t.priority as i64));
            if t.deadline != t.period() {
                tt.insert("deadline".into(), d(t.deadline));
            }
            for (key, v) in [
                ("offset", t.offset),
                ("jitter", t.jitter),
                ("blocking", t.blocking),
            ] {
                if v != Picos::ZERO {
                    tt.insert(key.into(), d(v));
                }
            }
            if self.platform.placement == super::Placement::Global {
                tt.insert("core".into(), V::String(super::global::ANY.into()));
            } else if t.core != 0 {
                tt.insert("core".into(), V::Integer(t.core as i64));
            }
            if let Some(f) = &t.exec_time_file {
                tt.insert("exec_time_file".into(), V::String(f.display().to_string()));
            }
            tasks.push(V::Table(tt));
        }
        let mut irqs = Vec::new();
        if !self.interrupts.is_empty() {
            for i in &self.interrupts {
                let mut it = toml::Table::new();
                it.insert("name".into(), V::String(i.name.clone()));
                it.insert("min_interarrival".into(), d(i.min_interarrival));
                it.insert("wcet".into(), d(i.wcet));
                it.insert("priority".into(), V::Integer(i.priority as i64));
                it.insert("above_kernel".into(), V::Boolean(i.above_kernel));
                if i.offset != Picos::ZERO {
                    it.insert("offset".into(), d(i.offset));
                }
                if i.core != 0 {
                    it.insert("core".into(), V::Integer(i.core as i64));
                }
                if i.periodic {
                    it.insert("periodic".into(), V::Boolean(true));
                }
                if let Some(r) = i.releases {
                    it.insert("releases".into(), V::String(self.tasks[r].name.clone()));
                }
                irqs.push(V::Table(it));
            }
        }
        super::resources::write(&self.resources, &mut root, &mut tasks, &mut irqs);
        root.insert("task".into(), V::Array(tasks));
        if !irqs.is_empty() {
            root.insert("interrupt".into(), V::Array(irqs));
        }
        super::chains::write(self, &mut root);
        if !self.kernel.cores.is_empty() {
            let cores = self
                .kernel
                .cores
                .iter()
                .map(|c| {
                    let mut t = toml::Table::new();
                    t.insert("id".into(), V::Integer(c.id as i64));
                    if let Some(s) = c.scheduler {
                        t.insert("scheduler".into(), V::String(s.name().into()));
                    }
                    V::Table(t)
                })
                .collect();
            root.insert("core".into(), V::Array(cores));
        }
        V::Table(root)
    }
}
/// Formats a duration exactly, in the largest unit that keeps it readable
/// (`1.5us`, `142.857ns`, `5ms`, `0ns`).
pub fn format_exact(p: Picos) -> String {
    let v = p.0 as i128;
    let a = v.unsigned_abs();
    let (div, unit): (u128, &str) = if a >= 1_000_000_000_000 {
        (1_000_000_000_000, "s")
    } else if a >= 1_000_000_000 {
        (1_000_000_000, "ms")
    } else if a >= 1_000_000 {
        (1_000_000, "us")
    } else if a >= 1_000 || a == 0 {
        (1_000, "ns")
    } else {
        (1, "ps")
    };
    let int = a / div;
    let frac = a % div;
    let sign = if v < 0 { "-" } else { "" };
    if frac == 0 {
        return format!("{sign}{int}{unit}");
    }
    let width = div.ilog10() as usize;
    let f = format!("{frac:0width$}");
    format!("{sign}{int}.{}{unit}", f.trim_end_matches('0'))
}
