//! The incremental interference demand of one tick mode, carried from task to task.

use super::ticks::{ceil_div_fast, f64_of};

/// What a charge is attributed to in the breakdown.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Attr {
    Task(usize),
    Tick,
    Interrupt,
}

/// An interfering sporadic demand: `ceil((w + jitter) / period)` releases, each charging
/// `work + switch` (the entity's work and its context switches) and a tick pseudo-task
/// part `tick` that one tick pays at most once (`min(releases, ceil(w / T_tick))` times).
#[derive(Clone, Copy)]
pub(super) struct Entity {
    pub(super) period: i64,
    pub(super) jitter: i64,
    pub(super) work: i64,
    pub(super) switch: i64,
    pub(super) tick: i64,
    /// A task the tick releases, in partitioned mode: its releases count towards the
    /// ticks that release at least one task, which pay the tick's first-release excess.
    pub(super) first_rel: bool,
    pub(super) attr: Attr,
}

/// Whether the once-per-tick cap on a tick part can bind. Without jitter and with a
/// period of at least one tick, `ceil(w / T) <= ceil(w / T_tick)` for every `w`, so the
/// tick part is simply charged per release (the common case, and a cheaper one).
pub(super) fn cap_binds(tick: i64, jitter: i64, period: i64, tick_p: i64) -> bool {
    tick != 0 && (jitter != 0 || period < tick_p)
}

/// The running sums of [`Demand::begin`] at one entity index that depend on the
/// analysed task (its charges and preemption group).
#[derive(Clone, Copy)]
pub(super) struct Fold {
    u_int: f64,
    jitter_work: f64,
    pre_rate: f64,
}

impl Fold {
    /// Before any entity: each sum a left fold from -0.0 (as `Iterator::sum` is).
    const START: Fold = Fold {
        u_int: -0.0,
        jitter_work: -0.0,
        pre_rate: -0.0,
    };
}

/// Entities per block of [`Demand::block_next`].
const BLOCK: usize = 8;

/// How many folds past its first changed entity [`Demand::begin`] keeps.
const FOLDS_AHEAD: usize = 8;

/// What [`Demand::begin`] derives for the start of a task's iteration.
pub(super) struct Started {
    /// Long-run utilisation of the interference (tick parts capped at one per tick).
    pub(super) u_int: f64,
    /// `sum (work + switch)_e J_e / T_e`: the jitter term of the linear lower bound.
    pub(super) jitter_work: f64,
    /// One release of every entity, `sum (work + switch + tick)_e`.
    pub(super) first: i128,
}

