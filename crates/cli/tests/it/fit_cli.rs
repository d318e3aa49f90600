//! End-to-end tests of `latscope fit` input handling: counts as x (audit D19.9), degenerate
//! sample sets, CSV encodings, `--write` into files without a cost table, and real
//! `latscope trace --json` results as input (audit D24).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SYSTEM: &str = "# calibration target\n[platform]\ncpu_hz = 84_000_000\n\n\
                      [kernel]\ntick_hz = 1000 # 1 ms\n\n\
                      [[task]]\nname = \"A\"\nperiod = \"5ms\"\nwcet = \"1ms\"\npriority = 2\n";

fn latscope<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latscope"))
        .args(args)
        .output()
        .expect("run latscope")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `fit CSV --target tick --x released --y duration` plus `extra`.
fn fit_csv(csv: &str, extra: &[&str]) -> Output {
    let mut a = vec![
        "fit", csv, "--target", "tick", "--x", "released", "--y", "duration",
    ];
    a.extend_from_slice(extra);
    latscope(&a)
}

#[test]
fn fractional_or_negative_count_is_an_error_naming_file_line_and_column() {
    let d = tempfile::tempdir().unwrap();
    let csv = write(
        d.path(),
        "ticks.csv",
        "released,duration\n0,1.5us\n1,7.4us\n2.5,16us\n10,60.75us\n",
    );
    let o = fit_csv(&csv, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "{csv}:4: column `released`: 2.5 is not a whole count (expected an integer >= 0)"
        )),
        "{e}"
    );
    let csv = write(
        d.path(),
        "neg.csv",
        "released,duration\n0,1.5us\n-1,7.4us\n",
    );
    let o = fit_csv(&csv, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{csv}:3: column `released`: -1 is negative")),
        "{}",
        stderr(&o)
    );
    // `3.0` is the count 3 (what float-typed tools write): same fit as `3`.
    let a = write(
        d.path(),
        "a.csv",
        "released,duration\n0,1.5us\n10,60.75us\n",
    );
    let b = write(
        d.path(),
        "b.csv",
        "released,duration\n0.0,1.5us\n10.0,60.75us\n",
    );
    let (oa, ob) = (fit_csv(&a, &["--json", "-"]), fit_csv(&b, &["--json", "-"]));
    assert!(
        oa.status.success() && ob.status.success(),
        "{}",
        stderr(&ob)
    );
    let (va, vb): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&oa.stdout).unwrap(),
        serde_json::from_slice(&ob.stdout).unwrap(),
    );
    assert_eq!(va["upper_bound"], vb["upper_bound"]);
    assert_eq!(va["upper_bound"]["slope_ns"], 5925.0);
}

