//! Stalls several CPUs share. A hypervisor that deschedules the guest, or an SMI, stops
//! every CPU at once; each CPU's measuring thread then sees a spike whose window covers
//! the same stretch of time, and the task that happened to be current on each CPU is
//! a bystander. Spikes on different CPUs whose windows overlap for most of the shorter
//! one are grouped, so the explanation says what no single CPU's events can.

use super::attribute::{Spike, StallGroup};

/// Two windows belong together when their overlap is at least this share of the
/// shorter one (a stall that hits both CPUs covers nearly all of each spike).
const MIN_OVERLAP: f64 = 0.5;

/// The overlap of two spikes' windows (intended wake → actual wake), ns.
fn overlap(a: &Spike, b: &Spike) -> i64 {
    let (a0, a1) = (a.at_ns, a.at_ns.saturating_add(a.latency_ns.max(0)));
    let (b0, b1) = (b.at_ns, b.at_ns.saturating_add(b.latency_ns.max(0)));
    (a1.min(b1) - a0.max(b0)).max(0)
}

fn together(a: &Spike, b: &Spike) -> bool {
    let shorter = a.latency_ns.min(b.latency_ns);
    a.cpu != b.cpu && shorter > 0 && overlap(a, b) as f64 >= MIN_OVERLAP * shorter as f64
}

/// Groups the spikes of several CPUs that stalled together and marks each with its
/// group. `measured_cpus`: how many CPUs the run measured (a group covering all of them
/// is "all CPUs"). Spikes of one CPU never form a group on their own.
pub fn group(spikes: &mut [Spike], measured_cpus: usize) {
    let mut order: Vec<usize> = (0..spikes.len()).collect();
    order.sort_by_key(|&i| (spikes[i].at_ns, spikes[i].cpu));
    let mut next_id = 1u32;
    let mut i = 0;
    while i < order.len() {
        // A run of spikes, each overlapping enough with one already in it.
        let mut members = vec![order[i]];
        let mut end = i + 1;
        while end < order.len() {
            let cand = &spikes[order[end]];
            let reach = members
                .iter()
                .map(|&m| spikes[m].at_ns.saturating_add(spikes[m].latency_ns.max(0)))
                .max()
                .unwrap_or(i64::MIN);
            if cand.at_ns > reach {
                break;
            }
            if members.iter().any(|&m| together(&spikes[m], cand)) {
                members.push(order[end]);
            }
            end += 1;
        }
        let mut cpus: Vec<u32> = members.iter().map(|&m| spikes[m].cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        if cpus.len() >= 2 {
            let g = StallGroup {
                id: next_id,
                all_cpus: measured_cpus >= 2 && cpus.len() >= measured_cpus,
                cpus,
            };
            next_id += 1;
            for &m in &members {
                spikes[m].set_stall_group(g.clone());
            }
        }
        i = end.max(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftrace::attribute::attribute;

    fn spike(cpu: u32, at_ms: f64, lat_ms: f64) -> Spike {
        let at = (at_ms * 1e6) as i64;
        attribute(&[], cpu, at, at, (lat_ms * 1e6) as i64, &|_| None)
    }

    #[test]
    fn simultaneous_stalls_on_two_cpus_are_one_group() {
        // A 4 ms stall at 10 s on both CPUs (the timers expired 30 us apart), a lone
        // spike on cpu 0 at 12 s, and two spikes at 20 s that barely touch.
        let mut s = vec![
            spike(0, 10_000.0, 4.13),
            spike(1, 10_000.03, 4.10),
            spike(0, 12_000.0, 2.0),
            spike(0, 20_000.0, 1.0),
            spike(1, 20_000.9, 1.0),
        ];
        group(&mut s, 2);
        let g = s[0].stall_group.clone().expect("grouped");
        assert_eq!(g.cpus, vec![0, 1]);
        assert!(g.all_cpus);
        assert_eq!(s[1].stall_group, Some(g));
        assert!(
            s[0].explanation.contains("all CPUs stalled together"),
            "{}",
            s[0].explanation
        );
        assert_eq!(s[2].stall_group, None);
        assert_eq!(
            (s[3].stall_group.clone(), s[4].stall_group.clone()),
            (None, None)
        );
    }

    #[test]
    fn two_of_four_cpus_are_not_all() {
        let mut s = vec![spike(2, 5.0, 3.0), spike(3, 5.1, 3.0), spike(2, 9.0, 1.0)];
        group(&mut s, 4);
        let g = s[1].stall_group.clone().unwrap();
        assert!(!g.all_cpus);
        assert!(s[0].explanation.contains("2 CPUs stalled together"));
        // Spikes of one CPU alone never group.
        let mut one = vec![spike(0, 1.0, 3.0), spike(0, 2.0, 3.0)];
        group(&mut one, 2);
        assert!(one.iter().all(|x| x.stall_group.is_none()));
    }
}