/// The interfering entities of the tasks of one tick mode and their incremental demand,
/// carried from task to task.
///
/// Within one task's analysis a window only grows (across the fixed-point iterations and
/// across the jobs q of the busy window), so each entity's release count only grows: it
/// is recomputed only when w passes the entity's next release boundary (count n holds
/// while w <= n T - J), and most entities cost one comparison per iteration.
///
/// Across tasks (in priority order) only the charges change (which tasks are of higher
/// priority, their switch costs), not the periods and jitters. The counts found at the
/// previous task's first fixed point are kept (`snapshot`), and the next task's window
/// usually starts at or above it (see `Hint`), so its first evaluation reuses them. A
/// window below the counts' window resets them. Exact: the same integers as recomputing
/// every term at every step (a unit test checks it).
#[derive(Default)]
pub(super) struct Demand {
    // Per entity, fixed for the mode.
    pub(super) period: Vec<i64>,
    /// `1 / period`, for a division-free first guess in [`ceil_div_fast`].
    pub(super) inv: Vec<f64>,
    pub(super) jitter: Vec<i64>,
    pub(super) tick: Vec<i64>,
    pub(super) capped: Vec<bool>,
    /// Indices of the capped entities.
    pub(super) capped_idx: Vec<usize>,
    pub(super) attr: Vec<Attr>,
    // Per entity, per analysed task.
    pub(super) work: Vec<i64>,
    pub(super) switch: Vec<i64>,
    /// Charge per release folded into `sum`: `work + switch + tick`, or `work + switch`
    /// for a capped entity (whose tick part is summed in `sum_tick`).
    pub(super) cost: Vec<i64>,
    /// Linear lower bound terms of the `cost` part: the rate `cost / T` and the jitter
    /// term `cost J / T`.
    pub(super) rate: Vec<f64>,
    pub(super) jterm: Vec<f64>,
    /// Entities `0..active` interfere with the analysed task.
    pub(super) active: usize,
    // Release counts.
    /// Release count of each entity at `w_eval`.
    pub(super) n: Vec<i64>,
    /// Largest window for which `n` still holds (`n T - J`).
    pub(super) next: Vec<i64>,
    /// Per block of [`BLOCK`] entities, the smallest `next` in it: a window at or below
    /// it releases none of them, so an evaluation skips the block with one comparison.
    /// Entities are in priority order, usually with the short periods first, so most
    /// evaluations release nothing in the later blocks.
    pub(super) block_next: Vec<i64>,
    /// The window of the counts (`i64::MIN`: none yet).
    pub(super) w_eval: i64,
    /// `ceil(w_eval / T_tick)`.
    pub(super) ticks: i64,
    /// `sum n_e cost_e`
    pub(super) sum: i128,
    /// `sum_capped min(n_e, ticks) tick_e`
    pub(super) sum_tick: i128,
    /// Counts kept at the last task's first fixed point, if its window went further.
    pub(super) snap_n: Vec<i64>,
    pub(super) snap_next: Vec<i64>,
    pub(super) snap_block_next: Vec<i64>,
    pub(super) snap_w: i64,
    pub(super) snap_ticks: i64,
    pub(super) snap_sum: i128,
    /// `first_n` and `pre_n` at the snapshot (the flags do not change between a
    /// snapshot and the next restore: `set_pre` runs after it).
    pub(super) snap_groups: (i64, i64),
    pub(super) snap_valid: bool,
    /// `sum (work + switch)_e` over all entities.
    pub(super) first: i128,
    /// Position of the last analysed task.
    pub(super) prev_me: usize,
    /// Per entity: whether it is a tick-released task (see [`Entity::first_rel`]).
    pub(super) first_rel: Vec<bool>,
    /// The tick's first-release excess `X` (piecewise tick cost, partitioned mode),
    /// charged once per tick that releases at least one task:
    /// `X min(ticks(w), sum_{first_rel} n_e(w))`.
    pub(super) first_excess: i64,
    /// That charge at `w_eval`.
    pub(super) sum_first: i128,
    /// Per entity: a higher-priority task the tick releases, when one switch is charged
    /// per preemption (`SwitchCharge::PerEvent`): a tick that releases at least one of
    /// them causes one preemption switch, `pre_cost` (see `docs/analysis.md`).
    pub(super) pre_flag: Vec<bool>,
    pub(super) pre_cost: i64,
    /// `pre_cost min(ticks(w), sum_{pre_flag} n_e(w))` at `w_eval`.
    pub(super) sum_pre: i128,
    /// `sum_{first_rel} n_e` and `sum_{pre_flag} n_e` over all entities, kept up to date
    /// with the counts (so an evaluation does not sum them again).
    pub(super) first_n: i64,
    pub(super) pre_n: i64,
    /// The left folds of [`Demand::begin`]'s sums over the entities before each index:
    /// `folds[k]` is their state before entity `k`, valid for `k <= folds_valid`. Tasks
    /// are analysed in priority order and change only the charges of the entities from
    /// the previous task's position on, so a task's sums resume from the fold there
    /// instead of visiting every entity again: the same additions in the same order, so
    /// the same numbers.
    pub(super) folds: Vec<Fold>,
    pub(super) folds_valid: usize,
    /// The sums of [`Demand::begin`] that depend only on the mode's entities, per
    /// number of entities: `first_rates[k]` is `sum 1 / T_e` over the tick-released
    /// entities before `k`, `ticks_before[k]` is `sum tick_e` over the entities before
    /// `k`. Left folds in entity order, as `begin`'s other sums, so the same numbers as
    /// summing them in each task's `begin`; built at the first `begin` after a `push`.
    pub(super) first_rates: Vec<f64>,
    pub(super) ticks_before: Vec<i128>,
    /// Some entity has a negative jitter (a phase after the window start, from the
    /// offset-based bound, [`offsets`]): it may have no release in a short window, so
    /// one release of everything is no lower bound.
    pub(super) negative_jitter: bool,
}

