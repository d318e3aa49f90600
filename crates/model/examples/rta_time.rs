//! Times `analyze` on system files and prints a digest of the results (for profiling
//! the analysis without the CLI): `cargo run --release -p latscope-model --example
//! rta_time -- REPEAT FILE...`.
use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::system::System;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let opts = AnalysisOptions::default();
    let mut total = 0.0;
    for f in args {
        let sys = System::from_path(std::path::Path::new(&f)).expect("system file");
        let r = analyze(&sys, &opts).expect("analysis");
        let iters: u64 = r.tick_modes.pessimistic.iter().map(|t| t.iterations).sum();
        let digest: i128 = r
            .tick_modes
            .pessimistic
            .iter()
            .chain(&r.tick_modes.partitioned)
            .map(|t| t.wcrt_ps.unwrap_or(-1) as i128 * (1 + t.critical_job as i128))
            .sum();
        if let Ok(dir) = std::env::var("RTA_DUMP") {
            let mut v = serde_json::to_value(&r).expect("json");
            for m in ["pessimistic", "partitioned"] {
                for t in v["tick_modes"][m].as_array_mut().expect("array") {
                    t["iterations"] = 0.into();
                }
            }
            v["tasks"] = serde_json::Value::Null;
            let name = std::path::Path::new(&f).file_name().expect("name");
            std::fs::write(
                std::path::Path::new(&dir).join(name),
                serde_json::to_string_pretty(&v).expect("json"),
            )
            .expect("dump");
        }
        let start = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(analyze(std::hint::black_box(&sys), &opts).ok());
        }
        let us = start.elapsed().as_secs_f64() / n as f64 * 1e6;
        total += us;
        println!("{f}: {us:.1} us, pessimistic iterations {iters}, digest {digest}");
    }
    println!("total {total:.1} us");
}
