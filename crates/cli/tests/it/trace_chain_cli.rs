//! `latscope trace --chain` through the CLI: a VCD with delays the test lays down itself
//! (the expected latencies are computed here from those edges), limits on a chain,
//! hostile specs as one-line errors, a real FreeRTOS recording's interrupt → task chain
//! by the actors' events, and the simulator's own capture of a chain system measured
//! within the simulator's `chains[].max_ns`.

use crate::common;
use common::{ok, run};
use serde_json::Value;

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A VCD (1 ns timescale) of named channels, each a list of (rise, fall) pulses.
fn vcd(channels: &[(&str, Vec<(i64, i64)>)], end: i64) -> String {
    let ids = ['!', '"', '$', '%', '&'];
    let mut s = String::from("$timescale 1ns $end\n$scope module top $end\n");
    for (k, (name, _)) in channels.iter().enumerate() {
        s += &format!("$var wire 1 {} {name} $end\n", ids[k]);
    }
    s += "$upscope $end\n$enddefinitions $end\n#0\n";
    for id in ids.iter().take(channels.len()) {
        s += &format!("0{id}\n");
    }
    let mut ev: Vec<(i64, usize, u8)> = Vec::new();
    for (k, (_, p)) in channels.iter().enumerate() {
        for &(a, b) in p {
            ev.push((a, k, 1));
            ev.push((b, k, 0));
        }
    }
    ev.sort();
    for (t, k, v) in ev {
        s += &format!("#{t}\n{v}{}\n", ids[k]);
    }
    s += &format!("#{end}\n");
    s
}

/// IRQ every 1000 ns; ISR starts d1 later (200 ns long), the task d2 after the ISR
/// starts and runs 300 ns; the sixth stimulus gets no task run.
fn chain_capture() -> (String, Vec<i64>, usize) {
    let d1 = [10, 30, 20, 50, 40, 10, 25];
    let d2 = [300, 250, 600, 280, 310, 0, 290];
    let mut irq = vec![];
    let mut isr = vec![];
    let mut task = vec![];
    let mut totals = vec![];
    for i in 0..7 {
        let t = 1000 * i as i64 + 100;
        irq.push((t, t + 5));
        isr.push((t + d1[i], t + d1[i] + 200));
        if i != 5 {
            let s = t + d1[i] + d2[i];
            task.push((s, s + 300));
            totals.push(d1[i] + d2[i] + 300); // to the task's fall
        }
    }
    (
        vcd(&[("IRQ", irq), ("ISR", isr), ("Task", task)], 8000),
        totals,
        1,
    )
}

#[test]
fn known_delays_json_text_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("chain.vcd");
    let (text, totals, unmatched) = chain_capture();
    std::fs::write(&p, text).unwrap();
    let p = p.to_str().unwrap();
    let max = *totals.iter().max().unwrap() as f64;
    let min = *totals.iter().min().unwrap() as f64;
    let out = ok(&[
        "trace",
        p,
        "--chain",
        "IRQ->ISR->Task:fall,name=path",
        "--chain",
        "IRQ->ISR",
        "--json",
        "-",
    ]);
    let v = json(&out);
    let c = &v["chains"][0];
    assert_eq!(c["name"], "path");
    assert_eq!(c["steps"][2], "Task:fall");
    assert_eq!(c["count"].as_u64().unwrap() as usize, totals.len());
    assert_eq!(c["unmatched"].as_u64().unwrap() as usize, unmatched);
    assert_eq!(c["total"]["max_ns"].as_f64().unwrap(), max);
    assert_eq!(c["total"]["min_ns"].as_f64().unwrap(), min);
    assert_eq!(c["links"].as_array().unwrap().len(), 2);
    assert_eq!(c["links"][1]["lost"], 1);
    let hop_sum = c["links"][0]["max_ns"].as_f64().unwrap();
    assert!(hop_sum <= max);
    // the second chain: the default name, every stimulus matched
    assert_eq!(v["chains"][1]["name"], "IRQ:rise->ISR:rise");
    assert_eq!(v["chains"][1]["count"], 7);
    assert_eq!(v["chains"][1]["total"]["max_ns"].as_f64().unwrap(), 50.0);

    // limits: the chain's end-to-end figure, pass and fail
    let pass = run(&[
        "trace",
        p,
        "--chain",
        "IRQ->ISR->Task:fall,name=path",
        "--limit",
        &format!("path.max<={}ns", max),
    ]);
    assert_eq!(pass.status.code(), Some(0), "{pass:?}");
    let text = String::from_utf8_lossy(&pass.stdout);
    assert!(
        text.contains("path [chain: IRQ->ISR->Task:fall,name=path]"),
        "{text}"
    );
    assert!(text.contains("ISR:rise -> Task:fall"), "{text}");
    assert!(text.contains("unmatched: 1 instances"), "{text}");
    let fail = run(&[
        "trace",
        p,
        "--chain",
        "IRQ->ISR->Task:fall,name=path",
        "--limit",
        &format!("path.max<{}ns", max),
        "--limit",
        "path.unmatched<=0",
    ]);
    assert_eq!(fail.status.code(), Some(1), "{fail:?}");
    assert!(
        String::from_utf8_lossy(&fail.stdout)
            .matches("FAIL")
            .count()
            >= 2
    );
}

