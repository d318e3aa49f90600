//! `read = "start"` in `[[chain]]`: the key's reading, writing and errors, and where the
//! analysis takes Dürr et al.'s (2019) terms for a sampled link and where it keeps
//! Davare et al.'s (2007); worked by hand in the comments (docs/analysis.md, "Sampled
//! links read at start").

use latscope_model::chain::ReadAt;
use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::System;

const HEAD: &str = "[platform]\ncpu_hz = 1_000_000\n[kernel]\ntick_hz = 1000\n";

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

/// X (T 10, C 3), W (T 10, C 1), Rd (T 7, C 1) with the given priorities; chain W ~> Rd.
fn system(px: u32, pw: u32, pr: u32, read: &str) -> String {
    format!(
        "{HEAD}[[task]]\nname = \"X\"\nperiod = \"10ms\"\nwcet = \"3ms\"\npriority = {px}\n\
         [[task]]\nname = \"W\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = {pw}\n\
         [[task]]\nname = \"Rd\"\nperiod = \"7ms\"\nwcet = \"1ms\"\npriority = {pr}\n\
         [[chain]]\nname = \"wr\"\nsteps = [\"W\", \"Rd\"]\nlinks = [\"sampled\"]\n{read}"
    )
}

fn err(text: &str) -> String {
    System::from_toml_str(text, "sys.toml")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn read_round_trips_and_defaults_to_release() {
    let sys = System::from_toml_str(&system(3, 2, 1, ""), "a.toml").expect("valid");
    assert_eq!(sys.chains[0].read, ReadAt::Release);
    assert!(
        !sys.to_toml_string().contains("read"),
        "the default is not written"
    );
    let sys =
        System::from_toml_str(&system(3, 2, 1, "read = \"start\"\n"), "b.toml").expect("valid");
    assert_eq!(sys.chains[0].read, ReadAt::Start);
    let again = System::from_toml_str(&sys.to_toml_string(), "c.toml").expect("valid");
    assert_eq!(again.chains, sys.chains);
}

#[test]
fn a_bad_read_names_the_file_line_chain_and_key() {
    let text = system(3, 2, 1, "read = \"later\"\n");
    let e = err(&text);
    // The line of the `read` key, counted in the text.
    let line = text
        .lines()
        .position(|l| l.starts_with("read"))
        .map(|i| i + 1)
        .expect("a read line");
    assert!(e.starts_with(&format!("sys.toml:{line}:")), "{e}");
    assert!(e.contains("chain[0] \"wr\""), "{e}");
    assert!(e.contains("`read`"), "{e}");
    assert!(e.contains("\"later\" is not a read time"), "{e}");
    let event_only = format!(
        "{HEAD}[[task]]\nname = \"A\"\nperiod = \"10ms\"\nwcet = \"1ms\"\npriority = 2\n\
         [[task]]\nname = \"B\"\nmin_interarrival = \"10ms\"\nwcet = \"1ms\"\npriority = 1\n\
         [[chain]]\nname = \"ab\"\nsteps = [\"A\", \"B\"]\nlinks = [\"event\"]\nread = \"start\"\n"
    );
    let e = err(&event_only);
    assert!(
        e.contains("every link of this chain is an event link"),
        "{e}"
    );
}

/// W above Rd: Dürr's terms. `R_W = 3 + 1 = 4`, `R_Rd = 3 + 1 + 1 = 5`; reaction
/// `10 + max(4, 7) + 5 = 22`, age `10 + 5 = 15` (Davare 26 and 19). Reading at release
/// the same system keeps Davare's 26 and 19.
#[test]
fn a_writer_above_its_reader_takes_duerrs_terms_only_when_reading_at_start() {
    let sys =
        System::from_toml_str(&system(3, 2, 1, "read = \"start\"\n"), "s.toml").expect("valid");
    let c = analyze(&sys, &plain()).expect("analysed").chains.remove(0);
    let (t_w, r_w, t_r, r_r) = (ms(10), ms(4), ms(7), ms(5));
    assert_eq!(c.bound_ps, Some(t_w + r_w.max(t_r) + r_r));
    assert_eq!(c.age_ps, Some(t_w + r_r));
    assert_eq!(
        c.davare_reaction_ns,
        Some((t_w + r_w + t_r + r_r) as f64 / 1000.0)
    );
    assert_eq!(c.davare_age_ns, Some((t_w + r_w + r_r) as f64 / 1000.0));
    let total: f64 = c.composition.iter().map(|p| p.ns).sum();
    assert_eq!(
        Some(total),
        c.reaction_ns,
        "the parts add up to the reaction time"
    );
    let sys = System::from_toml_str(&system(3, 2, 1, ""), "r.toml").expect("valid");
    let c = analyze(&sys, &plain()).expect("analysed").chains.remove(0);
    assert_eq!(c.bound_ps, Some(t_w + r_w + t_r + r_r));
    assert_eq!(c.age_ps, Some(t_w + r_w + r_r));
    assert_eq!(
        (c.read, c.duerr_links, c.davare_reaction_ns),
        (None, None, None)
    );
}

/// Rd above W: a job of Rd released inside W's response runs first and reads the old
/// value, so the link keeps Davare's terms even reading at start. `R_Rd = 3 + 1 = 4`,
/// `R_W = 3 + 1 + 1 = 5`: reaction `10 + 5 + 7 + 4 = 26`, age `10 + 5 + 4 = 19`.
#[test]
fn a_reader_above_its_writer_keeps_davares_terms() {
    let sys =
        System::from_toml_str(&system(3, 1, 2, "read = \"start\"\n"), "s.toml").expect("valid");
    let c = analyze(&sys, &plain()).expect("analysed").chains.remove(0);
    assert_eq!(c.duerr_links, Some(vec![]));
    assert_eq!(c.bound_ps, Some(ms(10) + ms(5) + ms(7) + ms(4)));
    assert_eq!(c.age_ps, Some(ms(10) + ms(5) + ms(4)));
    assert_eq!(c.reaction_ns, c.davare_reaction_ns);
    assert_eq!(c.age_ns, c.davare_age_ns);
}

/// W and Rd on different cores: Rd may start while W runs, so Davare's terms. Core 0: X
/// and W (`R_W = 4`); core 1: Rd alone (`R_Rd = 1`): reaction `10 + 4 + 7 + 1 = 22`.
#[test]
fn a_link_across_cores_keeps_davares_terms() {
    let text = system(3, 2, 1, "read = \"start\"\n")
        .replace("cpu_hz = 1_000_000\n", "cpu_hz = 1_000_000\ncores = 2\n")
        .replace(
            "wcet = \"1ms\"\npriority = 1\n",
            "wcet = \"1ms\"\npriority = 1\ncore = 1\n",
        );
    let sys = System::from_toml_str(&text, "mc.toml").expect("valid");
    assert_eq!(sys.tasks[2].core, 1);
    let c = analyze(&sys, &plain()).expect("analysed").chains.remove(0);
    assert_eq!(c.duerr_links, Some(vec![]));
    assert_eq!(c.bound_ps, Some(ms(10) + ms(4) + ms(7) + ms(1)));
    assert_eq!(c.reaction_ns, c.davare_reaction_ns);
}
