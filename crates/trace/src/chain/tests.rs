//! Chains on synthetic captures whose delays the test writes itself: every expected
//! figure is computed here from the edges laid down, not read from an output.

use super::*;
use latscope_core::capture::DigitalChannel;

const US: i64 = 1_000_000; // ps

/// A channel with a pulse of `width` at each start.
fn pulses(name: &str, starts: &[i64], width: i64) -> DigitalChannel {
    let mut edges = Vec::new();
    for &s in starts {
        edges.push(Picos(s));
        edges.push(Picos(s + width));
    }
    DigitalChannel {
        name: name.into(),
        initial: false,
        edges,
    }
}

fn capture(channels: Vec<DigitalChannel>, end: i64) -> Capture {
    Capture {
        source: "synthetic.vcd".into(),
        samplerate_hz: Some(1_000_000_000),
        start: Picos(0),
        end: Picos(end),
        channels,
        analog: Vec::new(),
    }
}

fn src(cap: &Capture) -> Sources<'_> {
    Sources {
        cap,
        events: None,
        from: None,
        to: None,
        worst: 3,
        bins: 10,
    }
}

#[test]
fn known_delays_total_and_links() {
    // stimulus every 100 us; the handler starts after d1[i], the task after d2[i], the
    // output after d3[i] (all within one period)
    let d1 = [2, 3, 1, 5, 2];
    let d2 = [10, 40, 12, 11, 30];
    let d3 = [7, 7, 20, 8, 9];
    let irq: Vec<i64> = (0..5).map(|i| i * 100 * US).collect();
    let isr: Vec<i64> = irq.iter().zip(d1).map(|(t, d)| t + d * US).collect();
    let task: Vec<i64> = isr.iter().zip(d2).map(|(t, d)| t + d * US).collect();
    let out: Vec<i64> = task.iter().zip(d3).map(|(t, d)| t + d * US).collect();
    let cap = capture(
        vec![
            pulses("IRQ", &irq, US / 2),
            pulses("ISR", &isr, US),
            pulses("Task", &task, 3 * US),
            pulses("Out", &out, US),
        ],
        600 * US,
    );
    let spec = parse_chain("IRQ:rise->ISR->Task:rise->Out:fall").unwrap();
    let r = measure(&spec, &src(&cap)).unwrap();
    let totals: Vec<i64> = (0..5).map(|i| out[i] + US - irq[i]).collect();
    let max = *totals.iter().max().unwrap();
    let imax = totals.iter().position(|&t| t == max).unwrap();
    assert_eq!(r.count, 5);
    assert_eq!(r.unmatched, 0);
    assert_eq!(r.total.max_ns, Some(Some(max as f64 / 1000.0)));
    assert_eq!(r.max_at_ns, Some(irq[imax] as f64 / 1000.0));
    assert_eq!(
        r.total.min_ns,
        Some(Some(*totals.iter().min().unwrap() as f64 / 1000.0))
    );
    let mean = totals.iter().sum::<i64>() as f64 / 5.0 / 1000.0;
    assert!((nan(r.total.mean_ns) - mean).abs() < 1e-6);
    assert_eq!(r.links.len(), 3);
    let hop_max = |d: &[i64; 5]| *d.iter().max().unwrap() as f64 * 1000.0;
    assert_eq!(nan(r.links[0].summary.max_ns), hop_max(&d1));
    assert_eq!(nan(r.links[1].summary.max_ns), hop_max(&d2));
    // the last hop ends on the output's fall, one pulse width after its rise
    assert_eq!(
        nan(r.links[2].summary.max_ns),
        hop_max(&d3) + US as f64 / 1000.0
    );
    assert_eq!(r.steps, ["IRQ:rise", "ISR:rise", "Task:rise", "Out:fall"]);
    assert_eq!(r.worst[0].value_ns, max as f64 / 1000.0);
    // the limit view carries the same figure
    let m = r.as_measurement();
    assert_eq!(m.max_ns, max as f64 / 1000.0);
    assert_eq!(m.name, "IRQ:rise->ISR:rise->Task:rise->Out:fall");
}

#[test]
fn a_missing_response_is_unmatched_and_range_applies() {
    // the third stimulus gets no task run: unmatched at the second hop
    let irq = [0, 100 * US, 200 * US, 300 * US];
    let isr = [US, 101 * US, 201 * US, 301 * US];
    let task = [20 * US, 130 * US, 340 * US];
    let cap = capture(
        vec![
            pulses("IRQ", &irq, US / 2),
            pulses("ISR", &isr, US / 2),
            pulses("Task", &task, US),
        ],
        400 * US,
    );
    let spec = parse_chain("IRQ->ISR->Task").unwrap();
    let r = measure(&spec, &src(&cap)).unwrap();
    assert_eq!(r.count, 3);
    assert_eq!(r.unmatched, 1);
    assert_eq!(r.links[0].lost, 0);
    assert_eq!(r.links[1].lost, 1);
    let expect_max = (340 * US - 300 * US) as f64 / 1000.0;
    assert_eq!(nan(r.total.max_ns), expect_max);
    // --from 50us drops the first stimulus
    let mut s = src(&cap);
    s.from = Some(Picos(50 * US));
    let r = measure(&spec, &s).unwrap();
    assert_eq!(r.count, 2);
}

#[test]
fn unknown_channel_and_event_word_on_a_capture() {
    let cap = capture(
        vec![pulses("IRQ", &[0], US), pulses("T", &[US], US)],
        10 * US,
    );
    let e = measure(&parse_chain("IRQ->Nope").unwrap(), &src(&cap))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no channel 'Nope'") && e.contains("IRQ"), "{e}");
    let e = measure(&parse_chain("IRQ->T:switch").unwrap(), &src(&cap))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("step 'T:switch'") && e.contains("event recording"),
        "{e}"
    );
}

#[test]
fn no_instance_gives_nulls() {
    let cap = capture(vec![pulses("A", &[], US), pulses("B", &[US], US)], 10 * US);
    let r = measure(&parse_chain("A->B").unwrap(), &src(&cap)).unwrap();
    assert_eq!(r.count, 0);
    assert_eq!(r.max_at_ns, None);
    assert_eq!(r.total.max_ns, Some(None));
    assert!(r.as_measurement().is_empty());
    assert!(text(&[r]).contains("no complete instance"));
}
