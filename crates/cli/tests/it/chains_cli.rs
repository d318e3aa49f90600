//! `[[chain]]` through the CLI: `analyze` prints each chain's bound and verdict, `--json`
//! carries `chains`, `--check` exits 1 when a chain misses its deadline (all tasks
//! schedulable), and `simulate --json` carries the observed latencies, within the bounds.

use crate::common;
use common::run;

const REST: &str = r#"[[task]]
name = "control"
period = "5ms"
wcet = "500us"
priority = 3
[[interrupt]]
name = "adc"
min_interarrival = "1ms"
wcet = "10us"
priority = 2
releases = "handler"
periodic = true
[[chain]]
name = "adc-to-control"
steps = ["adc", "handler", "filter", "control"]
links = ["event", "event", "sampled"]
[[chain]]
name = "adc-to-filter"
steps = ["adc", "handler", "filter"]
links = ["event", "event"]
deadline = "DEADLINE"
"#;

/// The system file: the shared chain board with `handler` and `filter`, then this
/// file's `control`, interrupt and chains.
fn system_toml() -> String {
    [common::CHAIN_HEAD, REST].concat()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn chain_deadline_decides_check_and_simulation_stays_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sys.toml");
    std::fs::write(&p, system_toml().replace("DEADLINE", "10ms")).unwrap();
    let a = run(&[
        "analyze".as_ref(),
        p.as_os_str(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let v = json(&a);
    let chains = v["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 2);
    let bound = chains[1]["bound_ns"].as_f64().unwrap();
    let reaction = chains[0]["reaction_ns"].as_f64().unwrap();
    let age = chains[0]["age_ns"].as_f64().unwrap();
    let parts: f64 = chains[1]["composition"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["ns"].as_f64().unwrap())
        .sum();
    assert!((parts - bound).abs() < 1e-3, "{parts} vs {bound}");
    // The event chain's bound is the last task's holistic WCRT.
    let filter = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "filter")
        .unwrap()["wcrt_ns"]
        .as_f64()
        .unwrap();
    assert_eq!(bound, filter);
    let ok = run(&["analyze".as_ref(), p.as_os_str(), "--check".as_ref()]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(text.contains("end-to-end chains:"), "{text}");
    assert!(
        text.contains("adc -> handler -> filter ~> control"),
        "{text}"
    );
    assert!(text.contains("deadline 10 ms met"), "{text}");

    // One picosecond under the bound: the chain misses, the tasks still meet theirs.
    let tight = format!("{}ps", (bound * 1000.0) as i64 - 1);
    std::fs::write(&p, system_toml().replace("DEADLINE", &tight)).unwrap();
    let miss = run(&["analyze".as_ref(), p.as_os_str(), "--check".as_ref()]);
    assert_eq!(miss.status.code(), Some(1), "{miss:?}");
    assert!(String::from_utf8_lossy(&miss.stdout).contains("MISSED"));
    assert_eq!(
        json(&run(&[
            "analyze".as_ref(),
            p.as_os_str(),
            "--json".as_ref(),
            "-".as_ref()
        ]))["schedulable"],
        true
    );

    let s = run(&[
        "simulate".as_ref(),
        p.as_os_str(),
        "--duration".as_ref(),
        "1s".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let sv = json(&s);
    let sc = sv["chains"].as_array().unwrap();
    assert_eq!(sc[1]["kind"], "event");
    assert!(sc[1]["count"].as_u64().unwrap() >= 999, "{sv}");
    assert!(sc[1]["max_ns"].as_f64().unwrap() <= bound);
    assert!(sc[0]["max_ns"].as_f64().unwrap() <= reaction);
    assert!(sc[0]["age_max_ns"].as_f64().unwrap() <= age);
    assert!(sc[0]["count"].as_u64().unwrap() > 150);
}

/// The same pipeline on two cores: the handler on core 0 releases `filter` on core 1
/// (an event link across cores, carried by the inter-core interrupt), `control` samples
/// it on core 1. `analyze --json` bounds both chains, `simulate --json` observes them
/// within the bounds, and `--sensitivity` names the chain that limits the scaling.
#[test]
fn chains_across_two_cores_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sys.toml");
    let two = system_toml()
        .replace(
            "irq_entry_cycles = 12\n",
            "irq_entry_cycles = 12\ncores = 2\n",
        )
        .replace(
            "switch_base = \"1us\"\n",
            "switch_base = \"1us\"\nipi = \"4us\"\n",
        )
        .replace("wcet = \"200us\"\n", "wcet = \"200us\"\ncore = 1\n")
        .replace("wcet = \"500us\"\n", "wcet = \"500us\"\ncore = 1\n");
    std::fs::write(&p, two.replace("DEADLINE", "10ms")).unwrap();
    let v = json(&run(&[
        "analyze".as_ref(),
        p.as_os_str(),
        "--json".as_ref(),
        "-".as_ref(),
    ]));
    assert_eq!(v["cores"].as_array().unwrap().len(), 2, "{v}");
    let ints: Vec<&str> = v["cores"][1]["interrupts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(ints, ["ipi<handler"], "{v}");
    let chains = v["chains"].as_array().unwrap();
    let bound = chains[1]["bound_ns"].as_f64().unwrap();
    let reaction = chains[0]["reaction_ns"].as_f64().unwrap();
    let wcrt = |n: &str| {
        v["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .unwrap()["wcrt_ns"]
            .as_f64()
            .unwrap()
    };
    // The bound is filter's WCRT, which holds handler's response and the 4 us handler.
    assert_eq!(bound, wcrt("filter"));
    assert!(bound >= wcrt("handler") + 200_000.0 + 4_000.0, "{v}");
    let s = json(&run(&[
        "simulate".as_ref(),
        p.as_os_str(),
        "--duration".as_ref(),
        "1s".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]));
    let sc = s["chains"].as_array().unwrap();
    assert!(sc[1]["count"].as_u64().unwrap() >= 999, "{s}");
    assert!(sc[1]["max_ns"].as_f64().unwrap() <= bound, "{s}");
    assert!(sc[0]["max_ns"].as_f64().unwrap() <= reaction, "{s}");

    // A deadline just above the bound: the chain limits the scaling factor.
    let tight = format!("{}ps", (bound * 1000.0) as i64 + 1000);
    std::fs::write(&p, two.replace("DEADLINE", &tight)).unwrap();
    let m = json(&run(&[
        "analyze".as_ref(),
        p.as_os_str(),
        "--sensitivity".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]));
    assert_eq!(
        m["sensitivity"]["critical_task"], "chain \"adc-to-filter\"",
        "{m}"
    );
    let f = m["sensitivity"]["scaling_factor"].as_f64().unwrap();
    assert!((1.0..1.01).contains(&f), "{f}");
}
