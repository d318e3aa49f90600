//! Environment diagnosis against committed fixture trees of /sys, /proc, /dev and /boot
//! (never the test machine's own).

use latscope_measure::env::{self, Item, Probe, Snapshot, Status};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn find<'a>(items: &'a [Item], name: &str) -> &'a Item {
    items
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no item {name} in {items:#?}"))
}

#[test]
fn vm_guest() {
    let p = Probe::new(fixture("vm-guest"), &[0, 1]);
    let items = env::diagnose(&p);
    // Every item has a status, a value and an effect line.
    for i in &items {
        assert!(!i.value.is_empty() && !i.effect.is_empty(), "{i:?}");
    }
    let pre = find(&items, "preemption");
    assert_eq!(pre.status, Status::Warn);
    assert!(pre.value.contains("PREEMPT_DYNAMIC"), "{}", pre.value);
    assert!(pre.value.contains("not readable"), "{}", pre.value);
    assert_eq!(find(&items, "tick").status, Status::Unknown);
    let f = find(&items, "cpufreq");
    assert_eq!(f.status, Status::Info);
    assert!(f.value.contains("not exposed"));
    let idle = find(&items, "cpuidle");
    assert_eq!(idle.status, Status::Ok);
    assert_eq!(
        idle.value,
        "driver haltpoll: POLL 0 µs, haltpoll 0 µs (cpu0)"
    );
    let q = find(&items, "pm_qos");
    assert_eq!(q.status, Status::Info);
    assert!(q.value.contains("no limit"));
    let cs = find(&items, "clocksource");
    assert_eq!(cs.status, Status::Ok);
    assert!(cs.value.starts_with("tsc"));
    assert!(find(&items, "rt_throttling").value.contains("95 %"));
    assert_eq!(
        find(&items, "isolation").value,
        "isolcpus=none nohz_full=none rcu_nocbs=none"
    );
    let smt = find(&items, "smt");
    assert_eq!(smt.status, Status::Ok);
    assert!(smt.value.contains("SMT inactive"));
    let hv = find(&items, "hypervisor");
    assert_eq!(hv.status, Status::Warn);
    assert!(hv.value.contains("cpuinfo"));
    assert_eq!(find(&items, "timerlat").status, Status::Unknown);
    assert_eq!(env::online_cpus(&fixture("vm-guest")), Some(vec![0, 1]));
}

#[test]
fn rt_host() {
    let p = Probe::new(fixture("rt-host"), &[0, 2]);
    let items = env::diagnose(&p);
    let pre = find(&items, "preemption");
    assert_eq!(pre.status, Status::Ok);
    assert!(pre.value.contains("PREEMPT_RT"));
    assert_eq!(
        find(&items, "tick").value,
        "HZ=1000, NO_HZ_FULL (from /boot/config-6.6.30-rt30)"
    );
    let f = find(&items, "cpufreq");
    assert_eq!(f.status, Status::Warn);
    assert_eq!(f.value, "cpu2 performance, cpu0 powersave");
    // C6 (133 us) is disabled, so the deepest enabled state is C1E at 10 us: not deep.
    let idle = find(&items, "cpuidle");
    assert_eq!(idle.status, Status::Ok, "{}", idle.value);
    assert!(
        idle.value.contains("C6 133 µs (disabled)"),
        "{}",
        idle.value
    );
    let q = find(&items, "pm_qos");
    assert_eq!(q.status, Status::Warn);
    assert!(q.value.contains("limited to 0 µs"));
    assert_eq!(find(&items, "clocksource").status, Status::Warn);
    assert!(find(&items, "rt_throttling").value.starts_with("off"));
    // cpu0 is not isolated (only 2-3 are).
    let iso = find(&items, "isolation");
    assert_eq!(iso.status, Status::Info);
    assert!(iso.value.contains("isolcpus=domain,managed_irq,2-3"));
    let smt = find(&items, "smt");
    assert_eq!(smt.status, Status::Warn);
    assert_eq!(
        smt.value,
        "cpu0 shares its core with cpu2; cpu2 shares its core with cpu0"
    );
    assert_eq!(find(&items, "hypervisor").status, Status::Ok);
    assert!(find(&items, "timerlat").value.starts_with("available"));

    // Measuring only the isolated CPUs turns isolation to ok.
    let p = Probe::new(fixture("rt-host"), &[2, 3]);
    assert_eq!(env::isolation(&p).status, Status::Ok);
    assert_eq!(env::cpufreq(&p).status, Status::Ok);
}

#[test]
fn dynamic_with_debugfs() {
    let p = Probe::new(fixture("dyn-debugfs"), &[0]);
    let items = env::diagnose(&p);
    let pre = find(&items, "preemption");
    assert_eq!(pre.status, Status::Ok);
    assert_eq!(pre.value, "PREEMPT_DYNAMIC, current mode 'full'");
    let idle = find(&items, "cpuidle");
    assert_eq!(idle.status, Status::Warn, "C3 80 us is deep");
    assert!(find(&items, "pm_qos").value.contains("limited to 20 µs"));
    let hv = find(&items, "hypervisor");
    assert_eq!(hv.status, Status::Warn);
    assert!(hv.value.contains("QEMU"), "{}", hv.value);
    assert!(find(&items, "timerlat").value.starts_with("not built"));
}

