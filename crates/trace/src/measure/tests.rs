use super::*;
use latscope_core::capture::DigitalChannel;

fn us(x: i64) -> Picos {
    Picos::from_us(x)
}

/// 1 ms tick: SysTick high for 2, 3, 4, 5, 6 µs; IRQ rises at k ms + 100 µs, Task rises
/// 5+k µs later (one IRQ has no task); Task busy 100 µs per tick.
fn cap() -> Capture {
    let mut tick = Vec::new();
    let mut irq = Vec::new();
    let mut task = Vec::new();
    for k in 0..5i64 {
        let t0 = us(1000 * k);
        tick.push(t0);
        tick.push(t0 + us(2 + k));
        let i = t0 + us(100);
        irq.push(i);
        irq.push(i + us(1));
        if k != 3 {
            task.push(i + us(5 + k));
            task.push(i + us(105 + k));
        }
    }
    Capture {
        source: "t".into(),
        samplerate_hz: Some(1_000_000),
        start: Picos(0),
        end: us(5000),
        channels: vec![
            DigitalChannel {
                name: "SysTick".into(),
                initial: false,
                edges: tick,
            },
            DigitalChannel {
                name: "IRQ".into(),
                initial: false,
                edges: irq,
            },
            DigitalChannel {
                name: "Task".into(),
                initial: false,
                edges: task,
            },
        ],
        analog: vec![],
    }
}

fn one(r: Request) -> Measurement {
    run(&cap(), &[r], &Settings::default()).unwrap().remove(0)
}

#[test]
fn pulse_widths() {
    let m = one(parse_pulse("SysTick").unwrap());
    assert_eq!(m.count, 5);
    assert_eq!((m.min_ns, m.max_ns, m.mean_ns), (2000.0, 6000.0, 4000.0));
    assert_eq!(m.max_at_ns, 4_000_000.0);
    assert_eq!(m.max_at_sample, Some(4000));
    assert_eq!(m.p50_ns, 4000.0);
    assert_eq!(m.resolution_ns, Some(1000.0));
    assert_eq!(
        m.worst[0],
        Instance {
            value_ns: 6000.0,
            at_ns: 4_000_000.0
        }
    );
    assert_eq!(m.histogram.iter().map(|b| b.count).sum::<u64>(), 5);
    let low = one(parse_pulse("SysTick:low").unwrap());
    assert_eq!(low.count, 4);
    assert_eq!(low.min_ns, 995_000.0);
}

#[test]
fn latency_one_to_one_with_unmatched() {
    let m = one(parse_latency("IRQ->Task").unwrap());
    assert_eq!(m.count, 4);
    assert_eq!(m.unmatched, 1);
    assert_eq!(m.unmatched_to, Some(0));
    assert_eq!((m.min_ns, m.max_ns), (5000.0, 9000.0));
    assert_eq!(m.max_at_ns, 4_100_000.0);
    // a window of 7 µs leaves only k = 0, 1, 2
    let w = one(parse_latency("IRQ->Task,window=7us").unwrap());
    assert_eq!((w.count, w.unmatched, w.max_ns), (3, 2, 7000.0));
    // same channel rise->fall is the pulse width
    let s = one(parse_latency("SysTick:rise->SysTick:fall").unwrap());
    assert_eq!((s.count, s.min_ns, s.max_ns), (5, 2000.0, 6000.0));
}

#[test]
fn period_and_jitter() {
    let m = one(parse_period("SysTick:fall,nominal=1ms", None).unwrap());
    assert_eq!(m.count, 4);
    assert_eq!((m.min_ns, m.max_ns), (1_001_000.0, 1_001_000.0));
    let j = m.jitter.unwrap();
    assert_eq!((j.min_ns, j.max_ns, j.abs_max_ns), (1000.0, 1000.0, 1000.0));
    assert!((m.frequency_hz.unwrap() - 999.000999).abs() < 1e-3);
}

