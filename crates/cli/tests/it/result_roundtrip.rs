//! Every result a command writes reads back through its typed document
//! (`latscope_results::Document`) and writes again to the same JSON: deserialise →
//! serialise gives the very `serde_json::Value` the command wrote. So the types consumers
//! read through carry every key a producer writes, under the same name and meaning.

use crate::common;

use common::{read_json, run, s, write};
use latscope_results::Document;
use serde_json::{json, Value};
use std::path::Path;

const SYSTEM: &str = r#"
[platform]
cpu_hz = 84_000_000
[kernel]
tick_hz = 1000
model = "tick"
[kernel.costs]
tick_base = "5us"
tick_per_release = "1us"
switch_base = "3us"
switch_per_level = "0.2us"
[[task]]
name = "a"
period = "5ms"
offset = "1ms"
wcet = "400us"
priority = 1
[[task]]
name = "b"
period = "10ms"
wcet = "2ms"
priority = 2
"#;

const LISTSCAN: &str = r#"
[platform]
cpu_hz = 125_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 125
model = "listscan"
allow_equal_priorities = true
[kernel.costs]
check_per_thread = "1.3us"
insert_base = "0.6us"
insert_per_position = "0.2us"
switch = "1.25us"
[[task]]
name = "t0"
period = "8ms"
wcet = "400us"
priority = 1
[[task]]
name = "t1"
period = "16ms"
wcet = "1ms"
priority = 2
"#;

const OBSERVED_SYSTEM: &str = r#"
[platform]
cpu_hz = 1_000_000
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
tick_per_release = "3us"
[[task]]
name = "T"
period = "2ms"
wcet = "300us"
priority = 1
"#;

/// An event recording in latscope's event JSON: a task T released by every other tick of
/// a 1 kHz tick (runs 300 µs) and idle, 10 ms, with one window of lost events.
fn recording() -> String {
    let us = 1_000_000i64;
    let mut ev = vec![json!({"t": 0, "cpu": 0, "kind": "switch", "actor": 2})];
    for k in 0..10i64 {
        let t = k * 1000;
        ev.push(json!({"t": t * us, "cpu": 0, "kind": "isr_enter", "actor": 1}));
        if k % 2 == 1 {
            ev.push(json!({"t": (t + 2) * us, "cpu": 0, "kind": "isr_exit", "actor": 1}));
            continue;
        }
        ev.extend([
            json!({"t": (t + 1) * us, "cpu": 0, "kind": "ready", "actor": 0}),
            json!({"t": (t + 5) * us, "cpu": 0, "kind": "isr_exit", "actor": 1}),
            json!({"t": (t + 5) * us, "cpu": 0, "kind": "switch", "actor": 0}),
            json!({"t": (t + 305) * us, "cpu": 0, "kind": "block", "actor": 0}),
            json!({"t": (t + 305) * us, "cpu": 0, "kind": "switch", "actor": 2}),
        ]);
    }
    json!({
        "source": "synthetic", "format": "test", "clock_hz": 1_000_000,
        "start": 0, "end": 10_000 * us, "cpus": 1,
        "actors": [
            {"name": "T", "kind": "task", "priority": 1, "id": 0},
            {"name": "SysTick", "kind": "tick", "priority": null, "id": 0},
            {"name": "IDLE", "kind": "idle", "priority": 0, "id": 0},
        ],
        "events": ev,
        "lost": [{"count": 3, "from": 4100 * us, "to": 4200 * us}],
    })
    .to_string()
}

/// The first place two JSON values differ, as a JSON pointer with both values.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (p, q) = (x.get(k), y.get(k));
                let here = format!("{at}/{k}");
                match (p, q) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, &here) {
                            return Some(d);
                        }
                    }
                    _ => return Some(format!("{here}: written {p:?}, read back {q:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!("{at}: written {a}, read back {b}")),
    }
}

/// Runs `args` (which write `file` in `dir`), reads the result as `kind`'s document and
/// checks that it writes the same JSON again. Exit status 1 is a verdict (a bound or a
/// deadline missed), written with its result like 0.
fn round_trip(dir: &Path, kind: &str, args: &[&str], file: &str) {
    let o = run(args);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "latscope {args:?} exited {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    let written = read_json(&dir.join(file));
    let doc =
        Document::from_value(written.clone()).unwrap_or_else(|e| panic!("latscope {args:?}: {e}"));
    assert_eq!(doc.kind(), kind, "latscope {args:?}");
    let again = doc.to_value().expect("a document serialises");
    if let Some(d) = first_difference(&written, &again, "") {
        panic!("latscope {args:?}: the {kind} document does not round-trip: {d}");
    }
}

