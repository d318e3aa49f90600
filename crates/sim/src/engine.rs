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
//!
//! This file holds the state ([`Sim`]) and its small types; each concept's methods live
//! in a module of their own: `setup` (sizing and time 0), `event_loop` (the loop above),
//! `arrivals`, `dispatch`, `frames` (entering and leaving interrupt frames), `tick`,
//! `tick_grid`, `switch` (PendSV and switch statistics), `ready` (ready lists), `edf`
//! (selection by absolute deadline), `jobs`,
//! `list_scan`, `tickless`, `resources`, `devices`, `channels` (the virtual capture) and
//! `summary` (series and report).

mod arrivals;
mod channels;
mod delayed;
mod devices;
mod dispatch;
mod edf;
mod event_loop;
mod frames;
mod jobs;
mod list_scan;
mod ready;
mod resources;
mod setup;
mod summary;
mod switch;
mod tick;
mod tick_grid;
mod tick_relay;
mod tickless;

use crate::config::*;
use crate::report::*;
pub use devices::DeviceStats;
use devices::OutState;
use latscope_core::capture::{Capture, DigitalChannel};
use latscope_core::Picos;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use resources::{build_ops, Op, OpKind, ResStat};
use std::collections::{HashMap, VecDeque};
pub use summary::fmt_ns;

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

/// Count, extremes and sum of switch costs. An empty one starts from the extremes' far
/// ends so that `add` needs no test (two adds per switch); it is reported only when its
/// count is above zero. Integers only, so merging two is exact.
#[derive(Clone, Copy, Debug)]
struct Agg {
    count: u64,
    min: i64,
    max: i64,
    sum: i128,
}

impl Default for Agg {
    fn default() -> Self {
        Agg {
            count: 0,
            min: i64::MAX,
            max: i64::MIN,
            sum: 0,
        }
    }
}

impl Agg {
    #[inline]
    fn add(&mut self, v: i64) {
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.count += 1;
        self.sum += v as i128;
    }
    /// Both together, as if every value of `o` had been added to `self`.
    fn merge(&mut self, o: &Agg) {
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.count += o.count;
        self.sum += o.sum;
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
    /// Ticks and deferred switches that nothing can interrupt or cut short are taken in
    /// one step (`Sim::quiet_tick`, `Sim::pendsv_in_one_step`); off only to test those
    /// steps against the long way. `one_steps` counts them (ticks, switches).
    one_step: bool,
    one_steps: (u64, u64),
    /// The end of the run in progress (`run_loop`) and whether it is inclusive;
    /// `i64::MIN` outside a run, where nothing may move the clock.
    run_limit: i64,
    run_inclusive: bool,

    // tick kernel
    tick_cost: Vec<i64>,
    /// The costliest tick handler: `l` plus the table's largest entry.
    tick_cost_max: i64,
    sw_table: Vec<i64>,
    sw_const: Option<i64>,
    time_slicing: bool,
    /// Earliest-deadline-first selection (`engine/edf.rs`) instead of the ready lists'.
    edf: bool,
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
    delayed: delayed::Delayed,
    tick_count: i64,
    next_tick_k: i64,
    /// Pending tick: (nominal instant, tick number).
    tick_pending: Option<(i64, i64)>,
    pendsv_pending: bool,
    tick_released: Vec<u32>,
    irq_tasks: Vec<Vec<u32>>,
    irq_queue: Vec<VecDeque<i64>>,
    /// Per task: the tasks its completion releases (chains' event links).
    task_succ: Vec<Vec<u32>>,
    /// Chain observation (`Sim::observe_chains`), absent without chains.
    chains: Option<Box<crate::chains::ChainObserver>>,

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
    sw_pair: HashMap<(u32, u32), Agg>,
    sw_pair_dense: Vec<Agg>,
    sw_levels: Vec<Agg>,
    /// By priority distance at the switch, with shared resources only (inheritance and
    /// ceilings change priorities): offset by the highest priority, and in the map when
    /// the priorities are too far apart for the table. Without resources the distance is
    /// a function of the pair, and the report merges the pairs.
    sw_dist: Vec<Agg>,
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

    // multicore (crate::multicore): per interrupt, the queue of (arrival, origin) of an
    // interrupt raised from another core; whether its handler's ends are recorded; the
    // ends recorded
    ext: Vec<Option<VecDeque<(i64, i64)>>>,
    notify: Vec<bool>,
    fired: Vec<(usize, i64, i64)>,
    /// Broadcast tick (`engine/tick_relay.rs`): on a core whose tick is relayed from the
    /// tick core, the relayed ticks to come, (arrival, nominal instant); on the tick
    /// core, whether its tick ends are recorded, and the ends recorded (end, nominal).
    tick_ext: Option<VecDeque<(i64, i64)>>,
    tick_notify: bool,
    tick_fired: Vec<(i64, i64)>,
}

impl Sim {
    /// Observes these end-to-end chains (`crate::chains`) from now on; their latencies
    /// appear in [`Sim::report`] as `chains`.
    pub fn observe_chains(&mut self, chains: Vec<crate::chains::SimChain>) {
        self.chains = (!chains.is_empty()).then(|| {
            Box::new(crate::chains::ChainObserver::new(
                chains,
                self.cfg.tasks.len(),
                self.cfg.interrupts.len(),
            ))
        });
    }

    /// Installs a chain observer (multicore: a core's recorder), telling it the jobs
    /// already released (those the scheduler start made ready at time 0).
    pub(crate) fn set_chain_observer(&mut self, mut o: crate::chains::ChainObserver) {
        for i in 0..self.cfg.tasks.len() {
            if self.has_job[i] {
                o.task_release(i, self.job_arrival[i]);
            }
        }
        self.chains = Some(Box::new(o));
    }

    /// The chain observer, if any.
    pub(crate) fn chain_observer_mut(&mut self) -> Option<&mut crate::chains::ChainObserver> {
        self.chains.as_deref_mut()
    }
}
