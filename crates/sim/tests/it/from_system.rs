//! The adapter from the shared system description: every cost comes from the model's
//! cost functions; tickless, list-scan and irqpath files convert and run as documented.

use latscope_core::Picos;
use latscope_model::System;
use latscope_sim::from_system::parse_exec_text;
use latscope_sim::*;

fn sys(text: &str) -> System {
    System::from_toml_str(text, "t.toml").expect("valid system")
}

const TICKLESS: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 1000
model = "tick"
task_selection = "optimised"
[kernel.costs]
tick_base = "5us"
tick_per_release = "0us"
switch_base = "3.5us"
switch_per_level = "0us"
switch_optimised = "3.5us"
[[kernel.sleep_state]]
name = "stop"
safety_margin_ticks = 1
parts = { cpu_wake = "80us", oscillator_restart = "720us", context_switch = "6.6us" }
[[task]]
name = "timer"
period = "150ms"
wcet = "20us"
priority = 2
[[task]]
name = "app"
min_interarrival = "10ms"
wcet = "10us"
priority = 3
[[interrupt]]
name = "gpio"
min_interarrival = "37ms"
wcet = "2us"
priority = 1
releases = "app"
"#;

/// the pico]OS tickless report: the sleep state's parts become the exit latency (CPU wake + oscillator
/// restart) and the switch's excess; an interrupt during sleep then costs
/// 800 + 2 + 6.6 + 10 us to its task, the timer task is on time.
#[test]
fn tickless_from_sleep_state() {
    let cfg = from_system(&sys(TICKLESS), &FromSystemOptions::default()).unwrap();
    let tl = cfg.tickless.clone().expect("tickless");
    assert_eq!(tl.exit_latency, Picos::from_us(800));
    assert_eq!(tl.switch_extra, Picos::from_ns(3100)); // 6.6 - 3.5 us
    assert_eq!(tl.margin_ticks, 1);
    assert_eq!(cfg.tasks[1].activation, Activation::Interrupt(0));
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(300));
    let r = s.report();
    let app = &r.tasks[1];
    assert_eq!(app.max_response_ns, Some(818_600.0));
    let timer = &r.tasks[0];
    // the 150 ms job: tick 5 us + switch 6.6 us (first switch after a wake-up) + 20 us
    assert_eq!(timer.response.min_ns, Some(31_600.0));
    // the first job waits for gpio (2 us) and app at t = 0: 2 + 3.5 + 10 + 3.5 + 20 us
    assert_eq!(timer.first_response_ns, Some(39_000.0));
    assert!(
        r.sleep.interrupt_wakeups >= 7 && r.sleep.timer_wakeups >= 1,
        "{:?}",
        r.sleep
    );
    // --no-tickless: gpio arrives with a tick (37 ms is on the 1 ms grid): gpio 2 us,
    // PendSV 3.5 us (before SysTick), then the pending tick 5 us, then app 10 us
    let cfg = from_system(
        &sys(TICKLESS),
        &FromSystemOptions {
            no_tickless: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(300));
    assert_eq!(s.report().tasks[1].max_response_ns, Some(20_500.0));
    // an unknown state is an error naming the ones there are
    let e = from_system(
        &sys(TICKLESS),
        &FromSystemOptions {
            sleep_state: Some("deep".into()),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("deep") && e.contains("stop"), "{e}");
}

/// KernelPerf from a file: 16 threads at the 8 ms tick, scheduler run 54.4 us.
#[test]
fn list_scan_from_file() {
    let mut text = String::from(
        r#"
[platform]
cpu_hz = 125_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 125
model = "listscan"
allow_equal_priorities = true
[kernel.costs]
check_per_thread = "1.3us"
insert_base = "0.6us"
insert_per_position = "0.2us"
switch = "1.25us"
"#,
    );
    for k in 0..16 {
        text.push_str(&format!(
            "[[task]]\nname = \"t{k}\"\nperiod = \"8ms\"\nwcet = \"400us\"\npriority = 1\n"
        ));
    }
    let cfg = from_system(&sys(&text), &FromSystemOptions::default()).unwrap();
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(80));
    let r = s.report();
    assert_eq!(r.kernel, "list-scan");
    assert_eq!(r.tick.max_ns, Some(54_400.0));
    assert_eq!(r.switches.max_ns, Some(1_250.0));
    assert_eq!(r.switches.count, 160);
    // KernelPerf: 58 us per 8 ms is 0.725 %; the model's 54.4 us is 0.68 %
    assert!(
        (r.cpu.scheduler_fraction - 0.0068).abs() < 1e-4,
        "{}",
        r.cpu.scheduler_fraction
    );
}