#[test]
fn trace_x_must_be_a_count() {
    let d = tempfile::tempdir().unwrap();
    let t = write(
        d.path(),
        "t.json",
        r#"{"kind":"trace","measurements":[{"name":"SysTick","unit":"ns","max_ns":1500.0}]}"#,
    );
    for (x, want) in [
        (
            "2.5",
            "x 2.5 is not a whole count (expected an integer >= 0)",
        ),
        ("-1", "x -1 is negative"),
        ("two", "x 'two' is not a whole count"),
    ] {
        let o = latscope(&[
            "fit",
            "--target",
            "tick",
            "--measurement",
            "SysTick",
            "--trace",
            &format!("0={t}"),
            // `--trace=-1=..`: clap reads a separate `-1` as an option.
            &format!("--trace={x}={t}"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{x}");
        assert!(
            stderr(&o).contains(&format!("--trace {x}={t}: {want}")),
            "{x}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn degenerate_inputs_are_clear_errors() {
    let d = tempfile::tempdir().unwrap();
    for (name, text, want) in [
        ("empty.csv", "", "the CSV is empty"),
        (
            "header.csv",
            "released,duration\r\n",
            "no data rows after the header (line 1)",
        ),
        (
            "one.csv",
            "released,duration\n3,7us\n",
            "every sample (1) has x = 3",
        ),
        (
            "same.csv",
            "released,duration\n3,7us\n3,9us\n",
            "a line needs samples at two or more distinct x values",
        ),
        (
            "nan.csv",
            "released,duration\n0,1us\n1,NaN us\n",
            ":3: column `duration`: 'NaN us' is not a number",
        ),
        (
            "inf.csv",
            "released,duration\n0,1us\n1,inf\n",
            ":3: column `duration`: 'inf' is not a number",
        ),
        (
            "negy.csv",
            "released,duration\n0,1us\n1,-2us\n",
            ":3: column `duration`: '-2us' is negative",
        ),
        (
            "huge.csv",
            "released,duration\n0,1us\n1,1e30s\n",
            ":3: column `duration`: '1e30s' is out of range",
        ),
        (
            "bare.csv",
            "released,duration\n0,1\n1,2\n",
            ":2: column `duration`: '1' has no unit",
        ),
    ] {
        let csv = write(d.path(), name, text);
        let o = fit_csv(&csv, &[]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(name), "{name}: {}", stderr(&o));
    }
    // Bare numbers with --unit; a --unit that is no unit is refused.
    let csv = write(d.path(), "bare.csv", "released,duration\n0,1.5\n10,60.75\n");
    let o = fit_csv(&csv, &["--unit", "us", "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["least_squares"]["intercept_ns"], 1500.0);
    let o = fit_csv(&csv, &["--unit", "furlong"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--unit furlong: not a unit of time"),
        "{}",
        stderr(&o)
    );
    // Huge counts and durations: a result or an error, never a panic (exit 101).
    let csv = write(
        d.path(),
        "big.csv",
        "released,duration\n0,0ns\n1,9223372036854775807ps\n9007199254740992,1ns\n",
    );
    let sys = write(d.path(), "big.toml", SYSTEM);
    let o = fit_csv(&csv, &["--write", &sys]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("beyond the largest duration"),
        "{}",
        stderr(&o)
    );
    let o = fit_csv(
        &write(
            d.path(),
            "big2.csv",
            "released,duration\n9007199254740991,1ns\n9007199254740992,3ns\n",
        ),
        &["--json", "-"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = fit_csv(
        &write(
            d.path(),
            "big3.csv",
            "released,duration\n0,1ns\n9007199254740993,3ns\n",
        ),
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("too large for a count"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn crlf_and_bom_csv_fits_like_plain_csv() {
    let d = tempfile::tempdir().unwrap();
    let plain = write(
        d.path(),
        "p.csv",
        "released,duration\n0,1.5us\n1,7.4us\n10,60.75us\n",
    );
    let excel = write(
        d.path(),
        "x.csv",
        "\u{feff}released,duration\r\n0,1.5us\r\n1,7.4us\r\n10,60.75us\r\n",
    );
    let a = fit_csv(&plain, &["--json", "-"]);
    let b = fit_csv(&excel, &["--json", "-"]);
    assert!(b.status.success(), "{}", stderr(&b));
    // Excel's "Unicode Text" (UTF-16) is refused with advice, not read as garbage.
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "released\tduration\r\n0\t1.5us\r\n"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        )
        .collect();
    let u = d.path().join("u.csv");
    std::fs::write(&u, utf16).unwrap();
    let o = fit_csv(&u.display().to_string(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}: the file is UTF-16 text", u.display())),
        "{}",
        stderr(&o)
    );
    let mut va: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let mut vb: serde_json::Value = serde_json::from_slice(&b.stdout).unwrap();
    va["source"] = "".into();
    vb["source"] = "".into();
    assert_eq!(va, vb);
    assert_eq!(vb["samples"], 3);
}

#[test]
fn write_into_a_system_without_a_cost_table() {
    let d = tempfile::tempdir().unwrap();
    let sys = write(d.path(), "sys.toml", SYSTEM);
    let csv = write(
        d.path(),
        "t.csv",
        "released,duration\n0,1.5us\n10,60.75us\n",
    );
    let o = fit_csv(&csv, &["--write", &sys]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&sys).unwrap();
    let want = SYSTEM.replace(
        "tick_hz = 1000 # 1 ms\n",
        "tick_hz = 1000 # 1 ms\n\n[kernel.costs]\ntick_base = \"1.5us\"\n\
         tick_per_release = \"5.925us\"\n",
    );
    assert_eq!(text, want);
    // The written file is a valid system that analyze accepts.
    let o = latscope(&["analyze", &sys, "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../trace/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// Audit D24: `fit` reads real `latscope trace --json` results. demo16.vcd (sigrok demo
/// driver) has square waves whose longest high pulses are 5.5, 6, 6.5 and 7 us on
/// channels #0..#3; a trace spec names each one "SysTick", so four captures "at" 0..3
/// released tasks lie exactly on 5.5 us + 0.5 us * x.
#[test]
fn fit_reads_real_trace_results() {
    let d = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = ["fit", "--target", "tick", "--measurement", "SysTick"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for k in 0..4 {
        let spec = write(
            d.path(),
            &format!("spec{k}.toml"),
            &format!(
                "[channels]\ntick = \"#{k}\"\n[[measure]]\nname = \"SysTick\"\npulse = \"tick\"\n"
            ),
        );
        let json = d.path().join(format!("t{k}.json")).display().to_string();
        let o = latscope(&[
            "trace",
            &fixture("demo16.vcd"),
            "--spec",
            &spec,
            "--json",
            &json,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        args.push("--trace".into());
        args.push(format!("{k}={json}"));
    }
    let sys = write(d.path(), "sys.toml", SYSTEM);
    args.extend(["--write".into(), sys.clone(), "--json".into(), "-".into()]);
    let o = latscope(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["samples"], 4);
    assert_eq!(v["least_squares"]["slope_ns"], 500.0);
    assert_eq!(v["least_squares"]["intercept_ns"], 5500.0);
    assert_eq!(v["upper_bound"]["slope_ns"], 500.0);
    let text = std::fs::read_to_string(&sys).unwrap();
    assert!(text.contains("tick_base = \"5.5us\""), "{text}");
    assert!(text.contains("tick_per_release = \"500ns\""), "{text}");

    // A trace result given as the CSV argument says how to pass it.
    let t0 = d.path().join("t0.json").display().to_string();
    let o = latscope(&[
        "fit", &t0, "--target", "tick", "--x", "released", "--y", "duration",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "{t0} is a `latscope trace` JSON result, not a CSV"
        )) && e.contains("--trace X=FILE"),
        "{e}"
    );
    // A count measurement is not a duration; a measurement without instances has no y.
    let cnt = d.path().join("count.json").display().to_string();
    let o = latscope(&[
        "trace",
        &fixture("demo16.vcd"),
        "--count",
        "#1,window=1ms",
        "--json",
        &cnt,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = latscope(&[
        "fit",
        "--target",
        "tick",
        "--measurement",
        "#1.count",
        "--trace",
        &format!("0={cnt}"),
        "--trace",
        &format!("1={t0}"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{cnt}: `measurements[0].unit`")),
        "{}",
        stderr(&o)
    );
    // demo8.vcd's channel #7 never changes: its pulse measurement has no instance.
    let empty = d.path().join("empty.json").display().to_string();
    let o = latscope(&[
        "trace",
        &fixture("demo8.vcd"),
        "--pulse",
        "#7",
        "--json",
        &empty,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = latscope(&[
        "fit",
        "--target",
        "tick",
        "--measurement",
        "#7",
        "--trace",
        &format!("0={empty}"),
        "--trace",
        &format!("1={empty}"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "{empty}: `measurements[0].max_ns` is null: measurement \"#7\" has no instance"
        )),
        "{}",
        stderr(&o)
    );
}

/// Every key of a TOML document as `path = value` lines (values as written).
fn flat(text: &str) -> std::collections::BTreeMap<String, String> {
    fn walk(prefix: &str, v: &toml::Value, out: &mut std::collections::BTreeMap<String, String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, x) in t {
                    walk(&format!("{prefix}{k}."), x, out);
                }
            }
            toml::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{prefix}{i}."), x, out);
                }
            }
            other => {
                out.insert(prefix.trim_end_matches('.').to_string(), other.to_string());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk("", &toml::from_str::<toml::Value>(text).unwrap(), &mut out);
    out
}

/// `--write` for each target changes exactly the keys that target fits, and nothing else
/// (a switch fit used to add `switch_optimised = "0ns"` to a file without switch costs,
/// after which optimised selection charged no switch at all).
#[test]
fn write_changes_only_the_fitted_keys_for_every_target() {
    let d = tempfile::tempdir().unwrap();
    let base = "# comment stays\n[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                task_selection = \"optimised\"\n[kernel.costs]\ntick_base = \"1us\"\n\
                tick_per_release = \"2us\"\nswitch_per_level = \"0.5us\"\n\
                [[task]]\nname = \"A\"\nperiod = \"5ms\"\nwcet = \"1ms\"\npriority = 2\n";
    let listscan = "[platform]\ncpu_hz = 84_000_000\n[kernel]\ntick_hz = 1000\n\
                    model = \"listscan\"\n[kernel.costs]\ncheck_per_thread = \"1.3us\"\n\
                    switch = \"1.25us\"\n\
                    [[task]]\nname = \"A\"\nperiod = \"5ms\"\nwcet = \"1ms\"\npriority = 2\n";
    // Tick samples with a steep first step: x = 0, 1 and several x >= 2.
    let tick_csv = "x,y\n0,1.5us\n0,1.52us\n1,5.7us\n2,8.4us\n3,10.6us\n5,15.1us\n10,26.1us\n";
    let line_csv = "x,y\n1,1.5us\n2,2.875us\n3,3.255us\n4,3.875us\n5,4.375us\n";
    // (target, system, samples, x arguments, the keys it fits)
    type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);
    let cases: [Case; 4] = [
        (
            "tick",
            base,
            tick_csv,
            &["--x", "x"],
            &[
                "kernel.costs.tick_base",
                "kernel.costs.tick_first_release",
                "kernel.costs.tick_per_release",
                "kernel.costs.tick_last_release",
            ],
        ),
        (
            "switch",
            base,
            line_csv,
            &["--x", "x"],
            &["kernel.costs.switch_base", "kernel.costs.switch_per_level"],
        ),
        (
            "switch-optimised",
            base,
            "y\n3.1us\n3.5us\n",
            &[],
            &["kernel.costs.switch_optimised"],
        ),
        (
            "insert",
            listscan,
            line_csv,
            &["--x", "x"],
            &[
                "kernel.costs.insert_base",
                "kernel.costs.insert_per_position",
            ],
        ),
    ];
    for (target, sys_text, csv_text, xargs, keys) in cases {
        let sys = write(d.path(), &format!("{target}.toml"), sys_text);
        let csv = write(d.path(), &format!("{target}.csv"), csv_text);
        let mut a = vec!["fit", &csv, "--target", target, "--y", "y", "--write", &sys];
        a.extend_from_slice(xargs);
        let o = latscope(&a);
        assert!(o.status.success(), "{target}: {}", stderr(&o));
        let after = std::fs::read_to_string(&sys).unwrap();
        assert!(after.starts_with(&sys_text[..12]), "{target}: {after}");
        let (before, after) = (flat(sys_text), flat(&after));
        for (k, v) in &before {
            if !keys.contains(&k.as_str()) {
                assert_eq!(after.get(k), Some(v), "{target}: key {k} changed");
            }
        }
        for k in after.keys() {
            assert!(
                before.contains_key(k) || keys.contains(&k.as_str()),
                "{target}: key {k} added"
            );
        }
        for k in keys {
            assert!(after.contains_key(*k), "{target}: {k} not written");
        }
        // The file is still a valid system.
        let o = latscope(&["analyze", &sys]);
        assert!(o.status.success(), "{target}: {}", stderr(&o));
    }
    // In particular: the switch fit into a file without switch costs does not write
    // switch_optimised, which keeps following the fitted switch_base.
    let sys = write(d.path(), "bare.toml", SYSTEM);
    let csv = write(d.path(), "sw.csv", line_csv);
    let o = latscope(&[
        "fit", &csv, "--target", "switch", "--x", "x", "--y", "y", "--write", &sys,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&sys).unwrap();
    assert!(!text.contains("switch_optimised"), "{text}");
}

#[test]
fn cycles_need_the_clock_and_residuals_are_on_request() {
    let d = tempfile::tempdir().unwrap();
    let csv = write(d.path(), "c.csv", "x,y\n0,126\n10,5103\n1,69.1 cycles\n");
    // Without a clock: a message that says what is missing (not "invalid unit").
    let o = latscope(&[
        "fit", &csv, "--target", "tick", "--x", "x", "--y", "y", "--unit", "cycles",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs the CPU clock"), "{}", stderr(&o));
    // With --cpu-hz: 126 cycles at 84 MHz = 1.5 us.
    let o = latscope(&[
        "fit", &csv, "--target", "tick", "--x", "x", "--y", "y", "--unit", "cycles", "--cpu-hz",
        "84MHz", "--json", "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = &v["excess"][0];
    assert_eq!(e["x"], 0.0);
    assert!((e["max_ns"].as_f64().unwrap() - 1500.0).abs() < 1e-6, "{e}");
    // Residuals only with --residuals; the other keys stay.
    assert!(v["residuals_ns"].is_null());
    for k in [
        "least_squares",
        "upper_bound",
        "r2",
        "worst_sample",
        "samples",
    ] {
        assert!(!v[k].is_null(), "{k}");
    }
    let o = latscope(&[
        "fit",
        &csv,
        "--target",
        "tick",
        "--x",
        "x",
        "--y",
        "y",
        "--unit",
        "cycles",
        "--cpu-hz",
        "84000000",
        "--json",
        "-",
        "--residuals",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["residuals_ns"].as_array().map(|a| a.len()), Some(3));
    // The clock can come from the system file given to --write.
    let sys = write(d.path(), "s.toml", SYSTEM);
    let o = latscope(&[
        "fit", &csv, "--target", "tick", "--x", "x", "--y", "y", "--unit", "cycles", "--write",
        &sys,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&sys)
        .unwrap()
        .contains("tick_base = \"1.5us\""));
}

/// `--write` names a file that must exist and parse; both are checked before the fit, so
/// the error comes before any figure (issue 24: it used to fail after printing the fit).
#[test]
fn write_target_is_checked_before_fitting() {
    let d = tempfile::tempdir().unwrap();
    let csv = write(
        d.path(),
        "t.csv",
        "released,duration\n0,1.5us\n10,60.75us\n",
    );
    let missing = d.path().join("none.toml").display().to_string();
    let o = fit_csv(&csv, &["--write", &missing]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        o.stdout.is_empty(),
        "printed before refusing: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        stderr(&o).contains("none.toml: no such file"),
        "{}",
        stderr(&o)
    );
    assert!(!Path::new(&missing).exists());
    let broken = write(d.path(), "broken.toml", "[platform]\ncpu_hz = \"fast\"\n");
    let o = fit_csv(&csv, &["--write", &broken]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        o.stdout.is_empty(),
        "printed before refusing: {}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// `-o/--output` writes the updated system elsewhere; `--out` (the old spelling) still
/// does the same; the source file is left as it was.
#[test]
fn output_and_its_old_spelling_write_elsewhere() {
    let d = tempfile::tempdir().unwrap();
    let sys = write(d.path(), "sys.toml", SYSTEM);
    let csv = write(
        d.path(),
        "t.csv",
        "released,duration\n0,1.5us\n10,60.75us\n",
    );
    let mut outputs = Vec::new();
    for flag in ["-o", "--output", "--out"] {
        let dest = d.path().join(format!("new{flag}.toml"));
        let o = fit_csv(&csv, &["--write", &sys, flag, &dest.display().to_string()]);
        assert!(o.status.success(), "{flag}: {}", stderr(&o));
        outputs.push(std::fs::read_to_string(&dest).unwrap());
    }
    assert!(
        outputs[0].contains("tick_base = \"1.5us\""),
        "{}",
        outputs[0]
    );
    assert!(outputs.iter().all(|t| *t == outputs[0]));
    assert_eq!(std::fs::read_to_string(&sys).unwrap(), SYSTEM);
}

/// The tick fit says how interrupt entry relates to the fitted costs, from the system
/// file's irq_entry_cycles: with 12 cycles at 84 MHz the note names 142.857 ns (the
/// difference between the FreeRTOS overheads paper's 1.5 us and 1.642857 us).
#[test]
fn tick_fit_says_whether_interrupt_entry_is_charged() {
    let d = tempfile::tempdir().unwrap();
    let csv = write(
        d.path(),
        "t.csv",
        "released,duration\n0,1.5us\n10,60.75us\n",
    );
    let with_entry = write(
        d.path(),
        "entry.toml",
        &SYSTEM.replace(
            "cpu_hz = 84_000_000\n",
            "cpu_hz = 84_000_000\nirq_entry_cycles = 12\n",
        ),
    );
    let o = fit_csv(&csv, &["--write", &with_entry]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let note = out
        .lines()
        .find(|l| l.starts_with("interrupt entry:"))
        .unwrap_or_else(|| panic!("no note in {out}"));
    assert!(
        note.contains("irq_entry_cycles = 12 (142.857 ns)"),
        "{note}"
    );
    let without = write(d.path(), "plain.toml", SYSTEM);
    let o = fit_csv(&csv, &["--write", &without]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("charges none (irq_entry_cycles = 0)"), "{out}");
    // Without --write the note still names the double count.
    let o = fit_csv(&csv, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("1.642857 µs"), "{out}");
}

#[test]
fn a_fit_result_is_reportable_with_its_samples() {
    // `latscope report fit.json` draws the lines over the samples the fit carries.
    let d = tempfile::tempdir().unwrap();
    let csv = write(
        d.path(),
        "ticks.csv",
        "released,duration\n0,1.5us\n0,1.6us\n1,7.4us\n2,13.3us\n10,60.75us\n",
    );
    let json = d.path().join("fit.json").display().to_string();
    let o = fit_csv(&csv, &["--json", &json]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let pts = doc["points"].as_array().expect("the samples are carried");
    assert_eq!(pts.len(), 5);
    assert_eq!(pts[4], serde_json::json!([10.0, 60750.0]));
    let html = d.path().join("fit.html").display().to_string();
    let o = latscope(&["report", &json, "-o", &html]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("data-chart=\"fit\""), "the fitted lines");
    assert!(page.contains("data-chart=\"residuals\""), "the residuals");
}