#[test]
fn busy_per_tick_and_window_and_range() {
    let m = one(parse_busy("Task,per=SysTick", &Per::Whole).unwrap());
    assert_eq!(m.count, 4);
    let s = m.series.as_ref().unwrap();
    assert_eq!(s[0].value, 100_000.0);
    assert_eq!(s[3].value, 0.0);
    assert_eq!(s[0].percent, Some(10.0));
    let bp = m.busy_percent.unwrap();
    assert!((bp.overall - 8.0).abs() < 1e-9, "{}", bp.overall);
    assert_eq!(bp.max, 10.0);
    let w = one(parse_busy("Task,window=500us", &Per::Whole).unwrap());
    assert_eq!(w.count, 10);
    let ws = w.series.unwrap();
    assert_eq!((ws[0].value, ws[1].value), (100_000.0, 0.0));
    // range: only the second millisecond
    let set = Settings {
        from: Some(us(1000)),
        to: Some(us(2000)),
        ..Default::default()
    };
    let r = run(&cap(), &[parse_pulse("SysTick").unwrap()], &set).unwrap();
    assert_eq!(r[0].count, 1);
    assert_eq!(r[0].min_ns, 3000.0);
    assert_eq!(r[0].min_at_ns, 1_000_000.0);
}

#[test]
fn count_per_period() {
    let m = one(parse_count("IRQ,per=SysTick", &Per::Whole).unwrap());
    assert_eq!(m.unit, "count");
    assert_eq!((m.count, m.min_ns, m.max_ns), (4, 1.0, 1.0));
    let t = one(parse_count("Task,per=SysTick:high", &Per::Whole).unwrap());
    assert_eq!(t.max_ns, 0.0);
}

#[test]
fn limits_pass_and_fail() {
    let ms = run(
        &cap(),
        &[
            parse_pulse("SysTick").unwrap(),
            parse_busy("Task,per=SysTick", &Per::Whole).unwrap(),
        ],
        &Settings::default(),
    )
    .unwrap();
    let l = |s: &str| Limit::parse(s).unwrap();
    let o = check_limits(
        &[
            l("SysTick.max<5us"),
            l("SysTick.max<=6us"),
            l("Task.busy.max_percent<20%"),
            l("SysTick.count>=5"),
        ],
        &ms,
    )
    .unwrap();
    assert_eq!(
        o.iter().map(|x| x.pass).collect::<Vec<_>>(),
        [false, true, true, true]
    );
    assert!(check_limits(&[l("Nope.max<1us")], &ms)
        .unwrap_err()
        .to_string()
        .contains("SysTick"));
    assert!(Limit::parse("SysTick.max<5").is_err());
    assert!(Limit::parse("SysTick.maxx<5us").is_err());
}

#[test]
fn unknown_channel_lists_channels() {
    let e = run(
        &cap(),
        &[parse_pulse("Tick").unwrap()],
        &Settings::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("#0 SysTick"), "{e}");
}