impl Demand {
    /// Removes every entity (keeping the allocations).
    pub(super) fn clear(&mut self) {
        for v in [
            &mut self.period,
            &mut self.jitter,
            &mut self.tick,
            &mut self.work,
            &mut self.switch,
            &mut self.cost,
            &mut self.n,
            &mut self.next,
            &mut self.block_next,
        ] {
            v.clear();
        }
        for v in [&mut self.inv, &mut self.rate, &mut self.jterm] {
            v.clear();
        }
        self.capped.clear();
        self.first_rel.clear();
        self.first_excess = 0;
        self.sum_first = 0;
        self.pre_flag.clear();
        self.pre_cost = 0;
        self.sum_pre = 0;
        self.first_n = 0;
        self.pre_n = 0;
        self.capped_idx.clear();
        self.attr.clear();
        self.active = 0;
        self.w_eval = i64::MIN;
        self.ticks = 0;
        self.sum = 0;
        self.sum_tick = 0;
        self.snap_valid = false;
        self.first = 0;
        self.prev_me = 0;
        self.negative_jitter = false;
        self.folds.clear();
        self.folds_valid = 0;
        self.first_rates.clear();
        self.ticks_before.clear();
    }

    pub(super) fn with_capacity(n: usize) -> Demand {
        Demand {
            period: Vec::with_capacity(n),
            inv: Vec::with_capacity(n),
            jitter: Vec::with_capacity(n),
            tick: Vec::with_capacity(n),
            capped: Vec::with_capacity(n),
            attr: Vec::with_capacity(n),
            work: Vec::with_capacity(n),
            switch: Vec::with_capacity(n),
            cost: Vec::with_capacity(n),
            rate: Vec::with_capacity(n),
            jterm: Vec::with_capacity(n),
            n: Vec::with_capacity(n),
            next: Vec::with_capacity(n),
            ..Default::default()
        }
    }

    /// Adds an entity (inactive until `begin` includes it).
    pub(super) fn push(&mut self, e: Entity, tick_p: i64) {
        let k = self.period.len();
        let capped = cap_binds(e.tick, e.jitter, e.period, tick_p);
        if capped {
            self.capped_idx.push(k);
        }
        let inv = 1.0 / e.period as f64;
        let cost = if capped { 0 } else { e.tick };
        self.negative_jitter |= e.jitter < 0;
        self.period.push(e.period);
        self.inv.push(inv);
        self.jitter.push(e.jitter);
        self.tick.push(e.tick);
        self.capped.push(capped);
        self.first_rel.push(e.first_rel);
        self.pre_flag.push(false);
        self.attr.push(e.attr);
        self.work.push(0);
        self.switch.push(0);
        self.cost.push(cost);
        self.rate.push(cost as f64 * inv);
        self.jterm.push(cost as f64 * inv * e.jitter as f64);
        self.n.push(0);
        self.next.push(i64::MIN);
        if k.is_multiple_of(BLOCK) {
            self.block_next.push(i64::MIN);
        } else if let Some(b) = self.block_next.last_mut() {
            *b = i64::MIN;
        }
        self.set(k, e.work, e.switch);
        self.folds_valid = self.folds_valid.min(k);
        self.first_rates.clear();
        self.ticks_before.clear();
        self.w_eval = i64::MIN;
        self.snap_valid = false;
    }

    /// Sets an entity's work and switch charges per release (keeping `sum` and `first`
    /// up to date for the current counts).
    #[inline]
    pub(super) fn set(&mut self, k: usize, work: i64, switch: i64) {
        if work == self.work[k] && switch == self.switch[k] {
            return;
        }
        let ws = work.saturating_add(switch);
        let cost = if self.capped[k] {
            ws
        } else {
            ws.saturating_add(self.tick[k])
        };
        self.first += ws as i128 - (self.work[k] as i128 + self.switch[k] as i128);
        self.sum += self.n[k] as i128 * (cost as i128 - self.cost[k] as i128);
        self.work[k] = work;
        self.switch[k] = switch;
        self.cost[k] = cost;
        self.folds_valid = self.folds_valid.min(k);
        let c = cost as f64 * self.inv[k];
        self.rate[k] = c;
        self.jterm[k] = c * self.jitter[k] as f64;
    }

