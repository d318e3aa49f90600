//! End-to-end chains: the `[[chain]]` format and its errors, the holistic bound of event
//! chains (Tindell & Clark 1994) and Davare et al.'s (2007) reaction/age bound of sampled
//! chains, on examples worked by hand in the comments.

use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::System;

const HEAD: &str = "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n";

/// No kernel overheads and no tick-driven release delay: the textbook recurrence, so the
/// numbers below can be worked by hand.
fn plain() -> AnalysisOptions {
    AnalysisOptions {
        overheads: false,
        tick_release_delay: false,
        ..Default::default()
    }
}

fn ms(x: i64) -> i64 {
    x * 1_000_000_000
}

fn err(text: &str) -> String {
    System::from_toml_str(text, "sys.toml")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

const TASKS: &str = "\
[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
[[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 3\n\
[[task]]\nname = \"L\"\nperiod = \"30ms\"\nwcet = \"9ms\"\npriority = 1\n\
[[task]]\nname = \"R\"\nmin_interarrival = \"50ms\"\nwcet = \"1ms\"\npriority = 5\n\
[[interrupt]]\nname = \"IRQ\"\nmin_interarrival = \"50ms\"\nwcet = \"100us\"\npriority = 1\nreleases = \"R\"\n";

#[test]
fn chain_tables_round_trip() {
    let text = format!(
        "{HEAD}{TASKS}\
         [[chain]]\nname = \"ab\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\ndeadline = \"8ms\"\n\
         [[chain]]\nname = \"irq\"\nsteps = [\"IRQ\", \"R\", \"L\"]\nlinks = [\"event\", \"sampled\"]\n"
    );
    let sys = System::from_toml_str(&text, "sys.toml").unwrap();
    assert_eq!(sys.chains.len(), 2);
    assert_eq!(sys.activator(1), Some(0));
    assert_eq!(sys.activator(2), None);
    let back = sys.to_toml_string();
    assert!(back.contains("[[chain]]"), "{back}");
    let again = System::from_toml_str(&back, "sys.toml").unwrap();
    assert_eq!(again.chains, sys.chains);
    let json = System::from_json_str(&sys.to_json_string(), "sys.json").unwrap();
    assert_eq!(json.chains, sys.chains);
    // Without chains nothing about them is written.
    let none = System::from_toml_str(&format!("{HEAD}{TASKS}"), "sys.toml").unwrap();
    assert!(!none.to_toml_string().contains("chain"));
    assert!(!serde_json::to_string(&analyze(&none, &plain()).unwrap())
        .unwrap()
        .contains("\"chains\""));
}

#[test]
fn chain_errors_name_the_chain_and_step() {
    let cases: [(&str, &[&str]); 7] = [
        (
            "steps = [\"A\", \"Nope\"]\nlinks = [\"event\"]",
            &["sys.toml:", "chain[0] \"c\"", "steps", "step 1", "\"Nope\""],
        ),
        (
            "steps = [\"A\", \"B\", \"L\"]\nlinks = [\"event\"]",
            &["chain[0] \"c\"", "links", "1 links for 3 steps"],
        ),
        (
            "steps = [\"A\", \"IRQ\"]\nlinks = [\"sampled\"]",
            &[
                "chain[0] \"c\"",
                "link 0",
                "interrupt \"IRQ\"",
                "first step",
            ],
        ),
        (
            "steps = [\"A\", \"L\"]\nlinks = [\"event\"]",
            &["link 0", "task \"L\"", "min_interarrival"],
        ),
        (
            "steps = [\"IRQ\", \"B\"]\nlinks = [\"event\"]",
            &["link 0", "releases = \"B\""],
        ),
        (
            "steps = [\"A\", \"R\"]\nlinks = [\"sampled\"]",
            &["link 0", "released by interrupt \"IRQ\""],
        ),
        (
            "steps = [\"A\", \"B\"]\nlinks = [\"queued\"]",
            &["link 0", "\"queued\" is not a link kind"],
        ),
    ];
    for (body, want) in cases {
        let e = err(&format!("{HEAD}{TASKS}[[chain]]\nname = \"c\"\n{body}\n"));
        for w in want {
            assert!(e.contains(w), "{body}: {e:?} lacks {w:?}");
        }
    }
    // A sampled reader must not also be released by an event link of another chain.
    let e = err(&format!(
        "{HEAD}{TASKS}[[chain]]\nname = \"x\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\n\
         [[chain]]\nname = \"y\"\nsteps = [\"L\", \"B\"]\nlinks = [\"sampled\"]\n"
    ));
    assert!(
        e.contains("chain[1] \"y\"") && e.contains("released by task \"A\""),
        "{e}"
    );
}

/// Holistic analysis by hand (no overheads, deadlines = periods, priorities A 4 > B 3 >
/// L 1; the first three tasks of `TASKS` only):
///
/// Round 0 (B's jitter 0): R_A = 2. R_B: w = 3 + ceil(w/10)*2 -> 5. R_L: w = 9 + ceil(w/10)*2 +
/// ceil(w/10)*3 -> 9+2+3 = 14 -> 9+4+6 = 19 -> 19 (ceil(19/10) = 2).
/// Round 1: B released by A's completion, J_B = R_A = 2. R_A = 2 (B is below A).
/// R_B = 5 + 2 = 7. R_L: w = 9 + ceil(w/10)*2 + ceil((w+2)/10)*3:
/// w = 19 -> 9 + 4 + 9 = 22 -> 9 + 6 + 9 = 24 -> 24: R_L = 24 (was 19: B's jitter
/// adds one B job to L's window). Round 2: J_B = R_A = 2 again: fixed point.
/// The chain A -> B (event) is bounded by R_B = 7 ms: A's response 2 plus B's 5.
#[test]
fn event_chain_holistic_known_answer() {
    let three = &TASKS[..TASKS.find("[[task]]\nname = \"R\"").unwrap()];
    let text = format!(
        "{HEAD}{three}[[chain]]\nname = \"ab\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\ndeadline = \"7ms\"\n"
    );
    let sys = System::from_toml_str(&text, "sys.toml").unwrap();
    let r = analyze(&sys, &plain()).unwrap();
    let w = |n: &str| r.tasks.iter().find(|t| &*t.name == n).unwrap().wcrt_ps;
    assert_eq!(w("A"), Some(ms(2)));
    assert_eq!(w("B"), Some(ms(7)));
    assert_eq!(w("L"), Some(ms(24)));
    let c = &r.chains[0];
    assert_eq!(c.kind, "event");
    assert_eq!(c.bound_ps, Some(ms(7)));
    assert_eq!(c.bound_ns, Some(7e6));
    assert_eq!(c.meets_deadline, Some(true));
    let parts: Vec<(&str, f64)> = c
        .composition
        .iter()
        .map(|p| (p.step.as_str(), p.ns))
        .collect();
    assert_eq!(parts, vec![("A", 2e6), ("B", 5e6)]);
    // Without the chain, B is an ordinary sporadic task and L sees no jitter.
    let plain_sys = System::from_toml_str(&format!("{HEAD}{three}"), "sys.toml").unwrap();
    let r0 = analyze(&plain_sys, &plain()).unwrap();
    let w0 = |n: &str| r0.tasks.iter().find(|t| &*t.name == n).unwrap().wcrt_ps;
    assert_eq!(w0("B"), Some(ms(5)));
    assert_eq!(w0("L"), Some(ms(19)));
    // A deadline below the bound is a miss.
    let tight = text.replace("deadline = \"7ms\"", "deadline = \"6999us\"");
    let sys = System::from_toml_str(&tight, "sys.toml").unwrap();
    assert_eq!(
        analyze(&sys, &plain()).unwrap().chains[0].meets_deadline,
        Some(false)
    );
}

/// Holistic iteration that changes the predecessor: B above A, released by A, so B's
/// jitter (A's response) adds B jobs to A's own window, which grows A's response, which
/// grows B's jitter. Periods 10 (A) and 10 (B), C_A = 4, C_B = 3, H (prio 9, T 7, C 2).
/// Round 0: J_B = 0. R_A: w = 4 + ceil(w/7)*2 + ceil(w/10)*3 = 4+2+3 = 9 -> 4+4+3 = 11 ->
/// 4+4+6 = 14 -> 4+4+6 = 14: R_A = 14 > 10 — unschedulable; choose C_A = 2 instead:
/// w = 2+2+3 = 7 -> 7: R_A = 7. Round 1: J_B = 7: R_A: w = 2 + ceil(w/7)*2 + ceil((w+7)/10)*3
/// = 2+2+3 = 7 -> 7 ((7+7)/10 -> 2 jobs: 2+2+6 = 10 -> ceil(10/7) = 2: 2+4+6 = 12 ->
/// 2+4+ceil(19/10)*3 = 12): R_A = 12 > 10, unschedulable again. The fixed point ends above
/// A's deadline, so A has no bound (the analysis stops at the deadline) and B, released by
/// A, has none either: the chain is unbounded and misses its deadline.
#[test]
fn holistic_jitter_feeding_back_into_the_predecessor() {
    let text = format!(
        "{HEAD}\
         [[task]]\nname = \"H\"\nperiod = \"7ms\"\nwcet = \"2ms\"\npriority = 9\n\
         [[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 4\n\
         [[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"3ms\"\npriority = 6\n\
         [[chain]]\nname = \"ab\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\ndeadline = \"20ms\"\n"
    );
    let sys = System::from_toml_str(&text, "sys.toml").unwrap();
    let opts = AnalysisOptions {
        stop_at_deadline: true,
        ..plain()
    };
    let r = analyze(&sys, &opts).unwrap();
    let t = |n: &str| r.tasks.iter().find(|t| &*t.name == n).unwrap().clone();
    assert_eq!(t("A").wcrt_ps, None);
    assert_eq!(t("B").wcrt_ps, None);
    assert!(t("B")
        .unbounded_reason
        .unwrap()
        .contains("released by task \"A\""));
    assert!(!r.schedulable);
    let c = &r.chains[0];
    assert_eq!(c.bound_ps, None);
    assert_eq!(c.meets_deadline, Some(false));
}

/// Davare et al. (2007) on three periodic tasks joined by sampled links (no overheads):
/// R_A = 2, R_C: w = 3 + ceil(w/10)*2 = 5, R_D: w = 4 + ceil(w/10)*2 + ceil(w/20)*3 = 9.
/// Reaction = (T_A + R_A) + (T_C + R_C) + (T_D + R_D) = 12 + 25 + 49 = 86 ms.
/// Age (from A's read to the last D job working on it) = 12 + 25 + 9 = 46 ms.
#[test]
fn sampled_chain_davare_known_answer() {
    let text = format!(
        "{HEAD}\
         [[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"2ms\"\npriority = 5\n\
         [[task]]\nname = \"C\"\nperiod = \"20ms\"\nwcet = \"3ms\"\npriority = 4\n\
         [[task]]\nname = \"D\"\nperiod = \"40ms\"\nwcet = \"4ms\"\npriority = 3\n\
         [[chain]]\nname = \"acd\"\nsteps = [\"A\", \"C\", \"D\"]\nlinks = [\"sampled\", \"sampled\"]\ndeadline = \"90ms\"\n"
    );
    let sys = System::from_toml_str(&text, "sys.toml").unwrap();
    let r = analyze(&sys, &plain()).unwrap();
    let c = &r.chains[0];
    assert_eq!(c.kind, "sampled");
    assert_eq!(c.bound_ns, None);
    assert_eq!(c.reaction_ns, Some(86e6));
    assert_eq!(c.age_ns, Some(46e6));
    assert_eq!(c.meets_deadline, Some(true));
    // Davare's formula from the task results themselves.
    let sum: i64 = ["A", "C", "D"]
        .iter()
        .map(|n| {
            let t = r.tasks.iter().find(|t| &*t.name == *n).unwrap();
            (t.period_ns * 1000.0) as i64 + t.wcrt_ps.unwrap()
        })
        .sum();
    assert_eq!(c.bound_ps, Some(sum));
    let total: f64 = c.composition.iter().map(|p| p.ns).sum();
    assert_eq!(total, 86e6);
}

/// A chain that starts at an interrupt: IRQ releases R (event), L samples R's output.
/// Event segment IRQ -> R: R's response from the interrupt's arrival (its jitter holds
/// the handler path, L + WCET = 100 us without overheads' entry). Reaction: no period for
/// the interrupt (the stimulus is the interrupt itself) + R_R + (T_L + R_L). Age needs the
/// interrupt to be periodic; it is not, so there is no age bound.
#[test]
fn interrupt_first_chain() {
    let text = format!(
        "{HEAD}{TASKS}[[chain]]\nname = \"irq\"\nsteps = [\"IRQ\", \"R\", \"L\"]\nlinks = [\"event\", \"sampled\"]\n"
    );
    let sys = System::from_toml_str(&text, "sys.toml").unwrap();
    let r = analyze(&sys, &plain()).unwrap();
    let w = |n: &str| {
        r.tasks
            .iter()
            .find(|t| &*t.name == n)
            .unwrap()
            .wcrt_ps
            .unwrap()
    };
    let c = &r.chains[0];
    assert_eq!(c.bound_ps, Some(w("R") + ms(30) + w("L")));
    assert_eq!(c.age_ns, None);
    assert!(c
        .unbounded_reason
        .as_ref()
        .unwrap()
        .contains("sporadically"));
    let periodic = text.replace("releases = \"R\"", "releases = \"R\"\nperiodic = true");
    let sys = System::from_toml_str(&periodic, "sys.toml").unwrap();
    let c = analyze(&sys, &plain()).unwrap().chains[0].clone();
    assert_eq!(c.age_ps, Some(ms(50) + w("R") + w("L")));
}