#[test]
fn missing_root_is_unknown_not_an_error() {
    let p = Probe::new("/nonexistent-latscope-root", &[0]);
    let items = env::diagnose(&p);
    for name in [
        "preemption",
        "pm_qos",
        "clocksource",
        "rt_throttling",
        "isolation",
        "smt",
    ] {
        assert_eq!(find(&items, name).status, Status::Unknown, "{name}");
    }
}

#[test]
fn steal_and_interrupts_during_a_run() {
    let before = Snapshot::take(&fixture("vm-guest"));
    let after = Snapshot::take(&fixture("vm-guest-after"));
    assert_eq!(before.steal_ticks.get(&0), Some(&12));
    assert_eq!(after.steal_ticks.get(&0), Some(&17));
    let items = env::during_run(&before, &after, &[0, 1], 10_000_000_000, 100);
    let steal = find(&items, "steal_time");
    // 5 ticks at USER_HZ 100 = 50 ms of 10 s = 0.5 %: warn, not bad.
    assert_eq!(steal.status, Status::Warn);
    assert!(
        steal.value.starts_with("cpu0 50 ms, cpu1 0 ms"),
        "{}",
        steal.value
    );
    let irq = find(&items, "interrupts");
    // cpu1 saw 20,000 device interrupts from irq 36 in 10 s: 2000/s, warn.
    assert_eq!(irq.status, Status::Warn, "{}", irq.value);
    assert!(
        irq.value
            .contains("cpu0 2610 (261/s: LOC 2500, irq39 100, RES 10)"),
        "{}",
        irq.value
    );
    assert!(
        irq.value
            .contains("cpu1 22502 (2250/s: irq36 20000, LOC 2500, CAL 2)"),
        "{}",
        irq.value
    );
    // More than 1 % of the run stolen is bad.
    let items = env::during_run(&before, &after, &[0], 1_000_000_000, 100);
    assert_eq!(find(&items, "steal_time").status, Status::Bad);
    // No counters at all: unknown.
    let empty = Snapshot::default();
    let items = env::during_run(&empty, &empty, &[0], 1, 100);
    assert!(items.iter().all(|i| i.status == Status::Unknown));
}

/// Without /boot/config-<release>, the configuration comes from /proc/config.gz
/// (CONFIG_IKCONFIG_PROC); a corrupt one is "not readable", not an error.
#[test]
fn kernel_config_from_proc_config_gz() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("proc/sys/kernel")).unwrap();
    std::fs::write(d.path().join("proc/sys/kernel/osrelease"), "6.1.0-test\n").unwrap();
    let config = "# comment\nCONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_NO_HZ_IDLE=y\n\
                  CONFIG_PREEMPT_VOLUNTARY=y\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(config.as_bytes()).unwrap();
    std::fs::write(d.path().join("proc/config.gz"), gz.finish().unwrap()).unwrap();
    let p = Probe::new(d.path(), &[0]);
    let tick = env::tick(&p);
    assert_eq!(tick.status, Status::Info);
    assert_eq!(tick.value, "HZ=250, NO_HZ_IDLE (from /proc/config.gz)");
    let pre = env::preemption(&p);
    assert!(pre.value.contains("voluntary"), "{}", pre.value);
    // Not gzip: unknown, with both places named.
    std::fs::write(d.path().join("proc/config.gz"), b"CONFIG_HZ=100\n").unwrap();
    let tick = env::tick(&p);
    assert_eq!(tick.status, Status::Unknown);
    assert!(tick.value.contains("/proc/config.gz"), "{}", tick.value);
}

#[test]
fn dynamic_preemption_mode_from_config_when_debugfs_is_locked() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("proc/sys/kernel")).unwrap();
    std::fs::create_dir_all(d.path().join("boot")).unwrap();
    std::fs::write(d.path().join("proc/sys/kernel/osrelease"), "6.18.0-g\n").unwrap();
    std::fs::write(
        d.path().join("proc/version"),
        "Linux version 6.18.0-g (gcc) #1 SMP PREEMPT_DYNAMIC Thu Jan 1 00:00:00 UTC 2026\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("boot/config-6.18.0-g"),
        "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_NONE=y\n",
    )
    .unwrap();
    std::fs::write(d.path().join("proc/cmdline"), "console=ttyS0 quiet\n").unwrap();
    let p = Probe::new(d.path(), &[0]);
    let pre = env::preemption(&p);
    assert_eq!(pre.status, Status::Warn);
    assert!(
        pre.value.contains("mode 'none'") && pre.value.contains("kernel configuration"),
        "{}",
        pre.value
    );
    // preempt= on the boot command line overrides the configured default.
    std::fs::write(
        d.path().join("proc/cmdline"),
        "console=ttyS0 preempt=full\n",
    )
    .unwrap();
    let pre = env::preemption(&p);
    assert_eq!(pre.status, Status::Ok);
    assert!(
        pre.value.contains("mode 'full' from the boot command line"),
        "{}",
        pre.value
    );
}