    pub(super) fn reset_counts(&mut self) {
        self.sum = 0;
        self.n.fill(0);
        self.next.fill(i64::MIN);
        self.block_next.fill(i64::MIN);
        self.w_eval = i64::MIN;
        self.ticks = 0;
        self.sum_tick = 0;
        self.sum_first = 0;
        self.sum_pre = 0;
        self.first_n = 0;
        self.pre_n = 0;
    }

    /// Sets whether entity `k` counts towards the preemption switches (keeping `pre_n`).
    #[inline]
    pub(super) fn set_pre(&mut self, k: usize, flag: bool) {
        if self.pre_flag[k] != flag {
            self.pre_flag[k] = flag;
            self.folds_valid = self.folds_valid.min(k);
            self.pre_n += if flag { self.n[k] } else { -self.n[k] };
        }
    }

    /// Recomputes `first_n` and `pre_n` from the counts (the unit test's check of the
    /// kept ones).
    #[cfg(test)]
    pub(super) fn recount_groups(&mut self) {
        let (mut f, mut p) = (0i64, 0i64);
        for k in 0..self.n.len() {
            if self.first_rel[k] {
                f += self.n[k];
            }
            if self.pre_flag[k] {
                p += self.n[k];
            }
        }
        self.first_n = f;
        self.pre_n = p;
    }

    /// Restores the counts kept by `snapshot` (before a task's `set` calls).
    pub(super) fn restore(&mut self) {
        if self.snap_valid {
            self.n.copy_from_slice(&self.snap_n);
            self.next.copy_from_slice(&self.snap_next);
            self.block_next.copy_from_slice(&self.snap_block_next);
            self.w_eval = self.snap_w;
            self.ticks = self.snap_ticks;
            self.sum = self.snap_sum;
            self.snap_valid = false;
            (self.first_n, self.pre_n) = self.snap_groups;
        }
    }

    /// Starts a task's analysis with entities `0..active` (after its `set` calls).
    pub(super) fn begin(&mut self, active: usize, tick_p: i64) -> Started {
        // Entities past `active` have no charges (see `analyse_task`), so `first` and
        // `sum` over all entities are those of the active ones.
        self.active = active;
        // The sums over the mode's fixed data, once per mode (see `first_rates`).
        if self.ticks_before.len() != self.period.len() + 1 {
            self.prefix_sums();
        }
        let first_rate = self.first_rates[active];
        let tick_first = self.ticks_before[active];
        // One pass for the three other sums, each still a left fold from -0.0 in entity
        // order (as `Iterator::sum` is), so they are the same numbers as three separate
        // sums; resumed from the last valid fold (see `folds`).
        if self.folds.is_empty() {
            self.folds.push(Fold::START);
            self.folds_valid = 0;
        }
        let from = self.folds_valid.min(active);
        self.folds.truncate(from + 1);
        let Fold {
            mut u_int,
            mut jitter_work,
            mut pre_rate,
        } = self.folds[from];
        let (rate, jterm, inv) = (
            &self.rate[from..active],
            &self.jterm[from..active],
            &self.inv[from..active],
        );
        let pf = &self.pre_flag[from..active];
        // The next task resumes a few entities further on (the previous task's own
        // entity is the one whose charge changes), so only the folds just ahead are
        // kept; a resume further on starts from the last one kept (still exact).
        let kept = (active - from).min(FOLDS_AHEAD);
        for k in 0..active - from {
            u_int += rate[k];
            jitter_work += jterm[k];
            if pf[k] {
                pre_rate += inv[k];
            }
            if k < kept {
                self.folds.push(Fold {
                    u_int,
                    jitter_work,
                    pre_rate,
                });
            }
        }
        self.folds_valid = from + kept;
        for &k in self.capped_idx.iter().filter(|&&k| k < active) {
            u_int += self.tick[k] as f64 / self.period[k].max(tick_p) as f64;
        }
        // min(ticks, sum n_e) >= w min(1 / T_tick, sum 1 / T_e): a linear bound.
        let tick_rate = 1.0 / tick_p as f64;
        if self.first_excess > 0 {
            u_int += self.first_excess as f64 * first_rate.min(tick_rate);
        }
        if self.pre_cost > 0 {
            u_int += self.pre_cost as f64 * pre_rate.min(tick_rate);
        }
        Started {
            u_int,
            jitter_work,
            first: if self.negative_jitter {
                0
            } else {
                self.first + tick_first
            },
        }
    }