#[test]
fn hostile_chain_specs_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("chain.vcd");
    std::fs::write(&p, chain_capture().0).unwrap();
    let p = p.to_str().unwrap();
    for (spec, needle) in [
        ("IRQ->Nope", "no channel 'Nope'"),
        ("IRQ", "at least two steps"),
        ("", "no steps"),
        ("IRQ->ISR:sideways", "unknown edge or event 'sideways'"),
        ("IRQ->Task:switch", "needs an event recording"),
    ] {
        let o = run(&["trace", p, "--chain", spec]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{spec:?}: {err}");
        assert!(err.contains(needle), "{spec:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{spec:?}: {err}");
    }
}

#[test]
fn freertos_recording_interrupt_to_task_by_events() {
    let svdat = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../validation/freertos/traces/systemview/isr.SVDat"
    );
    let out = ok(&[
        "trace",
        svdat,
        "--chain",
        "Periph:enter->Handler:switch->Handler:block,name=periph",
        "--json",
        "-",
    ]);
    let v = json(&out);
    let c = &v["chains"][0];
    // 271 interrupts in the harness's own log (isr-events.csv), each one handler job
    let log = std::fs::read_to_string(svdat.replace("isr.SVDat", "isr-events.csv")).unwrap();
    let isrs = log
        .lines()
        .filter(|l| l.ends_with(",isr_start,Periph"))
        .count();
    assert_eq!(c["count"].as_u64().unwrap() as usize, isrs);
    assert_eq!(c["unmatched"], 0);
    let total = c["total"]["max_ns"].as_f64().unwrap();
    let hops: f64 = c["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["max_ns"].as_f64().unwrap())
        .sum();
    assert!(total <= hops + 1e-6, "{total} {hops}");
    // a capture-flags combination with --tasks is refused, naming --chain
    let o = run(&["trace", svdat, "--tasks", "--chain", "Periph->Handler"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--chain"));
}

const REST: &str = r#"[[task]]
name = "control"
period = "5ms"
wcet = "900us"
priority = 6
[[interrupt]]
name = "adc"
min_interarrival = "1ms"
wcet = "10us"
priority = 2
releases = "handler"
periodic = true
[[chain]]
name = "adc-to-filter"
steps = ["adc", "handler", "filter"]
links = ["event", "event"]
"#;

/// The system file: the shared chain board with `handler` and `filter`, then this
/// file's `control`, interrupt and chains.
fn system_toml() -> String {
    [common::CHAIN_HEAD, REST].concat()
}

/// The simulator writes a capture of the chain system it ran; the chain measured in it
/// (from the interrupt handler's start to the last task's first fall after its
/// predecessor) is never longer than the simulator's own latency (from the interrupt's
/// arrival to that task's completion).
#[test]
fn simulated_capture_chain_within_the_simulators_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let sys = dir.path().join("sys.toml");
    std::fs::write(&sys, system_toml()).unwrap();
    let vcd = dir.path().join("run.vcd");
    let s = ok(&[
        "simulate",
        sys.to_str().unwrap(),
        "--duration",
        "200ms",
        "--vcd",
        vcd.to_str().unwrap(),
        "--json",
        "-",
    ]);
    let sv = json(&s);
    let sc = &sv["chains"][0];
    let sim_max = sc["max_ns"].as_f64().unwrap();
    let sim_count = sc["count"].as_u64().unwrap();
    let t = ok(&[
        "trace",
        vcd.to_str().unwrap(),
        "--chain",
        "adc->handler->filter:fall",
        "--json",
        "-",
    ]);
    let tv = json(&t);
    let c = &tv["chains"][0];
    let measured = c["total"]["max_ns"].as_f64().unwrap();
    let count = c["count"].as_u64().unwrap();
    assert!(
        count + 2 >= sim_count && count <= sim_count + 1,
        "{count} vs {sim_count}"
    );
    assert!(
        measured <= sim_max,
        "measured {measured} ns > simulated {sim_max} ns"
    );
    // and not trivially: the control task (higher priority, 900 us) delays the chain
    assert!(measured > 300_000.0, "{measured}");
}
