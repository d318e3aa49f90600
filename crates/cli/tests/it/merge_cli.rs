//! `latscope merge`: real `measure` runs combined; the merged figures are checked
//! against the raw samples of both runs (written with --samples), not against latscope's
//! own merging code.

use serde_json::Value;
use std::path::Path;

use crate::common;
use common::{run, s};

fn measure(dir: &Path, name: &str, interval: &str, labels: &[&str]) -> (String, Vec<i64>) {
    let json = dir.join(format!("{name}.json"));
    let csv = dir.join(format!("{name}.csv"));
    let mut args = vec![
        "measure",
        "--cpus",
        "0",
        "--policy",
        "other",
        "--interval",
        interval,
        "--loops",
        "400",
        "-q",
        "--json",
        s(&json),
        "--samples",
        s(&csv),
    ];
    for l in labels {
        args.push("--label");
        args.push(l);
    }
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lat = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap().parse::<i64>().unwrap())
        .collect();
    (json.display().to_string(), lat)
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Nearest-rank percentile of sorted values.
fn pct(sorted: &[i64], p: f64) -> i64 {
    let n = sorted.len() as f64;
    let r = ((p / 100.0 * n).ceil() as usize).clamp(1, sorted.len());
    sorted[r - 1]
}

#[test]
fn merged_figures_are_those_of_all_raw_samples() {
    let d = tempfile::tempdir().unwrap();
    let (a, la) = measure(d.path(), "a", "100us", &["rack=r1", "board=a"]);
    let (b, lb) = measure(d.path(), "b", "100us", &["rack=r1", "board=b"]);
    let out = d.path().join("m.json");
    let o = run(&["merge", &a, &b, "--json", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = read(&out);
    let mut all: Vec<i64> = la.iter().chain(&lb).copied().collect();
    all.sort();
    let t = &m["total"];
    assert_eq!(t["count"].as_u64().unwrap() as usize, all.len());
    assert_eq!(t["min_ns"].as_i64().unwrap(), all[0]);
    assert_eq!(t["max_ns"].as_i64().unwrap(), *all.last().unwrap());
    let ra: Value = read(Path::new(&a));
    let rb: Value = read(Path::new(&b));
    let over = |v: &Value| v["total"]["overruns"].as_u64().unwrap();
    assert_eq!(t["overruns"].as_u64().unwrap(), over(&ra) + over(&rb));
    // Percentiles: the upper edge of the 0.1 %-wide bucket holding the exact value.
    for (k, p) in [("p50_ns", 50.0), ("p90_ns", 90.0), ("p99_ns", 99.0)] {
        let exact = pct(&all, p);
        let got = t[k].as_i64().unwrap();
        assert!(
            got >= exact && got as f64 <= exact as f64 * 1.001 + 1.0,
            "{k}: merged {got}, exact {exact}"
        );
    }
    let mean = all.iter().sum::<i64>() as f64 / all.len() as f64;
    assert!((t["mean_ns"].as_f64().unwrap() - mean).abs() < 1e-6 * mean.max(1.0));
    assert_eq!(m["cpus"][0]["count"], t["count"]);
    assert_eq!(m["rounds"].as_array().unwrap().len(), 2);
    // Labels: the shared one kept, the differing one listed with both values.
    assert_eq!(m["labels"]["rack"], "r1");
    assert!(m["labels"].get("board").is_none());
    assert_eq!(m["merged"]["differing_labels"]["board"][0], "a");
    assert_eq!(m["merged"]["differing_labels"]["board"][1], "b");
    assert_eq!(m["merged"]["from"][1].as_str().unwrap(), b);
    assert!(t["hdr"].as_str().unwrap().starts_with("HISTFA"));
    // A merged result merges again: (a+b)+a has every count of a twice.
    let out2 = d.path().join("m2.json");
    let o = run(&["merge", s(&out), &a, "-o", s(&out2), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m2 = read(&out2);
    assert_eq!(
        m2["total"]["count"].as_u64().unwrap() as usize,
        all.len() + la.len()
    );
}

#[test]
fn different_settings_are_refused_naming_setting_and_files() {
    let d = tempfile::tempdir().unwrap();
    let (a, _) = measure(d.path(), "a", "100us", &[]);
    let (b, _) = measure(d.path(), "b", "200us", &[]);
    let out = d.path().join("m.json");
    std::fs::write(&out, "earlier").unwrap();
    let o = run(&["merge", &a, &b, "--json", s(&out)]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("interval") && e.contains(&a) && e.contains(&b),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "earlier",
        "a refused merge leaves the earlier file alone"
    );
    // Same file twice, a file that is not a result, one result alone.
    let o = run(&["merge", &a, &a, "--json", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("given twice"));
    let junk = d.path().join("junk.json");
    std::fs::write(&junk, "{\"kind\": \"trace\"}").unwrap();
    let o = run(&["merge", &a, s(&junk), "--json", s(&out)]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("junk.json"), "{e}");
    let o = run(&["merge", &a, "--json", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least two"));
}

#[test]
fn appended_results_keep_their_exact_histogram() {
    let d = tempfile::tempdir().unwrap();
    let ap = d.path().join("ap.json");
    let mut counts = Vec::new();
    for _ in 0..2 {
        let o = run(&[
            "measure",
            "--cpus",
            "0",
            "--policy",
            "other",
            "--interval",
            "100us",
            "--loops",
            "300",
            "--rounds",
            "1",
            "--append",
            "-q",
            "--json",
            s(&ap),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        counts.push(
            read(&ap)["rounds"].as_array().unwrap().last().unwrap()["count"]
                .as_u64()
                .unwrap(),
        );
    }
    let r = read(&ap);
    assert_eq!(
        r["total"]["count"].as_u64().unwrap(),
        counts.iter().sum::<u64>()
    );
    assert!(r["total"]["hdr"].as_str().unwrap().starts_with("HISTFA"));
    assert!(r["cpus"][0]["hdr"].as_str().unwrap().starts_with("HISTFA"));
    // The appended file merges with another run; counts add up.
    let (b, lb) = measure(d.path(), "b", "100us", &[]);
    let out = d.path().join("m.json");
    let o = run(&["merge", s(&ap), &b, "-o", s(&out), "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        read(&out)["total"]["count"].as_u64().unwrap(),
        counts.iter().sum::<u64>() + lb.len() as u64
    );
}
