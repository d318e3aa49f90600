//! Random task sets for experiments and benchmarks.
//!
//! * Utilisations: UUniFast (E. Bini and G. C. Buttazzo, "Measuring the performance of
//!   schedulability tests", Real-Time Systems 30(1-2), 2005) and UUniFast-Discard
//!   (R. I. Davis and A. Burns, "Priority assignment for global fixed priority
//!   pre-emptive scheduling in multiprocessor real-time systems", RTSS 2009), which
//!   redraws a vector until every task utilisation is at most a cap.
//! * Periods ([`PeriodDist`]): log-uniform between a minimum and a maximum, rounded down
//!   to a granularity (P. Emberson, R. Stafford and R. I. Davis, "Techniques for the
//!   synthesis of multiprocessor tasksets", WATERS 2010), the default; uniform over the
//!   multiples of the granularity between the minimum and the maximum; or drawn uniformly
//!   from a given list (e.g. the automotive-style 1, 2, 5, 10, 20, 50, 100, 200, 1000 ms).
//! * WCET = utilisation x period, rounded down to whole nanoseconds (at least 1 ns); a
//!   set whose total utilisation this moves by more than 0.1 % is refused, and so is a
//!   drawn per-task utilisation above 1 (audit D15);
//!   priorities are rate-monotonic (shorter period = larger number), all distinct;
//!   deadlines equal periods.
//!
//! Seeded with ChaCha8 so a seed gives the same sets on every platform.

use crate::system::{Arrival, System, Task};
use latscope_core::time::parse_duration;
use latscope_core::Picos;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How utilisations are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    UUniFast,
    /// UUniFast, redrawn until every task's utilisation is at most `max_task_utilisation`.
    UUniFastDiscard,
}

/// How periods are drawn. Every period is a multiple of the spec's granularity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PeriodDist {
    /// Log-uniform between the minimum and the maximum, rounded down to the granularity.
    #[default]
    LogUniform,
    /// Uniform over the multiples of the granularity between the minimum and the maximum
    /// (both included).
    Uniform,
    /// One of these periods, each equally likely (the minimum and maximum are not used).
    /// Each must be a multiple of the granularity (a period that is not is refused rather
    /// than silently changed).
    Choice(Vec<Picos>),
}

/// `--periods` (clap's `value_parser`) and Python read the text through [`PeriodDist::parse`].
impl std::str::FromStr for PeriodDist {
    type Err = GenerateError;
    fn from_str(text: &str) -> Result<Self, GenerateError> {
        PeriodDist::parse(text)
    }
}

