//! One core's tick broadcast to the others (`kernel.tick_source = "broadcast"`,
//! docs/system-format.md, Cores; docs/analysis.md, Multicore, "One core's tick
//! broadcast"): the keys, their errors, and a bound computed by hand on two cores.

use latscope_core::Picos;
use latscope_model::rta::analyze;
use latscope_model::system::{System, TickSource};
use latscope_model::AnalysisOptions;

/// Two cores, one task each; core 0 takes the tick and signals core 1.
const BROADCAST: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 12
cores = 2

[kernel]
tick_hz = 1000
tick_source = "broadcast"
tick_core = 0

[kernel.costs]
tick_base = "2us"
tick_per_release = "1us"
switch_base = "1us"
switch_per_level = "0us"
ipi = "3us"
ipi_send = "500ns"

[[task]]
name = "A"
period = "10ms"
wcet = "1ms"
priority = 2

[[task]]
name = "B"
period = "5ms"
wcet = "1ms"
priority = 2
core = 1
"#;

fn wcrt(sys: &System, name: &str) -> Picos {
    let r = analyze(sys, &AnalysisOptions::default()).expect("analysed");
    let t = r.tasks.iter().find(|t| &*t.name == name).expect("task");
    Picos(t.wcrt_ps.expect("bounded"))
}

#[test]
fn keys_parse_and_default_to_per_core() {
    let sys = System::from_toml_str(BROADCAST, "b.toml").unwrap();
    assert_eq!(sys.kernel.tick_source, TickSource::Broadcast);
    assert_eq!(sys.kernel.tick_core, 0);
    assert_eq!(sys.kernel.ipi_send, Picos::from_ns(500));
    // Written back and read again: the same system.
    let again = System::from_toml_str(&sys.to_toml_string(), "b.toml").unwrap();
    assert_eq!(again.kernel, sys.kernel);
    let plain = BROADCAST
        .replace("tick_source = \"broadcast\"\n", "")
        .replace("tick_core = 0\n", "")
        .replace("ipi_send = \"500ns\"\n", "");
    let sys = System::from_toml_str(&plain, "p.toml").unwrap();
    assert_eq!(sys.kernel.tick_source, TickSource::PerCore);
    assert!(!sys.to_toml_string().contains("tick_source"));
}

