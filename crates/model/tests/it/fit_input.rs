//! Input robustness of the calibration fit (`latscope_model::fit`): counts as x (audit
//! D19.9), durations as y, degenerate sample sets, CSV encodings, trace JSON and huge
//! values.

use latscope_model::fit::*;
use latscope_model::System;

fn csv(text: &str) -> Result<Vec<Sample>, CsvError> {
    samples_from_csv(
        text,
        "ticks.csv",
        &XColumn::Count("released".into()),
        "duration",
        None,
        None,
    )
}

fn csv_err(text: &str) -> String {
    csv(text).unwrap_err().to_string()
}

#[test]
fn counts_accept_whole_numbers_only() {
    assert_eq!(parse_count("3", MAX_COUNT), Ok(3));
    assert_eq!(parse_count(" 7 ", MAX_COUNT), Ok(7));
    assert_eq!(parse_count("0", MAX_COUNT), Ok(0));
    // Whole floats as spreadsheets and numeric libraries print them.
    assert_eq!(parse_count("3.0", MAX_COUNT), Ok(3));
    assert_eq!(parse_count("12.000", MAX_COUNT), Ok(12));
    assert_eq!(parse_count("12.", MAX_COUNT), Ok(12));
    assert_eq!(parse_count("9007199254740992", MAX_COUNT), Ok(MAX_COUNT));

    assert_eq!(
        parse_count("2.5", MAX_COUNT),
        Err(CountError::Fractional("2.5".into()))
    );
    assert_eq!(
        parse_count("3.01", MAX_COUNT),
        Err(CountError::Fractional("3.01".into()))
    );
    assert_eq!(
        parse_count("-1", MAX_COUNT),
        Err(CountError::Negative("-1".into()))
    );
    assert_eq!(
        parse_count("-0.5", MAX_COUNT),
        Err(CountError::Negative("-0.5".into()))
    );
    assert_eq!(
        parse_count("1e3", MAX_COUNT),
        Err(CountError::Exponent("1e3".into()))
    );
    for bad in [
        "", "abc", "nan", "NaN", "inf", "-inf", "3 tasks", "0x10", "1.5.0",
    ] {
        assert!(
            matches!(parse_count(bad, MAX_COUNT), Err(CountError::NotANumber(_))),
            "{bad:?}: {:?}",
            parse_count(bad, MAX_COUNT)
        );
    }
    for big in ["9007199254740993", "99999999999999999999999999", "1e300"] {
        let e = parse_count(big, MAX_COUNT).unwrap_err();
        assert!(
            matches!(e, CountError::TooLarge { .. } | CountError::Exponent(_)),
            "{big}: {e:?}"
        );
    }
    assert!(matches!(
        parse_count("4294967296", u32::MAX as u64),
        Err(CountError::TooLarge { .. })
    ));
    assert_eq!(
        CountError::Fractional("2.5".into()).to_string(),
        "2.5 is not a whole count (expected an integer >= 0)"
    );
}

/// Audit D19.9: a fractional or negative count is an error naming file, line and column.
#[test]
fn csv_rejects_fractional_and_negative_counts() {
    let e = csv_err("released,duration\n0,1.5us\n# a comment\n2.5,7us\n");
    assert_eq!(
        e,
        "ticks.csv:4: column `released`: 2.5 is not a whole count (expected an integer >= 0)"
    );
    let e = csv_err("released,duration\n0,1.5us\n-1,7us\n");
    assert_eq!(
        e,
        "ticks.csv:3: column `released`: -1 is negative; a count is an integer >= 0"
    );
    let e = csv_err("released,duration\n0,1.5us\n,7us\n");
    assert!(
        e.starts_with("ticks.csv:3: column `released`: missing value"),
        "{e}"
    );
    // A whole float is the same count as the integer.
    let a = csv("released,duration\n0,1.5us\n3,7us\n").unwrap();
    let b = csv("released,duration\n0.0,1.5us\n3.0,7us\n").unwrap();
    assert_eq!(a, b);
    assert_eq!(b[1].x, 3.0);
}

