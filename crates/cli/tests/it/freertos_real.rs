//! `fit` and `analyze` against traces of the real FreeRTOS-Kernel V11.2.0, compiled for
//! Cortex-M3 and executed instruction by instruction (validation/freertos/: run.sh
//! regenerates the committed traces; this test needs no ARM toolchain). Ten tasks with
//! the periods of Table 1 of Miranda, de Oliveira, Carminati: Analysis of FreeRTOS
//! Overheads on Periodic Tasks, rate-monotonic priorities, one hyperperiod (41.4 s).
//!
//! Checks (issue 13's targets): the safe piecewise tick model's worst tick is at or above
//! the measured worst and within +10 %; with the fitted tick and switch costs written into
//! the ten-task system, every task's analysed bound is at or above its measured worst
//! response (both tick modes, both switch charges), and worst bound / measured worst is at
//! most 1.25 with the file's settings (partitioned tick, one switch per event).
//! `generic-varied` is the generic kernel with each job running a seeded random 50–100 %
//! of its budget, so the measured worst is not the analysis' critical instant.

use crate::common;
use std::path::{Path, PathBuf};

const CPU_HZ: f64 = 84e6;

fn traces(sel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../validation/freertos/traces")
        .join(sel)
}

fn latscope(args: &[&str]) -> String {
    common::stdout(&common::ok(args))
}

/// Rows of a committed CSV fixture, header dropped, cells split.
fn rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

fn ns(cycles: f64) -> f64 {
    cycles * 1e9 / CPU_HZ
}

fn fit_json(csv: &Path, target: &str, x: Option<&str>, write: Option<&Path>) -> serde_json::Value {
    let csv = csv.display().to_string();
    let mut a = vec!["fit", &csv, "--target", target, "--y", "cycles"];
    a.extend(["--unit", "cycles", "--cpu-hz", "84000000", "--json", "-"]);
    if let Some(x) = x {
        a.extend(["--x", x]);
    }
    let w;
    if let Some(p) = write {
        w = p.display().to_string();
        a.extend(["--write", &w]);
    }
    serde_json::from_str(&latscope(&a)).unwrap()
}

#[test]
fn safe_piecewise_tick_covers_the_real_worst_tick_within_ten_percent() {
    for sel in ["generic", "optimised", "generic-varied"] {
        let ticks = traces(sel).join("ticks.csv");
        let samples: Vec<(u32, f64)> = rows(&ticks)
            .iter()
            .map(|r| (r[0].parse().unwrap(), r[1].parse().unwrap()))
            .collect();
        assert_eq!(samples.len(), 41_400, "{sel}: one hyperperiod of ticks");
        // The kernel released exactly the jobs the periods predict (x is right).
        let released: u32 = samples.iter().map(|s| s.0).sum();
        let predicted: u32 = [5, 10, 15, 20, 30, 40, 23, 12, 45, 50]
            .iter()
            .map(|p| 41_400 / p)
            .sum();
        assert_eq!(released, predicted, "{sel}: releases in ticks.csv");
        let (worst_x, worst_cycles) =
            samples
                .iter()
                .copied()
                .fold((0, 0.0), |a, s| if s.1 > a.1 { s } else { a });
        assert_eq!(worst_x, 10, "{sel}: the worst tick releases all ten tasks");
        let measured = ns(worst_cycles);
        let fit = fit_json(&ticks, "tick", Some("released"), None);
        assert_eq!(fit["model"], "piecewise", "{sel}: {fit}");
        let safe = &fit["piecewise"]["safe"];
        let (b, f, p, l) = (
            safe["base_ns"].as_f64().unwrap(),
            safe["first_ns"].as_f64().unwrap(),
            safe["per_ns"].as_f64().unwrap(),
            safe["last_ns"].as_f64().unwrap(),
        );
        let model = |r: u32| match r {
            0 => b,
            1 => b + f,
            r => b + f + f64::from(r - 2) * p + l,
        };
        // Above every sample (within float rounding of the cycle-to-ns conversion).
        for &(x, y) in &samples {
            assert!(
                model(x) >= ns(y) - 1e-6,
                "{sel}: safe {} < sample {} at x = {x}",
                model(x),
                ns(y)
            );
        }
        let fitted = model(worst_x);
        let lsq = &fit["piecewise"]["least_squares"];
        let lsq_worst = lsq["base_ns"].as_f64().unwrap()
            + lsq["first_ns"].as_f64().unwrap()
            + 8.0 * lsq["per_ns"].as_f64().unwrap()
            + lsq["last_ns"].as_f64().unwrap();
        println!(
            "{sel}: measured worst tick {measured:.3} ns ({worst_cycles} cycles); safe {fitted:.3} ns \
             (+{:.2} %); least squares {lsq_worst:.3} ns ({:+.2} %); safe line {:.3} ns",
            (fitted / measured - 1.0) * 100.0,
            (lsq_worst / measured - 1.0) * 100.0,
            fit["upper_bound"]["intercept_ns"].as_f64().unwrap()
                + 10.0 * fit["upper_bound"]["slope_ns"].as_f64().unwrap()
        );
        assert!(
            fitted >= measured - 1e-6,
            "{sel}: safe worst {fitted} < measured {measured}"
        );
        assert!(
            fitted <= 1.10 * measured,
            "{sel}: safe worst {fitted} > measured {measured} + 10 %"
        );
    }
}

