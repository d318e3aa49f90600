//! The event-driven engine. One CPU; integer picoseconds; fixed arrays sized at start.
//!
//! State: a stack of interrupt frames (tick, deferred switch, user interrupts, wake-up
//! exit latency, and in list-scan mode the scheduler and thread switch which run in
//! thread mode below every interrupt) above the task level. Each loop iteration finds
//! the next instant (the running activity's end, the next tick, the next interrupt
//! arrival or the tickless wake timer), charges the elapsed time to what ran, then
//! applies the same-instant rules documented in docs/simulator.md:
//!
//! 1. the activity that ends at the instant completes first;
//! 2. then every arrival at the instant becomes pending (tick, then interrupts by index,
//!    then the wake timer);
//! 3. then pending work is dispatched: user interrupts by priority (ties: lower index),
//!    then the deferred switch (PendSV), then the tick (SysTick) — PendSV and SysTick
//!    share the lowest priority and the lower exception number (PendSV) is taken first.

mod devices;
mod resources;

use crate::config::*;
use crate::report::*;
pub use devices::DeviceStats;
use devices::OutState;
use latscope_core::capture::{Capture, DigitalChannel};
use latscope_core::Picos;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use resources::{build_ops, Op, OpKind, ResStat};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

const NEVER: i64 = i64::MAX;
const P_TASK: i32 = -2;
const P_THREAD_KERNEL: i32 = -1;
const P_KERNEL_IRQ: i32 = 0;
const P_WAKE: i32 = i32::MAX;
/// Interrupt-released jobs waiting while the task is busy (a counting semaphore).
const IRQ_QUEUE_CAP: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FrameKind {
    Tick,
    PendSv,
    Irq(u32),
    Wake,
    Sched,
    ThreadSwitch(u32),
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: FrameKind,
    rem: i64,
    prio: i32,
    masks: bool,
    /// Arrival (interrupts) or nominal instant (tick), for latencies.
    arrival: i64,
    /// Whole cost of the frame (`rem` at its start): the handler's elapsed time is
    /// `total - rem`.
    total: i64,
    /// Next entry of the handler's critical-section boundaries (`Sim::irq_bounds`).
    bi: u32,
}

/// Options that do not change the simulated behaviour, only what is recorded.
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    pub seed: u64,
    /// Keep one row per tick for `--series`.
    pub series: bool,
    /// Record the virtual logic-analyzer capture.
    pub capture: bool,
    /// Keep response-time histograms (percentiles); min/max/mean are always exact.
    pub percentiles: bool,
    /// Name of the input, for outputs.
    pub source: String,
}

#[derive(Clone, Copy, Debug, Default)]
struct Agg {
    count: u64,
    min: i64,
    max: i64,
    sum: i128,
}