#[test]
fn priorities_are_whole_numbers_and_errors_name_the_right_column() {
    let x = XColumn::Priorities {
        from: "from".into(),
        to: "to".into(),
    };
    let read = |t: &str| samples_from_csv(t, "sw.csv", &x, "us", Some("us"), None);
    let s = read("from,to,us\n6,0,4.375\n0,6,1.5\n6.0,2,3\n").unwrap();
    assert_eq!(
        s.iter().map(|s| s.x).collect::<Vec<_>>(),
        vec![6.0, 1.0, 4.0]
    );
    let e = read("from,to,us\n6,0,4.375\n3,1.5,2\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "sw.csv:3: column `to`: 1.5 is not a whole count (expected an integer >= 0)"
    );
    let e = read("from,to,us\n-2,0,4.375\n").unwrap_err().to_string();
    assert!(
        e.starts_with("sw.csv:2: column `from`: -2 is negative"),
        "{e}"
    );
    let e = read("from,to,us\n4294967296,0,1\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column `from`") && e.contains("too large"),
        "{e}"
    );
}

#[test]
fn empty_inputs_and_too_few_distinct_x() {
    assert_eq!(
        csv(""),
        Err(CsvError::Empty {
            file: "ticks.csv".into()
        })
    );
    assert!(matches!(
        csv("\n# only a comment\n\n"),
        Err(CsvError::Empty { .. })
    ));
    assert_eq!(
        csv("# measured 2026-11-22\nreleased,duration\n\n"),
        Err(CsvError::NoRows {
            file: "ticks.csv".into(),
            header_line: 2
        })
    );
    assert_eq!(
        csv_err("released,duration\n"),
        "ticks.csv: no data rows after the header (line 1)"
    );
    // One sample, and several samples at one x: a line needs two distinct x values.
    let one = csv("released,duration\n3,7us\n").unwrap();
    let e = fit(&one).unwrap_err();
    assert_eq!(e, FitError::OneX { x: 3.0, n: 1 });
    assert!(
        e.to_string().contains("two or more distinct x values"),
        "{e}"
    );
    let same = csv("released,duration\n3,7us\n3,8us\n3.0,9us\n").unwrap();
    assert_eq!(fit(&same).unwrap_err(), FitError::OneX { x: 3.0, n: 3 });
    assert_eq!(fit(&[]).unwrap_err(), FitError::Empty);
}

#[test]
fn durations_must_be_finite_non_negative_and_in_range() {
    for (cell, want) in [
        ("nan", "not a number with a unit"),
        ("NaN us", "not a number with a unit"),
        ("inf", "not a number with a unit"),
        ("infinity ns", "not a number with a unit"),
        ("-5us", "negative"),
        ("-0.001ns", "negative"),
        ("1e30s", "out of range"),
        ("1e400s", "out of range"),
        ("200000000h", "out of range"),
        ("5", "has no unit"),
        ("5 parsecs", "unknown unit"),
    ] {
        let e = csv_err(&format!("released,duration\n0,1us\n1,{cell}\n"));
        assert!(
            e.starts_with("ticks.csv:3: column `duration`: ") && e.contains(want),
            "{cell}: {e}"
        );
    }
    // Units as documented: a cell's own unit, or --unit for bare numbers.
    let t = "released,duration\n0,1.5\n1,7407ns\n2, 13.314 us\n";
    let s = samples_from_csv(
        t,
        "t.csv",
        &XColumn::Count("released".into()),
        "duration",
        Some("us"),
        None,
    )
    .unwrap();
    assert_eq!(
        s.iter().map(|s| s.y_ns).collect::<Vec<_>>(),
        vec![1500.0, 7407.0, 13314.0]
    );
    // Float printers' extra digits are read as floats, not refused.
    let s = csv("released,duration\n0,0.30000000000000004us\n1,1e-6s\n").unwrap();
    assert!((s[0].y_ns - 300.0).abs() < 1e-9, "{}", s[0].y_ns);
    assert_eq!(s[1].y_ns, 1000.0);
    // The largest duration is accepted, one picosecond more is not.
    let s = csv("released,duration\n0,9223372036854775807ps\n").unwrap();
    assert!(s[0].y_ns > 9.2e15);
    assert!(csv_err("released,duration\n0,9223372036854775808ps\n").contains("out of range"));
    // A --unit that is not a unit of time is refused before any row is read.
    for unit in ["parsec", ""] {
        let e = samples_from_csv(
            t,
            "t.csv",
            &XColumn::Count("released".into()),
            "duration",
            Some(unit),
            None,
        )
        .unwrap_err();
        assert!(matches!(e, CsvError::BadUnit { .. }), "{unit:?}: {e}");
    }
    // Cycles need the clock: refused up front without it, converted with it (a measured
    // cycle count may be fractional, a mean).
    let cyc = |unit: Option<&str>, hz: Option<u64>, text: &str| {
        samples_from_csv(
            text,
            "c.csv",
            &XColumn::Count("released".into()),
            "duration",
            unit,
            hz,
        )
    };
    let e = cyc(Some("cycles"), None, "released,duration\n0,84\n").unwrap_err();
    assert!(matches!(e, CsvError::CyclesWithoutClock), "{e}");
    assert!(e.to_string().contains("--cpu-hz"), "{e}");
    let s = cyc(
        Some("cycles"),
        Some(84_000_000),
        "released,duration\n0,84\n1,69.1 cycles\n2,1us\n",
    )
    .unwrap();
    assert!((s[0].y_ns - 1000.0).abs() < 1e-9);
    assert!((s[1].y_ns - 69.1e9 / 84e6).abs() < 1e-9);
    assert_eq!(s[2].y_ns, 1000.0);
    // "69.1 cycles" in a cell without a clock: the message says what is missing.
    let e = cyc(None, None, "released,duration\n0,69.1 cycles\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("c.csv:2") && e.contains("needs the CPU clock"),
        "{e}"
    );
}

