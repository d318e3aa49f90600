//! Progress display for long runs: terminal concerns stay in the binary, so the library
//! crates can be wrapped by other front ends (Python bindings) without a progress bar.

use latscope_core::Picos;

/// Runs `sim` to `until`; draws a progress bar on stderr when `-q` is not given, stderr is a
/// terminal and the run is long enough to be worth one (a minute of simulated time). The slicing does not change the
/// result: `run_until` is exact at any boundary.
pub fn run_with_progress(sim: &mut latscope_sim::Sim, until: Picos) {
    let from = sim.now().0;
    let total = (until.0 - from).max(0);
    // A minute of simulated time takes a few milliseconds: no bar below that.
    let long = total >= 60 * 1_000_000_000_000;
    let bar = if long && crate::ui::progress() {
        let pb = indicatif::ProgressBar::new(1000);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "simulating {bar:40} {percent:>3}% {msg} (eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(pb)
    } else {
        None
    };
    let Some(pb) = bar else {
        sim.run_until(until);
        return;
    };
    for k in 1..=1000i64 {
        let t = from + (total as i128 * k as i128 / 1000) as i64;
        sim.run_until(Picos(t));
        pb.set_position(k as u64);
        pb.set_message(format!("{:.1} s simulated", sim.now().as_secs_f64()));
    }
    pb.finish_and_clear();
}
