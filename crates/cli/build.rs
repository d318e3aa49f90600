//! Link options for the `latscope` binary only (the library crates are untouched).
//!
//! Every start of the process pays for its dynamic relocations: the loader reads the
//! relocation table and writes each pointer into `.data.rel.ro`. With ~14,600 of them
//! in a 24-byte-per-entry table (350 kB, ~85 pages, each a page fault on first touch),
//! start-up was a visible share of a short `simulate` run (docs/benchmarks.md,
//! "simulate vs SimSo"). The packed format (DT_RELR, glibc 2.36+) stores the same
//! relative relocations as bitmaps in a few kB. Where the C library is older the loader
//! refuses the binary, so the option is only given when this build's glibc has it.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LATSCOPE_NO_RELR");
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu && std::env::var_os("LATSCOPE_NO_RELR").is_none() && glibc_has_relr() {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// The loader of glibc 2.36 and later understands DT_RELR (`GLIBC_ABI_DT_RELR`).
fn glibc_has_relr() -> bool {
    let Ok(out) = std::process::Command::new("ldd").arg("--version").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(first) = text.lines().next() else {
        return false;
    };
    let Some(ver) = first.split_whitespace().last() else {
        return false;
    };
    let mut it = ver.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    let (major, minor) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}