impl Agg {
    #[inline]
    fn add(&mut self, v: i64) {
        if self.count == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.count += 1;
        self.sum += v as i128;
    }
    fn group(&self) -> SwitchGroup {
        SwitchGroup {
            from: None,
            to: None,
            levels: None,
            distance: None,
            count: self.count,
            min_ns: ns(self.min),
            mean_ns: if self.count > 0 {
                self.sum as f64 / self.count as f64 / 1000.0
            } else {
                0.0
            },
            max_ns: ns(self.max),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct CpuTime {
    task: i64,
    tick: i64,
    switch: i64,
    irq: i64,
    sched: i64,
    idle: i64,
    sleep: i64,
    wake: i64,
}

/// One row of the tick series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickRow {
    /// Nominal tick instant.
    pub time: Picos,
    /// Handler duration (entry latency + handler cost; list-scan: scheduler run).
    pub duration: Picos,
    pub released: u32,
}

/// A simulation in progress.
pub struct Sim {
    cfg: SimConfig,
    opts: SimOptions,
    n: usize,
    idle: usize,
    rng: ChaCha8Rng,
    now: i64,
    /// Tick period in whole picoseconds (exact when `tick_exact`, else truncated).
    period: i64,
    /// Tick `k` is at `round(k * tick_num / tick_den)` ps; `tick_exact`: `k * period`.
    tick_num: i128,
    tick_den: i128,
    tick_exact: bool,
    l: i64,
    tick_mode: bool,
    events: u64,

    // tick kernel
    tick_cost: Vec<i64>,
    sw_table: Vec<i64>,
    sw_const: Option<i64>,
    time_slicing: bool,
    // ready lists (FreeRTOS xLIST emulation: circular, with an index and an end marker),
    // one per distinct priority present (dense levels, idle's 0 is level 0)
    prio: Vec<u32>,
    /// Dense ready-list level of each task (and idle, last).
    level: Vec<u32>,
    /// Priority number of each dense level (increasing).
    level_prio: Vec<u32>,
    nx: Vec<u32>,
    pv: Vec<u32>,
    index: Vec<u32>,
    len: Vec<u32>,
    in_ready: Vec<bool>,
    top_ready: usize,
    bitmap: Vec<u64>,
    cur: usize,
    cur_blocked: bool,
    pendsv_to: usize,
    pendsv_levels: u32,
    delayed: BinaryHeap<Reverse<(i64, u64, u32)>>,
    seq: u64,
    tick_count: i64,
    next_tick_k: i64,
    /// Pending tick: (nominal instant, tick number).
    tick_pending: Option<(i64, i64)>,
    pendsv_pending: bool,
    tick_released: Vec<u32>,
    irq_tasks: Vec<Vec<u32>>,
    irq_queue: Vec<VecDeque<i64>>,

    // interrupts
    irq_pending: Vec<Option<i64>>,
    irq_next: Vec<i64>,
    irq_eff: Vec<i32>,
    frames: Vec<Frame>,
    mask_depth: u32,

    // jobs
    has_job: Vec<bool>,
    job_arrival: Vec<i64>,
    job_idx: Vec<u64>,
    pending_arrival: Vec<i64>,

    // list-scan
    ls_counter: Vec<i64>,
    ls_period: Vec<i64>,
    run_queue: VecDeque<u32>,
    ls_cur: Option<usize>,
    ls_last: usize,
    ls_in_queue: Vec<bool>,
    tick_flag: Option<i64>,

    // tickless
    sleeping: bool,
    waking: bool,
    wake_timer: i64,
    wake_req: bool,
    wake_by_timer: bool,
    wake_extra_pending: bool,

    // statistics
    resp: Vec<Dist>,
    jobs: Vec<u64>,
    first_resp: Vec<Option<i64>>,
    released: Vec<u64>,
    misses: Vec<u64>,
    first_miss: Vec<Option<i64>>,
    preempt: Vec<u64>,
    overruns: Vec<u64>,
    task_cpu: Vec<i64>,
    tick_dur: Dist,
    tick_lost: u64,
    tick_max_lat: Option<i64>,
    tick_max_rel: u32,
    tick_peak: (i64, u64, Vec<i64>),
    series: Vec<TickRow>,
    sw_all: Agg,
    sw_pair: HashMap<(u32, u32), Agg>,
    sw_pair_dense: Vec<Agg>,
    sw_levels: Vec<Agg>,
    sw_dist: Vec<Agg>,
    /// By priority distance when the priorities are too far apart for `sw_dist`.
    sw_dist_map: HashMap<i64, Agg>,
    maxp: usize,
    irq_resp: Vec<Dist>,
    irq_count: Vec<u64>,
    irq_lost: Vec<u64>,
    irq_max_lat: Vec<Option<i64>>,
    cpu: CpuTime,
    sleeps: u64,
    wake_timer_n: u64,
    wake_irq_n: u64,
    ls_runs: u64,
    ls_lost: u64,
    ls_late: u64,
    ls_delay: Dist,
    ls_overruns: u64,

    // shared resources (docs/simulator.md section 2a)
    res_on: bool,
    base: Vec<u32>,
    ops: Vec<Vec<Op>>,
    op_i: Vec<usize>,
    op_rem: Vec<i64>,
    scratch: Vec<(i64, u8, i64, u32)>,
    lock_cost: i64,
    unlock_cost: i64,
    inherit_cost: i64,
    ceil: Vec<u32>,
    owner: Vec<Option<u32>>,
    isr_holds: Vec<u32>,
    hold_since: Vec<i64>,
    waiters: Vec<Vec<u32>>,
    held_inh: Vec<u32>,
    inh_prio: Vec<u32>,
    ceil_stack: Vec<Vec<u32>>,
    waiting: Vec<Option<u32>>,
    wait_since: Vec<i64>,
    wait_ep: Vec<Option<usize>>,
    job_inv: Vec<i64>,
    max_inv: Vec<i64>,
    blocked_total: Vec<i64>,
    /// Per interrupt: (elapsed time from the handler's start, resource, take?) at which
    /// its kernel critical sections begin and end.
    irq_bounds: Vec<Vec<(i64, u32, bool)>>,
    irq_cost: Vec<i64>,
    res_stats: Vec<ResStat>,
    res_ch: Vec<(bool, bool)>,

    // devices (engine/devices.rs)
    /// Index into `cfg.outputs` of each task's output.
    out_of: Vec<Option<usize>>,
    out_left: Vec<u32>,
    out_state: Vec<OutState>,
    /// Instant each device's line goes idle.
    dev_idle_at: Vec<i64>,
    dev_stats: Vec<DeviceStats>,

    // capture
    edges: Option<Vec<Vec<i64>>>,
    cur_ch: usize,
}

/// The first tick number whose instant is at or after `t` (see [`Sim::ceil_tick`]).
fn ceil_tick_of(t: i64, exact: bool, period: i64, num: i128, den: i128) -> i64 {
    if exact {
        return ceil_div(t, period);
    }
    // tick_time(k) = floor((2 k num + den) / (2 den)) >= t  <=>  2 k num >= 2 den t - den
    let a = 2 * den * t as i128 - den;
    let b = 2 * num;
    let q = a.div_euclid(b) + i128::from(a.rem_euclid(b) != 0);
    q.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

#[inline]
fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    if a.rem_euclid(b) == 0 {
        q
    } else {
        q + 1
    }
}

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
            tick_cost,
            sw_table,
            sw_const,
            time_slicing,
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
            delayed: BinaryHeap::with_capacity(n + 1),
            seq: 0,
            tick_count: 0,
            next_tick_k: 1,
            tick_pending: None,
            pendsv_pending: false,
            tick_released: Vec::with_capacity(n),
            irq_tasks,
            irq_queue: vec![VecDeque::new(); n],
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
            sw_all: Agg::default(),
            sw_pair: HashMap::new(),
            sw_pair_dense: if n < 256 {
                vec![Agg::default(); (n + 1) * (n + 1)]
            } else {
                Vec::new()
            },
            sw_levels: Vec::new(),
            sw_dist: if maxp <= 1 << 16 {
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
            cfg,
            opts,
        };
        sim.init();
        Ok(sim)
    }