impl PeriodDist {
    /// Parses `log-uniform`, `uniform` or `choice:P1,P2,…` (each a duration with a unit,
    /// e.g. `choice:1ms,2ms,5ms,10ms`; a bare number takes the unit of the last value,
    /// so `choice:1,2,5,10ms` is the same).
    pub fn parse(text: &str) -> Result<PeriodDist, GenerateError> {
        let t = text.trim();
        let bad = |m: String| Err(GenerateError::Invalid(format!("periods {t:?}: {m}")));
        match t {
            "log-uniform" | "loguniform" => return Ok(PeriodDist::LogUniform),
            "uniform" => return Ok(PeriodDist::Uniform),
            _ => {}
        }
        let Some(list) = t.strip_prefix("choice:") else {
            return bad(
                "give log-uniform, uniform or choice:P1,P2,… (e.g. choice:1ms,10ms,100ms)".into(),
            );
        };
        let items: Vec<&str> = list.split(',').map(str::trim).collect();
        if items.iter().any(|i| i.is_empty()) {
            return bad("an empty value in the list (give choice:P1,P2,… with durations)".into());
        }
        // The unit of the last value applies to bare numbers before it.
        let unit: String = items
            .last()
            .map(|l| l.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or("")
            .trim()
            .to_string();
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let bare = item
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '_');
            let text = if bare && !unit.is_empty() {
                format!("{item}{unit}")
            } else {
                item.to_string()
            };
            match parse_duration(&text) {
                Ok(p) if p.0 > 0 => out.push(p),
                Ok(_) => return bad(format!("value {} ({item}) must be greater than 0", i + 1)),
                Err(e) => return bad(format!("value {} ({item}): {e}", i + 1)),
            }
        }
        Ok(PeriodDist::Choice(out))
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateSpec {
    pub tasks: usize,
    /// Total task utilisation (0 < U).
    pub utilisation: f64,
    pub method: Method,
    /// Cap per task for UUniFast-Discard (default 1).
    pub max_task_utilisation: f64,
    pub period_min: Picos,
    pub period_max: Picos,
    /// Periods are multiples of this (use the tick period for tick-aligned sets).
    pub granularity: Picos,
    /// How periods are drawn (default log-uniform).
    pub periods: PeriodDist,
    pub seed: u64,
}

/// Why a set could not be generated.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GenerateError {
    #[error("invalid generator setting: {0}")]
    Invalid(String),
    #[error(
        "UUniFast-Discard gave up after {0} draws: lower the utilisation or raise the per-task cap"
    )]
    TooManyDiscards(u32),
    /// A drawn per-task utilisation above 1 (plain UUniFast with a total above 1, or a
    /// per-task cap above 1): its WCET would exceed its period (audit D15).
    #[error(
        "set {set}: task t{task} drew a utilisation of {utilisation:.4} > 1 (its WCET would \
         exceed its period); UUniFast spreads the total without a per-task limit, use \
         --method discard --max-task-util 1 (UUniFast-Discard)"
    )]
    TaskAboveOne {
        set: usize,
        task: usize,
        utilisation: f64,
    },
    /// Rounding WCETs to whole nanoseconds moved the total utilisation by more than
    /// [`ROUNDING_TOLERANCE`] (periods too short for the nanosecond grid).
    #[error(
        "set {set}: rounding the WCETs to whole nanoseconds gives a total utilisation of \
         {delivered:.6} instead of {requested:.6} (more than 0.1 % off); use longer periods \
         (--period-min) or fewer tasks"
    )]
    Rounding {
        set: usize,
        requested: f64,
        delivered: f64,
    },
}

/// Largest relative change of the total utilisation that rounding the WCETs to whole
/// nanoseconds may cause before `generate` refuses the set.
pub const ROUNDING_TOLERANCE: f64 = 1e-3;

/// UUniFast: `n` utilisations summing to `total`, uniformly distributed over the simplex.
pub fn uunifast(rng: &mut impl Rng, n: usize, total: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    let mut sum = total;
    for i in 1..n {
        let next = sum * rng.gen::<f64>().powf(1.0 / (n - i) as f64);
        out.push(sum - next);
        sum = next;
    }
    if n > 0 {
        out.push(sum);
    }
    out
}

/// UUniFast-Discard: redraw until every utilisation is at most `cap` (at most
/// `max_draws` draws).
pub fn uunifast_discard(
    rng: &mut impl Rng,
    n: usize,
    total: f64,
    cap: f64,
    max_draws: u32,
) -> Result<Vec<f64>, GenerateError> {
    for _ in 0..max_draws {
        let u = uunifast(rng, n, total);
        if u.iter().all(|&x| x <= cap) {
            return Ok(u);
        }
    }
    Err(GenerateError::TooManyDiscards(max_draws))
}

/// A period drawn log-uniformly in `[min, max]` and rounded down to a multiple of
/// `granularity` (never below one granule).
pub fn log_uniform_period(rng: &mut impl Rng, min: Picos, max: Picos, granularity: Picos) -> Picos {
    let g = granularity.0.max(1);
    let lo = (min.0.max(1) as f64).ln();
    let hi = ((max.0 + g) as f64).ln();
    let x = (lo + rng.gen::<f64>() * (hi - lo)).exp() as i64;
    let p = (x / g) * g;
    Picos(p.clamp(((min.0 + g - 1) / g * g).max(g), max.0 / g * g))
}

/// A period drawn uniformly from the multiples of `granularity` in `[min, max]` (never
/// below one granule).
pub fn uniform_period(rng: &mut impl Rng, min: Picos, max: Picos, granularity: Picos) -> Picos {
    let g = granularity.0.max(1);
    let lo = (min.0.max(1).saturating_add(g - 1) / g).max(1);
    let hi = (max.0 / g).max(lo);
    Picos(rng.gen_range(lo..=hi) * g)
}