#[test]
fn crlf_and_byte_order_mark_read_like_plain_text() {
    let plain = "released;duration\n0;1.5us\n10;60.75us\n";
    let windows = "\u{feff}released;duration\r\n0;1.5us\r\n10;60.75us\r\n";
    let a = csv(plain).unwrap();
    let b = csv(windows).unwrap();
    assert_eq!(a, b);
    assert_eq!(b.len(), 2);
    // Tab separated, quoted cells.
    let c =
        csv("\"released\"\t\"duration\"\r\n\"0\"\t\"1.5us\"\r\n\"10\"\t\"60.75us\"\r\n").unwrap();
    assert_eq!(a, c);
}

#[test]
fn json_given_as_csv_is_recognised() {
    let e = csv(r#"{"kind":"trace","schema_version":1,"measurements":[]}"#).unwrap_err();
    assert_eq!(
        e,
        CsvError::TraceJson {
            file: "ticks.csv".into()
        }
    );
    assert!(e.to_string().contains("--trace X=FILE"), "{e}");
    let e = csv("\u{feff}  {\"kind\":\"measure\"}").unwrap_err();
    assert!(matches!(e, CsvError::Json { .. }), "{e}");
}

#[test]
fn trace_spec_x_is_a_count() {
    assert_eq!(
        parse_trace_spec("10=run10.json"),
        Ok((10, "run10.json".into()))
    );
    assert_eq!(parse_trace_spec("3.0=a=b.json"), Ok((3, "a=b.json".into())));
    let e = parse_trace_spec("2.5=a.json").unwrap_err().to_string();
    assert_eq!(
        e,
        "--trace 2.5=a.json: x 2.5 is not a whole count (expected an integer >= 0)"
    );
    let e = parse_trace_spec("-1=a.json").unwrap_err().to_string();
    assert!(e.contains("negative"), "{e}");
    for bad in ["a.json", "3=", "=a.json"] {
        assert!(parse_trace_spec(bad).is_err(), "{bad}");
    }
}

/// A trace result as `latscope trace --json` writes it (docs/trace.schema.json) around
/// `measurements`; the members every measurement carries and a test does not set get
/// neutral values.
fn trace_json(measurements: &str) -> String {
    let mut ms: serde_json::Value = serde_json::from_str(measurements).unwrap();
    for m in ms.as_array_mut().unwrap() {
        let o = m.as_object_mut().unwrap();
        for (k, v) in [
            ("kind", serde_json::json!("pulse")),
            ("definition", serde_json::json!("")),
            ("histogram", serde_json::json!([])),
            ("unmatched", serde_json::json!(0)),
            ("worst", serde_json::json!([])),
        ] {
            o.entry(k).or_insert(v);
        }
    }
    serde_json::json!({"kind": "trace", "schema_version": 1,
        "capture": {"source": "c.vcd", "format": "vcd", "samplerate_hz": null,
            "resolution_ns": null, "start_ns": 0.0, "end_ns": 0.0, "duration_ns": 0.0,
            "channels": [], "analog": []},
        "range": {"from_ns": null, "to_ns": null},
        "measurements": ms, "limits": [], "pass": true})
    .to_string()
}

#[test]
fn trace_json_errors_name_file_and_key() {
    let ms = r#"[
        {"name":"IRQ","unit":"ns","count":3,"max_ns":900.0},
        {"name":"SysTick","unit":"ns","count":0,"max_ns":null,"p99_ns":null,"min_at_ns":null},
        {"name":"Task.count","kind":"count","unit":"count","count":5,"max_ns":4.0},
        {"name":"Neg","unit":"ns","count":1,"max_ns":-3.0}]"#;
    let t = &trace_json(ms);
    // A statistic that is not a number makes the file no trace result at all (it is read
    // as the typed result): whichever measurement is asked for, the key at fault is named.
    let bad = trace_json(&ms.replace(
        r#"-3.0}]"#,
        r#"-3.0},{"name":"Str","unit":"ns","count":1,"max_ns":"3us"}]"#,
    ));
    for want in ["Str", "IRQ"] {
        let e = sample_from_trace_json(&bad, "a.json", want, "max", 0, 1).unwrap_err();
        assert!(
            e.to_string()
                .contains("a.json: `measurements[4].max_ns`: \"3us\" is not a number"),
            "{e}"
        );
    }
    let s = sample_from_trace_json(t, "a.json", "IRQ", "max", 4, 2).unwrap();
    assert_eq!((s.x, s.y_ns, s.row), (4.0, 900.0, 2));
    let e = sample_from_trace_json(t, "a.json", "SysTick", "max", 0, 1).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "a.json: `measurements[1].max_ns` is null: measurement \"SysTick\" has no instance"
        ),
        "{e}"
    );
    let e = sample_from_trace_json(t, "a.json", "Task.count", "max", 0, 1).unwrap_err();
    assert!(
        e.to_string().contains("`measurements[2].unit`") && e.to_string().contains("\"count\""),
        "{e}"
    );
    let e = sample_from_trace_json(t, "a.json", "Neg", "max", 0, 1).unwrap_err();
    assert!(
        e.to_string().contains("`measurements[3].max_ns`: -3 ns"),
        "{e}"
    );
    let e = sample_from_trace_json(t, "a.json", "SysTick", "p42", 0, 1).unwrap_err();
    assert!(
        e.to_string().contains("`p42_ns`") && e.to_string().contains("statistics: min, max,"),
        "{e}"
    );
    let e =
        sample_from_trace_json(r#"{"kind":"measure"}"#, "m.json", "x", "max", 0, 1).unwrap_err();
    assert!(e.to_string().contains("\"measure\", not \"trace\""), "{e}");
    let e = sample_from_trace_json("released,duration\n", "c.csv", "x", "max", 0, 1).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("c.csv: not a latscope trace JSON result"),
        "{e}"
    );
}