    /// Builds `first_rates` and `ticks_before` from the entities.
    fn prefix_sums(&mut self) {
        let len = self.period.len();
        self.first_rates.clear();
        self.ticks_before.clear();
        self.first_rates.reserve(len + 1);
        self.ticks_before.reserve(len + 1);
        let (mut first_rate, mut tick) = (-0.0f64, 0i128);
        self.first_rates.push(first_rate);
        self.ticks_before.push(tick);
        for k in 0..len {
            if self.first_rel[k] {
                first_rate += self.inv[k];
            }
            tick += self.tick[k] as i128;
            self.first_rates.push(first_rate);
            self.ticks_before.push(tick);
        }
    }

    /// Keeps the counts at the current window for the next task.
    pub(super) fn snapshot(&mut self) {
        self.snap_n.clone_from(&self.n);
        self.snap_next.clone_from(&self.next);
        self.snap_block_next.clone_from(&self.block_next);
        self.snap_w = self.w_eval;
        self.snap_ticks = self.ticks;
        self.snap_sum = self.sum;
        self.snap_groups = (self.first_n, self.pre_n);
        self.snap_valid = true;
    }

    /// `sum_e n_e(w) (work + switch)_e + min(n_e(w), ticks(w)) tick_e` over the active
    /// entities.
    pub(super) fn at(&mut self, w: i64, tick_p: i64, tick_inv: f64) -> i128 {
        if w < self.w_eval {
            self.reset_counts();
        } else if w == self.w_eval {
            // The same window again (the first evaluation of the next job q + 1).
            return self.advance(w, tick_p, tick_inv);
        }
        let a = self.active;
        let (period, jitter, inv) = (&self.period[..a], &self.jitter[..a], &self.inv[..a]);
        let (cost, n) = (&self.cost[..a], &mut self.n[..a]);
        let next = &mut self.next[..];
        let (fr, pf) = (&self.first_rel[..a], &self.pre_flag[..a]);
        let (mut first_n, mut pre_n) = (self.first_n, self.pre_n);
        let mut sum = self.sum;
        let blocks = &mut self.block_next[..a.div_ceil(BLOCK)];
        let mut b = 0;
        // A tight search for the next block with a release, then a visit of its entities.
        while let Some(skip) = blocks[b..].iter().position(|&m| w > m) {
            b += skip;
            let lo = b * BLOCK;
            let hi = (lo + BLOCK).min(a);
            // The block's smallest boundary after the visit.
            let mut least = i64::MAX;
            for k in lo..hi {
                if w > next[k] {
                    let d;
                    // `w <= next + T`, i.e. `w - next <= T` (both saturated: the same
                    // answer, with one saturating operation instead of two).
                    let one_on = next[k].saturating_add(period[k]);
                    if n[k] > 0 && w <= one_on {
                        // Within one period past the boundary: exactly one more release.
                        sum += cost[k] as i128;
                        n[k] += 1;
                        d = 1;
                        next[k] = one_on;
                    } else {
                        // Recount (exact integers).
                        let c = ceil_div_fast(w.saturating_add(jitter[k]), period[k], inv[k]);
                        sum += (c - n[k]) as i128 * cost[k] as i128;
                        d = c - n[k];
                        n[k] = c;
                        // `c T - J`, saturated (i64 arithmetic unless it overflows).
                        next[k] = match c
                            .checked_mul(period[k])
                            .and_then(|x| x.checked_sub(jitter[k]))
                        {
                            Some(x) => x,
                            None => (c as i128 * period[k] as i128 - jitter[k] as i128)
                                .clamp(i64::MIN as i128, i64::MAX as i128)
                                as i64,
                        };
                    }
                    // Branch-free: the flags are 0 or 1.
                    first_n += d * fr[k] as i64;
                    pre_n += d * pf[k] as i64;
                }
                least = least.min(next[k]);
            }
            // The entities of the block past `active` (in the last block only).
            for &x in &next[hi..(lo + BLOCK).min(next.len())] {
                least = least.min(x);
            }
            blocks[b] = least;
            b += 1;
        }
        self.first_n = first_n;
        self.pre_n = pre_n;
        self.sum = sum;
        self.advance(w, tick_p, tick_inv)
    }