/// A period drawn uniformly from `choices`, rounded down to a multiple of `granularity`
/// (never below one granule). `choices` must not be empty.
pub fn choice_period(rng: &mut impl Rng, choices: &[Picos], granularity: Picos) -> Picos {
    let g = granularity.0.max(1);
    let p = choices[rng.gen_range(0..choices.len())];
    Picos((p.0 / g).max(1) * g)
}

impl GenerateSpec {
    /// One period drawn as [`GenerateSpec::periods`] says.
    fn period(&self, rng: &mut impl Rng) -> Picos {
        match &self.periods {
            PeriodDist::LogUniform => {
                log_uniform_period(rng, self.period_min, self.period_max, self.granularity)
            }
            PeriodDist::Uniform => {
                uniform_period(rng, self.period_min, self.period_max, self.granularity)
            }
            PeriodDist::Choice(c) => choice_period(rng, c, self.granularity),
        }
    }

    fn check(&self) -> Result<(), GenerateError> {
        let bad = |m: &str| Err(GenerateError::Invalid(m.to_string()));
        if self.tasks == 0 {
            return bad("at least one task");
        }
        if !(self.utilisation > 0.0 && self.utilisation.is_finite()) {
            return bad("the utilisation must be greater than 0");
        }
        if self.granularity.0 <= 0 {
            return bad("the period granularity must be greater than 0");
        }
        if let PeriodDist::Choice(c) = &self.periods {
            if c.is_empty() {
                return bad("choice: give at least one period");
            }
            if let Some(p) = c.iter().find(|p| p.0 <= 0) {
                return bad(&format!("choice: the period {p} must be greater than 0"));
            }
            if let Some(p) = c.iter().find(|p| p.0 % self.granularity.0 != 0) {
                return bad(&format!(
                    "choice: the period {p} is not a multiple of the granularity {} \
                     (give --granularity that divides every listed period)",
                    self.granularity
                ));
            }
        } else if self.period_min.0 <= 0 || self.period_max < self.period_min {
            return bad("periods need 0 < min <= max");
        }
        if matches!(self.periods, PeriodDist::Choice(_)) {
            // Checked above; the minimum and maximum are not used.
        } else if self.period_max.0 / self.granularity.0 < 1
            || (self.period_min.0 + self.granularity.0 - 1) / self.granularity.0
                * self.granularity.0
                > self.period_max.0
        {
            return bad(
                "no multiple of the granularity lies between the minimum and maximum period",
            );
        }
        if self.max_task_utilisation.is_nan() || self.max_task_utilisation <= 0.0 {
            return bad("the per-task utilisation cap must be greater than 0");
        }
        if self.method == Method::UUniFastDiscard
            && self.max_task_utilisation * (self.tasks as f64) < self.utilisation
        {
            return bad("tasks x per-task cap is below the total utilisation");
        }
        Ok(())
    }
}

