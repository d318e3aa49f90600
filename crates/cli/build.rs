//! Links the `latscope` executable as a position-dependent (non-PIE) binary.
//!
//! Why: a PIE binary is relocated by the dynamic loader at every start — about 15,000
//! relative relocations that write into (and so copy-on-write) some 250 KB of
//! read-only-after-relocation data. That fixed cost dominated short runs such as
//! `latscope simulate --duration 1ms`. The library crates stay position-independent
//! (the Python extension needs that); only the final link of this binary changes.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
