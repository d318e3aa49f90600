//! Partitioned multicore: the system description's `platform.cores`, `task.core`,
//! `interrupt.core` and `kernel.costs.ipi` (docs/system-format.md, Cores), and the
//! per-core analysis (docs/analysis.md, Multicore).

use latscope_model::system::System;

const TWO_CORES: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 12
cores = 2

[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
tick_per_release = "1us"
switch_base = "1us"
ipi = "3us"

[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 3

[[task]]
name = "B"
period = "10ms"
wcet = "2ms"
priority = 2
core = 1

[[interrupt]]
name = "rx"
min_interarrival = "10ms"
wcet = "20us"
priority = 1
releases = "B"
"#;

fn sys(text: &str) -> System {
    System::from_toml_str(text, "mc.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> String {
    match System::from_toml_str(text, "mc.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn cores_read_with_defaults() {
    let s = sys(TWO_CORES);
    assert_eq!(s.platform.cores, 2);
    assert_eq!(s.tasks[0].core, 0);
    assert_eq!(s.tasks[1].core, 1);
    assert_eq!(s.interrupts[0].core, 0);
    assert_eq!(s.kernel.ipi, latscope_core::Picos::from_us(3));
    assert_eq!(s.cross_core_release(0), Some(1));
    // Without the keys: one core, everything on core 0, no IPI cost.
    let one = sys(&TWO_CORES
        .replace("cores = 2\n", "")
        .replace("core = 1\n", "")
        .replace("ipi = \"3us\"\n", ""));
    assert_eq!(one.platform.cores, 1);
    assert!(one.tasks.iter().all(|t| t.core == 0));
    assert_eq!(one.kernel.ipi, latscope_core::Picos::ZERO);
    assert_eq!(one.cross_core_release(0), None);
}

#[test]
fn core_out_of_range_names_file_task_and_value() {
    let e = err(&TWO_CORES.replace("core = 1\n", "core = 2\n"));
    assert!(e.contains("mc.toml"), "{e}");
    assert!(e.contains("task[1] \"B\""), "{e}");
    assert!(e.contains("key `core`"), "{e}");
    assert!(e.contains("core 2 does not exist"), "{e}");
    assert!(e.contains("platform.cores is 2"), "{e}");
    let e = err(&TWO_CORES.replace("priority = 1\n", "priority = 1\ncore = -1\n"));
    assert!(e.contains("interrupt[0] \"rx\""), "{e}");
    assert!(e.contains("core -1 does not exist"), "{e}");
    let e = err(&TWO_CORES.replace("cores = 2", "cores = 0"));
    assert!(e.contains("key `cores`"), "{e}");
}

#[test]
fn resource_across_cores_is_an_error() {
    let text = format!(
        "{}\n[[resource]]\nname = \"bus\"\nprotocol = \"inheritance\"\n",
        TWO_CORES
            .replace(
                "priority = 3\n",
                "priority = 3\ncritical = [{ resource = \"bus\", duration = \"10us\" }]\n"
            )
            .replace(
                "priority = 2\n",
                "priority = 2\ncritical = [{ resource = \"bus\", duration = \"10us\" }]\n"
            )
    );
    let e = err(&text);
    assert!(e.contains("resource \"bus\""), "{e}");
    assert!(e.contains("core 0") && e.contains("core 1"), "{e}");
}

#[test]
fn writer_round_trips_cores() {
    let s = sys(TWO_CORES);
    let toml = s.to_toml_string();
    assert!(toml.contains("cores = 2"), "{toml}");
    assert!(toml.contains("ipi = "), "{toml}");
    let mut back = sys(&toml);
    back.source = s.source.clone();
    assert_eq!(back, s);
    let mut j = System::from_json_str(&s.to_json_string(), "mc.json").unwrap();
    j.source = s.source.clone();
    assert_eq!(j, s);
    // One core writes none of the new keys (existing outputs stay as they were).
    let one = sys(&TWO_CORES
        .replace("cores = 2\n", "")
        .replace("core = 1\n", "")
        .replace("ipi = \"3us\"\n", ""));
    let t = one.to_toml_string();
    assert!(!t.contains("core") && !t.contains("ipi"), "{t}");
}

mod analysis {
    use super::sys;
    use latscope_model::rta::{analyze, AnalysisOptions};

    /// Two cores with nothing crossing between them: core 0 holds the tick-released `A`
    /// and an interrupt releasing `E`, core 1 holds `B` and `C`.
    const SPLIT: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 12
cores = 2
[kernel]
tick_hz = 1000
[kernel.costs]
tick_base = "2us"
tick_per_release = "1us"
switch_base = "1us"
switch_per_level = "0.1us"
[critical_sections]
kernel = "4us"
[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 3
[[task]]
name = "B"
period = "10ms"
wcet = "2ms"
priority = 2
core = 1
[[task]]
name = "C"
period = "4ms"
wcet = "1.5ms"
priority = 4
core = 1
[[task]]
name = "E"
min_interarrival = "2ms"
wcet = "100us"
priority = 5
[[interrupt]]
name = "rx"
min_interarrival = "2ms"
wcet = "20us"
priority = 1
releases = "E"
"#;

    /// The same tasks as two one-core files.
    fn one_core(keep: &[&str]) -> String {
        let mut out = String::new();
        for block in SPLIT.split("[[") {
            let name = block
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .map(|n| n.trim_matches('"'));
            match name {
                Some(n) if !keep.contains(&n) => continue,
                _ => {}
            }
            if !out.is_empty() {
                out.push_str("[[");
            }
            out.push_str(block);
        }
        out.replace("cores = 2\n", "").replace("core = 1\n", "")
    }

    #[test]
    fn two_independent_cores_equal_two_one_core_systems() {
        let two = sys(SPLIT);
        let opts = AnalysisOptions::default();
        let r = analyze(&two, &opts).unwrap();
        assert_eq!(r.cores.len(), 2);
        let c0 = analyze(&sys(&one_core(&["A", "E", "rx"])), &opts).unwrap();
        let c1 = analyze(&sys(&one_core(&["B", "C"])), &opts).unwrap();
        assert!(c0.cores.is_empty() && c1.cores.is_empty());
        let mut want = c0.tasks.clone();
        want.extend(c1.tasks.clone());
        assert_eq!(r.tasks, want);
        let mut want = c0.tick_modes.pessimistic.clone();
        want.extend(c1.tick_modes.pessimistic.clone());
        assert_eq!(r.tick_modes.pessimistic, want);
        assert_eq!(r.cores[0].tasks, ["E", "A"]);
        assert_eq!(r.cores[1].tasks, ["C", "B"]);
        assert_eq!(r.cores[0].utilisation, c0.totals.utilisation_total);
        assert_eq!(r.cores[1].utilisation, c1.totals.utilisation_total);
        assert_eq!(r.cores[1].schedulable, c1.schedulable);
        assert_eq!(
            r.totals.utilisation_total,
            c0.totals.utilisation_total + c1.totals.utilisation_total
        );
        // The JSON of a one-core result has no `cores` key (documents unchanged).
        let j = serde_json::to_value(&c0).unwrap();
        assert!(j.get("cores").is_none());
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["cores"].as_array().map(Vec::len), Some(2));
    }

    /// A hand-computed cross-core release, overheads off so every term is visible:
    /// `rx` on core 0 (T 10 ms, C 20 us, priority 1) under `hi` (T 1 ms, C 50 us,
    /// priority 2) releases `B` on core 1.
    ///
    /// * `rx`'s worst response on core 0: `R = 20 + ceil(R / 1000) 50` = 70 us; its
    ///   shortest is its WCET, 20 us, so its completions vary by 50 us.
    /// * Core 1 takes the inter-core interrupt `ipi<rx`: C = ipi = 3 us, minimum
    ///   inter-arrival 10 ms - 50 us = 9.95 ms.
    /// * `B`'s release jitter: 70 us (the handler on core 0) + 3 us (the inter-core
    ///   handler on core 1) = 73 us.
    /// * `B`'s busy window under `D` (4 ms, 500 us) and `ipi<rx`:
    ///   `w = 2000 + ceil(w / 4000) 500 + ceil(w / 9950) 3` = 2503 us, so
    ///   `R_B = w + J = 2576 us`.
    #[test]
    fn cross_core_release_pays_the_remote_handler_and_the_ipi() {
        let text = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 12
cores = 2
[kernel]
tick_hz = 1000
[kernel.costs]
ipi = "3us"
[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 3
[[task]]
name = "B"
min_interarrival = "10ms"
wcet = "2ms"
priority = 2
core = 1
[[task]]
name = "D"
period = "4ms"
wcet = "500us"
priority = 5
core = 1
[[interrupt]]
name = "rx"
min_interarrival = "10ms"
wcet = "20us"
priority = 1
releases = "B"
[[interrupt]]
name = "hi"
min_interarrival = "1ms"
wcet = "50us"
priority = 2
"#;
        let opts = AnalysisOptions {
            overheads: false,
            ..Default::default()
        };
        let r = analyze(&sys(text), &opts).unwrap();
        let b = r.tasks.iter().find(|t| &*t.name == "B").unwrap();
        assert_eq!(b.breakdown.jitter_ns, 73_000.0);
        assert_eq!(b.wcrt_ns, Some(2_576_000.0));
        assert_eq!(r.cores[1].interrupts, ["ipi<rx"]);
        assert_eq!(r.cores[0].interrupts, ["rx", "hi"]);
        // Without the crossing (B on core 0 with rx) the IPI and the remote path vanish.
        let d = r.tasks.iter().find(|t| &*t.name == "D").unwrap();
        assert_eq!(d.wcrt_ns, Some(503_000.0));
    }
}
