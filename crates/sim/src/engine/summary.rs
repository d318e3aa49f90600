//! Results: the tick series and the report of the time simulated so far.

use super::*;

impl Sim {
    /// Tick series rows (when `SimOptions::series`).
    pub fn series(&self) -> &[TickRow] {
        &self.series
    }

    /// Writes the tick series as CSV: `time_ns,duration_ns,released`.
    pub fn write_series_csv<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        let mut out = csv::Writer::from_writer(w);
        out.write_record(["time_ns", "duration_ns", "released"])?;
        for r in &self.series {
            out.write_record([
                fmt_ns(r.time.0),
                fmt_ns(r.duration.0),
                r.released.to_string(),
            ])?;
        }
        out.flush()
    }

    /// Builds the report for the time simulated so far.
    pub fn report(&self) -> SimReport {
        SimReport {
            chains: self.chains.as_ref().map_or_else(Vec::new, |c| c.report()),
            resources: self.resource_reports(),
            kind: "simulate",
            schema_version: 1,
            source: self.opts.source.clone(),
            kernel: if self.tick_mode { "tick" } else { "list-scan" },
            seed: self.opts.seed,
            duration_ns: ns(self.now),
            hyperperiod_ns: self.cfg.hyperperiod().map(|h| ns(h.0)),
            tick_period_ns: ns(self.period),
            events: self.events,
            tasks: (0..self.n).map(|i| self.task_report(i)).collect(),
            tick: self.tick_report(),
            switches: self.switch_report(),
            interrupts: self.irq_reports(),
            cpu: self.cpu_split(),
            sleep: self.sleep_report(),
            list_scan: self.list_scan_report(),
            cores: Vec::new(),
            global: None,
        }
    }

    /// Task `i`'s figures. A job still pending past its deadline at the end counts as a
    /// miss (at its absolute deadline), and a wait or a blocking still going on counts up
    /// to now, so a report cut mid-run does not hide them.
    fn task_report(&self, i: usize) -> TaskReport {
        let t = &self.cfg.tasks[i];
        let mut misses = self.misses[i];
        let mut first = self.first_miss[i];
        if self.has_job[i] && self.now - self.job_arrival[i] > t.deadline.0 {
            misses += 1;
            let abs = self.job_arrival[i] + t.deadline.0;
            if first.is_none_or(|f| abs < f) {
                first = Some(abs);
            }
        }
        let response = self.resp[i].summary();
        TaskReport {
            name: t.name.clone(),
            priority: t.priority,
            jobs: self.jobs[i],
            released: self.released[i],
            max_response_ns: response.max_ns,
            first_response_ns: self.first_resp[i].map(ns),
            response,
            deadline_ns: ns(t.deadline.0),
            deadline_misses: misses,
            first_miss_ns: first.map(ns),
            preemptions: self.preempt[i],
            overruns: self.overruns[i],
            cpu_ns: ns(self.task_cpu[i]),
            blocked_ns: ns(self.blocked_total[i]
                + if self.waiting[i].is_some() {
                    self.now - self.wait_since[i]
                } else {
                    0
                }),
            max_blocking_ns: ns(if self.has_job[i] {
                self.max_inv[i].max(self.job_inv[i])
            } else {
                self.max_inv[i]
            }),
        }
    }

    /// The tick handler's durations, lateness and peaks.
    fn tick_report(&self) -> TickReport {
        let td = self.tick_dur.summary();
        TickReport {
            count: td.count,
            min_ns: td.min_ns,
            max_ns: td.max_ns,
            mean_ns: td.mean_ns,
            p50_ns: td.p50_ns,
            p99_ns: td.p99_ns,
            lost: self.tick_lost + self.ls_lost,
            max_latency_ns: self.tick_max_lat.map(ns),
            max_released: self.tick_max_rel,
            peaks_at_ns: self.tick_peak.2.iter().map(|&t| ns(t)).collect(),
            peak_count: self.tick_peak.1,
        }
    }

    /// A switch endpoint's name: a task, or `idle` past the last task index.
    fn endpoint_name(&self, x: u32) -> String {
        let x = x as usize;
        if x >= self.n {
            "idle".into()
        } else {
            self.cfg.tasks[x].name.clone()
        }
    }

    /// Context switches overall and grouped by pair, levels scanned and priority
    /// distance.
    fn switch_report(&self) -> SwitchReport {
        let pairs = self.switch_pairs();
        let dists = self.switch_distances(&pairs);
        let mut all = Agg::default();
        for (_, g) in &pairs {
            all.merge(g);
        }
        SwitchReport {
            count: all.count,
            min_ns: (all.count > 0).then(|| ns(all.min)),
            mean_ns: (all.count > 0).then(|| all.group().mean_ns),
            max_ns: (all.count > 0).then(|| ns(all.max)),
            by_pair: pairs
                .into_iter()
                .map(|((a, b), g)| SwitchGroup {
                    from: Some(self.endpoint_name(a)),
                    to: Some(self.endpoint_name(b)),
                    ..g.group()
                })
                .collect(),
            by_levels: if self.tick_mode && self.sw_const.is_none() {
                self.sw_levels
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.count > 0)
                    .map(|(k, g)| SwitchGroup {
                        levels: Some(k as u32),
                        ..g.group()
                    })
                    .collect()
            } else {
                Vec::new()
            },
            by_priority_distance: dists
                .into_iter()
                .map(|(d, g)| SwitchGroup {
                    distance: Some(d),
                    ..g.group()
                })
                .collect(),
        }
    }

    /// Switches by (from, to), sorted: from the dense table when the engine kept one
    /// (few tasks), else from the map.
    fn switch_pairs(&self) -> Vec<((u32, u32), Agg)> {
        let nn = self.n + 1;
        let mut pairs: Vec<((u32, u32), Agg)> = if self.sw_pair_dense.is_empty() {
            self.sw_pair.iter().map(|(k, v)| (*k, *v)).collect()
        } else {
            self.sw_pair_dense
                .iter()
                .enumerate()
                .filter(|(_, g)| g.count > 0)
                .map(|(k, g)| (((k / nn) as u32, (k % nn) as u32), *g))
                .collect()
        };
        pairs.sort_by_key(|(k, _)| *k);
        pairs
    }

    /// Switches by priority distance (the priority switched from minus the one switched
    /// to), sorted. With shared resources, as recorded at each switch (the table offset
    /// by the highest priority, then the map); without, the pairs' figures merged by
    /// their distance.
    fn switch_distances(&self, pairs: &[((u32, u32), Agg)]) -> Vec<(i64, Agg)> {
        let mut dists: std::collections::BTreeMap<i64, Agg> = Default::default();
        if self.res_on {
            let table = self.sw_dist.iter().enumerate();
            for (k, g) in table.filter(|(_, g)| g.count > 0) {
                dists
                    .entry(k as i64 - self.maxp as i64)
                    .or_default()
                    .merge(g);
            }
            for (d, g) in &self.sw_dist_map {
                dists.entry(*d).or_default().merge(g);
            }
        } else {
            for &((a, b), g) in pairs {
                let d = self.prio[a as usize] as i64 - self.prio[b as usize] as i64;
                dists.entry(d).or_default().merge(&g);
            }
        }
        dists.into_iter().collect()
    }

    /// Each interrupt's count, losses and handler response.
    fn irq_reports(&self) -> Vec<IrqReport> {
        (0..self.cfg.interrupts.len())
            .map(|q| IrqReport {
                name: self.cfg.interrupts[q].name.clone(),
                count: self.irq_count[q],
                lost: self.irq_lost[q],
                response: self.irq_resp[q].summary(),
                max_latency_ns: self.irq_max_lat[q].map(ns),
            })
            .collect()
    }

    /// Where the CPU time went, in ns and as fractions of the time simulated.
    fn cpu_split(&self) -> CpuSplit {
        let dur = self.now.max(1);
        let c = &self.cpu;
        let f = |x: i64| x as f64 / dur as f64;
        CpuSplit {
            tasks_ns: ns(c.task),
            tick_ns: ns(c.tick),
            switch_ns: ns(c.switch),
            interrupts_ns: ns(c.irq),
            scheduler_ns: ns(c.sched),
            idle_ns: ns(c.idle),
            sleep_ns: ns(c.sleep),
            wake_ns: ns(c.wake),
            tasks_fraction: f(c.task),
            tick_fraction: f(c.tick),
            switch_fraction: f(c.switch),
            interrupts_fraction: f(c.irq),
            scheduler_fraction: f(c.sched),
            idle_fraction: f(c.idle),
            sleep_fraction: f(c.sleep),
            wake_fraction: f(c.wake),
        }
    }

    /// Tickless sleeps and what woke the CPU.
    fn sleep_report(&self) -> SleepReport {
        SleepReport {
            state: self.cfg.tickless.as_ref().map(|t| t.state.clone()),
            sleeps: self.sleeps,
            wakeups: self.wake_timer_n + self.wake_irq_n,
            timer_wakeups: self.wake_timer_n,
            interrupt_wakeups: self.wake_irq_n,
        }
    }

    /// The list-scan scheduler's runs (none under the tick model).
    fn list_scan_report(&self) -> Option<ListScanReport> {
        (!self.tick_mode).then(|| ListScanReport {
            scheduler_runs: self.ls_runs,
            lost_ticks: self.ls_lost,
            late_runs: self.ls_late,
            delay: self.ls_delay.summary(),
            overruns: self.ls_overruns,
        })
    }

    /// Each resource's use and blocking episodes; a hold still going on counts up to
    /// now.
    fn resource_reports(&self) -> Vec<ResourceReport> {
        (0..self.cfg.resources.len())
            .map(|r| self.resource_report(r))
            .collect()
    }

    /// Resource `r`'s report.
    fn resource_report(&self, r: usize) -> ResourceReport {
        let res = &self.cfg.resources[r];
        let st = &self.res_stats[r];
        let held_now = self.owner[r].is_some() || self.isr_holds[r] > 0;
        let cur_hold = if held_now {
            self.now - self.hold_since[r]
        } else {
            0
        };
        let tname = |x: usize| self.cfg.tasks[x].name.clone();
        ResourceReport {
            name: res.name.clone(),
            protocol: match res.protocol {
                SimProtocol::Inheritance => "inheritance",
                SimProtocol::Ceiling => "ceiling",
                SimProtocol::Critical => "critical",
            },
            ceiling: self.ceil[r],
            takes: st.takes,
            contended: st.contended,
            inheritances: st.inheritances,
            held_ns: ns(st.held + cur_hold),
            max_hold_ns: ns(st.max_hold.max(cur_hold)),
            waited_ns: ns(st.waited),
            max_wait_ns: ns(st.max_wait),
            episodes: st
                .episodes
                .iter()
                .map(|e| BlockEpisode {
                    at_ns: ns(e.at),
                    task: tname(e.task as usize),
                    holder: e
                        .holder
                        .map_or_else(|| "interrupt".into(), |h| tname(h as usize)),
                    holder_priority: e.holder_prio,
                    inherited: e.inherited,
                    wait_ns: e.wait.map(ns),
                })
                .collect(),
        }
    }
}

/// Picoseconds as a decimal nanosecond string without float rounding (`1500.25`).
pub use latscope_core::time::ns_decimal as fmt_ns;
