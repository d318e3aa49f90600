//! How a chain's instances are followed from step to step.
//!
//! Each time of the first step starts one instance. Hop by hop, the instances still
//! alive are matched to the next step's times exactly as `--latency` matches A to B:
//! in order (FIFO, as a queue passes messages on), each time of the next step used at
//! most once, an instance taking the first unused time at or after its own time at the
//! previous step (strictly after when both steps are the same time list, so one edge is
//! never its own successor). An instance whose next-step time would not come before the
//! *following* instance reaches the previous step is `unmatched` there: the next step
//! then answers the later stimulus (a coalesced interrupt, a dropped or overwritten
//! message), and attributing it to the earlier one would invent a latency. Pipelining is
//! allowed: instance i may still be on its way to step 3 while instance i+1 passes
//! step 1; only the order within a hop is kept.
//!
//! Nothing here allocates more than one time per instance and step, and every index is
//! checked: the times come from the capture.

use latscope_core::time::Picos;

/// The instances that passed every step, and where the others were lost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Matched {
    /// For each complete instance, its time at every step (non-decreasing).
    pub complete: Vec<Vec<Picos>>,
    /// `lost[k]`: instances that reached step k but found no time of step k+1 before
    /// the next instance reached step k (or before the end of the capture).
    pub lost: Vec<u64>,
}

/// Follows instances through `steps` (each a sorted list of times). `strict[k]`: step
/// k+1's times are the same list as step k's (then a successor must come strictly after).
pub fn follow(steps: &[Vec<Picos>], strict: &[bool]) -> Matched {
    let Some(first) = steps.first() else {
        return Matched::default();
    };
    let hops = steps.len().saturating_sub(1);
    // every instance's times so far; `alive` indexes the ones still followed
    let mut paths: Vec<Vec<Picos>> = first.iter().map(|&t| vec![t]).collect();
    let mut alive: Vec<usize> = (0..paths.len()).collect();
    let mut lost = vec![0u64; hops];
    for k in 0..hops {
        let next = &steps[k + 1];
        let same = strict.get(k).copied().unwrap_or(false);
        let mut j = 0usize;
        let mut kept = Vec::with_capacity(alive.len());
        for (n, &i) in alive.iter().enumerate() {
            let Some(&t) = paths[i].get(k) else { continue };
            while j < next.len() && (next[j] < t || (same && next[j] == t)) {
                j += 1;
            }
            let following = alive.get(n + 1).and_then(|&i2| paths[i2].get(k)).copied();
            match next.get(j) {
                Some(&tb) if following.is_none_or(|f| tb < f) => {
                    paths[i].push(tb);
                    kept.push(i);
                    j += 1;
                }
                _ => lost[k] += 1,
            }
        }
        alive = kept;
    }
    let complete = alive
        .into_iter()
        .map(|i| std::mem::take(&mut paths[i]))
        .collect();
    Matched { complete, lost }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ps(v: &[i64]) -> Vec<Picos> {
        v.iter().map(|&x| Picos(x)).collect()
    }

    #[test]
    fn pipelined_instances_keep_their_order() {
        // starts every 10; each hop takes 6, so instance i is at step 2 after i+1 started
        let a = ps(&[0, 10, 20]);
        let b = ps(&[6, 16, 26]);
        let c = ps(&[12, 22, 32]);
        let m = follow(&[a, b, c], &[false, false]);
        assert_eq!(m.lost, vec![0, 0]);
        assert_eq!(
            m.complete,
            vec![ps(&[0, 6, 12]), ps(&[10, 16, 22]), ps(&[20, 26, 32])]
        );
    }

    #[test]
    fn a_coalesced_stimulus_is_unmatched_not_stretched() {
        // two starts, one response after the second: the first is lost at hop 1
        let m = follow(&[ps(&[0, 5]), ps(&[7]), ps(&[9])], &[false, false]);
        assert_eq!(m.lost, vec![1, 0]);
        assert_eq!(m.complete, vec![ps(&[5, 7, 9])]);
        // a last step that never comes
        let m = follow(&[ps(&[0, 20]), ps(&[3, 23]), ps(&[4])], &[false, false]);
        assert_eq!(m.lost, vec![0, 1]);
        assert_eq!(m.complete, vec![ps(&[0, 3, 4])]);
    }

    #[test]
    fn same_list_needs_a_later_time() {
        let a = ps(&[0, 4, 8]);
        let m = follow(&[a.clone(), a], &[true]);
        // 0->4 would need 4 before the next start (4): not so; 4->8 likewise; 8 has none
        assert_eq!(m.lost, vec![3]);
        let m = follow(&[ps(&[0, 4]), ps(&[0, 4])], &[false]);
        assert_eq!(m.complete, vec![ps(&[0, 0]), ps(&[4, 4])]);
    }

    #[test]
    fn empty_inputs() {
        assert_eq!(follow(&[], &[]), Matched::default());
        let m = follow(&[vec![], ps(&[1])], &[false]);
        assert!(m.complete.is_empty());
        assert_eq!(m.lost, vec![0]);
    }
}
