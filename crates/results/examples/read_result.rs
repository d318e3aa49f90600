//! Reads each JSON result given on the command line into its typed document and says
//! whether it writes back the same JSON (a check for hand-made test fixtures). With
//! `--write` first, a file that reads is rewritten as its document writes it.
//!
//! `cargo run -p latscope-results --example read_result -- [--write] FILE...`

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let write = args.first().is_some_and(|a| a == "--write");
    if write {
        args.remove(0);
    }
    for path in args {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        match latscope_results::Document::from_json(&text) {
            Ok(d) => {
                let back = d.to_value().ok();
                let orig: Option<serde_json::Value> = serde_json::from_str(&text).ok();
                let same = back.is_some() && back == orig;
                println!(
                    "{path}: {} ({})",
                    d.kind(),
                    if same {
                        "round-trips"
                    } else {
                        "differs when written back"
                    }
                );
                if write && !same {
                    if let Some(v) = back {
                        let out = serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
                        if let Err(e) = std::fs::write(&path, out) {
                            println!("{path}: {e}");
                        }
                    }
                }
            }
            Err(e) => println!("{path}: {e}"),
        }
    }
}