/// Generates `count` systems from `template` (its platform, kernel, interrupts and
/// critical sections are kept; its tasks are replaced). Set `k` uses the seed
/// `spec.seed + k`, so sets can be regenerated one at a time.
pub fn generate(
    template: &System,
    spec: &GenerateSpec,
    count: usize,
) -> Result<Vec<System>, GenerateError> {
    spec.check()?;
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let mut rng = ChaCha8Rng::seed_from_u64(spec.seed.wrapping_add(k as u64));
        let us = match spec.method {
            Method::UUniFast => uunifast(&mut rng, spec.tasks, spec.utilisation),
            Method::UUniFastDiscard => uunifast_discard(
                &mut rng,
                spec.tasks,
                spec.utilisation,
                spec.max_task_utilisation,
                100_000,
            )?,
        };
        if let Some((task, &utilisation)) = us.iter().enumerate().find(|(_, &u)| u > 1.0) {
            return Err(GenerateError::TaskAboveOne {
                set: k,
                task,
                utilisation,
            });
        }
        let mut tasks: Vec<Task> = us
            .iter()
            .enumerate()
            .map(|(i, &u)| {
                let period = spec.period(&mut rng);
                let ns = ((u * period.0 as f64) / 1000.0).floor() as i64;
                let wcet = Picos::from_ns(ns.max(1)).min(period);
                Task {
                    name: format!("t{i}"),
                    arrival: Arrival::Periodic(period),
                    wcet,
                    bcet: wcet,
                    priority: 0,
                    deadline: period,
                    offset: Picos::ZERO,
                    jitter: Picos::ZERO,
                    blocking: Picos::ZERO,
                    exec_time_file: None,
                    released_by: None,
                    core: 0,
                }
            })
            .collect();
        let requested: f64 = us.iter().sum();
        let delivered: f64 = tasks
            .iter()
            .map(|t| t.wcet.0 as f64 / t.period().0 as f64)
            .sum();
        if (delivered - requested).abs() > ROUNDING_TOLERANCE * requested {
            return Err(GenerateError::Rounding {
                set: k,
                requested,
                delivered,
            });
        }
        // Rate-monotonic, distinct priorities: the shortest period gets n.
        let mut order: Vec<usize> = (0..tasks.len()).collect();
        order.sort_by_key(|&i| (tasks[i].period(), i));
        let n = tasks.len() as u32;
        for (rank, &i) in order.iter().enumerate() {
            tasks[i].priority = n - rank as u32;
        }
        let mut sys = template.clone();
        for irq in &mut sys.interrupts {
            irq.releases = None;
        }
        sys.tasks = tasks;
        sys.source = format!("generated (seed {})", spec.seed.wrapping_add(k as u64));
        out.push(sys);
    }
    Ok(out)
}

