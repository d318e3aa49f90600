//! End-to-end tests of `latscope export`: rows read back from the Parquet file agree with
//! the JSON results they came from; sweep shards join to the unsharded file.

use crate::common;
use common::{ok, run, s};

#[test]
fn analyze_and_simulate_rows_match_the_json() {
    let d = tempfile::tempdir().unwrap();
    let mut jsons = Vec::new();
    for k in 0..3 {
        let set = d.path().join(format!("set{k}.toml"));
        let seed = (k + 3).to_string();
        ok(&[
            "generate",
            "--tasks",
            "5",
            "--utilisation",
            "0.7",
            "--seed",
            &seed,
            "--out",
            s(&set),
        ]);
        let j = d.path().join(format!("an{k}.json"));
        ok(&[
            "analyze",
            s(&set),
            "--json",
            s(&j),
            "--label",
            &format!("board=b{k}"),
        ]);
        jsons.push(j);
    }
    let pq = d.path().join("an.parquet");
    let mut args = vec!["export"];
    args.extend(jsons.iter().map(|p| s(p)));
    args.extend(["--parquet", s(&pq)]);
    ok(&args);
    let t = latscope_fleet::parquet_file::read(&pq).unwrap();
    assert_eq!(t.rows(), 15);
    let wcrt = t.column("wcrt_ns").unwrap();
    let board = t.column("board").unwrap();
    let mut row = 0;
    for (k, j) in jsons.iter().enumerate() {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(j).unwrap()).unwrap();
        for task in v["tasks"].as_array().unwrap() {
            assert_eq!(
                wcrt.text_at(row),
                task["wcrt_ns"].as_f64().unwrap().to_string()
            );
            assert_eq!(board.text_at(row), format!("b{k}"));
            row += 1;
        }
    }
    // Mixed kinds are refused, naming the file.
    let set = d.path().join("set0.toml");
    let sim = d.path().join("sim.json");
    ok(&[
        "simulate",
        s(&set),
        "--duration",
        "100ms",
        "--json",
        s(&sim),
    ]);
    let r = run(&["export", s(&jsons[0]), s(&sim), "--parquet", s(&pq)]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("sim.json"));
    let st = d.path().join("sim.parquet");
    ok(&["export", s(&sim), "--parquet", s(&st)]);
    let t = latscope_fleet::parquet_file::read(&st).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sim).unwrap()).unwrap();
    let jobs: i64 = v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["jobs"].as_i64().unwrap())
        .sum();
    let got: i64 = (0..t.rows())
        .map(|r| t.column("jobs").unwrap().text_at(r).parse::<i64>().unwrap())
        .sum();
    assert_eq!(got, jobs);
}

#[test]
fn sweep_parquet_shards_join_to_the_whole_file() {
    let d = tempfile::tempdir().unwrap();
    let base = [
        "sweep",
        "--tasks",
        "6",
        "--util",
        "0.6..0.9:0.1",
        "--sets",
        "5",
        "--seed",
        "3",
        "-q",
        "--set",
        "kernel.tick_hz=500,1000",
        "--label",
        "study=s1",
    ];
    let whole = d.path().join("whole.parquet");
    let mut a = base.to_vec();
    a.extend(["--out", s(&whole)]);
    ok(&a);
    let mut parts = Vec::new();
    for k in 1..=4 {
        let p = d.path().join(format!("part-{k}.parquet"));
        let shard = format!("{k}/4");
        let mut a = base.to_vec();
        a.extend(["--shard", &shard, "--out", s(&p)]);
        ok(&a);
        parts.push(p);
    }
    let joined = d.path().join("joined.parquet");
    let mut a = vec!["export"];
    a.extend(parts.iter().map(|p| s(p)));
    a.extend(["--parquet", s(&joined)]);
    ok(&a);
    assert_eq!(
        std::fs::read(&joined).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // Joined in another order it is not the same file: the order is the sweep's.
    let other = d.path().join("other.parquet");
    ok(&[
        "export",
        s(&parts[1]),
        s(&parts[0]),
        s(&parts[2]),
        s(&parts[3]),
        "--parquet",
        s(&other),
    ]);
    assert_ne!(
        std::fs::read(&other).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    let t = latscope_fleet::parquet_file::read(&whole).unwrap();
    assert_eq!(t.rows(), 4 * 5 * 2);
    assert_eq!(t.column("study").unwrap().text_at(7), "s1");
}
