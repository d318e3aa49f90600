//! The capture measurements (`--pulse`, `--latency`, `--busy`, `--period`) work on an event
//! recording unchanged, through `EventTrace::to_capture` (one channel per actor, high while
//! it runs), and agree with the task timing where both define the same figure.

use latscope_core::events::{Actor, ActorKind, Event, EventKind::*, EventTrace};
use latscope_core::time::Picos;
use latscope_trace::measure::{self, parse_busy, parse_latency, parse_period, parse_pulse, Per};
use latscope_trace::tasks;

const US: i64 = 1_000_000;

/// Tick every 100 us (20 us long) releasing T, which runs 30 us right after it; idle
/// between. Five periods.
fn recording() -> EventTrace {
    let actor = |name: &str, kind| Actor {
        name: name.into(),
        kind,
        priority: Some(1),
        id: 0,
    };
    let mut events = vec![];
    let e = |t: i64, kind| Event {
        t: Picos(t * US),
        cpu: 0,
        kind,
    };
    events.push(e(0, Switch(2)));
    for k in 0..5 {
        let t = k * 100;
        events.push(e(t, IsrEnter(1)));
        events.push(e(t + 5, Ready(0)));
        events.push(e(t + 20, IsrExit(1)));
        events.push(e(t + 20, Switch(0)));
        events.push(e(t + 50, Block(0)));
        events.push(e(t + 50, Switch(2)));
    }
    EventTrace {
        source: "periodic".into(),
        format: "test".into(),
        clock_hz: Some(1_000_000),
        start: Picos(0),
        end: Picos(500 * US),
        cpus: 1,
        actors: vec![
            actor("T", ActorKind::Task),
            actor("tick", ActorKind::Tick),
            actor("idle", ActorKind::Idle),
        ],
        events,
        lost: vec![],
    }
}

#[test]
fn pulse_latency_period_and_busy_on_a_recording() {
    let rec = recording();
    assert!(rec.validate().is_ok());
    let cap = rec.to_capture();
    let reqs = vec![
        parse_pulse("tick").unwrap(),
        parse_pulse("T").unwrap(),
        parse_latency("tick:rise->T:rise").unwrap(),
        parse_period("tick:rise", None).unwrap(),
        parse_busy("T", &Per::Whole).unwrap(),
    ];
    let ms = measure::run(&cap, &reqs, &Default::default()).unwrap();
    let (tick, t, lat, period, busy) = (&ms[0], &ms[1], &ms[2], &ms[3], &ms[4]);
    assert_eq!((tick.count, tick.max_ns), (5, 20_000.0));
    assert_eq!((t.count, t.max_ns, t.min_ns), (5, 30_000.0, 30_000.0));
    assert_eq!((lat.count, lat.max_ns), (5, 20_000.0));
    assert_eq!((period.count, period.mean_ns), (4, 100_000.0));
    assert_eq!(busy.busy_percent.as_ref().unwrap().overall, 30.0);
    // The task timing says the same where the figures coincide.
    let r = tasks::analyze(&rec, &Default::default());
    let tt = r.task("T").unwrap();
    assert_eq!(tt.execution.get("max"), Some(t.max_ns));
    assert_eq!(tt.cpu_percent, 30.0);
    assert_eq!(r.tick().unwrap().duration.get("max"), Some(tick.max_ns));
    // Start latency is from the release (5 us into the tick), not from the tick's start.
    assert_eq!(tt.start_latency.get("max"), Some(lat.max_ns - 5_000.0));
}