/// Periods on rise / fall / any edges, initial level low or high, against the edge list
/// filtered by `edges_of` (the definition), with every statistic and the worst places.
#[test]
fn periods_on_every_edge_kind_match_the_definition() {
    let edges: Vec<Picos> = [3, 7, 12, 20, 21, 30, 44, 45, 59]
        .iter()
        .map(|&x| us(x))
        .collect();
    for initial in [false, true] {
        let c = Capture {
            source: "p".into(),
            samplerate_hz: Some(1_000_000),
            start: Picos(0),
            end: us(60),
            channels: vec![DigitalChannel {
                name: "X".into(),
                initial,
                edges: edges.clone(),
            }],
            analog: vec![],
        };
        for (e, kind) in [
            ("rise", Edge::Rise),
            ("fall", Edge::Fall),
            ("any", Edge::Any),
        ] {
            let sel: Vec<Picos> = c.channels[0].edges_of(kind).collect();
            let mut want: Vec<(i64, i64)> =
                sel.windows(2).map(|w| (w[1].0 - w[0].0, w[0].0)).collect();
            let req = parse_period(&format!("X:{e}"), Some(us(10))).unwrap();
            let m = &run(&c, &[req], &Settings::default()).unwrap()[0];
            assert_eq!(m.count as usize, want.len(), "{initial} {e}");
            let max = want
                .iter()
                .max_by_key(|x| (x.0, std::cmp::Reverse(x.1)))
                .unwrap();
            assert_eq!(m.max_ns, max.0 as f64 / 1000.0, "{initial} {e}");
            assert_eq!(m.max_at_ns, max.1 as f64 / 1000.0, "{initial} {e}");
            want.sort_by_key(|&(v, at)| (std::cmp::Reverse(v), at));
            let w: Vec<(f64, f64)> = m.worst.iter().map(|i| (i.value_ns, i.at_ns)).collect();
            let ww: Vec<(f64, f64)> = want
                .iter()
                .take(5)
                .map(|&(v, a)| (v as f64 / 1000.0, a as f64 / 1000.0))
                .collect();
            assert_eq!(w, ww, "{initial} {e}");
            let j = m.jitter.as_ref().unwrap();
            let dev: Vec<i64> = want.iter().map(|x| x.0 - 10_000_000).collect();
            assert_eq!(j.max_ns, *dev.iter().max().unwrap() as f64 / 1000.0);
        }
    }
}

/// Several requests (run on several threads where there are cores): each gives what it
/// gives alone, in request order, and the first failing request's error is the one
/// returned, as when they run one after the other.
#[test]
fn many_requests_in_order() {
    let reqs = vec![
        parse_pulse("SysTick").unwrap(),
        parse_latency("IRQ:rise->Task:rise").unwrap(),
        parse_period("SysTick:rise", None).unwrap(),
        parse_pulse("Task").unwrap(),
        parse_pulse("IRQ").unwrap(),
    ];
    let all = run(&cap(), &reqs, &Settings::default()).unwrap();
    assert_eq!(all.len(), reqs.len());
    for (m, r) in all.iter().zip(&reqs) {
        assert_eq!(*m, one(r.clone()));
    }
    let mut bad = reqs.clone();
    bad.insert(1, parse_pulse("Nope").unwrap());
    bad.push(parse_pulse("Later").unwrap());
    let e = run(&cap(), &bad, &Settings::default()).unwrap_err();
    assert!(e.to_string().contains("Nope"), "{e}");
}

#[test]
fn the_upper_percentiles_are_nearest_rank_values() {
    // 10,000 pulses of 1..=10,000 ns in a shuffled order: the p-th percentile is the
    // value at rank ceil(p/100 × n), i.e. p99.9 = 9,990 ns and p99.99 = 9,999 ns
    let mut edges = Vec::new();
    let mut t = 0i64;
    for k in 0..10_000i64 {
        let w = (k * 7_919) % 10_000 + 1;
        edges.push(Picos(t));
        edges.push(Picos(t + w * 1000));
        t += w * 1000 + 1_000_000;
    }
    let cap = Capture {
        source: "t".into(),
        samplerate_hz: None,
        start: Picos(0),
        end: Picos(t),
        channels: vec![DigitalChannel {
            name: "P".into(),
            initial: false,
            edges,
        }],
        analog: vec![],
    };
    let m = run(&cap, &[parse_pulse("P").unwrap()], &Settings::default())
        .unwrap()
        .remove(0);
    assert_eq!(m.count, 10_000);
    assert_eq!(
        (m.p99_ns, m.p999_ns, m.p9999_ns, m.max_ns),
        (9_900.0, 9_990.0, 9_999.0, 10_000.0)
    );
    let lim = Limit::parse("P.p9999<9999ns").unwrap();
    assert!(!check_limits(&[lim], &[m]).unwrap()[0].pass);
}
