//! `latscope fit --target lock|unlock|inherit`: the resource calls' costs fitted as
//! constants (the safe one is the largest sample) and written into `[kernel.costs]`,
//! keeping the file's comments; the analysis then charges them.

use crate::common;
use common::run;

const SYS: &str = r#"# a mutex shared by two tasks
[platform]
cpu_hz = 100_000_000
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"   # measured
switch_base = "1us"
unlock = "5us"   # to be fitted

[[resource]]
name = "uart"
protocol = "inheritance"

[[task]]
name = "hi"
period = "10ms"
wcet = "500us"
priority = 2
critical = [{ resource = "uart", duration = "100us" }]

[[task]]
name = "lo"
period = "20ms"
wcet = "3ms"
priority = 1
critical = [{ resource = "uart", duration = "1ms", at = "500us" }]
"#;

#[test]
fn lock_unlock_inherit_fitted_into_the_file() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n);
    std::fs::write(p("sys.toml"), SYS).unwrap();
    let analyse = || -> serde_json::Value {
        let out = run(&[
            "analyze".as_ref(),
            p("sys.toml").as_os_str(),
            "--json".as_ref(),
            "-".as_ref(),
        ]);
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let before = analyse();
    for (target, values) in [
        ("lock", "0.8us\n1.25us\n0.9us\n"),
        ("unlock", "700ns\n650ns\n"),
        ("inherit", "2us\n1.5us\n"),
    ] {
        let csv = p(&format!("{target}.csv"));
        std::fs::write(&csv, format!("duration\n{values}")).unwrap();
        let out = run(&[
            "fit".as_ref(),
            csv.as_os_str(),
            "--target".as_ref(),
            target.as_ref(),
            "--y".as_ref(),
            "duration".as_ref(),
            "--write".as_ref(),
            p("sys.toml").as_os_str(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(p("sys.toml")).unwrap();
    // the safe constants (largest samples), the comments and the other keys kept
    assert!(text.contains("lock = \"1.25us\""), "{text}");
    assert!(
        text.contains("unlock = \"700ns\"   # to be fitted"),
        "{text}"
    );
    assert!(text.contains("inherit = \"2us\""), "{text}");
    assert!(text.contains("tick_base = \"2us\"   # measured"), "{text}");
    assert!(text.starts_with("# a mutex shared by two tasks"));
    // the analysis charges them: each task's WCET grows by lock + unlock + inherit per
    // inheritance section, from 5 us + 0 + 0 (unlock 5 us before) to 1.25 + 0.7 + 2 us.
    let after = analyse();
    let wcet =
        |v: &serde_json::Value, i: usize| v["tasks"][i]["breakdown"]["wcet_ns"].as_f64().unwrap();
    assert_eq!(wcet(&before, 0), 505_000.0);
    assert_eq!(wcet(&after, 0), 503_950.0);
}