/// Writes the fitted costs into a copy of the ten-task system; returns its path.
fn fitted_system(dir: &Path, sel: &str) -> PathBuf {
    let sys = dir.join(format!("{sel}.toml"));
    std::fs::copy(traces(sel).join("system.toml"), &sys).unwrap();
    fit_json(
        &traces(sel).join("ticks.csv"),
        "tick",
        Some("released"),
        Some(&sys),
    );
    if sel.starts_with("generic") {
        fit_json(
            &traces(sel).join("switches.csv"),
            "switch",
            Some("levels"),
            Some(&sys),
        );
    } else {
        fit_json(
            &traces(sel).join("switches.csv"),
            "switch-optimised",
            None,
            Some(&sys),
        );
    }
    sys
}

#[test]
fn analysis_bounds_the_real_responses_and_is_within_the_target() {
    let d = tempfile::tempdir().unwrap();
    for sel in ["generic", "optimised", "generic-varied"] {
        let sys = fitted_system(d.path(), sel);
        let text = std::fs::read_to_string(&sys).unwrap();
        assert!(text.contains("tick_first_release"), "{sel}: {text}");
        let measured: Vec<(String, f64)> = rows(&traces(sel).join("worst.csv"))
            .iter()
            .map(|r| (r[0].clone(), ns(r[6].parse().unwrap())))
            .collect();
        assert_eq!(measured.len(), 10);
        let s = sys.display().to_string();
        for (mode, charge) in [
            ("partitioned", "per-event"),
            ("pessimistic", "per-event"),
            ("partitioned", "per-job"),
            ("pessimistic", "per-job"),
        ] {
            let out = latscope(&[
                "analyze",
                &s,
                "--json",
                "-",
                "--tick-mode",
                mode,
                "--switch-charge",
                charge,
            ]);
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let mut worst_ratio: f64 = 0.0;
            for (name, real) in &measured {
                let t = v["tasks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|t| t["name"] == name.as_str())
                    .unwrap_or_else(|| panic!("{sel}: task {name} missing"));
                let bound = t["wcrt_ns"].as_f64().unwrap();
                assert!(
                    bound >= *real,
                    "{sel} {mode} {charge}: task {name} bound {bound} ns < measured {real} ns"
                );
                worst_ratio = worst_ratio.max(bound / real);
            }
            println!("{sel} {mode} {charge}: largest bound / measured worst {worst_ratio:.4}");
            // The target applies where every job runs its WCET; with varied job lengths the
            // ratio measures how far the run stayed from the worst case, not the analysis.
            if mode == "partitioned" && charge == "per-event" && sel != "generic-varied" {
                assert!(
                    worst_ratio <= 1.25,
                    "{sel}: ratio {worst_ratio} above the 1.25 target"
                );
            }
        }
    }
}

/// `simulate` with the fitted costs over the hyperperiod: on the WCET-exact sets every
/// task's simulated worst response lies between the real one and the analysed bound.
#[test]
fn simulated_responses_lie_between_the_real_kernel_and_the_bound() {
    let d = tempfile::tempdir().unwrap();
    for sel in ["generic", "optimised"] {
        let sys = fitted_system(d.path(), sel);
        let s = sys.display().to_string();
        let sim: serde_json::Value = serde_json::from_str(&latscope(&[
            "simulate",
            &s,
            "--duration",
            "41.4s",
            "--json",
            "-",
        ]))
        .unwrap();
        let rta: serde_json::Value =
            serde_json::from_str(&latscope(&["analyze", &s, "--json", "-"])).unwrap();
        let mut worst_gap: f64 = 0.0;
        for r in rows(&traces(sel).join("worst.csv")) {
            let real = ns(r[6].parse().unwrap());
            let find = |v: &serde_json::Value| {
                v["tasks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|t| t["name"] == r[0].as_str())
                    .cloned()
                    .unwrap_or_else(|| panic!("{sel}: task {} missing", r[0]))
            };
            let simulated = find(&sim)["max_response_ns"].as_f64().unwrap();
            let bound = find(&rta)["wcrt_ns"].as_f64().unwrap();
            assert!(
                real <= simulated && simulated <= bound,
                "{sel}: task {}: real {real} ns, simulated {simulated} ns, bound {bound} ns",
                r[0]
            );
            worst_gap = worst_gap.max(simulated / real - 1.0);
        }
        println!(
            "{sel}: simulated worst responses at most {:.4} % above the real kernel's",
            worst_gap * 100.0
        );
    }
}