/// Generic selection: the engine's table is the model's switch_cost by levels walked.
#[test]
fn switch_table_comes_from_the_model() {
    let text = r#"
[platform]
cpu_hz = 84_000_000
irq_entry_cycles = 12
[kernel]
tick_hz = 1000
model = "tick"
task_selection = "generic"
[kernel.costs]
tick_base = "1.5us"
tick_per_release = "5.907us"
switch_base = "1.5us"
switch_per_level = "0.7us"
[[task]]
name = "A"
period = "5ms"
wcet = "1ms"
priority = 6
[[task]]
name = "D"
period = "8ms"
wcet = "1ms"
priority = 3
"#;
    let cfg = from_system(&sys(text), &FromSystemOptions::default()).unwrap();
    let Kernel::Tick(k) = &cfg.kernel else {
        panic!()
    };
    let SwitchCost::PerLevel(t) = &k.switch_cost else {
        panic!()
    };
    assert_eq!(t[0], Picos::from_ns(1500));
    assert_eq!(t[1], Picos::from_ns(1500));
    assert_eq!(t[3], Picos::from_ns(2900));
    assert_eq!(k.tick_cost[2], Picos::from_ns(1500 + 2 * 5907));
    assert_eq!(cfg.irq_entry, Picos(142_857));
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(40));
    let r = s.report();
    // A (6) -> D (3): 3 loop iterations, L + 1.5 + 2 * 0.7 us (the FreeRTOS overheads paper Table 4 shape)
    let g = r
        .switches
        .by_pair
        .iter()
        .find(|g| g.from.as_deref() == Some("A") && g.to.as_deref() == Some("D"))
        .unwrap();
    assert_eq!(g.max_ns, 142.857 + 2900.0);
    let lv3 = r
        .switches
        .by_levels
        .iter()
        .find(|g| g.levels == Some(3))
        .unwrap();
    assert_eq!(lv3.max_ns, 142.857 + 2900.0);
}

