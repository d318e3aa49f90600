//! The workspace's `rust-version` is what the locked dependencies need, no less: a lower
//! figure promises a compiler the build cannot use (it said 1.80 while clap 4.6 needed
//! 1.85 and hdrhistogram 7.6 1.88). The figure is read from the dependencies' own
//! manifests through `cargo metadata --locked --offline` (the registry copies the build
//! already has; no network), for this host's platform, since dependencies of other
//! platforms are never downloaded here.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// `1.85`, `1.85.0` → (1, 85, 0); the patch level defaults to 0 as Cargo reads it.
fn version(s: &str) -> (u64, u64, u64) {
    let mut parts = s.split('.').map(|p| {
        p.parse::<u64>()
            .unwrap_or_else(|_| panic!("rust-version {s:?} is not numeric"))
    });
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let patch = parts.next().unwrap_or(0);
    (major, minor, patch)
}

fn host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("-vV").output().expect("rustc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host")
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(cargo)
        .current_dir(&root)
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .args(["--filter-platform", &host()])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn rust_version_is_the_highest_the_locked_dependencies_declare() {
    let meta = metadata();
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .expect("workspace_members")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let packages = meta["packages"].as_array().expect("packages");
    let mut needed: Option<((u64, u64, u64), String)> = None;
    let mut ours = Vec::new();
    for p in packages {
        let id = p["id"].as_str().unwrap_or("");
        let name = format!(
            "{} {}",
            p["name"].as_str().unwrap_or("?"),
            p["version"].as_str().unwrap_or("?")
        );
        let declared = p["rust_version"].as_str();
        if members.contains(&id) {
            ours.push((name, declared.map(str::to_string)));
        } else if let Some(v) = declared {
            let v3 = version(v);
            if needed.as_ref().is_none_or(|(best, _)| v3 > *best) {
                needed = Some((v3, name));
            }
        }
    }
    let (needed, by) = needed.expect("some dependency declares a rust-version");
    assert!(
        ours.len() >= 2,
        "the workspace members were found: {ours:?}"
    );
    for (name, declared) in &ours {
        let declared = declared
            .as_deref()
            .unwrap_or_else(|| panic!("{name} declares no rust-version (inherit the workspace's)"));
        assert_eq!(
            version(declared),
            needed,
            "{name} declares rust-version {declared}; the locked dependencies need {}.{}.{} ({by})",
            needed.0,
            needed.1,
            needed.2
        );
    }
}
