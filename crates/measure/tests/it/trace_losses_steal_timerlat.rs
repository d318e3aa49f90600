//! Recorded trace text through the correlator a live run uses: lost events (markers of
//! `trace_pipe` and the ring buffer's counters) make the spikes they touch say they may
//! be incomplete; steal time from recorded /proc/stat readings is given to a spike only
//! where the readings place it in its window; the timerlat tracer's lines give the
//! interrupt/thread split when it is the source.

use crate::common;

use common::{fixture, sample};
use latscope_measure::ftrace::live::Correlator;
use latscope_measure::ftrace::lost::{parse_ring_stats, RingStats};
use latscope_measure::ftrace::timerlat::Source;
use std::path::PathBuf;

/// The kworker fixture with a lost-events marker inside the first spike's window
/// (between the timer handler and the softirq).
fn with_marker() -> String {
    let text = fixture("fifo90_kworker_spike.txt");
    let at = text
        .find("     kworker/1:2-4194077 [001] ..s1.   100.003100")
        .unwrap();
    format!("{}CPU:1 [LOST 212 EVENTS]\n{}", &text[..at], &text[at..])
}

fn run(text: &str, ring: Option<RingStats>) -> latscope_measure::ftrace::live::TraceResult {
    // Threshold 10 us: both samples below are spikes.
    let mut c = Correlator::new(2, 10_000, 10_000_000, PathBuf::from("fixture"));
    c.feed_text(text);
    c.push_sample(sample(100_001_000_000, 2_310_000));
    c.push_sample(sample(100_010_000_000, 12_000));
    if let Some(r) = ring {
        c.ring_stats(1, r);
    }
    c.finish()
}

#[test]
fn a_spike_whose_window_lost_events_says_it_may_be_incomplete() {
    let r = run(&with_marker(), None);
    assert_eq!(r.spikes.len(), 2);
    let (hit, clean) = (&r.spikes[0], &r.spikes[1]);
    assert_eq!(hit.lost_events, 212);
    let why = hit.incomplete.as_deref().expect("marked");
    assert!(why.contains("cpu 1 lost 212 events"), "{why}");
    assert!(
        hit.explanation.contains("MAY BE INCOMPLETE"),
        "{}",
        hit.explanation
    );
    // Its causes are still named, with the warning.
    assert!(hit.explanation.contains("ran 'kworker/1:2'"));
    // The second spike starts after the traced switch that follows the gap: whole.
    assert_eq!(clean.incomplete, None, "{}", clean.explanation);
    assert_eq!(clean.lost_events, 0);
    assert!(!clean.explanation.contains("INCOMPLETE"));
    // Per run.
    let s = r.summary();
    assert_eq!(s.lost_events, 212);
    assert_eq!(s.spikes_incomplete, 1);
    assert_eq!((s.cpus.len(), s.cpus[0].cpu, s.cpus[0].markers), (1, 1, 1));
    // In the JSON of the spike.
    let v = serde_json::to_value(hit).unwrap();
    assert_eq!(v["lost_events"], 212);
    assert!(v["incomplete"].as_str().unwrap().contains("lost 212"));
    assert!(serde_json::to_value(clean).unwrap()["incomplete"].is_null());

    // Without the marker the same trace is whole.
    let r = run(&fixture("fifo90_kworker_spike.txt"), None);
    assert!(r.spikes.iter().all(|s| s.incomplete.is_none()));
    assert!(!r.lost_any());
    assert_eq!(r.summary().lost_events, 0);
}

#[test]
fn losses_the_counters_report_but_no_marker_places_touch_every_spike_of_that_cpu() {
    let stats = parse_ring_stats(
        "entries: 0\noverrun: 300\ncommit overrun: 0\nbytes: 0\noldest event ts: 0.0\nnow ts: 1.0\ndropped events: 0\nread events: 5\n",
    )
    .unwrap();
    // 212 placed by the marker, 88 more somewhere: both spikes may be incomplete.
    let r = run(&with_marker(), Some(stats));
    assert!(r.spikes.iter().all(|s| s.incomplete.is_some()));
    assert!(r.spikes[1]
        .incomplete
        .as_deref()
        .unwrap()
        .contains("lost 88 events at times the trace does not show"));
    let s = r.summary();
    assert_eq!(s.lost_events, 300);
    assert_eq!(s.cpus[0].unplaced_events, 88);
    // Counters that match the markers add nothing.
    let r = run(
        &with_marker(),
        Some(RingStats {
            overrun: 212,
            ..Default::default()
        }),
    );
    assert!(r.spikes[1].incomplete.is_none());
    // Counters read and zero: reported, nothing marked.
    let r = run(
        &fixture("fifo90_kworker_spike.txt"),
        Some(RingStats::default()),
    );
    assert_eq!(r.summary().cpus.len(), 1);
    assert!(!r.lost_any());
}

