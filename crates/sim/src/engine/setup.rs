//! Building a simulation: sizing every array from the configuration and the state at time 0.

use super::tick_grid::ceil_tick_of;
use super::*;

impl Sim {
    /// Validates the configuration and sets the system up at time 0.
    pub fn new(cfg: SimConfig, opts: SimOptions) -> Result<Sim, ConfigError> {
        cfg.validate()?;
        let n = cfg.tasks.len();
        let idle = n;
        let maxp = cfg.tasks.iter().map(|t| t.priority).max().unwrap_or(0) as usize;
        // Dense ready-list levels: one per distinct priority (and 0 for idle). The
        // generic selection still counts every priority number it walks past.
        let mut level_prio: Vec<u32> = cfg.tasks.iter().map(|t| t.priority).collect();
        level_prio.push(0);
        level_prio.sort_unstable();
        level_prio.dedup();
        let levels = level_prio.len();
        let nodes = n + 1 + levels;
        let edf = matches!(&cfg.kernel, Kernel::Tick(k) if k.edf);
        let (tick_mode, tick_cost, sw_table, sw_const, time_slicing) = match &cfg.kernel {
            Kernel::Tick(k) => {
                let (t, c) = match &k.switch_cost {
                    SwitchCost::PerLevel(v) => (v.iter().map(|p| p.0).collect(), None),
                    SwitchCost::Constant(c) => (vec![c.0], Some(c.0)),
                };
                (
                    true,
                    k.tick_cost.iter().map(|p| p.0).collect(),
                    t,
                    c,
                    k.time_slicing,
                )
            }
            Kernel::ListScan(k) => (false, vec![0], vec![k.switch_cost.0], None, false),
        };
        let mut prio: Vec<u32> = cfg.tasks.iter().map(|t| t.priority).collect();
        prio.push(0);
        let level: Vec<u32> = prio
            .iter()
            .map(|p| level_prio.partition_point(|x| x < p) as u32)
            .collect();
        let nirq = cfg.interrupts.len();
        // Effective interrupt priorities: above the kernel's level 0, ranked by priority.
        let irq_eff = cfg
            .interrupts
            .iter()
            .map(|q| 1 + (q.priority.min(1 << 30) as i32))
            .collect();
        let mut irq_tasks = vec![Vec::new(); nirq];
        for (i, t) in cfg.tasks.iter().enumerate() {
            if let Activation::Interrupt(q) = t.activation {
                irq_tasks[q].push(i as u32);
            }
        }
        let resp = cfg
            .tasks
            .iter()
            .map(|t| {
                let hi = t.deadline.0.max(t.period.0).saturating_mul(16);
                Dist::new(hi, opts.percentiles)
            })
            .collect();
        let irq_resp = cfg
            .interrupts
            .iter()
            .map(|q| Dist::new(q.wcet.0.saturating_mul(64).max(1_000_000), opts.percentiles))
            .collect();
        let period = cfg.tick_period.0;
        let (tick_num, tick_den) = match cfg.tick_hz {
            Some(hz) => (1_000_000_000_000i128, hz as i128),
            None => (period as i128, 1i128),
        };
        let tick_exact = tick_num % tick_den == 0;
        let l = cfg.irq_entry.0;
        let rng = ChaCha8Rng::seed_from_u64(opts.seed);
        let tick_hi = tick_cost
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .saturating_add(l)
            .saturating_mul(64)
            .max(period);
        let ls_period = cfg
            .tasks
            .iter()
            .map(|t| ((t.period.0 as i128 * tick_den / tick_num) as i64).max(1))
            .collect();
        let ls_counter = cfg
            .tasks
            .iter()
            .map(|t| ceil_tick_of(t.offset.0, tick_exact, period, tick_num, tick_den) + 1)
            .collect();
        let nres = cfg.resources.len();
        let nch = n + 5 + nirq + 2 * nres;
        let lc = cfg.lock_costs;
        let ceil = cfg.ceilings();
        let res_on = nres > 0 || cfg.tasks.iter().any(|t| t.critical.0 > 0);
        // Handlers' sections: the boundaries in elapsed time from the handler's start.
        let mut irq_bounds = Vec::with_capacity(nirq);
        let mut irq_cost = Vec::with_capacity(nirq);
        let mut ops_tmp = Vec::new();
        let mut scratch = Vec::new();
        for q in &cfg.interrupts {
            build_ops(
                &mut ops_tmp,
                &mut scratch,
                &q.sections,
                0,
                q.wcet.0,
                lc.lock.0,
                lc.unlock.0,
            );
            let mut el = cfg.irq_entry.0;
            let mut b = Vec::new();
            for o in &ops_tmp {
                el = el.saturating_add(o.len);
                match o.kind {
                    OpKind::Lock(r) => b.push((el, r, true)),
                    OpKind::Unlock(r) => b.push((el, r, false)),
                    _ => {}
                }
            }
            irq_bounds.push(b);
            irq_cost.push(el);
        }
        let base: Vec<u32> = prio.clone();
        let mut out_of = vec![None; n];
        for (k, o) in cfg.outputs.iter().enumerate() {
            out_of[o.task] = Some(k);
        }
        let mut sim = Sim {
            n,
            idle,
            rng,
            now: 0,
            period,
            tick_num,
            tick_den,
            tick_exact,
            l,
            tick_mode,
            events: 0,
            one_step: true,
            one_steps: (0, 0),
            run_limit: i64::MIN,
            run_inclusive: false,
            tick_cost_max: tick_cost
                .iter()
                .copied()
                .max()
                .unwrap_or(0)
                .saturating_add(l),
            tick_cost,
            sw_table,
            sw_const,
            time_slicing,
            edf,
            prio,
            level,
            level_prio,
            nx: vec![0; nodes],
            pv: vec![0; nodes],
            index: vec![0; levels],
            len: vec![0; levels],
            in_ready: vec![false; n + 1],
            top_ready: 0,
            bitmap: vec![0; levels.div_ceil(64)],
            cur: idle,
            cur_blocked: false,
            pendsv_to: idle,
            pendsv_levels: 0,
            delayed: delayed::Delayed::with_capacity(n + 1),
            tick_count: 0,
            next_tick_k: 1,
            tick_pending: None,
            pendsv_pending: false,
            tick_released: Vec::with_capacity(n),
            irq_tasks,
            irq_queue: vec![VecDeque::new(); n],
            task_succ: {
                let mut v = vec![Vec::new(); n];
                for (i, t) in cfg.tasks.iter().enumerate() {
                    if let Activation::Task(a) = t.activation {
                        v[a].push(i as u32);
                    }
                }
                v
            },
            chains: None,
            irq_pending: vec![None; nirq],
            irq_next: vec![NEVER; nirq],
            irq_eff,
            frames: Vec::with_capacity(nirq + 4),
            mask_depth: 0,
            has_job: vec![false; n],
            job_arrival: vec![0; n],
            job_idx: vec![0; n],
            pending_arrival: vec![0; n],
            ls_counter,
            ls_period,
            run_queue: VecDeque::with_capacity(n),
            ls_cur: None,
            ls_last: idle,
            ls_in_queue: vec![false; n],
            tick_flag: None,
            sleeping: false,
            waking: false,
            wake_timer: NEVER,
            wake_req: false,
            wake_by_timer: false,
            wake_extra_pending: false,
            resp,
            jobs: vec![0; n],
            first_resp: vec![None; n],
            released: vec![0; n],
            misses: vec![0; n],
            first_miss: vec![None; n],
            preempt: vec![0; n],
            overruns: vec![0; n],
            task_cpu: vec![0; n],
            tick_dur: Dist::new(tick_hi, true),
            tick_lost: 0,
            tick_max_lat: None,
            tick_max_rel: 0,
            tick_peak: (i64::MIN, 0, Vec::new()),
            series: Vec::new(),
            sw_pair: HashMap::new(),
            sw_pair_dense: if n < 256 {
                vec![Agg::default(); (n + 1) * (n + 1)]
            } else {
                Vec::new()
            },
            sw_levels: Vec::new(),
            sw_dist: if res_on && maxp <= 1 << 16 {
                vec![Agg::default(); 2 * maxp + 1]
            } else {
                Vec::new()
            },
            sw_dist_map: HashMap::new(),
            maxp,
            irq_resp,
            irq_count: vec![0; nirq],
            irq_lost: vec![0; nirq],
            irq_max_lat: vec![None; nirq],
            cpu: CpuTime::default(),
            sleeps: 0,
            wake_timer_n: 0,
            wake_irq_n: 0,
            ls_runs: 0,
            ls_lost: 0,
            ls_late: 0,
            ls_delay: Dist::new(period.saturating_mul(64), opts.percentiles),
            ls_overruns: 0,
            res_on,
            base,
            ops: vec![Vec::new(); n],
            op_i: vec![0; n],
            op_rem: vec![0; n],
            scratch,
            lock_cost: lc.lock.0,
            unlock_cost: lc.unlock.0,
            inherit_cost: lc.inherit.0,
            ceil,
            owner: vec![None; nres],
            isr_holds: vec![0; nres],
            hold_since: vec![0; nres],
            waiters: vec![Vec::new(); nres],
            held_inh: vec![0; n + 1],
            inh_prio: vec![0; n + 1],
            ceil_stack: vec![Vec::new(); n + 1],
            waiting: vec![None; n],
            wait_since: vec![0; n],
            wait_ep: vec![None; n],
            job_inv: vec![0; n],
            max_inv: vec![0; n],
            blocked_total: vec![0; n],
            irq_bounds,
            irq_cost,
            res_stats: vec![ResStat::default(); nres],
            res_ch: vec![(false, false); nres],
            out_of,
            out_left: vec![0; n],
            out_state: vec![OutState::Off; n],
            dev_idle_at: vec![0; cfg.devices.len()],
            dev_stats: cfg
                .devices
                .iter()
                .map(|d| DeviceStats {
                    name: d.name.clone(),
                    ..DeviceStats::default()
                })
                .collect(),
            edges: opts.capture.then(|| vec![Vec::new(); nch]),
            cur_ch: idle,
            ext: vec![None; nirq],
            notify: vec![false; nirq],
            fired: Vec::new(),
            tick_ext: None,
            tick_notify: false,
            tick_fired: Vec::new(),
            cfg,
            opts,
        };
        sim.init();
        Ok(sim)
    }

    pub(super) fn init(&mut self) {
        let n = self.n;
        for p in 0..self.len.len() {
            let e = (n + 1 + p) as u32;
            self.nx[e as usize] = e;
            self.pv[e as usize] = e;
            self.index[p] = e;
        }
        for q in 0..self.cfg.interrupts.len() {
            self.irq_next[q] = match self.cfg.interrupts[q].arrival {
                IrqArrival::Periodic { offset, .. } | IrqArrival::Sporadic { offset, .. } => {
                    offset.0
                }
            };
        }
        if self.tick_mode {
            // Tasks created before the scheduler starts are ready in creation order.
            for i in 0..n {
                if self.cfg.tasks[i].activation != Activation::Periodic {
                    continue;
                }
                self.schedule_periodic(i, 0, true);
            }
            self.ready_add(self.idle);
            if self.edf {
                self.cur = self.edf_pick();
            } else {
                let (p, _) = self.select_level();
                self.cur = self.next_owner(p);
            }
        } else {
            // The kernel starts with the tick flag set: the first scheduler run is at 0.
            self.tick_flag = Some(0);
            self.next_tick_k = 1;
        }
        self.cur_ch = self.task_level_channel();
        let c = self.cur_ch;
        self.toggle(c);
    }
}
