//! Spike attribution from recorded tracepoint text (a fixture in tracefs's own format),
//! through the same correlator a live run uses: the interrupt/thread split of every
//! sample and the blockers of the one above the threshold.

use crate::common;

use common::sample;
use latscope_measure::ftrace::attribute::{attribute, handler_time, UNTRACED_CHANGE};
use latscope_measure::ftrace::live::Correlator;
use latscope_measure::ftrace::parse::parse_line;
use std::path::PathBuf;

fn fixture() -> String {
    common::fixture("fifo90_kworker_spike.txt")
}

#[test]
fn the_fifo_kworker_and_the_softirq_are_named() {
    // Threshold 1 ms; the timers were armed up to one 10 ms interval before expiry.
    let mut c = Correlator::new(2, 1_000_000, 10_000_000, PathBuf::from("fixture"));
    // Fed in awkward pieces: lines split across reads must still parse.
    let text = fixture();
    for chunk in text.as_bytes().chunks(97) {
        c.feed_text(std::str::from_utf8(chunk).unwrap());
    }
    c.push_sample(sample(100_001_000_000, 2_310_000));
    c.push_sample(sample(100_010_000_000, 12_000));
    c.push_sample(sample(100_020_000_000, 50_000)); // no handler in the trace
    let r = c.finish();
    // 19 event lines: 3 hrtimer_expire_exit are not needed and skipped, comments too.
    assert_eq!(r.events, 16);
    assert_eq!((r.matched, r.unmatched), (2, 1));
    // Interrupt parts 2 us and 3 us; thread parts the rest of each latency.
    let irq = r.irq.summary();
    assert_eq!((irq.count, irq.min, irq.max), (2, 2_000, 3_000));
    let th = r.thread.summary();
    assert_eq!((th.count, th.min, th.max), (2, 9_000, 2_308_000));

    assert_eq!(r.spikes.len(), 1, "only the sample above 1 ms");
    let s = &r.spikes[0];
    assert_eq!(s.cpu, 1);
    assert_eq!(s.at_ns, 1_000_000);
    assert_eq!(s.latency_ns, 2_310_000);
    assert_eq!(s.irq_latency_ns, Some(2_000));
    assert_eq!(s.thread_latency_ns, Some(2_308_000));
    let b = &s.blockers;
    assert_eq!(b[0].kind, "task");
    assert_eq!(b[0].name, "kworker/1:2");
    // From the handler (100.001002; the 2 us before it are the interrupt part, not the
    // kworker's) to the softirq (100.003100), then 5 us after it.
    assert_eq!(b[0].duration_ns, 2_103_000);
    assert_eq!(b[0].tid, Some(4_194_077), "the thread id from the trace");
    assert_eq!(b[0].pid, None, "no such process on this machine");
    assert_eq!(b[0].priority, Some(90));
    assert_eq!(
        b[0].policy.as_deref(),
        Some("RT"),
        "no such pid: the trace's class"
    );
    assert_eq!(b[1].kind, "softirq");
    assert_eq!(b[1].name, "NET_RX");
    assert_eq!(b[1].duration_ns, 200_000);
    assert_eq!(b[2].kind, "timer_late");
    assert_eq!(b[2].duration_ns, 2_000);
    assert_eq!(
        b.len(),
        3,
        "the measuring thread itself is not a blocker: {b:?}"
    );
    assert_eq!(
        s.explanation,
        "cpu 1, 2.31 ms [interrupt 2 µs, thread 2.31 ms]: 2.1 ms ran 'kworker/1:2' tid 4194077 RT 90; 200 µs softirq NET_RX; 2 µs timer interrupt entry"
    );
}

#[test]
fn a_wake_up_from_idle_is_charged_to_idle() {
    let events: Vec<_> = fixture()
        .lines()
        .filter_map(parse_line)
        .filter(|e| e.cpu == 1)
        .collect();
    assert_eq!(
        handler_time(&events, 100_010_000_000, 100_010_012_000),
        Some(100_010_003_000)
    );
    // The handler of another period is not taken for this one.
    assert_eq!(
        handler_time(&events, 100_020_000_000, 100_020_050_000),
        None
    );
    let s = attribute(&events, 1, 100_010_000_000, 10_000_000, 12_000, &|_| None);
    assert_eq!(s.blockers.len(), 1, "{:?}", s.blockers);
    assert_eq!(s.blockers[0].kind, "idle");
    assert_eq!(s.blockers[0].duration_ns, 8_000);
    assert!(
        s.explanation.contains("8 µs idle exit"),
        "{}",
        s.explanation
    );
    // Policy resolved by the live lookup when it knows the task.
    let s = attribute(&events, 1, 100_001_000_000, 1_000_000, 2_310_000, &|pid| {
        (pid == 4_194_077).then(|| "FIFO".to_string())
    });
    assert!(
        s.explanation
            .contains("ran 'kworker/1:2' tid 4194077 FIFO 90"),
        "{}",
        s.explanation
    );
}