    /// Moves the counts' window to `w` (at or above `w_eval`, with no entity releasing
    /// in between) and returns the demand there: the tick-count terms.
    #[inline]
    pub(super) fn advance(&mut self, w: i64, tick_p: i64, tick_inv: f64) -> i128 {
        self.w_eval = w;
        self.ticks = ceil_div_fast(w, tick_p, tick_inv);
        let ticks = self.ticks;
        self.sum_tick = self
            .capped_idx
            .iter()
            .filter(|&&k| k < self.active)
            .map(|&k| self.n[k].min(ticks) as i128 * self.tick[k] as i128)
            .sum();
        // Entities past `active` carry no flags in use (the preemption group is the
        // higher-priority tasks; the first-release group is used in partitioned mode,
        // where every entity is active).
        self.sum_first = self.first_n.min(ticks) as i128 * self.first_excess as i128;
        self.sum_pre = self.pre_n.min(ticks) as i128 * self.pre_cost as i128;
        self.sum + self.sum_tick + self.sum_first + self.sum_pre
    }

    /// The preemption switches charged in a window `w` (see `pre_flag`), from fresh
    /// counts.
    pub(super) fn pre_charge(&self, w: i64, ticks: i64) -> i128 {
        if self.pre_cost <= 0 {
            return 0;
        }
        let rel: i64 = (0..self.active)
            .filter(|&k| self.pre_flag[k])
            .map(|k| self.counts(k, w, ticks).0)
            .sum();
        rel.min(ticks) as i128 * self.pre_cost as i128
    }

    /// The first-release excess charged in a window `w` (see `first_excess`), from
    /// fresh counts.
    pub(super) fn first_charge(&self, w: i64, ticks: i64) -> i128 {
        if self.first_excess <= 0 {
            return 0;
        }
        let rel: i64 = (0..self.active)
            .filter(|&k| self.first_rel[k])
            .map(|k| self.counts(k, w, ticks).0)
            .sum();
        rel.min(ticks) as i128 * self.first_excess as i128
    }

    /// Releases of entity `k` in a window `w`, and its tick-charged releases (a tick
    /// releases a task at most once, so its tick pseudo-task is charged at most once per
    /// tick, `ticks` = ceil(w / T_tick); this keeps every partitioned charge at or below
    /// the pessimistic one).
    pub(super) fn counts(&self, k: usize, w: i64, ticks: i64) -> (i64, i64) {
        let n = ceil_div_fast(
            w.saturating_add(self.jitter[k]),
            self.period[k],
            self.inv[k],
        );
        (n, n.min(ticks))
    }