/// A FreeRTOS-like template with the FreeRTOS overheads paper's figures: Cortex-M4 at 84 MHz, L = 12 cycles,
/// 1 kHz tick, tick 1.5 us + 5.907 us per release, context switch 1.5 us + 0.72 us per
/// extra level scanned (the upper-bound line of Table 4), partitioned tick accounting.
pub fn freertos_template() -> System {
    let text = r#"
[platform]
cpu_hz = 84_000_000
irq_entry_cycles = 12
[kernel]
tick_hz = 1000
model = "tick"
task_selection = "generic"
tick_mode = "partitioned"
[kernel.costs]
tick_base = "1.5us"
tick_per_release = "5.907us"
switch_base = "1.5us"
switch_per_level = "0.72us"
[[task]]
name = "placeholder"
period = "1ms"
wcet = "1us"
priority = 1
"#;
    // The text is a constant checked by the tests below.
    System::from_toml_str(text, "freertos-template").expect("built-in template is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(n: usize, u: f64) -> GenerateSpec {
        GenerateSpec {
            tasks: n,
            utilisation: u,
            method: Method::UUniFast,
            max_task_utilisation: 1.0,
            period_min: Picos::from_ms(1),
            period_max: Picos::from_ms(1000),
            granularity: Picos::from_ms(1),
            periods: PeriodDist::LogUniform,
            seed: 7,
        }
    }

    #[test]
    fn uunifast_sums_and_is_seeded() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let u = uunifast(&mut rng, 10, 0.8);
        assert_eq!(u.len(), 10);
        assert!((u.iter().sum::<f64>() - 0.8).abs() < 1e-12);
        assert!(u.iter().all(|&x| x >= 0.0));
        let mut rng2 = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(u, uunifast(&mut rng2, 10, 0.8));
    }

    #[test]
    fn discard_respects_the_cap() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let u = uunifast_discard(&mut rng, 4, 1.6, 0.5, 100_000).unwrap();
        assert!(u.iter().all(|&x| x <= 0.5));
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        assert!(uunifast_discard(&mut rng, 2, 1.9, 0.5, 10).is_err());
    }

    #[test]
    fn generated_sets_are_valid_systems() {
        let t = freertos_template();
        let sets = generate(&t, &spec(20, 0.7), 3).unwrap();
        assert_eq!(sets.len(), 3);
        for s in &sets {
            let u: f64 = s
                .tasks
                .iter()
                .map(|t| t.wcet.0 as f64 / t.period().0 as f64)
                .sum();
            assert!((u - 0.7).abs() < 0.01, "{u}");
            let mut prios: Vec<u32> = s.tasks.iter().map(|t| t.priority).collect();
            prios.sort();
            prios.dedup();
            assert_eq!(prios.len(), 20);
            for t in &s.tasks {
                assert_eq!(t.period().0 % Picos::from_ms(1).0, 0);
                assert!(t.period() >= Picos::from_ms(1) && t.period() <= Picos::from_ms(1000));
            }
            // Written and read back unchanged.
            let back = System::from_toml_str(&s.to_toml_string(), "x").unwrap();
            assert_eq!(back.tasks, s.tasks);
        }
        assert_ne!(sets[0].tasks, sets[1].tasks);
        let again = generate(&t, &spec(20, 0.7), 1).unwrap();
        assert_eq!(again[0].tasks, sets[0].tasks);
    }

    /// Audit D15: the requested utilisation is delivered or the set is refused.
    #[test]
    fn utilisation_is_delivered_or_refused() {
        let t = freertos_template();
        // Plain UUniFast with U = 5 over 5 tasks draws per-task utilisations above 1.
        let e = generate(&t, &spec(5, 5.0), 1).unwrap_err();
        assert!(matches!(e, GenerateError::TaskAboveOne { .. }), "{e}");
        assert!(e.to_string().contains("--method discard"), "{e}");
        // The discard method with a cap of 1 delivers it.
        let mut s = spec(5, 2.5);
        s.method = Method::UUniFastDiscard;
        let sets = generate(&t, &s, 2).unwrap();
        for set in &sets {
            let u: f64 = set
                .tasks
                .iter()
                .map(|t| t.wcet.0 as f64 / t.period().0 as f64)
                .sum();
            assert!((u - 2.5).abs() < 2.5 * ROUNDING_TOLERANCE, "{u}");
        }
        // 1-2 ns periods cannot carry 0.1 ns WCETs: refused, not rounded up to 400 %.
        let mut s = spec(5, 0.5);
        s.period_min = Picos::from_ns(1);
        s.period_max = Picos::from_ns(2);
        s.granularity = Picos::from_ns(1);
        let e = generate(&t, &s, 1).unwrap_err();
        assert!(matches!(e, GenerateError::Rounding { .. }), "{e}");
    }

    #[test]
    fn bad_specs_are_errors() {
        let t = freertos_template();
        let mut s = spec(0, 0.5);
        assert!(generate(&t, &s, 1).is_err());
        s = spec(3, 0.5);
        s.period_min = Picos::from_ms(10);
        s.period_max = Picos::from_ms(5);
        assert!(generate(&t, &s, 1).is_err());
    }

    /// Uniform periods: every draw a multiple of the granularity within the range, and
    /// the mean of many draws near the middle (log-uniform's mean is far lower).
    #[test]
    fn uniform_periods_are_uniform_and_in_range() {
        let t = freertos_template();
        let mut s = spec(50, 0.5);
        s.periods = PeriodDist::Uniform;
        s.period_min = Picos::from_ms(10);
        s.period_max = Picos::from_ms(200);
        s.granularity = Picos::from_ms(5);
        let sets = generate(&t, &s, 80).unwrap();
        let periods: Vec<i64> = sets
            .iter()
            .flat_map(|x| x.tasks.iter().map(|t| t.period().0))
            .collect();
        assert_eq!(periods.len(), 4000);
        for &p in &periods {
            assert_eq!(p % Picos::from_ms(5).0, 0, "{p}");
            assert!(
                (Picos::from_ms(10).0..=Picos::from_ms(200).0).contains(&p),
                "{p}"
            );
        }
        // Uniform over 10, 15, ..., 200 ms: mean 105 ms, sd ~55 ms; 4000 draws put the
        // sample mean within ~0.9 ms (1 sigma) of it. A log-uniform draw would give ~63 ms.
        let mean = periods.iter().map(|&p| p as f64).sum::<f64>() / periods.len() as f64;
        let want = Picos::from_ms(105).0 as f64;
        assert!((mean - want).abs() < 0.05 * want, "mean {mean} vs {want}");
        // Both ends occur.
        assert!(periods.contains(&Picos::from_ms(10).0));
        assert!(periods.contains(&Picos::from_ms(200).0));
        // Seeded.
        assert_eq!(generate(&t, &s, 1).unwrap()[0].tasks, sets[0].tasks);
    }

    /// Choice periods: only the listed values, each of them appearing, roughly equally.
    #[test]
    fn choice_periods_use_only_and_all_the_list() {
        let t = freertos_template();
        let list: Vec<Picos> = [1, 2, 5, 10, 20, 50, 100, 200, 1000]
            .iter()
            .map(|&m| Picos::from_ms(m))
            .collect();
        let mut s = spec(30, 0.6);
        s.periods = PeriodDist::Choice(list.clone());
        let sets = generate(&t, &s, 60).unwrap();
        let mut counts = std::collections::BTreeMap::new();
        for set in &sets {
            for task in &set.tasks {
                *counts.entry(task.period()).or_insert(0usize) += 1;
            }
        }
        let seen: Vec<Picos> = counts.keys().copied().collect();
        assert_eq!(seen, list, "only and all of the listed periods");
        // 1800 draws over 9 values: 200 each expected, sd ~13.
        for (p, &n) in &counts {
            assert!((140..=260).contains(&n), "{p}: {n} draws");
        }
        assert_eq!(generate(&t, &s, 1).unwrap()[0].tasks, sets[0].tasks);
        // Not a multiple of the granularity: refused, naming the period.
        s.periods = PeriodDist::Choice(vec![Picos::from_ms(10), Picos::from_us(2500)]);
        let e = generate(&t, &s, 1).unwrap_err();
        assert!(e.to_string().contains("2.5 ms"), "{e}");
        s.periods = PeriodDist::Choice(vec![]);
        assert!(generate(&t, &s, 1).is_err());
    }

    /// The default (log-uniform) draws exactly what it drew before the period option
    /// existed: the periods of seed 7, set 0, recorded from the earlier generator.
    #[test]
    fn log_uniform_default_is_unchanged() {
        let t = freertos_template();
        let sets = generate(&t, &spec(8, 0.7), 2).unwrap();
        let ms: Vec<Vec<i64>> = sets
            .iter()
            .map(|s| {
                s.tasks
                    .iter()
                    .map(|t| t.period().0 / Picos::from_ms(1).0)
                    .collect()
            })
            .collect();
        assert_eq!(ms, RECORDED_LOG_UNIFORM_MS);
        assert_eq!(PeriodDist::default(), PeriodDist::LogUniform);
    }

    #[test]
    fn period_options_parse() {
        assert_eq!(
            PeriodDist::parse("log-uniform").unwrap(),
            PeriodDist::LogUniform
        );
        assert_eq!(PeriodDist::parse("uniform").unwrap(), PeriodDist::Uniform);
        let want = PeriodDist::Choice(vec![
            Picos::from_ms(1),
            Picos::from_ms(2),
            Picos::from_us(500),
            Picos::from_ms(10),
        ]);
        assert_eq!(PeriodDist::parse("choice:1,2ms,500us,10ms").unwrap(), want);
        assert_eq!(
            PeriodDist::parse("choice:1,2,5,10ms").unwrap(),
            PeriodDist::Choice([1, 2, 5, 10].iter().map(|&m| Picos::from_ms(m)).collect())
        );
        for bad in [
            "normal",
            "choice:",
            "choice:1,,2ms",
            "choice:0ms",
            "choice:1,2",
            "choice:1xs",
        ] {
            let e = PeriodDist::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad.trim()), "{bad}: {e}");
        }
    }

    /// Periods (ms) of seed 7 and 8 (8 tasks, U = 0.7, 1 ms .. 1 s by 1 ms), written by
    /// `latscope generate` before `--periods` existed.
    const RECORDED_LOG_UNIFORM_MS: [[i64; 8]; 2] = [
        [353, 12, 934, 3, 14, 36, 5, 19],
        [254, 14, 525, 6, 1, 57, 6, 94],
    ];
}