fn proc_stat(steal1: u64) -> String {
    format!(
        "cpu  200 0 100 18000 5 0 2 {steal1} 0 0\n\
         cpu0 100 0 50 9000 2 0 1 0 0 0\n\
         cpu1 100 0 50 9000 3 0 1 {steal1} 0 0\n\
         intr 100 2 3\nctxt 9999\nbtime 1700000000\n"
    )
}

#[test]
fn steal_is_given_to_a_spike_only_where_the_readings_place_it() {
    assert_eq!(
        latscope_measure::env::clk_tck(),
        100,
        "USER_HZ is 100 on Linux"
    );
    let mut c = Correlator::new(2, 10_000, 10_000_000, PathBuf::from("fixture"));
    c.feed_text(&fixture("fifo90_kworker_spike.txt"));
    // 50 ms of steal on cpu 1 before the first spike: not its.
    c.push_steal(99_900_000_000, &proc_stat(0));
    c.push_steal(100_000_000_000, &proc_stat(5));
    c.push_steal(100_003_500_000, &proc_stat(5));
    c.push_sample(sample(100_001_000_000, 2_310_000));
    // A 50 ms stall later, with 50 (±10) ms of steal in the 60 ms around it.
    c.push_steal(100_025_000_000, &proc_stat(5));
    c.push_sample(sample(100_030_000_000, 50_000_000));
    c.push_steal(100_085_000_000, &proc_stat(10));
    let r = c.finish();
    assert_eq!(r.spikes.len(), 2);
    let first = r.spikes[0].steal.expect("readings around it");
    assert_eq!(first.min_ns, 0, "the earlier steal is not charged");
    assert_eq!(first.sampled_over_ns, 3_500_000);
    assert!(!r.spikes[0].explanation.contains("steal"));
    let stall = r.spikes[1].steal.expect("readings around it");
    // 4..6 ticks in 60 ms, 10 ms of which lie outside the 50 ms window.
    assert_eq!(stall.min_ns, 30_000_000);
    assert_eq!(stall.max_ns, 50_000_000);
    assert!(
        r.spikes[1]
            .explanation
            .contains("steal at least 30 ms of it"),
        "{}",
        r.spikes[1].explanation
    );
    let v = serde_json::to_value(&r.spikes[1]).unwrap();
    assert_eq!(v["steal"]["min_ns"], 30_000_000);
}

#[test]
fn the_timerlat_tracer_gives_the_split_when_it_is_the_source() {
    let text = fixture("timerlat_two_cpus.txt");
    let mut c = Correlator::new(2, 1_000_000, 1_000_000, PathBuf::from("fixture"));
    c.set_source(Source::Timerlat, None);
    for chunk in text.as_bytes().chunks(61) {
        c.feed_text(std::str::from_utf8(chunk).unwrap());
    }
    let r = c.finish();
    // #3 on cpu 1 lost its irq line: 5 activations split.
    assert_eq!(r.timerlat_activations, 5);
    let irq = r.irq.summary();
    assert_eq!((irq.count, irq.min, irq.max), (5, 800, 4_000));
    let th = r.thread.summary();
    // Thread part = thread line − irq line: 7700, 9200, 7100, 6900, 2097000.
    assert_eq!((th.count, th.min, th.max), (5, 6_900, 2_097_000));
    let s = r.summary();
    assert_eq!(s.source, "timerlat");
    assert_eq!(s.lost_events, 57);

    // With tracepoints as the source the timerlat lines give no split.
    let mut c = Correlator::new(2, 1_000_000, 1_000_000, PathBuf::from("fixture"));
    c.set_source(
        Source::Tracepoints,
        Some("this kernel has no timerlat tracer".into()),
    );
    c.feed_text(&text);
    let r = c.finish();
    assert_eq!((r.timerlat_activations, r.irq.summary().count), (0, 0));
    assert_eq!(r.summary().source, "tracepoints");
    assert!(r.summary().source_reason.unwrap().contains("no timerlat"));
}