    /// A lower bound on the least fixed point of `w = base + demand(w)` that is at least
    /// `next` (the plain iteration's next value), or `None`. Every entity's contribution
    /// at the fixed point is at least its contribution at the last window (counts only
    /// grow) and at least its linear bound `rate * w + J-term` (since `ceil(x) >= x` and
    /// a capped tick count is at least `w / max(T, T_tick)`). Taking, per entity, either
    /// of the two and solving the resulting linear inequality gives a bound the fixed
    /// point cannot be below; jumping there skips the slow geometric approach of the
    /// plain iteration when the utilisation is close to 1.
    ///
    /// The linear bound is the larger at `next` exactly when `next` is past the entity's
    /// release boundary (`cost (x + J) / T >= n cost` iff `x >= n T - J`), so only the
    /// entities about to release again are visited: the others keep their count's
    /// contribution, which is already in the running total.
    pub(super) fn linear_lower_bound(&self, base: i128, next: i64, tick_p: i64) -> Option<i64> {
        let x0 = next as f64;
        let a = self.active;
        let (ns, cost, rate, jterm, bound) = (
            &self.n[..a],
            &self.cost[..a],
            &self.rate[..a],
            &self.jterm[..a],
            &self.next[..a],
        );
        // The first-release and preemption-switch charges only grow with the window:
        // at least their values at the last evaluation.
        let mut num = f64_of(base) + f64_of(self.sum) + f64_of(self.sum_first + self.sum_pre);
        let mut den = 1.0f64;
        // A block whose boundaries are all past `next` adds nothing (and skipping it
        // leaves the additions of the others in the same order).
        for (blk, &block_next) in self.block_next.iter().enumerate() {
            let lo = blk * BLOCK;
            if lo >= a {
                break;
            }
            if block_next > next {
                continue;
            }
            for k in lo..(lo + BLOCK).min(a) {
                if bound[k] <= next {
                    den -= rate[k];
                    num += jterm[k] - ns[k] as f64 * cost[k] as f64;
                }
            }
        }
        // The tick parts of capped entities, bounded on their own (splitting an entity's
        // demand into two parts bounded separately is still a lower bound).
        for &k in self.capped_idx.iter().filter(|&&k| k < self.active) {
            let c = self.n[k].min(self.ticks) as f64 * self.tick[k] as f64;
            let rate = self.tick[k] as f64 / self.period[k].max(tick_p) as f64;
            if rate * x0 >= c {
                den -= rate;
            } else {
                num += c;
            }
        }
        // A small denominator magnifies rounding: only trust a well-conditioned bound, and
        // keep a margin far above the floating-point error of the sums.
        if den < 1e-4 {
            return None;
        }
        let lb = num / den * (1.0 - 1e-9) - 1.0;
        (lb.is_finite() && lb > x0 && lb < (i64::MAX / 4) as f64).then_some(lb as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::{Attr, Demand, Entity};
    use crate::rta::ticks::ceil_div_fast;
    use rand::{Rng, SeedableRng};

    /// [`Demand::begin`]'s sums written out as its doc states them: each a separate
    /// left fold (`Iterator::sum`) over the active entities in order.
    fn begin_by_definition(d: &Demand, active: usize, tick_p: i64) -> super::Started {
        let ks = || 0..active;
        let mut u_int: f64 = ks().map(|k| d.rate[k]).sum();
        let jitter_work: f64 = ks().map(|k| d.jterm[k]).sum();
        let first_rate: f64 = ks().filter(|&k| d.first_rel[k]).map(|k| d.inv[k]).sum();
        let pre_rate: f64 = ks().filter(|&k| d.pre_flag[k]).map(|k| d.inv[k]).sum();
        let tick_first: i128 = ks().map(|k| d.tick[k] as i128).sum();
        for k in ks().filter(|&k| d.capped[k]) {
            u_int += d.tick[k] as f64 / d.period[k].max(tick_p) as f64;
        }
        let tick_rate = 1.0 / tick_p as f64;
        if d.first_excess > 0 {
            u_int += d.first_excess as f64 * first_rate.min(tick_rate);
        }
        if d.pre_cost > 0 {
            u_int += d.pre_cost as f64 * pre_rate.min(tick_rate);
        }
        let first: i128 = ks().map(|k| (d.work[k] + d.switch[k]) as i128).sum();
        super::Started {
            u_int,
            jitter_work,
            first: if d.negative_jitter {
                0
            } else {
                first + tick_first
            },
        }
    }

    /// The incremental demand equals the direct sum `n (work + switch) + min(n, ticks)
    /// tick` through growing windows, charge changes between "tasks" (with the counts
    /// kept by `snapshot` and restored), windows below the counts' one (a reset), and a
    /// changing number of active entities.
    #[test]
    fn incremental_demand_equals_direct_sum() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for _ in 0..300 {
            let tick_p: i64 = rng.gen_range(1_000..1_000_000);
            let tick_inv = 1.0 / tick_p as f64;
            let mut d = Demand::default();
            let len = rng.gen_range(1..20);
            for _ in 0..len {
                let period: i64 = rng.gen_range(100..5_000_000);
                d.push(
                    Entity {
                        period,
                        jitter: if rng.gen_bool(0.3) {
                            rng.gen_range(0..3 * period)
                        } else {
                            0
                        },
                        work: rng.gen_range(0..1000),
                        switch: rng.gen_range(0..100),
                        tick: if rng.gen_bool(0.5) {
                            rng.gen_range(0..500)
                        } else {
                            0
                        },
                        first_rel: rng.gen_bool(0.5),
                        attr: Attr::Tick,
                    },
                    tick_p,
                );
            }
            d.first_excess = if rng.gen_bool(0.5) {
                rng.gen_range(0..700)
            } else {
                0
            };
            d.pre_cost = if rng.gen_bool(0.5) {
                rng.gen_range(0..300)
            } else {
                0
            };
            // Entities past `active` carry no charges (`begin`'s precondition).
            let mut active = rng.gen_range(1..=len);
            for k in active..len {
                d.set(k, 0, 0);
            }
            let mut w: i64 = rng.gen_range(0..1000);
            for task in 0..6 {
                if task > 0 {
                    d.restore();
                    // The group counts restored are those of the restored counts.
                    let kept = (d.first_n, d.pre_n);
                    d.recount_groups();
                    assert_eq!(kept, (d.first_n, d.pre_n));
                    for _ in 0..rng.gen_range(0..4) {
                        let k = rng.gen_range(0..active);
                        let (work, switch) = (rng.gen_range(0..1000), rng.gen_range(0..100));
                        d.set(k, work, switch);
                    }
                    let grown = rng.gen_range(active..=len);
                    for k in active..grown {
                        let (work, switch) = (rng.gen_range(0..1000), rng.gen_range(0..100));
                        d.set(k, work, switch);
                    }
                    active = grown;
                    // Preemption-group flags change after the restore (`set_charges`).
                    for _ in 0..rng.gen_range(0..3) {
                        let k = rng.gen_range(0..active);
                        d.set_pre(k, rng.gen_bool(0.5));
                    }
                    if rng.gen_bool(0.3) {
                        w = rng.gen_range(0..w.max(1)); // below the counts: a reset
                    }
                }
                let st = d.begin(active, tick_p);
                // The sums resumed from the kept folds are those of a pass from the
                // first entity.
                d.folds_valid = 0;
                let fresh = d.begin(active, tick_p);
                assert_eq!(st.u_int.to_bits(), fresh.u_int.to_bits());
                assert_eq!(st.jitter_work.to_bits(), fresh.jitter_work.to_bits());
                assert_eq!(st.first, fresh.first);
                // And those of plain sums over the entities, by their definition.
                let plain = begin_by_definition(&d, active, tick_p);
                assert_eq!(st.u_int.to_bits(), plain.u_int.to_bits());
                assert_eq!(st.jitter_work.to_bits(), plain.jitter_work.to_bits());
                assert_eq!(st.first, plain.first);
                let first: i128 = (0..active)
                    .map(|k| (d.work[k] + d.switch[k] + d.tick[k]) as i128)
                    .sum();
                assert_eq!(st.first, first);
                for step in 0..20 {
                    let ticks = ceil_div_fast(w, tick_p, tick_inv);
                    let direct: i128 = (0..active)
                        .map(|k| {
                            let (n, nt) = d.counts(k, w, ticks);
                            n as i128 * (d.work[k] + d.switch[k]) as i128
                                + nt as i128 * d.tick[k] as i128
                        })
                        .sum::<i128>()
                        + {
                            let rel: i64 = (0..active)
                                .filter(|&k| d.first_rel[k])
                                .map(|k| d.counts(k, w, ticks).0)
                                .sum();
                            rel.min(ticks) as i128 * d.first_excess as i128
                        }
                        + d.pre_charge(w, ticks);
                    assert_eq!(d.at(w, tick_p, tick_inv), direct, "w {w}");
                    // Each block's kept boundary is its entities' smallest.
                    for (b, chunk) in d.next.chunks(super::BLOCK).enumerate() {
                        assert_eq!(d.block_next[b], chunk.iter().copied().min().unwrap());
                    }
                    assert_eq!(d.block_next.len(), d.next.len().div_ceil(super::BLOCK));
                    if step == 3 {
                        d.snapshot();
                    }
                    // The same window again (the shortcut for job q + 1's first
                    // evaluation), sometimes after a charge change, which must show
                    // (charges change only before the snapshot, as in `analyse_task`).
                    if rng.gen_bool(0.3) {
                        let changed = step < 3 && rng.gen_bool(0.5);
                        if changed {
                            let k = rng.gen_range(0..active);
                            let (work, switch) = (rng.gen_range(0..1000), rng.gen_range(0..100));
                            d.set(k, work, switch);
                        }
                        let direct: i128 = (0..active)
                            .map(|k| {
                                let (n, nt) = d.counts(k, w, ticks);
                                n as i128 * (d.work[k] + d.switch[k]) as i128
                                    + nt as i128 * d.tick[k] as i128
                            })
                            .sum::<i128>()
                            + d.first_charge(w, ticks)
                            + d.pre_charge(w, ticks);
                        assert_eq!(d.at(w, tick_p, tick_inv), direct, "again at w {w}");
                    }
                    w += rng.gen_range(0..3_000_000);
                }
            }
        }
    }
}
