//! Consumers read results through the typed documents of this crate, not through JSON
//! string keys: this test greps the report (crates/report/src), fleet export
//! (crates/fleet/src/export) and the Python binding (crates/python/src, python/latscope)
//! for string-key JSON access — `["…"]`, `.get("…")`, `pointer(`, `num_any`, `text_any`
//! — outside test modules, and fails on any hit in a file that is neither allowed (JSON
//! that is not a latscope result; each says why) nor still pending.
//!
//! `PENDING` lists the files that have not moved to the typed documents yet. It only
//! shrinks: a pending file without hits fails the test too, so it must leave the list
//! when it is converted.

use std::path::{Path, PathBuf};

/// Files whose JSON is not a latscope result, and why.
const ALLOWED: &[(&str, &str)] = &[(
    "crates/report/src/inputs.rs",
    "reads Perfetto/Chrome trace-event JSON and latscope's capture JSON (timelines), \
         not results",
)];

/// Files still reading results by string key. Empty since the report's last lenient
/// readers (crates/report/src/lenient.rs) went: the sections read the typed documents,
/// and the CSV series, timelines and sweep counts through crates/report/src/artifacts.rs.
/// A file added here must say why it cannot read a typed document.
const PENDING: &[&str] = &[];

const PATTERNS: &[&str] = &[".get(\"", "pointer(", "num_any", "text_any"];

/// Whether `line` indexes a value by a string literal: `x["key"]`, `f()["key"]`,
/// `a[0]["key"]` (a `["` right after a name, `)` or `]`; array literals such as
/// `&["a", "b"]` or `vec!["a"]` are not).
fn indexes_by_string(line: &str) -> bool {
    let b = line.as_bytes();
    (1..b.len().saturating_sub(1)).any(|i| {
        b[i] == b'['
            && b[i + 1] == b'"'
            && (b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'_' | b')' | b']'))
    })
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &str, ext: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(root().join(dir)) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = format!("{dir}/{name}");
        if e.path().is_dir() {
            files(&rel, ext, out);
        } else if name.ends_with(ext) {
            out.push(rel);
        }
    }
}

/// The lines of `text` (1-based numbers) that access JSON by a string key, up to the
/// first test module (`#[cfg(test)]`) of a Rust file.
fn hits(text: &str, rust: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if rust && code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") || code.starts_with('#') && !rust {
            continue;
        }
        if indexes_by_string(line) || PATTERNS.iter().any(|p| line.contains(p)) {
            out.push((i + 1, line.trim().to_string()));
        }
    }
    out
}

fn scanned() -> Vec<String> {
    let mut out = Vec::new();
    files("crates/report/src", ".rs", &mut out);
    files("crates/fleet/src/export", ".rs", &mut out);
    files("crates/python/src", ".rs", &mut out);
    files("python/latscope", ".py", &mut out);
    out
}

#[test]
fn consumers_read_results_through_the_typed_documents() {
    let all = scanned();
    assert!(
        all.iter()
            .any(|f| f.starts_with("crates/report/src/blocks/"))
            && all
                .iter()
                .any(|f| f.starts_with("crates/fleet/src/export/")),
        "the consumers' sources were not found under {}",
        root().display()
    );
    let mut bad = Vec::new();
    let mut stale = Vec::new();
    for f in &all {
        let text = std::fs::read_to_string(root().join(f)).unwrap_or_default();
        let h = hits(&text, f.ends_with(".rs"));
        let allowed = ALLOWED.iter().any(|(a, _)| a == f);
        let pending = PENDING.contains(&f.as_str());
        if !allowed && !pending {
            bad.extend(h.iter().map(|(n, l)| format!("{f}:{n}: {l}")));
        } else if pending && h.is_empty() {
            stale.push(f.clone());
        }
    }
    assert!(
        bad.is_empty(),
        "string-key JSON access to result fields (read the typed document of \
         latscope_results instead):\n{}",
        bad.join("\n")
    );
    assert!(
        stale.is_empty(),
        "no longer reading by string key, remove from PENDING: {stale:?}"
    );
    for p in PENDING {
        assert!(
            all.iter().any(|f| f == p),
            "PENDING names a missing file {p}"
        );
    }
}

#[test]
fn the_grep_finds_each_pattern() {
    // The check can fail: each pattern is found in code, none in comments or tests.
    for line in [
        r#"let x = v["total"];"#,
        r#"let x = v.get("total");"#,
        r#"let x = v.pointer("/a/b");"#,
        r#"let x = num_any(v, &["a"]);"#,
        r#"let x = text_any(v, &["a"]);"#,
    ] {
        assert_eq!(hits(line, true).len(), 1, "{line}");
    }
    assert!(hits("// v[\"total\"]", true).is_empty());
    assert!(hits(r#"let k = &["a", "b"]; let h = vec!["x"];"#, true).is_empty());
    assert_eq!(hits(r#"let x = a[0]["b"];"#, true).len(), 1);
    assert!(hits("#[cfg(test)]\nmod t { let x = v[\"a\"]; }", true).is_empty());
    assert_eq!(hits("x = d[\"total\"]", false).len(), 1);
    assert!(hits("# d[\"total\"]", false).is_empty());
}