    fn init(&mut self) {
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
            let (p, _) = self.select_level();
            self.cur = self.next_owner(p);
        } else {
            // The kernel starts with the tick flag set: the first scheduler run is at 0.
            self.tick_flag = Some(0);
            self.next_tick_k = 1;
        }
        self.cur_ch = self.task_level_channel();
        let c = self.cur_ch;
        self.toggle(c);
    }

    // ---------------------------------------------------------------- tick grid

    /// Instant of tick `k`: `round(k * 1e12 / tick_hz)` ps, integer arithmetic (ties
    /// round up); `k * period` when the period is a whole number of picoseconds.
    #[inline]
    fn tick_time(&self, k: i64) -> i64 {
        if self.tick_exact {
            return k.saturating_mul(self.period);
        }
        let v = (2 * k as i128 * self.tick_num + self.tick_den).div_euclid(2 * self.tick_den);
        v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// The first tick number whose instant is at or after `t`.
    #[inline]
    fn ceil_tick(&self, t: i64) -> i64 {
        ceil_tick_of(
            t,
            self.tick_exact,
            self.period,
            self.tick_num,
            self.tick_den,
        )
    }

    /// The last tick number whose instant is at or before `t`.
    #[inline]
    fn floor_tick(&self, t: i64) -> i64 {
        self.ceil_tick(t.saturating_add(1)) - 1
    }

    // ---------------------------------------------------------------- ready lists

    #[inline]
    fn end_marker(&self, p: usize) -> u32 {
        (self.n + 1 + p) as u32
    }

    fn ready_add(&mut self, x: usize) {
        let p = self.level[x] as usize;
        // vListInsertEnd: insert just before the list's index (visited last).
        let i = self.index[p] as usize;
        let before = self.pv[i] as usize;
        self.nx[before] = x as u32;
        self.pv[x] = before as u32;
        self.nx[x] = i as u32;
        self.pv[i] = x as u32;
        self.len[p] += 1;
        self.in_ready[x] = true;
        if p > self.top_ready {
            self.top_ready = p;
        }
        self.bitmap[p / 64] |= 1 << (p % 64);
    }

    fn ready_remove(&mut self, x: usize) {
        if !self.in_ready[x] {
            return;
        }
        let p = self.level[x] as usize;
        if self.index[p] as usize == x {
            self.index[p] = self.pv[x];
        }
        let (a, b) = (self.pv[x] as usize, self.nx[x] as usize);
        self.nx[a] = b as u32;
        self.pv[b] = a as u32;
        self.len[p] -= 1;
        self.in_ready[x] = false;
        if self.len[p] == 0 {
            self.bitmap[p / 64] &= !(1 << (p % 64));
        }
    }

    /// listGET_OWNER_OF_NEXT_ENTRY: advance the index (skipping the end marker).
    fn next_owner(&mut self, p: usize) -> usize {
        let e = self.end_marker(p);
        let mut i = self.nx[self.index[p] as usize];
        if i == e {
            i = self.nx[i as usize];
        }
        self.index[p] = i;
        i as usize
    }

    /// taskSELECT_HIGHEST_PRIORITY_TASK's level: (level, empty levels walked past).
    fn select_level(&mut self) -> (usize, u32) {
        if self.sw_const.is_some() {
            // Port-optimised: highest set bit of the ready bitmap.
            for w in (0..self.bitmap.len()).rev() {
                if self.bitmap[w] != 0 {
                    let p = w * 64 + 63 - self.bitmap[w].leading_zeros() as usize;
                    self.top_ready = p;
                    return (p, 0);
                }
            }
            return (0, 0);
        }
        // FreeRTOS walks every priority number down from uxTopReadyPriority; the numbers
        // between two dense levels hold no task, so the walk passes them all.
        let top = self.top_ready;
        let mut p = top;
        while self.len[p] == 0 && p > 0 {
            p -= 1;
        }
        self.top_ready = p;
        (p, self.level_prio[top] - self.level_prio[p])
    }

    // ---------------------------------------------------------------- jobs

    fn sample_exec(&mut self, i: usize) -> i64 {
        match &self.cfg.tasks[i].exec {
            ExecTime::Fixed(c) => c.0,
            ExecTime::Uniform { bcet, wcet } => {
                if bcet == wcet {
                    wcet.0
                } else {
                    self.rng.gen_range(bcet.0..=wcet.0)
                }
            }
            ExecTime::Empirical(v) => {
                let k = self.rng.gen_range(0..v.len());
                v[k].0
            }
        }
    }

    fn release_job(&mut self, i: usize, arrival: i64) {
        let c = self.sample_exec(i);
        self.has_job[i] = true;
        build_ops(
            &mut self.ops[i],
            &mut self.scratch,
            &self.cfg.tasks[i].sections,
            self.cfg.tasks[i].critical.0,
            c,
            self.lock_cost,
            self.unlock_cost,
        );
        self.op_i[i] = 0;
        self.op_rem[i] = self.ops[i].first().map_or(0, |o| o.len);
        self.job_inv[i] = 0;
        self.job_arrival[i] = arrival;
        self.released[i] += 1;
        self.events += 1;
    }

    /// Job `job_idx[i]` of a periodic task: arrival, release time and wake tick. Either
    /// releases it now (wake tick already counted: `at_start` or a late job) or delays it.
    /// Returns true when it was released at once.
    fn schedule_periodic(&mut self, i: usize, j: u64, at_start: bool) -> bool {
        let t = &self.cfg.tasks[i];
        let arrival = t
            .offset
            .0
            .saturating_add((j as i64).saturating_mul(t.period.0));
        let jit = if t.jitter.0 > 0 {
            self.rng.gen_range(0..=t.jitter.0)
        } else {
            0
        };
        let rel = arrival.saturating_add(jit);
        let wake = self.ceil_tick(rel);
        self.job_idx[i] = j;
        if (at_start && rel <= 0) || (!at_start && wake <= self.tick_count) {
            self.release_job(i, arrival);
            if at_start {
                self.ready_add(i);
            }
            true
        } else {
            self.pending_arrival[i] = arrival;
            self.seq += 1;
            self.delayed.push(Reverse((wake, self.seq, i as u32)));
            false
        }
    }

    fn record_completion(&mut self, i: usize) {
        let r = self.now - self.job_arrival[i];
        self.resp[i].add(r, self.job_arrival[i]);
        if self.jobs[i] == 0 {
            self.first_resp[i] = Some(r);
        }
        self.jobs[i] += 1;
        self.events += 1;
        self.max_inv[i] = self.max_inv[i].max(self.job_inv[i]);
        let d = self.cfg.tasks[i].deadline.0;
        if r > d {
            self.misses[i] += 1;
            let abs = self.job_arrival[i] + d;
            if self.first_miss[i].is_none_or(|f| abs < f) {
                self.first_miss[i] = Some(abs);
            }
        }
        self.has_job[i] = false;
    }

    // ---------------------------------------------------------------- capture

    #[inline]
    fn toggle(&mut self, c: usize) {
        let now = self.now;
        if let Some(e) = &mut self.edges {
            let v = &mut e[c];
            if v.last() == Some(&now) {
                v.pop();
            } else {
                v.push(now);
            }
        }
    }

    #[inline]
    fn set_channel(&mut self, c: usize) {
        if c != self.cur_ch {
            let old = self.cur_ch;
            self.toggle(old);
            self.toggle(c);
            self.cur_ch = c;
        }
    }

    fn task_level_channel(&self) -> usize {
        let n = self.n;
        if self.sleeping {
            return n + 1;
        }
        if self.tick_mode {
            if self.cur != self.idle && self.has_job[self.cur] && !self.cur_blocked {
                self.cur
            } else {
                n
            }
        } else {
            self.ls_cur.unwrap_or(n)
        }
    }

    fn frame_channel(&self, k: FrameKind) -> usize {
        let n = self.n;
        match k {
            FrameKind::Tick | FrameKind::Sched => n + 2,
            FrameKind::PendSv | FrameKind::ThreadSwitch(_) => n + 3,
            FrameKind::Wake => n + 4,
            FrameKind::Irq(q) => n + 5 + q as usize,
        }
    }

    /// Channel high while resource `r` is held (`wait`: while a task waits for it).
    fn res_channel(&self, r: usize, wait: bool) -> usize {
        let nres = self.cfg.resources.len();
        self.n + 5 + self.cfg.interrupts.len() + r + if wait { nres } else { 0 }
    }

    /// Brings resource `r`'s two channels up to date.
    fn sync_res(&mut self, r: usize) {
        let held = self.owner[r].is_some() || self.isr_holds[r] > 0;
        let wait = !self.waiters[r].is_empty();
        let (h0, w0) = self.res_ch[r];
        if held != h0 {
            let c = self.res_channel(r, false);
            self.toggle(c);
        }
        if wait != w0 {
            let c = self.res_channel(r, true);
            self.toggle(c);
        }
        self.res_ch[r] = (held, wait);
    }

    fn context_channel(&self) -> usize {
        match self.frames.last() {
            Some(f) => self.frame_channel(f.kind),
            None => self.task_level_channel(),
        }
    }

    // ---------------------------------------------------------------- main loop

    /// Current simulated time.
    pub fn now(&self) -> Picos {
        Picos(self.now)
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Runs until `until` (exclusive: events at exactly `until` are not processed).
    pub fn run_until(&mut self, until: Picos) {
        let until = until.0;
        loop {
            self.dispatch();
            let t_act = self.activity_end();
            let ticks_on = !self.sleeping && !self.waking;
            let t_tick = if ticks_on {
                self.tick_time(self.next_tick_k)
            } else {
                NEVER
            };
            let mut t_irq = NEVER;
            for &t in &self.irq_next {
                t_irq = t_irq.min(t);
            }
            let t = t_act.min(t_tick).min(t_irq).min(self.wake_timer);
            if t >= until {
                self.advance(until);
                return;
            }
            // A job's step of zero length (a section beginning where the job resumes)
            // waits for the arrivals at the same instant and the work they bring: a
            // section begins only once the job has run.
            let zero_step = t_act == self.now
                && self.frames.is_empty()
                && self.task_running().is_some()
                && (t_tick == t || t_irq == t || self.wake_timer == t);
            self.advance(t);
            if t_act == t && !zero_step {
                self.complete();
            }
            if t_tick == t {
                self.tick_arrival();
            }
            if t_irq == t {
                for q in 0..self.irq_next.len() {
                    if self.irq_next[q] == t {
                        self.irq_arrival(q);
                    }
                }
            }
            if self.wake_timer == t {
                self.wake_timer = NEVER;
                self.wake_req = true;
                self.wake_by_timer = true;
            }
        }
    }

    fn task_running(&self) -> Option<usize> {
        if self.tick_mode {
            (self.cur != self.idle && self.has_job[self.cur] && !self.cur_blocked)
                .then_some(self.cur)
        } else {
            self.ls_cur
        }
    }

    fn activity_end(&self) -> i64 {
        if let Some(f) = self.frames.last() {
            let mut r = f.rem;
            if let FrameKind::Irq(q) = f.kind {
                // stop at the handler's next section boundary
                if let Some(&(at, _, _)) = self.irq_bounds[q as usize].get(f.bi as usize) {
                    r = r.min((at - (f.total - f.rem)).max(0));
                }
            }
            return self.now.saturating_add(r);
        }
        if self.sleeping {
            return NEVER;
        }
        match self.task_running() {
            Some(i) => self.now.saturating_add(self.op_rem[i]),
            None => NEVER,
        }
    }

    fn advance(&mut self, t: i64) {
        let dt = t - self.now;
        if dt <= 0 {
            self.now = self.now.max(t);
            return;
        }
        if let Some(f) = self.frames.last_mut() {
            f.rem -= dt;
            match f.kind {
                FrameKind::Tick => self.cpu.tick += dt,
                FrameKind::PendSv | FrameKind::ThreadSwitch(_) => self.cpu.switch += dt,
                FrameKind::Irq(_) => self.cpu.irq += dt,
                FrameKind::Wake => self.cpu.wake += dt,
                FrameKind::Sched => self.cpu.sched += dt,
            }
        } else if self.sleeping {
            self.cpu.sleep += dt;
        } else if let Some(i) = self.task_running() {
            self.op_rem[i] -= dt;
            self.cpu.task += dt;
            self.task_cpu[i] += dt;
            if self.res_on {
                // blocking: a lower-priority task runs while a higher job is pending
                let b = self.base[i];
                for j in 0..self.n {
                    if j != i && self.has_job[j] && self.base[j] > b {
                        self.job_inv[j] += dt;
                    }
                }
            }
        } else {
            self.cpu.idle += dt;
        }
        self.now = t;
    }

    /// Kernel-level interrupts, the tick and PendSV held off: a kernel frame runs, or a
    /// task or handler is inside a kernel (or application) critical section.
    #[inline]
    fn masked(&self) -> bool {
        self.mask_depth > 0
    }

    fn dispatch(&mut self) {
        loop {
            if self.sleeping {
                if self.wake_req || self.irq_pending.iter().any(|p| p.is_some()) {
                    self.begin_wake();
                    continue;
                }
                return;
            }
            let cur_p = self.frames.last().map_or(P_TASK, |f| f.prio);
            let masked = self.masked();
            // user interrupts: highest effective priority, ties to the lower index
            let mut best: Option<usize> = None;
            for q in 0..self.irq_pending.len() {
                if self.irq_pending[q].is_none() {
                    continue;
                }
                if masked && !self.cfg.interrupts[q].above_kernel {
                    continue;
                }
                if self.irq_eff[q] <= cur_p {
                    continue;
                }
                if best.is_none_or(|b| self.irq_eff[q] > self.irq_eff[b]) {
                    best = Some(q);
                }
            }
            if let Some(q) = best {
                self.start_irq(q);
                continue;
            }
            if !masked && P_KERNEL_IRQ > cur_p {
                if self.pendsv_pending {
                    self.start_pendsv();
                    continue;
                }
                if self.tick_pending.is_some() {
                    self.start_tick();
                    continue;
                }
            }
            if !self.frames.is_empty() {
                return;
            }
            if self.tick_mode {
                if self.cur == self.idle && !self.pendsv_pending {
                    if self.len[0] > 1 {
                        // configIDLE_SHOULD_YIELD: the idle task yields at once to a
                        // ready application task of priority 0.
                        self.pendsv_pending = true;
                        continue;
                    }
                    if self.cfg.tickless.is_some() {
                        self.try_sleep();
                    }
                }
                return;
            }
            if self.ls_cur.is_none() {
                // The run queue is worked off first; the scheduler runs once it is empty
                // and the tick flag is set (so overrunning threads push it later).
                if let Some(th) = self.run_queue.pop_front() {
                    self.ls_in_queue[th as usize] = false;
                    self.push_frame(FrameKind::ThreadSwitch(th), self.sw_table[0], 0);
                    self.record_switch(self.ls_last, th as usize, self.sw_table[0], 0);
                    continue;
                }
                if self.tick_flag.is_some() {
                    self.start_sched();
                    continue;
                }
            }
            return;
        }
    }

    fn push_frame(&mut self, kind: FrameKind, cost: i64, arrival: i64) {
        let (prio, masks) = match kind {
            FrameKind::Tick | FrameKind::PendSv => (P_KERNEL_IRQ, true),
            FrameKind::Irq(q) => (self.irq_eff[q as usize], false),
            FrameKind::Wake => (P_WAKE, false),
            FrameKind::Sched | FrameKind::ThreadSwitch(_) => (P_THREAD_KERNEL, false),
        };
        self.frames.push(Frame {
            kind,
            rem: cost.max(0),
            prio,
            masks,
            arrival,
            total: cost.max(0),
            bi: 0,
        });
        if masks {
            self.mask_depth += 1;
        }
        let c = self.frame_channel(kind);
        self.set_channel(c);
    }

    fn start_irq(&mut self, q: usize) {
        let arr = self.irq_pending[q].take().unwrap_or(self.now);
        let lat = self.now - arr;
        let m = &mut self.irq_max_lat[q];
        *m = Some(m.map_or(lat, |x| x.max(lat)));
        let cost = self.irq_cost[q];
        self.push_frame(FrameKind::Irq(q as u32), cost, arr);
    }

    fn start_tick(&mut self) {
        let (nominal, k) = self
            .tick_pending
            .take()
            .unwrap_or((self.now, self.floor_tick(self.now)));
        self.tick_count = self.tick_count.max(k);
        self.tick_released.clear();
        while let Some(Reverse((w, _, i))) = self.delayed.peek().copied() {
            if w > self.tick_count {
                break;
            }
            self.delayed.pop();
            self.tick_released.push(i);
        }
        let r = self.tick_released.len();
        let cost = self.l + self.tick_cost[r.min(self.tick_cost.len() - 1)];
        self.note_tick(nominal, cost, r as u32);
        self.push_frame(FrameKind::Tick, cost, nominal);
    }

    fn note_tick(&mut self, nominal: i64, cost: i64, released: u32) {
        self.tick_dur.add(cost, nominal);
        let lat = self.now - nominal;
        self.tick_max_lat = Some(self.tick_max_lat.map_or(lat, |x| x.max(lat)));
        self.tick_max_rel = self.tick_max_rel.max(released);
        let pk = &mut self.tick_peak;
        if cost > pk.0 {
            pk.0 = cost;
            pk.1 = 0;
            pk.2.clear();
        }
        if cost == pk.0 {
            pk.1 += 1;
            if pk.2.len() < 100 {
                pk.2.push(nominal);
            }
        }
        if self.opts.series {
            self.series.push(TickRow {
                time: Picos(nominal),
                duration: Picos(cost),
                released,
            });
        }
    }

    fn switch_cost(&self, levels: u32) -> i64 {
        match self.sw_const {
            Some(c) => c,
            None => self.sw_table[(levels as usize).min(self.sw_table.len() - 1)],
        }
    }

    fn start_pendsv(&mut self) {
        self.pendsv_pending = false;
        let (p, skipped) = self.select_level();
        let to = self.next_owner(p);
        self.pendsv_to = to;
        self.pendsv_levels = skipped;
        let mut cost = self.l + self.switch_cost(skipped);
        if self.wake_extra_pending {
            self.wake_extra_pending = false;
            cost += self.cfg.tickless.as_ref().map_or(0, |t| t.switch_extra.0);
        }
        self.record_switch(self.cur, to, cost, skipped);
        self.push_frame(FrameKind::PendSv, cost, self.now);
    }

    fn record_switch(&mut self, from: usize, to: usize, cost: i64, levels: u32) {
        self.events += 1;
        self.sw_all.add(cost);
        let nn = self.n + 1;
        if self.sw_pair_dense.is_empty() {
            self.sw_pair
                .entry((from as u32, to as u32))
                .or_default()
                .add(cost);
        } else {
            self.sw_pair_dense[from * nn + to].add(cost);
        }
        // the FreeRTOS overheads paper Table 4 counts loop iterations: at least one list is inspected.
        let lv = levels.max(1) as usize;
        if self.sw_levels.len() <= lv {
            self.sw_levels.resize(lv + 1, Agg::default());
        }
        self.sw_levels[lv].add(cost);
        let d = self.prio[from] as i64 - self.prio[to] as i64;
        if self.sw_dist.is_empty() {
            self.sw_dist_map.entry(d).or_default().add(cost);
        } else {
            let k = (d + self.maxp as i64) as usize;
            self.sw_dist[k].add(cost);
        }
    }

    fn start_sched(&mut self) {
        let ft = self.tick_flag.take().unwrap_or(self.now);
        self.events += 1;
        self.ls_runs += 1;
        self.ls_delay.add(self.now - ft, ft);
        if self.now >= self.tick_time(self.floor_tick(ft) + 1) {
            self.ls_late += 1;
        }
        let Kernel::ListScan(k) = &self.cfg.kernel else {
            return;
        };
        let check = k.check_cost.0;
        let mut cost = 0i64;
        let mut rel = 0u32;
        for i in 0..self.n {
            cost += check;
            // A writer suspended on a full FIFO goes back on the run queue once the
            // status check finds the FIFO-empty flag set.
            if self.out_state[i] == OutState::Suspended && self.output_flag_set(i) {
                cost += self.ls_enqueue(i);
            }
            self.ls_counter[i] -= 1;
            if self.ls_counter[i] > 0 {
                continue;
            }
            self.ls_counter[i] = self.ls_period[i];
            if self.ls_in_queue[i] || self.ls_cur == Some(i) || self.has_job[i] {
                self.ls_overruns += 1;
                self.overruns[i] += 1;
                continue;
            }
            cost += self.ls_enqueue(i);
            self.release_job(i, ft);
            rel += 1;
        }
        self.note_tick(ft, cost, rel);
        self.push_frame(FrameKind::Sched, cost, ft);
    }

    /// Puts thread `i` on the run queue behind every queued thread of equal or higher
    /// priority; returns the insertion's cost.
    fn ls_enqueue(&mut self, i: usize) -> i64 {
        let p = self.prio[i];
        let pos = self
            .run_queue
            .iter()
            .position(|&x| self.prio[x as usize] < p)
            .unwrap_or(self.run_queue.len());
        self.run_queue.insert(pos, i as u32);
        self.ls_in_queue[i] = true;
        match &self.cfg.kernel {
            Kernel::ListScan(k) => k
                .insert_cost
                .get(pos)
                .or(k.insert_cost.last())
                .map_or(0, |c| c.0),
            Kernel::Tick(_) => 0,
        }
    }

    fn begin_wake(&mut self) {
        self.events += 1;
        self.sleeping = false;
        self.waking = true;
        self.wake_req = false;
        self.wake_timer = NEVER;
        if self.wake_by_timer {
            self.wake_timer_n += 1;
        } else {
            self.wake_irq_n += 1;
        }
        self.wake_by_timer = false;
        let lat = self.cfg.tickless.as_ref().map_or(0, |t| t.exit_latency.0);
        self.push_frame(FrameKind::Wake, lat, self.now);
    }

    fn try_sleep(&mut self) {
        let Some(tl) = &self.cfg.tickless else {
            return;
        };
        if self.tick_pending.is_some() || self.len[0] > 1 {
            return;
        }
        let next_wake = self.delayed.peek().map(|Reverse((w, _, _))| *w);
        let need = tl.min_idle_ticks.max(tl.margin_ticks + 1) as i64;
        let wake_at = match next_wake {
            Some(w) => {
                if w - self.tick_count < need {
                    return;
                }
                self.tick_time(w - tl.margin_ticks as i64)
            }
            None => NEVER,
        };
        if wake_at <= self.now {
            return;
        }
        self.sleeping = true;
        self.wake_timer = wake_at;
        self.sleeps += 1;
        self.events += 1;
        let c = self.n + 1;
        self.set_channel(c);
    }

    fn tick_arrival(&mut self) {
        let k = self.next_tick_k;
        let t = self.tick_time(k);
        self.next_tick_k += 1;
        self.events += 1;
        if self.tick_mode {
            if self.tick_pending.is_some() {
                self.tick_lost += 1;
                self.tick_count = self.tick_count.max(k);
            } else {
                self.tick_pending = Some((t, k));
            }
        } else if self.tick_flag.is_some() {
            self.ls_lost += 1;
        } else {
            self.tick_flag = Some(t);
        }
    }

    fn irq_arrival(&mut self, q: usize) {
        let t = self.irq_next[q];
        self.events += 1;
        self.irq_count[q] += 1;
        if self.irq_pending[q].is_some() {
            self.irq_lost[q] += 1;
        } else {
            self.irq_pending[q] = Some(t);
        }
        self.irq_next[q] = match self.cfg.interrupts[q].arrival {
            IrqArrival::Periodic { period, .. } => t.saturating_add(period.0),
            IrqArrival::Sporadic { min, max, .. } => {
                let g = if min == max {
                    min.0
                } else {
                    self.rng.gen_range(min.0..=max.0)
                };
                t.saturating_add(g)
            }
        };
    }

    fn complete(&mut self) {
        if let Some(f) = self.frames.last().copied() {
            if let FrameKind::Irq(q) = f.kind {
                self.irq_section_bounds(q as usize);
            }
            if f.rem > 0 {
                return;
            }
            self.frames.pop();
            if f.masks {
                self.mask_depth -= 1;
            }
            self.end_frame(f);
            let c = self.context_channel();
            self.set_channel(c);
            return;
        }
        let Some(i) = self.task_running() else {
            return;
        };
        // A job with output writes it after its own execution (engine/devices.rs).
        let done = if self.out_state[i] != OutState::Off {
            self.output_step(i)
        } else {
            self.step_ops(i) && self.output_begin(i)
        };
        if !done {
            // a step of the job ended (a section begins or ends, the task blocked, an
            // output step ended or the writer suspended)
            let c = self.context_channel();
            self.set_channel(c);
            return;
        }
        self.record_completion(i);
        if self.tick_mode {
            self.after_job_tick_mode(i);
        } else {
            self.ls_cur = None;
            self.ls_last = i;
        }
        let c = self.context_channel();
        self.set_channel(c);
    }

    fn after_job_tick_mode(&mut self, i: usize) {
        match self.cfg.tasks[i].activation {
            Activation::Periodic => {
                let j = self.job_idx[i] + 1;
                if !self.schedule_periodic(i, j, false) {
                    self.ready_remove(i);
                    self.cur_blocked = true;
                }
                // vTaskDelayUntil yields whether or not it blocked.
                self.pendsv_pending = true;
            }
            Activation::Interrupt(_) => {
                if let Some(a) = self.irq_queue[i].pop_front() {
                    self.release_job(i, a);
                } else {
                    self.ready_remove(i);
                    self.cur_blocked = true;
                    self.pendsv_pending = true;
                }
            }
        }
    }

    fn end_frame(&mut self, f: Frame) {
        match f.kind {
            FrameKind::Tick => {
                let cur_p = self.prio[self.cur];
                let mut switch = false;
                for k in 0..self.tick_released.len() {
                    let i = self.tick_released[k] as usize;
                    let a = self.pending_arrival[i];
                    self.release_job(i, a);
                    self.ready_add(i);
                    if self.prio[i] > cur_p {
                        switch = true;
                    }
                }
                if self.time_slicing && self.len[self.level[self.cur] as usize] > 1 {
                    switch = true;
                }
                if switch {
                    self.pendsv_pending = true;
                }
            }
            FrameKind::PendSv => {
                let prev = self.cur;
                let to = self.pendsv_to;
                if prev != to && prev != self.idle && !self.cur_blocked && self.has_job[prev] {
                    self.preempt[prev] += 1;
                }
                self.cur = to;
                self.cur_blocked = false;
            }
            FrameKind::Irq(q) => {
                let q = q as usize;
                let r = self.now - f.arrival;
                self.irq_resp[q].add(r, f.arrival);
                for k in 0..self.irq_tasks[q].len() {
                    let i = self.irq_tasks[q][k] as usize;
                    if !self.has_job[i] && !self.in_ready[i] {
                        self.release_job(i, f.arrival);
                        self.ready_add(i);
                        if i == self.cur {
                            self.cur_blocked = false;
                        }
                        if self.prio[i] > self.prio[self.cur] || self.cur_blocked {
                            self.pendsv_pending = true;
                        }
                    } else if self.irq_queue[i].len() < IRQ_QUEUE_CAP {
                        self.irq_queue[i].push_back(f.arrival);
                    } else {
                        self.overruns[i] += 1;
                    }
                }
            }
            FrameKind::Wake => {
                self.waking = false;
                // vTaskStepTick: the count steps over the ticks slept through. When a
                // delayed task's wake time has come (the last tick instant at or before
                // now reaches it), the step stops one short and that tick is processed
                // at once (xPendedTicks / the pending SysTick), releasing every due task.
                let k = self.floor_tick(self.now);
                let due = self
                    .delayed
                    .peek()
                    .is_some_and(|Reverse((w, _, _))| *w <= k);
                if due && k > self.tick_count && self.tick_pending.is_none() {
                    self.tick_count = k - 1;
                    self.tick_pending = Some((self.tick_time(k), k));
                    self.next_tick_k = (k + 1).max(self.next_tick_k);
                } else {
                    // Otherwise the tick resumes on its grid: the first tick instant at
                    // or after now fires (at once if now is one).
                    let kc = self.ceil_tick(self.now);
                    self.next_tick_k = kc.max(self.next_tick_k);
                    self.tick_count = self.tick_count.max(kc - 1);
                }
                if self
                    .cfg
                    .tickless
                    .as_ref()
                    .is_some_and(|t| t.switch_extra.0 > 0)
                {
                    self.wake_extra_pending = true;
                }
            }
            FrameKind::Sched => {}
            FrameKind::ThreadSwitch(th) => {
                self.ls_cur = Some(th as usize);
            }
        }
    }

    // ---------------------------------------------------------------- results

    /// Tick series rows (when `SimOptions::series`).
    pub fn series(&self) -> &[TickRow] {
        &self.series
    }

    /// Writes the tick series as CSV: `time_ns,duration_ns,released`.
    pub fn write_series_csv<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        writeln!(w, "time_ns,duration_ns,released")?;
        for r in &self.series {
            writeln!(
                w,
                "{},{},{}",
                fmt_ns(r.time.0),
                fmt_ns(r.duration.0),
                r.released
            )?;
        }
        Ok(())
    }

    /// The virtual logic-analyzer capture (empty channels unless `SimOptions::capture`).
    pub fn capture(&self) -> Capture {
        let n = self.n;
        let mut names: Vec<String> = self.cfg.tasks.iter().map(|t| t.name.clone()).collect();
        names.push("idle".into());
        names.push("sleep".into());
        names.push(if self.tick_mode { "tick" } else { "scheduler" }.into());
        names.push("switch".into());
        names.push("wake".into());
        for q in &self.cfg.interrupts {
            names.push(q.name.clone());
        }
        for r in &self.cfg.resources {
            names.push(format!("held_{}", r.name));
        }
        for r in &self.cfg.resources {
            names.push(format!("wait_{}", r.name));
        }
        // Channel names must be unique: suffix later duplicates.
        let mut seen = std::collections::HashSet::new();
        for nm in names.iter_mut() {
            if !seen.insert(nm.clone()) {
                let mut k = 2;
                while seen.contains(&format!("{nm}#{k}")) {
                    k += 1;
                }
                *nm = format!("{nm}#{k}");
                seen.insert(nm.clone());
            }
        }
        let _ = n;
        let channels = names
            .into_iter()
            .enumerate()
            .map(|(c, name)| DigitalChannel {
                name,
                initial: false,
                edges: self
                    .edges
                    .as_ref()
                    .map(|e| e[c].iter().map(|&t| Picos(t)).collect())
                    .unwrap_or_default(),
            })
            .collect();
        Capture {
            source: if self.opts.source.is_empty() {
                "simulation".into()
            } else {
                format!("simulation of {}", self.opts.source)
            },
            samplerate_hz: None,
            start: Picos(0),
            end: Picos(self.now),
            channels,
            analog: Vec::new(),
        }
    }

    /// Builds the report for the time simulated so far.
    pub fn report(&self) -> SimReport {
        let dur = self.now.max(1);
        let mut tasks = Vec::with_capacity(self.n);
        for i in 0..self.n {
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
            tasks.push(TaskReport {
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
            });
        }
        let td = self.tick_dur.summary();
        let tick = TickReport {
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
        };
        let name = |x: u32| -> String {
            let x = x as usize;
            if x >= self.n {
                "idle".into()
            } else {
                self.cfg.tasks[x].name.clone()
            }
        };
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
        let mut dists: Vec<(i64, Agg)> = self
            .sw_dist
            .iter()
            .enumerate()
            .filter(|(_, g)| g.count > 0)
            .map(|(k, g)| (k as i64 - self.maxp as i64, *g))
            .chain(self.sw_dist_map.iter().map(|(d, g)| (*d, *g)))
            .collect();
        dists.sort_by_key(|(d, _)| *d);
        let switches = SwitchReport {
            count: self.sw_all.count,
            min_ns: (self.sw_all.count > 0).then(|| ns(self.sw_all.min)),
            mean_ns: (self.sw_all.count > 0).then(|| self.sw_all.group().mean_ns),
            max_ns: (self.sw_all.count > 0).then(|| ns(self.sw_all.max)),
            by_pair: pairs
                .into_iter()
                .map(|((a, b), g)| SwitchGroup {
                    from: Some(name(a)),
                    to: Some(name(b)),
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
        };
        let interrupts = (0..self.cfg.interrupts.len())
            .map(|q| IrqReport {
                name: self.cfg.interrupts[q].name.clone(),
                count: self.irq_count[q],
                lost: self.irq_lost[q],
                response: self.irq_resp[q].summary(),
                max_latency_ns: self.irq_max_lat[q].map(ns),
            })
            .collect();
        let c = &self.cpu;
        let f = |x: i64| x as f64 / dur as f64;
        let cpu = CpuSplit {
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
        };
        let sleep = SleepReport {
            state: self.cfg.tickless.as_ref().map(|t| t.state.clone()),
            sleeps: self.sleeps,
            wakeups: self.wake_timer_n + self.wake_irq_n,
            timer_wakeups: self.wake_timer_n,
            interrupt_wakeups: self.wake_irq_n,
        };
        let list_scan = (!self.tick_mode).then(|| ListScanReport {
            scheduler_runs: self.ls_runs,
            lost_ticks: self.ls_lost,
            late_runs: self.ls_late,
            delay: self.ls_delay.summary(),
            overruns: self.ls_overruns,
        });
        let tname = |x: usize| self.cfg.tasks[x].name.clone();
        let resources = self
            .cfg
            .resources
            .iter()
            .enumerate()
            .map(|(r, res)| {
                let st = &self.res_stats[r];
                let held_now = self.owner[r].is_some() || self.isr_holds[r] > 0;
                let cur_hold = if held_now {
                    self.now - self.hold_since[r]
                } else {
                    0
                };
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
            })
            .collect();
        SimReport {
            resources,
            kind: "simulate",
            schema_version: 1,
            source: self.opts.source.clone(),
            kernel: if self.tick_mode { "tick" } else { "list-scan" },
            seed: self.opts.seed,
            duration_ns: ns(self.now),
            hyperperiod_ns: self.cfg.hyperperiod().map(|h| ns(h.0)),
            tick_period_ns: ns(self.period),
            events: self.events,
            tasks,
            tick,
            switches,
            interrupts,
            cpu,
            sleep,
            list_scan,
        }
    }
}

/// Picoseconds as a decimal nanosecond string without float rounding (`1500.25`).
pub fn fmt_ns(ps: i64) -> String {
    let neg = ps < 0;
    let a = ps.unsigned_abs();
    let (i, f) = (a / 1000, a % 1000);
    let s = if f == 0 {
        format!("{i}")
    } else {
        let mut fs = format!("{f:03}");
        while fs.ends_with('0') {
            fs.pop();
        }
        format!("{i}.{fs}")
    };
    if neg {
        format!("-{s}")
    } else {
        s
    }
}
