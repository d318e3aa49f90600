//! latscope's own helper threads (the trace reader, the rival-thread scan) on a
//! housekeeping CPU — one the run does not measure — when the machine has one, so they
//! do not appear as the blockers of the spikes they are meant to explain.

/// Online CPUs (from sched_getaffinity of the process: the CPUs latscope may use).
fn allowed_cpus() -> Vec<u32> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size is the set's.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as u32)
        // SAFETY: c is below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c as usize, &set) })
        .collect()
}

/// The CPUs of `allowed` that are not in `measured`.
pub fn housekeeping_cpus(allowed: &[u32], measured: &[u32]) -> Vec<u32> {
    allowed
        .iter()
        .copied()
        .filter(|c| !measured.contains(c))
        .collect()
}

/// Moves the calling thread onto the CPUs latscope may use but does not measure.
/// Returns false (and leaves the thread where it is) when every CPU is measured.
pub fn move_off(measured: &[u32]) -> bool {
    let hk = housekeeping_cpus(&allowed_cpus(), measured);
    if hk.is_empty() {
        return false;
    }
    // SAFETY: a zeroed cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for c in hk {
        // SAFETY: c came from a set of CPU_SETSIZE.
        unsafe { libc::CPU_SET(c as usize, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; the set is initialised.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn housekeeping_is_what_is_not_measured() {
        assert_eq!(housekeeping_cpus(&[0, 1, 2, 3], &[1, 2]), vec![0, 3]);
        assert!(housekeeping_cpus(&[0, 1], &[0, 1]).is_empty());
    }
}
