//! The global flags every command takes (`-q`, `-v`, `--color`, NO_COLOR) and the two
//! commands that describe the CLI itself: `completions SHELL` must give a script bash
//! accepts, `man` a page man(1) renders without complaint and that names every command.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;
use common::{latscope, ok, run, s};

const ESC: &str = "\x1b[";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `measure --diagnose-only` prints the environment checks, each with a status word that
/// is coloured when colour is on, and measures nothing: quick and independent of load.
fn diagnose(extra: &[&str], no_color: Option<&str>) -> Output {
    let mut c = latscope();
    c.args([
        "measure",
        "--allow-fallback",
        "--diagnose-only",
        "--cpus",
        "0",
    ]);
    c.args(extra);
    match no_color {
        Some(v) => c.env("NO_COLOR", v),
        None => c.env_remove("NO_COLOR"),
    };
    let out = c.output().expect("latscope runs");
    assert!(
        out.status.success(),
        "measure --diagnose-only {extra:?}: {}",
        text(&out.stderr)
    );
    out
}

#[test]
fn color_always_never_and_no_color() {
    let always = diagnose(&["--color", "always"], None);
    assert!(text(&always.stdout).contains(ESC), "--color always colours");
    // The flag is global: accepted before the command name as well.
    let mut c = latscope();
    c.args([
        "--color",
        "always",
        "measure",
        "--allow-fallback",
        "--diagnose-only",
    ]);
    let before = c.args(["--cpus", "0"]).output().unwrap();
    assert!(before.status.success(), "{}", text(&before.stderr));
    assert!(text(&before.stdout).contains(ESC));
    // An explicit `always` outranks NO_COLOR; `never` and `auto` (into a pipe) do not colour.
    let forced = diagnose(&["--color", "always"], Some("1"));
    assert!(text(&forced.stdout).contains(ESC));
    for (args, env) in [
        (&["--color", "never"][..], None),
        (&["--color", "auto"][..], Some("1")),
        (&[][..], None),
    ] {
        let out = diagnose(args, env);
        assert!(
            !text(&out.stdout).contains(ESC),
            "{args:?} NO_COLOR={env:?} coloured a pipe"
        );
        assert!(!text(&out.stdout).is_empty(), "{args:?}: printed nothing");
    }
    let bad = run(&["--color", "sometimes", "measure", "--diagnose-only"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("auto"), "{}", text(&bad.stderr));
}

#[test]
fn errors_are_coloured_only_when_asked() {
    let missing = "/nonexistent/latscope-no-such-file.json";
    let plain = run(&["--color", "never", "report", missing, "-o", "-"]);
    assert_eq!(plain.status.code(), Some(2));
    let e = text(&plain.stderr);
    assert!(e.starts_with("latscope: error: "), "{e}");
    assert!(e.contains(missing), "{e}");
    let red = run(&["--color", "always", "report", missing, "-o", "-"]);
    assert_eq!(red.status.code(), Some(2));
    assert!(text(&red.stderr).contains(&format!("{ESC}31;1merror")));
}

#[test]
fn quiet_silences_notes_verbose_adds_detail() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("set.toml");
    let gen = |extra: &[&str]| {
        let mut a = vec![
            "generate",
            "--tasks",
            "4",
            "--utilisation",
            "0.5",
            "--seed",
            "7",
        ];
        a.extend_from_slice(extra);
        a.extend_from_slice(&["-o", s(&out)]);
        ok(&a)
    };
    let normal = gen(&[]);
    assert!(
        text(&normal.stderr).contains("wrote"),
        "{}",
        text(&normal.stderr)
    );
    assert!(!text(&normal.stderr).contains("finished in"));
    let quiet = gen(&["-q"]);
    assert_eq!(text(&quiet.stderr), "", "-q printed something");
    assert!(out.is_file(), "-q still writes the output");
    let verbose = gen(&["-v"]);
    assert!(text(&verbose.stderr).contains("wrote"));
    assert!(
        text(&verbose.stderr).contains("finished in"),
        "{}",
        text(&verbose.stderr)
    );
    let both = run(&["-q", "-v", "generate", "-o", s(&out)]);
    assert_eq!(both.status.code(), Some(2), "-q and -v conflict");
}

#[test]
fn bash_completion_is_valid_bash_and_knows_the_commands() {
    let out = ok(&["completions", "bash"]);
    let script = text(&out.stdout);
    for word in [
        "measure",
        "trace",
        "report",
        "completions",
        "--color",
        "--quiet",
    ] {
        assert!(script.contains(word), "completion lacks {word}");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("latscope.bash");
    std::fs::write(&p, &script).unwrap();
    let check = Command::new("bash").arg("-n").arg(&p).output().unwrap();
    assert!(check.status.success(), "bash -n: {}", text(&check.stderr));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = ok(&["completions", shell]);
        assert!(text(&out.stdout).contains("latscope"), "{shell}");
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));
}

fn render_man(page: &Path) -> Output {
    Command::new("man")
        .arg("-l")
        .arg(page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .env("MAN_KEEP_FORMATTING", "")
        .output()
        .expect("man(1) is installed (scripts/test.sh installs man-db in its setup step)")
}

#[test]
fn man_page_renders_cleanly_and_covers_every_command() {
    let out = ok(&["man"]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("latscope.1");
    std::fs::write(&p, &out.stdout).unwrap();
    let shown = render_man(&p);
    let err = text(&shown.stderr);
    assert!(shown.status.success(), "man -l: {err}");
    assert!(err.trim().is_empty(), "man -l complained: {err}");
    // groff with all warnings on (-k: UTF-8 input through preconv, as man does) is silent.
    let groff = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .arg(&p)
        .output()
        .expect("groff is installed");
    assert!(groff.status.success());
    assert!(
        text(&groff.stderr).trim().is_empty(),
        "groff: {}",
        text(&groff.stderr)
    );
    let page = text(&shown.stdout);
    let help = text(&ok(&["--help"]).stdout);
    // Every command `--help` lists has its section in the page.
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A command's line is indented by two; wrapped descriptions by more.
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 13, "{commands:?}");
    for c in commands {
        assert!(
            page.contains(&format!("latscope-{c}")),
            "man page lacks {c}"
        );
    }
    assert!(page.contains("--color"));
}