#[test]
fn exec_time_files() {
    let v = parse_exec_text("# measured\n12.5us\n\n13us # late\n1ms\n", "x").unwrap();
    assert_eq!(
        v,
        vec![
            Picos::from_ns(12_500),
            Picos::from_us(13),
            Picos::from_ms(1)
        ]
    );
    let v = parse_exec_text("exec_ns,tag\n1500,a\n2000.5,b\n", "x").unwrap();
    assert_eq!(v, vec![Picos::from_ns(1500), Picos(2_000_500)]);
    let e = parse_exec_text("1us\n12\n", "f.txt")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("f.txt:2:"), "{e}");
    let e = parse_exec_text("# nothing\n", "f.txt")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no execution times"), "{e}");
    // from a system file: the file wins with --exec auto, the WCET with --exec wcet
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "100us\n200us\n").unwrap();
    let text = TICKLESS.replace(
        "wcet = \"20us\"\npriority = 2",
        "wcet = \"300us\"\npriority = 2\nexec_time_file = \"a.txt\"",
    );
    let p = dir.path().join("s.toml");
    std::fs::write(&p, text).unwrap();
    let s = System::from_path(&p).unwrap();
    let cfg = from_system(&s, &FromSystemOptions::default()).unwrap();
    assert_eq!(
        cfg.tasks[0].exec,
        ExecTime::Empirical(vec![Picos::from_us(100), Picos::from_us(200)])
    );
    let cfg = from_system(
        &s,
        &FromSystemOptions {
            exec: ExecMode::Wcet,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(cfg.tasks[0].exec, ExecTime::Fixed(Picos::from_us(300)));
}

/// kernel-v4-like interrupt path: constant tick and switch; each handler pays the
/// path's prologue + send + dispatch on top of its WCET, with the stage's entry time.
#[test]
fn irqpath_and_random_interrupts() {
    let text = r#"
[platform]
cpu_hz = "125 MHz"
irq_entry_cycles = 26
[kernel]
tick_hz = 1000
model = "irqpath"
[kernel.costs]
tick = "2us"
switch = "1us"
warm = { prologue = "0ns", send = "1.6us", dispatch = "440ns" }
[[task]]
name = "actor"
min_interarrival = "1ms"
wcet = "5us"
priority = 2
[[interrupt]]
name = "gpio"
min_interarrival = "3ms"
wcet = "232ns"
priority = 1
releases = "actor"
"#;
    let s = sys(text);
    let cfg = from_system(&s, &FromSystemOptions::default()).unwrap();
    assert_eq!(cfg.irq_entry, Picos(208_000)); // 26 cycles at 125 MHz
    assert_eq!(cfg.interrupts[0].wcet, Picos(232_000 + 1_600_000 + 440_000));
    let Kernel::Tick(k) = &cfg.kernel else {
        panic!()
    };
    assert_eq!(k.tick_cost, vec![Picos::from_us(2)]);
    assert_eq!(k.switch_cost, SwitchCost::Constant(Picos::from_us(1)));
    // random arrivals: first in [0, min), then gaps in [min, 2 min]; seeded
    let o = |seed| FromSystemOptions {
        irq: IrqMode::Random,
        seed,
        ..Default::default()
    };
    let a = from_system(&s, &o(1)).unwrap();
    match a.interrupts[0].arrival {
        IrqArrival::Sporadic { min, max, offset } => {
            assert_eq!((min, max), (Picos::from_ms(3), Picos::from_ms(6)));
            assert!(offset < min);
        }
        ref other => panic!("{other:?}"),
    }
    assert_eq!(a, from_system(&s, &o(1)).unwrap());
    assert_ne!(a, from_system(&s, &o(2)).unwrap());
    let mut sim = Sim::new(a, SimOptions::default()).unwrap();
    sim.run_until(Picos::from_ms(1000));
    let r = sim.report();
    let n = r.interrupts[0].count;
    assert!(
        (167..=334).contains(&n),
        "{n} arrivals in 1 s with gaps in [3, 6] ms"
    );
    assert_eq!(r.tasks[0].jobs, n);
}

/// An execution-time file must hold positive values no larger than the task's WCET;
/// the error names the file and the line.
#[test]
fn exec_time_file_values_are_checked_against_the_wcet() {
    let dir = tempfile::tempdir().unwrap();
    let text = TICKLESS.replace(
        "wcet = \"20us\"\npriority = 2",
        "wcet = \"1ms\"\npriority = 2\nexec_time_file = \"et.txt\"",
    );
    let p = dir.path().join("s.toml");
    std::fs::write(&p, text).unwrap();
    let err = |content: &str| {
        std::fs::write(dir.path().join("et.txt"), content).unwrap();
        let s = System::from_path(&p).unwrap();
        from_system(&s, &FromSystemOptions::default()).map(|_| ())
    };
    let e = err("500us\n2ms\n").unwrap_err().to_string();
    assert!(e.contains("et.txt:2: "), "{e}");
    assert!(e.contains("exceeds task \"timer\"'s WCET"), "{e}");
    let e = err("# header comment\n0us\n").unwrap_err().to_string();
    assert!(e.contains("et.txt:2: "), "{e}");
    assert!(e.contains("must be positive"), "{e}");
    let e = err("exec_ns\n-5\n").unwrap_err().to_string();
    assert!(e.contains("et.txt:2: "), "{e}");
    // the WCET itself is allowed; --exec wcet does not read the file
    assert!(err("1ms\n999us\n").is_ok());
    std::fs::write(dir.path().join("et.txt"), "5ms\n").unwrap();
    let s = System::from_path(&p).unwrap();
    let o = FromSystemOptions {
        exec: ExecMode::Wcet,
        ..Default::default()
    };
    assert!(from_system(&s, &o).is_ok());
}

const NO_COSTS: &str = r#"
[platform]
cpu_hz = 100_000_000
irq_entry_cycles = 0
[kernel]
tick_hz = 300
model = "tick"
task_selection = "generic"
[kernel.costs]
tick_base = "0us"
tick_per_release = "0us"
switch_base = "0us"
switch_per_level = "0us"
switch_optimised = "0us"
[[task]]
name = "a"
period = "10ms"
wcet = "1ms"
priority = 1
"#;

/// Tick `k` is at exactly round(k * 1 s / tick_hz): with 300 Hz, a 10 ms period is 3
/// ticks, so every job is released exactly at a tick and responds in its WCET (with
/// ticks at k * 3.333333333 ms the release at 10 ms waited for tick 4 at 13.33 ms).
#[test]
fn ticks_are_on_the_exact_grid() {
    let run = |text: &str, until: Picos| {
        let cfg = from_system(&sys(text), &FromSystemOptions::default()).unwrap();
        let mut s = Sim::new(
            cfg,
            SimOptions {
                series: true,
                ..Default::default()
            },
        )
        .unwrap();
        s.run_until(until);
        let times: Vec<i64> = s.series().iter().map(|r| r.time.0).collect();
        (s.report(), times)
    };
    let (r, times) = run(NO_COSTS, Picos::from_ms(100));
    assert_eq!(r.tasks[0].jobs, 10);
    assert_eq!(r.tasks[0].max_response_ns, Some(1_000_000.0));
    // round(k * 1e12 / 300): 3333333333, 6666666667, 10000000000, ...
    assert_eq!(&times[..3], &[3_333_333_333, 6_666_666_667, 10_000_000_000]);
    assert_eq!(times.len(), 29); // tick 30 is at exactly 100 ms, the end of the run
    assert_eq!(times[28], 100_000_000_000 - 3_333_333_333);
    // 3 Hz: a 1 s period is 3 ticks; the release at 1 s is the tick at exactly 1 s.
    let text = NO_COSTS
        .replace("tick_hz = 300", "tick_hz = 3")
        .replace("period = \"10ms\"", "period = \"1s\"");
    let (r, times) = run(&text, Picos::from_ms(3_500));
    assert_eq!(r.tasks[0].jobs, 4);
    assert_eq!(r.tasks[0].max_response_ns, Some(1_000_000.0));
    assert_eq!(
        times,
        vec![
            333_333_333_333,
            666_666_666_667,
            1_000_000_000_000,
            1_333_333_333_333,
            1_666_666_666_667,
            2_000_000_000_000,
            2_333_333_333_333,
            2_666_666_666_667,
            3_000_000_000_000,
            3_333_333_333_333
        ]
    );
}

/// Any u32 priority converts. Generic selection walks every priority number, so its
/// cost table is bounded: above MAX_GENERIC_PRIORITY the error names the task and the
/// key (and not the file: the caller does); port-optimised selection takes any value.
#[test]
fn large_priorities() {
    let text = NO_COSTS.replace("priority = 1", "priority = 5000");
    let cfg = from_system(&sys(&text), &FromSystemOptions::default()).unwrap();
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(20));
    assert_eq!(s.report().tasks[0].jobs, 2);
    let text = NO_COSTS.replace("priority = 1", "priority = 70000");
    let e = from_system(&sys(&text), &FromSystemOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("task 'a': key priority: 70000 is above 65535"),
        "{e}"
    );
    assert!(!e.contains("t.toml"), "{e}");
    let text = text.replace("\"generic\"", "\"optimised\"");
    let cfg = from_system(&sys(&text), &FromSystemOptions::default()).unwrap();
    let mut s = Sim::new(cfg, SimOptions::default()).unwrap();
    s.run_until(Picos::from_ms(20));
    assert_eq!(s.report().tasks[0].jobs, 2);
    assert_eq!(s.report().tasks[0].priority, 70000);
}