#[test]
fn every_command_result_round_trips_through_its_document() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let out = |f: &str| d.join(f).to_str().unwrap().to_string();
    let fix = Path::new(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/fixtures");
    let system = write(d, "offsets.toml", SYSTEM);
    let listscan = write(d, "listscan.toml", LISTSCAN);
    let observed = write(d, "observed.toml", OBSERVED_SYSTEM);
    let rec = write(d, "rec.json", &recording());
    let csv = write(
        d,
        "fit.csv",
        "released,duration\n0,5000\n1,6100\n2,7000\n3,8200\n4,9100\n",
    );
    let full =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/fixtures/full-system.toml");
    let vcd = fix.join("demo8.vcd");
    let sr = fix.join("demo16.sr");
    let runs: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "trace",
            [
                "trace",
                s(&vcd),
                "--pulse",
                "D0",
                "--pulse",
                "D7",
                "--latency",
                "D0:rise->D1:rise",
                "--period",
                "D1:rise",
                "--busy",
                "D2,window=1ms",
                "--count",
                "D3,window=1ms",
                "--limit",
                "D0.max<1ms",
                "--limit",
                "D2.busy.percent<90%",
                "--json",
            ]
            .map(String::from)
            .into_iter()
            .chain([out("t.json")])
            .collect(),
            "t.json",
        ),
        (
            "trace",
            vec![
                "trace".into(),
                s(&sr).into(),
                "--pulse".into(),
                "D0".into(),
                "--json".into(),
                out("t2.json"),
            ],
            "t2.json",
        ),
        (
            "tasks",
            vec![
                "trace".into(),
                rec.clone(),
                "--tasks".into(),
                "--json".into(),
                out("k.json"),
            ],
            "k.json",
        ),
        (
            "analyze",
            vec![
                "analyze".into(),
                system.clone(),
                "--sensitivity".into(),
                "--assign-priorities".into(),
                "--json".into(),
                out("a.json"),
            ],
            "a.json",
        ),
        (
            "analyze",
            vec![
                "analyze".into(),
                s(&full).into(),
                "--json".into(),
                out("a2.json"),
            ],
            "a2.json",
        ),
        (
            "analyze",
            vec![
                "analyze".into(),
                observed,
                "--observed".into(),
                rec.clone(),
                "--json".into(),
                out("a3.json"),
            ],
            "a3.json",
        ),
        (
            "simulate",
            vec![
                "simulate".into(),
                system,
                "--duration".into(),
                "2s".into(),
                "--json".into(),
                out("s.json"),
            ],
            "s.json",
        ),
        (
            "simulate",
            vec![
                "simulate".into(),
                listscan,
                "--duration".into(),
                "1s".into(),
                "--json".into(),
                out("s2.json"),
            ],
            "s2.json",
        ),
        (
            "fit",
            vec![
                "fit".into(),
                rec,
                "--target".into(),
                "tick".into(),
                "--json".into(),
                out("f3.json"),
            ],
            "f3.json",
        ),
        (
            "fit",
            [
                "fit", &csv, "--target", "tick", "--x", "released", "--y", "duration", "--unit",
                "ns", "--json",
            ]
            .map(String::from)
            .into_iter()
            .chain([out("f.json")])
            .collect(),
            "f.json",
        ),
        (
            "measure",
            vec![
                "measure".into(),
                "--duration".into(),
                "300ms".into(),
                "--allow-fallback".into(),
                "--json".into(),
                out("m.json"),
            ],
            "m.json",
        ),
        (
            "measure",
            [
                "measure",
                "--duration",
                "200ms",
                "--rounds",
                "2",
                "--allow-fallback",
                "--json",
            ]
            .map(String::from)
            .into_iter()
            .chain([out("mr.json")])
            .collect(),
            "mr.json",
        ),
    ];
    for (kind, args, file) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        round_trip(d, kind, &args, file);
    }
}

#[test]
fn a_changed_value_is_a_difference() {
    // The comparison the round trip relies on finds a change, a missing key and an extra one.
    let a = json!({"x": [1, {"y": 2}], "z": null});
    assert!(first_difference(&a, &a, "").is_none());
    let b = json!({"x": [1, {"y": 3}], "z": null});
    assert_eq!(
        first_difference(&a, &b, "").as_deref(),
        Some("/x/1/y: written 2, read back 3")
    );
    assert!(first_difference(&a, &json!({"x": [1, {"y": 2}]}), "").is_some());
    assert!(first_difference(&json!({"x": 1}), &a, "").is_some());
}