/// The release profile has overflow checks on: huge but accepted values must give a
/// result or an error, never a panic.
#[test]
fn huge_values_do_not_overflow() {
    let max = MAX_COUNT as f64;
    let big = 9_223_372_036_854_775.0; // ns, the largest duration
    let samples = [
        Sample {
            x: 0.0,
            y_ns: 0.0,
            row: 1,
        },
        Sample {
            x: max,
            y_ns: big,
            row: 2,
        },
        Sample {
            x: 1.0,
            y_ns: big,
            row: 3,
        },
    ];
    let r = fit(&samples).unwrap();
    for s in &samples {
        assert!(r.upper_bound.at(s.x) >= s.y_ns, "{s:?}");
    }
    let mut sys = system("[kernel]\ntick_hz = 1000\n");
    // The upper bound's slope (from (0, 0) to (1, big)) is past i64 picoseconds.
    let e = apply(&mut sys, Target::Tick, &r.upper_bound).unwrap_err();
    assert!(e.to_string().contains("beyond the largest duration"), "{e}");
    for line in [
        Line {
            intercept_ns: f64::NAN,
            slope_ns: 1.0,
        },
        Line {
            intercept_ns: 1.0,
            slope_ns: f64::INFINITY,
        },
        Line {
            intercept_ns: 1e300,
            slope_ns: 1.0,
        },
    ] {
        assert!(
            matches!(
                apply(&mut sys, Target::Tick, &line),
                Err(ApplyError::TooLarge(..))
            ),
            "{line:?}"
        );
    }
    // Just within range is written exactly (rounded up to the picosecond).
    let line = Line {
        intercept_ns: 9_000_000_000_000_000.0,
        slope_ns: 0.0015,
    };
    apply(&mut sys, Target::Tick, &line).unwrap();
    let latscope_model::system::KernelCosts::Tick(c) = &sys.kernel.costs else {
        panic!("tick model expected")
    };
    assert_eq!(c.tick_base.0, 9_000_000_000_000_000_000);
    assert_eq!(c.tick_per_release.0, 2);
    // Priorities at the u32 limit: levels scanned are computed without overflow.
    let s = samples_from_csv(
        "from,to,d\n4294967295,0,5us\n0,4294967295,1us\n",
        "p.csv",
        &XColumn::Priorities {
            from: "from".into(),
            to: "to".into(),
        },
        "d",
        None,
        None,
    )
    .unwrap();
    assert_eq!((s[0].x, s[1].x), (4294967295.0, 1.0));
    assert!(fit(&s).is_ok());
}

