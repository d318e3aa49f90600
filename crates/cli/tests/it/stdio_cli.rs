//! `-` is standard output wherever a command writes its primary output (`-o/--output`)
//! and standard input wherever it reads a file, one test per command: what goes through
//! the pipe equals what goes through a file, and the old spellings of the output flags
//! (`--out`, `--to`, `--parquet`/`--csv`, convert's trailing OUT) still work.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use crate::common;
use common::{latscope, ok, s};

/// Runs the binary with `input` on standard input; fails the test unless it exits 0.
fn piped(args: &[&str], input: &[u8]) -> Output {
    let mut child = latscope()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("latscope runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let data = input.to_vec();
    // Written from a thread: a command may fill its stdout pipe before reading all input.
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().expect("latscope ends");
    writer.join().unwrap().expect("stdin accepted");
    assert!(
        out.status.success(),
        "latscope {args:?} exited {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn table1() -> String {
    format!(
        "{}/../sim/tests/data/table1.toml",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn demo8() -> String {
    format!(
        "{}/../trace/tests/fixtures/demo8.sr",
        env!("CARGO_MANIFEST_DIR")
    )
}

const GEN: [&str; 7] = [
    "generate",
    "--tasks",
    "5",
    "--utilisation",
    "0.6",
    "--seed",
    "11",
];

#[test]
fn generate_writes_stdout_and_reads_its_template_from_stdin() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("set.toml");
    let old = d.path().join("old.toml");
    ok(&[&GEN[..], &["-o", s(&file)]].concat());
    ok(&[&GEN[..], &["--out", s(&old)]].concat());
    let piped_out = ok(&[&GEN[..], &["-o", "-"]].concat()).stdout;
    assert!(!piped_out.is_empty());
    assert_eq!(piped_out, read(&file));
    assert_eq!(read(&old), read(&file), "--out is the old spelling of -o");
    // A template from standard input gives the set a template file gives.
    let tpl = table1();
    let from_file = ok(&[&GEN[..], &["--template", &tpl, "-o", "-"]].concat()).stdout;
    let from_stdin = piped(
        &[&GEN[..], &["--template", "-", "-o", "-"]].concat(),
        &read(Path::new(&tpl)),
    )
    .stdout;
    assert_eq!(from_stdin, from_file);
    assert_ne!(from_file, piped_out, "the template made a difference");
}

#[test]
fn sweep_writes_stdout_in_either_format() {
    let d = tempfile::tempdir().unwrap();
    let base = [
        "sweep",
        "--tasks",
        "4",
        "--util",
        "0.5..0.7:0.1",
        "--sets",
        "3",
        "--seed",
        "2",
        "-j",
        "1",
        "-q",
    ];
    let csv = d.path().join("s.csv");
    ok(&[&base[..], &["-o", s(&csv)]].concat());
    let out = ok(&[&base[..], &["-o", "-"]].concat()).stdout;
    assert_eq!(out, read(&csv));
    assert_eq!(String::from_utf8_lossy(&out).lines().count(), 1 + 9);
    let old = d.path().join("old.csv");
    ok(&[&base[..], &["--out", s(&old)]].concat());
    assert_eq!(read(&old), read(&csv));
    let pq = d.path().join("s.parquet");
    ok(&[&base[..], &["-o", s(&pq)]].concat());
    let pq_out = ok(&[&base[..], &["-o", "-", "--format", "parquet"]].concat()).stdout;
    assert_eq!(pq_out, read(&pq));
    assert!(pq_out.starts_with(b"PAR1"));
    // The template from standard input.
    let tpl = table1();
    let t_file = ok(&[&base[..], &["--template", &tpl, "-o", "-"]].concat()).stdout;
    let t_stdin = piped(
        &[&base[..], &["--template", "-", "-o", "-"]].concat(),
        &read(Path::new(&tpl)),
    )
    .stdout;
    assert_eq!(t_stdin, t_file);
}

/// An analyze result of a generated set, as a file.
fn analyze_json(dir: &Path, seed: &str) -> std::path::PathBuf {
    let set = dir.join(format!("set{seed}.toml"));
    ok(&[
        "generate",
        "--tasks",
        "4",
        "--utilisation",
        "0.6",
        "--seed",
        seed,
        "-o",
        s(&set),
    ]);
    let j = dir.join(format!("an{seed}.json"));
    ok(&["analyze", s(&set), "--json", s(&j), "-q"]);
    j
}

#[test]
fn export_reads_stdin_and_writes_stdout() {
    let d = tempfile::tempdir().unwrap();
    let j = analyze_json(d.path(), "5");
    let csv = d.path().join("rows.csv");
    ok(&["export", s(&j), "-o", s(&csv)]);
    let file_rows = String::from_utf8(read(&csv)).unwrap();
    assert_eq!(file_rows.lines().count(), 1 + 4, "{file_rows}");
    let out = ok(&["export", s(&j), "-o", "-"]).stdout;
    assert_eq!(String::from_utf8(out).unwrap(), file_rows);
    let old = d.path().join("old.csv");
    ok(&["export", s(&j), "--csv", s(&old)]);
    assert_eq!(read(&old), file_rows.as_bytes());
    // From standard input: the same rows, the `file` column saying `-`.
    let via_stdin = piped(&["export", "-", "-o", "-"], &read(&j)).stdout;
    let expected = file_rows.replace(s(&j), "-");
    assert_ne!(expected, file_rows, "the file column names the input");
    assert_eq!(String::from_utf8(via_stdin).unwrap(), expected);
    let pq = d.path().join("rows.parquet");
    ok(&["export", s(&j), "-o", s(&pq)]);
    let pq_out = ok(&["export", s(&j), "-o", "-", "--format", "parquet"]).stdout;
    assert_eq!(pq_out, read(&pq));
    let old_pq = d.path().join("old.parquet");
    ok(&["export", s(&j), "--parquet", s(&old_pq)]);
    assert_eq!(read(&old_pq), pq_out);
}

#[test]
fn report_reads_stdin_and_writes_stdout() {
    let d = tempfile::tempdir().unwrap();
    let j = analyze_json(d.path(), "9");
    let md = d.path().join("r.md");
    ok(&["report", s(&j), "-o", s(&md)]);
    let file_md = String::from_utf8(read(&md)).unwrap();
    assert!(
        file_md.contains("tau") || file_md.contains('|'),
        "{file_md}"
    );
    let out = ok(&["report", s(&j), "--format", "md", "-o", "-"]).stdout;
    assert_eq!(String::from_utf8(out).unwrap(), file_md);
    let via_stdin = piped(&["report", "-", "--format", "md", "-o", "-"], &read(&j)).stdout;
    let via_stdin = String::from_utf8(via_stdin).unwrap();
    // Equal but for the name the input goes by.
    let name = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("an9.json") && !l.contains("stdin"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(name(&via_stdin), name(&file_md));
    assert!(via_stdin.lines().count() > 5);
}

#[test]
fn convert_reads_stdin_and_writes_stdout() {
    let d = tempfile::tempdir().unwrap();
    let cap = demo8();
    let vcd = d.path().join("c.vcd");
    ok(&["convert", &cap, "-o", s(&vcd)]);
    let file_vcd = String::from_utf8(read(&vcd)).unwrap();
    assert!(file_vcd.contains("$enddefinitions"));
    let old = d.path().join("old.vcd");
    ok(&["convert", &cap, s(&old)]);
    assert_eq!(read(&old), file_vcd.as_bytes(), "trailing OUT still works");
    let out = ok(&["convert", &cap, "--format", "vcd", "-o", "-"]).stdout;
    assert_eq!(String::from_utf8(out).unwrap(), file_vcd);
    let old_to = ok(&["convert", &cap, "--to", "vcd", "-o", "-"]).stdout;
    assert_eq!(
        String::from_utf8(old_to).unwrap(),
        file_vcd,
        "--to is --format's old name"
    );
    // From standard input, with the input format named by --input-format: the same
    // changes; only the comment naming the source differs.
    let via_stdin = piped(
        &[
            "convert",
            "-",
            "--input-format",
            "sigrok",
            "--format",
            "vcd",
            "-o",
            "-",
        ],
        &read(Path::new(&cap)),
    )
    .stdout;
    let body = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("$comment source:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        body(&String::from_utf8(via_stdin).unwrap()),
        body(&file_vcd)
    );
    // Standard output has no extension: the format must be named.
    let e = latscope()
        .args(["convert", &cap, "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("--format"));
}

#[test]
fn merge_reads_stdin_and_writes_stdout() {
    let d = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for k in 0..2 {
        let p = d.path().join(format!("m{k}.json"));
        ok(&[
            "measure",
            "--cpus",
            "0",
            "--policy",
            "other",
            "--interval",
            "200us",
            "--loops",
            "50",
            "-q",
            "--json",
            s(&p),
        ]);
        runs.push(p);
    }
    let merged = d.path().join("all.json");
    ok(&["merge", s(&runs[0]), s(&runs[1]), "-o", s(&merged)]);
    let file_json = String::from_utf8(read(&merged)).unwrap();
    let out = ok(&["merge", s(&runs[0]), s(&runs[1]), "--output", "-"]).stdout;
    assert_eq!(String::from_utf8(out).unwrap(), file_json);
    let via_stdin = piped(&["merge", "-", s(&runs[1]), "--json", "-"], &read(&runs[0])).stdout;
    let v: serde_json::Value = serde_json::from_slice(&via_stdin).unwrap();
    let f: serde_json::Value = serde_json::from_str(&file_json).unwrap();
    assert_eq!(v["total"], f["total"], "the same samples merged");
    assert_eq!(v["merged"]["from"][0], "-", "{}", v["merged"]);
}
