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
