//! `latscope simulate` with shared resources, end to end: the JSON's blocking fields and
//! episodes agree with `latscope analyze` (simulated blocking and response within the
//! analysed ones), and the capture's `held_<resource>` channel, measured back by
//! `latscope trace`, has one pulse per take and the longest hold the JSON reports.

use crate::common;
use common::ok;

/// lo (priority 1) holds the uart 0.5..1.5 ms into each job; hi (2), released 1 ms
/// later, asks for it at once: it waits, lo inherits 2 and finishes its section.
const SYS: &str = r#"
[platform]
cpu_hz = 100_000_000
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
switch_base = "1us"
lock = "1us"
unlock = "2us"
inherit = "3us"

[[resource]]
name = "uart"
protocol = "inheritance"

[[task]]
name = "hi"
period = "10ms"
offset = "1ms"
wcet = "500us"
priority = 2
critical = [{ resource = "uart", duration = "100us" }]

[[task]]
name = "lo"
period = "10ms"
wcet = "3ms"
priority = 1
critical = [{ resource = "uart", duration = "1ms", at = "500us" }]
"#;

#[test]
fn blocking_episodes_and_held_channel() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    std::fs::write(p("sys.toml"), SYS).unwrap();
    ok(&[
        "simulate".as_ref(),
        p("sys.toml").as_os_str(),
        "--duration".as_ref(),
        "100ms".as_ref(),
        "--json".as_ref(),
        p("s.json").as_os_str(),
        "--capture".as_ref(),
        p("s.lscap").as_os_str(),
    ]);
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(p("s.json")).unwrap()).unwrap();
    let out = ok(&[
        "analyze".as_ref(),
        p("sys.toml").as_os_str(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let find = |v: &serde_json::Value, name: &str| {
        v["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    let (sh, ah) = (find(&s, "hi"), find(&a, "hi"));
    // ten jobs of hi, each blocked by lo's section
    assert_eq!(sh["jobs"], 10);
    let blocking = sh["max_blocking_ns"].as_f64().unwrap();
    assert!(blocking > 400_000.0, "{blocking}");
    assert!(blocking <= ah["blocking_ns"].as_f64().unwrap());
    assert!(sh["max_response_ns"].as_f64().unwrap() <= ah["wcrt_ns"].as_f64().unwrap());
    assert!(sh["blocked_ns"].as_f64().unwrap() >= 10.0 * 400_000.0);
    let r = &s["resources"][0];
    assert_eq!(
        (r["name"].as_str(), r["protocol"].as_str()),
        (Some("uart"), Some("inheritance"))
    );
    assert_eq!(
        (r["takes"].as_u64(), r["contended"].as_u64()),
        (Some(20), Some(10))
    );
    assert_eq!(r["inheritances"], 10);
    let e = &r["episodes"][0];
    assert_eq!(
        (e["task"].as_str(), e["holder"].as_str()),
        (Some("hi"), Some("lo"))
    );
    assert_eq!(
        (e["inherited"].as_bool(), e["holder_priority"].as_u64()),
        (Some(true), Some(2))
    );
    // the capture, measured like a real one
    let out = ok(&[
        "trace".as_ref(),
        p("s.lscap").as_os_str(),
        "--pulse".as_ref(),
        "held_uart".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    let tr: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &tr["measurements"][0];
    assert_eq!(m["count"], 20);
    // trace writes whole nanoseconds as integers, simulate as numbers: compare values.
    assert_eq!(m["max_ns"].as_f64(), r["max_hold_ns"].as_f64());
    assert!(m["max_ns"].as_f64().is_some_and(|x| x > 0.0), "{m}");
}