#[test]
fn a_task_woken_from_idle_without_a_switch_event_is_named() {
    // Recorded shape of a 6.x guest kernel that emits no sched_switch when the CPU leaves
    // its idle task: a SCHED_FIFO 95 task (kernel prio 4) is woken from idle and runs
    // 8 ms; the measuring thread's timer expires 1 ms into that run; the first trace of
    // the hog is the prefix of the events recorded while it runs.
    let text = "\
   latscope-cpu1-4194001 [001] d..1.   200.000000: hrtimer_start: hrtimer=00000000aa00aa00 function=hrtimer_wakeup expires=200002000000 softexpires=200002000000 mode=ABS was_armed=0
   latscope-cpu1-4194001 [001] d..2.   200.000010: sched_switch: prev_comm=latscope-cpu1 prev_pid=4194001 prev_prio=19 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       [001] d.h3.   200.001000: sched_waking: comm=spike-hog pid=1272 prio=4 target_cpu=001
       spike-hog-1272    [001] d.h..   200.002004: hrtimer_expire_entry: hrtimer=00000000aa00aa00 function=hrtimer_wakeup now=200002004000
       spike-hog-1272    [001] d.h2.   200.002005: sched_waking: comm=latscope-cpu1 pid=4194001 prio=19 target_cpu=001
       spike-hog-1272    [001] d..2.   200.009000: sched_switch: prev_comm=spike-hog prev_pid=1272 prev_prio=4 prev_state=S ==> next_comm=latscope-cpu1 next_pid=4194001 next_prio=19
";
    let events: Vec<_> = text.lines().filter_map(parse_line).collect();
    assert_eq!(events.len(), 6);
    let s = attribute(&events, 1, 200_002_000_000, 2_000_000, 7_000_000, &|_| None);
    let hog = s
        .blockers
        .iter()
        .find(|b| b.name == "spike-hog")
        .unwrap_or_else(|| panic!("the hog is not named: {:?}", s.blockers));
    assert_eq!(hog.kind, "task");
    assert_eq!(hog.priority, Some(95));
    // From its first own event (the timer interrupt, 4 us after expiry) to its switch.
    assert_eq!(hog.duration_ns, 6_996_000);
    let idle: i64 = s
        .blockers
        .iter()
        .filter(|b| b.kind == "idle")
        .map(|b| b.duration_ns)
        .sum();
    // The 4 us from expiry to the hog's first event: the CPU left idle somewhere in
    // them, untraced; they are not idle time.
    assert_eq!(idle, 0, "idle charged {idle} ns: {:?}", s.blockers);
    let unknown = s
        .blockers
        .iter()
        .find(|b| b.kind == "unknown")
        .unwrap_or_else(|| panic!("no unknown piece: {:?}", s.blockers));
    assert_eq!(unknown.duration_ns, 4_000);
    assert_eq!(unknown.name, UNTRACED_CHANGE);
    assert!(
        s.explanation.contains("4 µs unknown (no event"),
        "{}",
        s.explanation
    );
}

#[test]
fn a_late_timer_interrupt_is_not_charged_to_the_bystander() {
    // The shape measured on a VM guest: the timer expires while an ordinary
    // SCHED_OTHER 'grep' is current; its interrupt arrives 4.13 ms late (the vCPU was
    // not running, or interrupts were off); then the thread runs within 20 us. The
    // 4.13 ms are not grep's: grep cannot hold off a hardware interrupt.
    let text = "\
   latscope-cpu1-4194001 [001] d..1.   300.000000: hrtimer_start: hrtimer=00000000bb00bb00 function=hrtimer_wakeup expires=300001000000 softexpires=300001000000 mode=ABS was_armed=0
   latscope-cpu1-4194001 [001] d..2.   300.000010: sched_switch: prev_comm=latscope-cpu1 prev_pid=4194001 prev_prio=19 prev_state=S ==> next_comm=grep next_pid=5151 next_prio=120
            grep-5151    [001] d.h..   300.005130: hrtimer_expire_entry: hrtimer=00000000bb00bb00 function=hrtimer_wakeup now=300005130000
            grep-5151    [001] d.h2.   300.005131: sched_waking: comm=latscope-cpu1 pid=4194001 prio=19 target_cpu=001
            grep-5151    [001] d..2.   300.005140: sched_switch: prev_comm=grep prev_pid=5151 prev_prio=120 prev_state=R ==> next_comm=latscope-cpu1 next_pid=4194001 next_prio=19
";
    let events: Vec<_> = text.lines().filter_map(parse_line).collect();
    assert_eq!(events.len(), 5);
    let s = attribute(&events, 1, 300_001_000_000, 1_000_000, 4_140_000, &|_| None);
    assert_eq!(s.irq_latency_ns, Some(4_130_000));
    let late = &s.blockers[0];
    assert_eq!(
        (late.kind.as_str(), late.duration_ns),
        ("timer_late", 4_130_000)
    );
    let grep: i64 = s
        .blockers
        .iter()
        .filter(|b| b.name == "grep")
        .map(|b| b.duration_ns)
        .sum();
    assert_eq!(
        grep, 10_000,
        "only the thread part after the handler: {:?}",
        s.blockers
    );
    assert!(
        s.explanation
            .contains("4.13 ms timer interrupt late: IRQs off or vCPU not running"),
        "{}",
        s.explanation
    );
    assert!(
        !s.explanation.contains("ms ran 'grep'"),
        "{}",
        s.explanation
    );
}
