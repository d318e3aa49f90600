//! Fuzz the system description parser (TOML and JSON): any input must give a system or a
//! clean error, and an accepted system must be analysable and simulatable without panic.
#![no_main]

use latscope_model::rta::{analyze, AnalysisOptions};
use latscope_model::system::System;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [
        System::from_toml_str(text, "fuzz.toml"),
        System::from_json_str(text, "fuzz.json"),
    ] {
        if let Ok(sys) = parsed {
            let opts = AnalysisOptions {
                max_iterations: 10_000,
                ..Default::default()
            };
            let _ = analyze(&sys, &opts);
        }
    }
});