fn system(kernel: &str) -> System {
    System::from_toml_str(&format!("{}{}{}", PLATFORM, kernel, TASK), "s.toml").unwrap()
}

const PLATFORM: &str = "[platform]\ncpu_hz = 84_000_000 # M4\n\n";
const TASK: &str = "\n[[task]]\nname = \"a\"\nperiod = \"1ms\"\nwcet = \"1us\"\npriority = 1\n";

fn write_fit(text: &str, target: Target, line: Line) -> Result<String, EditError> {
    let mut sys = System::from_toml_str(text, "s.toml").unwrap();
    apply(&mut sys, target, &line).unwrap();
    update_toml_text(text, &sys, target, &line)
}

const LINE: Line = Line {
    intercept_ns: 1500.0,
    slope_ns: 5907.0,
};

#[test]
fn writing_into_a_file_without_a_cost_table() {
    // [kernel] without [kernel.costs]: the table is created right after [kernel].
    let text = format!("{PLATFORM}[kernel]\ntick_hz = 1000 # 1 ms\n{TASK}");
    let out = write_fit(&text, Target::Tick, LINE).unwrap();
    let want = format!(
        "{PLATFORM}[kernel]\ntick_hz = 1000 # 1 ms\n\n[kernel.costs]\n\
         tick_base = \"1.5us\"\ntick_per_release = \"5.907us\"\n{TASK}"
    );
    assert_eq!(out, want);
    // An inline kernel table gets an inline cost table (not a dropped [table]).
    let text =
        format!("platform = {{ cpu_hz = 84_000_000 }}\nkernel = {{ tick_hz = 1000 }}\n{TASK}");
    let out = write_fit(&text, Target::Tick, LINE).unwrap();
    assert!(
        out.contains(
            "kernel = { tick_hz = 1000, costs = { tick_base = \"1.5us\", tick_per_release = \"5.907us\" } }"
        ),
        "{out}"
    );
    // A key missing from an inline cost table is appended to it.
    let text =
        format!("{PLATFORM}[kernel]\ntick_hz = 1000\ncosts = {{ switch_base = \"1us\" }}\n{TASK}");
    let out = write_fit(&text, Target::Switch, LINE).unwrap();
    // switch_optimised follows switch_base by default: the switch fit does not write it
    // (it used to write the old switch_base, or "0ns" into a file without costs).
    assert!(
        out.contains("costs = { switch_base = \"7.407us\", switch_per_level = \"5.907us\" }"),
        "{out}"
    );
    // Every variant reads back with the fitted values.
    for (text, target) in [
        (
            format!("{PLATFORM}[kernel]\ntick_hz = 1000\n{TASK}"),
            Target::Switch,
        ),
        (
            format!("{PLATFORM}[kernel]\ntick_hz = 1000\nmodel = \"listscan\"\n{TASK}"),
            Target::Insert,
        ),
    ] {
        let out = write_fit(&text, target, LINE).unwrap();
        let mut sys = System::from_toml_str(&text, "s.toml").unwrap();
        apply(&mut sys, target, &LINE).unwrap();
        let back = System::from_toml_str(&out, "out.toml").unwrap();
        assert_eq!(back.kernel.costs, sys.kernel.costs, "{out}");
        assert!(out.starts_with(PLATFORM), "{out}");
    }
}

#[test]
fn csv_bytes_must_be_utf8() {
    assert_eq!(
        csv_text(b"\xef\xbb\xbfreleased,duration\n".to_vec(), "a.csv").unwrap(),
        "\u{feff}released,duration\n"
    );
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "released\tduration\n"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        )
        .collect();
    let e = csv_text(utf16, "u.csv").unwrap_err().to_string();
    assert_eq!(e, "u.csv: the file is UTF-16 text; save it as CSV in UTF-8");
    // Latin-1 'µ' (0xb5) on line 3.
    let e = csv_text(b"released,duration\n0,1us\n1,2\xb5s\n".to_vec(), "l.csv")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "l.csv: line 3, byte 4: 0xb5 is not UTF-8; save the file as UTF-8"
    );
}