#[test]
fn bad_tick_core_and_unmodelled_combinations_are_errors() {
    let e = System::from_toml_str(
        &BROADCAST.replace("tick_core = 0", "tick_core = 2"),
        "b.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("tick_core") && e.contains("core 2 does not exist"),
        "{e}"
    );
    let ls = BROADCAST.replace("tick_hz = 1000", "tick_hz = 1000\nmodel = \"listscan\"");
    let ls = ls
        .lines()
        .filter(|l| {
            !l.starts_with("tick_")
                || l.starts_with("tick_hz")
                || l.starts_with("tick_source")
                || l.starts_with("tick_core")
        })
        .filter(|l| !l.starts_with("switch_"))
        .collect::<Vec<_>>()
        .join("\n");
    let e = System::from_toml_str(&ls, "b.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("tick_source") && e.contains("list-scan"), "{e}");
    let bad = BROADCAST.replace("\"broadcast\"", "\"shared\"");
    assert!(System::from_toml_str(&bad, "b.toml").is_err());
}

/// The bound by hand. L = 12 cycles at 100 MHz = 120 ns; a switch is L + 1 us; one task
/// per core, so each window of about 1 ms holds two ticks and the task's own two switches.
///
/// Per-core ticks: R = C + 2 S + 2 (L + tick_base) + tick_per_release (the task's own
/// release at one of the ticks, partitioned tick mode).
///
/// Broadcast from core 0: core 0's tick also sends one inter-core interrupt, so its
/// tick_base is 2 us + 500 ns. Core 1's tick is the inter-core interrupt's handler plus
/// its own tick work: tick_base 2 us + ipi 3 us. The relay reaches core 1 at most
/// d_max = S + L + tick_base0 + tick_per_release after the nominal instant (one switch
/// held off the tick, then the worst tick on core 0) and at least tick_base0 after it,
/// so B's release jitter is d_max, and the spread d_max - tick_base0 (below one tick)
/// adds one tick per window, charged as core 1's worst tick
/// (L + tick_base1 + tick_per_release) with one switch.
#[test]
fn two_core_known_answer() {
    let us = |x: f64| Picos((x * 1e6).round() as i64);
    let l = us(0.12);
    let s = l + us(1.0);
    let c = us(1000.0);
    let per = us(1.0);
    let per_core = |tick_base: Picos| c + s + s + (l + tick_base) + (l + tick_base) + per;

    let plain = System::from_toml_str(
        &BROADCAST.replace("\"broadcast\"", "\"per-core\""),
        "p.toml",
    )
    .unwrap();
    assert_eq!(wcrt(&plain, "A"), per_core(us(2.0)));
    assert_eq!(wcrt(&plain, "B"), per_core(us(2.0)));

    let sys = System::from_toml_str(BROADCAST, "b.toml").unwrap();
    let base0 = us(2.0) + us(0.5);
    let base1 = us(2.0) + us(3.0);
    assert_eq!(wcrt(&sys, "A"), per_core(base0));
    let d_max = s + l + base0 + per;
    let spread = d_max - base0;
    assert!(spread < us(1000.0));
    let extra_tick = (l + base1 + per) + s;
    assert_eq!(wcrt(&sys, "B"), d_max + per_core(base1) + extra_tick);
}

/// Core 1 as the tick core swaps the roles: B pays the sends, A the relay.
#[test]
fn tick_core_one_swaps_the_roles() {
    let sys = System::from_toml_str(
        &BROADCAST.replace("tick_core = 0", "tick_core = 1"),
        "b.toml",
    )
    .unwrap();
    let plain = System::from_toml_str(
        &BROADCAST.replace("\"broadcast\"", "\"per-core\""),
        "p.toml",
    )
    .unwrap();
    assert!(wcrt(&sys, "A") > wcrt(&sys, "B"));
    assert!(wcrt(&sys, "B") > wcrt(&plain, "B"));
}

/// A tick core so loaded that its tick handler cannot finish within a tick period
/// leaves the receiving core's tasks without a bound, saying why.
#[test]
fn unbounded_relay_gives_no_bound() {
    let text = BROADCAST.replace(
        "[[task]]\nname = \"A\"",
        "[[interrupt]]\nname = \"storm\"\nmin_interarrival = \"100us\"\nwcet = \"99us\"\n\n[[task]]\nname = \"A\"",
    );
    let sys = System::from_toml_str(&text, "b.toml").unwrap();
    let r = analyze(&sys, &AnalysisOptions::default()).expect("analysed");
    let b = r.tasks.iter().find(|t| &*t.name == "B").unwrap();
    assert!(b.wcrt_ps.is_none());
    let why = b.unbounded_reason.as_deref().unwrap_or("");
    assert!(why.contains("broadcast tick from core 0"), "{why}");
}

/// An EDF core that receives the broadcast reads the same view: B's release jitter is
/// the relay's worst delay (4.74 us, as in the known answer) and its EDF bound grows over
/// the per-core one.
#[test]
fn edf_core_receiving_the_tick_charges_the_relay() {
    let edf = "\n[[core]]\nid = 1\nscheduler = \"edf\"\n";
    let b = |text: &str| {
        let sys = System::from_toml_str(text, "e.toml").unwrap();
        let cores =
            latscope_model::edf::analyze_edf_cores(&sys, &AnalysisOptions::default()).unwrap();
        assert_eq!(cores.len(), 1);
        assert_eq!(cores[0].core, 1);
        cores[0]
            .result
            .tasks
            .iter()
            .find(|t| t.name == "B")
            .unwrap()
            .clone()
    };
    let bc = b(&format!("{BROADCAST}{edf}"));
    let pc = b(&format!(
        "{}{edf}",
        BROADCAST.replace("\"broadcast\"", "\"per-core\"")
    ));
    let l = 0.12;
    let d_max = (l + 1.0) + l + 2.5 + 1.0;
    assert!(
        (bc.jitter_ns - pc.jitter_ns - d_max * 1000.0).abs() < 1e-6,
        "{bc:?} {pc:?}"
    );
    assert!(bc.bound_ns.unwrap() > pc.bound_ns.unwrap() + d_max * 1000.0);
}
