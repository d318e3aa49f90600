//! `latscope trace`: import a capture and compute timing figures.

use anyhow::{Context, Result};
use latscope_core::frequency::Hz;
use latscope_core::time::{parse_nonneg_duration, Picos};
use latscope_trace::chain;
use latscope_trace::import::{self, Format, Options};
use latscope_trace::measure::{self, Limit, Per, Request, Settings};
use latscope_trace::report::{self, Report};
use std::path::PathBuf;
use std::process::ExitCode;

// How to read the input capture(s); shared with `latscope convert`.
// (A plain comment, not `///`: clap would take a doc comment as the command's `about`,
// replacing the one main.rs gives, because commands' arguments are built deferred.)
#[derive(clap::Args, Debug, Clone)]
pub struct InputArgs {
    /// Input format instead of detecting it from the content: sigrok, saleae-csv,
    /// saleae-bin, vcd, csv, scope-csv, cyclelog, native, perf, tracerecorder, systemview
    #[arg(long = "input-format", alias = "format", value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Sample rate (e.g. 24MHz) for files that lack one (sigrok sessions without
    /// `samplerate`, CSV with sample numbers); also rounds Saleae float times to the
    /// sample grid. A file that states a different rate is read at this one instead, with
    /// a warning (for sessions saved with a wrong rate); formats with absolute times (VCD,
    /// native, cycle logs) ignore it with a warning
    #[arg(long, value_name = "FREQ")]
    pub samplerate: Option<Hz>,
    /// Most edges kept over the decoded channels of one file before the import is refused
    /// (bounds memory at about 8 bytes per edge; default 100000000)
    #[arg(long, value_name = "N")]
    pub max_edges: Option<u64>,
    /// CPU clock for cycle-counter logs (e.g. 168MHz)
    #[arg(long, value_name = "FREQ")]
    pub cpu_hz: Option<Hz>,
    /// Analog channels (oscilloscope CSV, sigrok analog, Saleae analog binary): logic
    /// threshold in volts (default: midpoint of the 5th and 95th percentile levels)
    #[arg(long, value_name = "VOLTS")]
    pub threshold: Option<f64>,
    /// Analog channels: hysteresis band in volts, total width around the threshold
    /// (default: 10 % of the 5-95 % level span); edges are interpolated where the trace
    /// crosses the threshold itself
    #[arg(long, value_name = "VOLTS")]
    pub hysteresis: Option<f64>,
}

/// `LATSCOPE_FIFO_WAIT` (seconds): how long a FIFO input may stay without a writer before
/// the import gives up (default 10 s); the tests of that error set it short.
fn fifo_wait() -> Result<Option<std::time::Duration>> {
    let Some(v) = std::env::var_os("LATSCOPE_FIFO_WAIT") else {
        return Ok(None);
    };
    let s = v.to_string_lossy();
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=86_400.0).contains(&x) => {
            Ok(Some(std::time::Duration::from_secs_f64(x)))
        }
        _ => anyhow::bail!("LATSCOPE_FIFO_WAIT={s}: not a number of seconds between 0 and 86400"),
    }
}

impl InputArgs {
    pub fn options(&self) -> Result<Options> {
        // Typed by clap through the library's FromStr (Format, Hz): nothing to parse here.
        Ok(Options {
            format: self.format,
            samplerate_hz: self.samplerate.map(|h| h.0),
            cpu_hz: self.cpu_hz.map(|h| h.0),
            threshold: self.threshold,
            hysteresis: self.hysteresis,
            only_channels: None,
            max_edges: self.max_edges,
            fifo_wait: fifo_wait()?,
            warnings: Default::default(),
        })
    }

    /// Opens every file and merges them (one Saleae binary file per channel). `only`:
    /// the channels (names or `#N` over the merged capture) whose edges are needed;
    /// None = all. Returns the capture, the format name(s) and which channels were
    /// decoded.
    pub fn load(
        &self,
        files: &[PathBuf],
        only: Option<Vec<String>>,
    ) -> Result<(latscope_core::capture::Capture, String, Vec<bool>)> {
        let mut opts = self.options()?;
        opts.only_channels = only;
        let loaded = import::load_files(files, &opts).map_err(|(e, warnings)| {
            for w in warnings {
                eprintln!("latscope: warning: {w}");
            }
            e
        })?;
        for w in &loaded.warnings {
            eprintln!("latscope: warning: {w}");
        }
        let import::Merged {
            capture: cap,
            decoded,
            ..
        } = loaded.merged;
        Ok((cap, loaded.format, decoded))
    }
}

// Import a capture and measure pulse widths, latencies, periods, busy time and counts.
// (A plain comment, not `///`: clap would take a doc comment as the command's `about`,
// replacing the one main.rs gives, because commands' arguments are built deferred.)
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Channels are named as in the capture or by index: '#0', '#1', …  (see --list); a name
that several channels share must be given by index. An analog channel (sigrok A0, Saleae
analog .bin, a scope CSV column) is measured through --threshold/--hysteresis, e.g.
--pulse A0, while it is read: only its edges are held. Without both flags the default
levels need every sample twice more, so its samples are spooled to a temporary file in
$TMPDIR (4 bytes each; deleted afterwards).
FILE may be '-' (standard input), a pipe or a FIFO (a .sr stream is spooled to $TMPDIR:
a zip needs seeking).
Edges: rise (default), fall, any.  Levels: high (default), low.
A measurement with no instance in the range reports no statistics (null in JSON), and a
--limit on anything but its count/unmatched then FAILS.
Times are from the capture start; they accept units: ps, ns, us, ms, s.

Examples:
  latscope trace cap.sr --list
  latscope trace cap.sr --pulse SysTick --period SysTick:rise --nominal 1ms
  latscope trace cap.sr --latency 'IRQ:rise->Task:rise,window=50us' --worst 10
  latscope trace cap.sr --busy Task --per SysTick --series load.csv
  latscope trace cap.sr --count Task:rise --per SysTick --json out.json
  latscope trace cap.sr --spec kernel.toml --limit 'SysTick.max<5us'   # exit 1 on failure
  latscope trace digital_0.bin digital_1.bin --samplerate 500MHz --pulse digital_0
  latscope trace dwt.log --cpu-hz 168MHz --pulse SysTick

Event recordings (perf.data from `perf sched record`, TraceRecorder .psf, SystemView
.SVDat) are read as a capture with one channel per task and per interrupt handler, high
while it runs, so every measurement above works on them; --tasks reads their events:
  latscope trace run.psf --tasks                       # per-task table, ISRs, lost events
  latscope trace run.psf --tasks --json tasks.json --series ticks.csv
  latscope trace run.psf --system-out draft.toml       # a system file `analyze` reads
Then `fit run.psf --target tick` fits the tick costs straight from the recording (the same
fit as `fit ticks.csv --target tick --x released --y duration_ns --unit ns`), and `analyze
draft.toml --observed run.psf` puts each task's observed worst response beside its bound
(exit 1 when one exceeds it). A job is a task's release (ready while blocked) to its
block; jobs cut off by the recording's start or end are not counted; jobs and handler runs
that touch a window of lost events are flagged; definitions in docs/event-traces.md.")]
pub struct Args {
    /// Capture file(s): sigrok .sr, Saleae CSV or binary export (several binary files
    /// are merged, one channel each), VCD, CSV, oscilloscope CSV, cycle-counter log,
    /// latscope .lscap; event recordings (perf.data, TraceRecorder .psf, SystemView
    /// .SVDat) as a capture, or with --tasks / --system-out. '-' reads standard input;
    /// pipes and FIFOs work too (a sigrok session, a zip, or an event recording is first
    /// copied to a temporary file in $TMPDIR, as it needs seeking)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// List the channels (index, name, initial level, edge count) and exit
    #[arg(long)]
    pub list: bool,
    /// Pulse widths of a channel: CH[:high|:low] (e.g. an ISR's execution time)
    #[arg(long, value_name = "CH[:LEVEL]", value_parser = measure::parse_pulse)]
    pub pulse: Vec<measure::Request>,
    /// Latency from an edge on A to the next matching edge on B, one-to-one:
    /// 'A[:EDGE]->B[:EDGE][,window=10us]'; an A event without a B event before the
    /// next A event (or within the window) counts as unmatched
    #[arg(long, value_name = "A->B", value_parser = measure::parse_latency)]
    pub latency: Vec<measure::Request>,
    /// End-to-end chain, step by step: 'IRQ:rise->Task:rise->Out:fall[,name=NAME]'; each
    /// first-step edge starts an instance, matched FIFO to the next step's first edge at
    /// or after it (an instance whose next step comes only after the following instance
    /// reached its step is unmatched). Event recordings also take an actor's events:
    /// ready, switch, block (tasks), enter, exit (handlers). Repeatable; limits as for
    /// any measurement: --limit 'NAME.max<5ms' (docs/trace.md, "Chains")
    #[arg(long, value_name = "A->B->C", value_parser = chain::parse_chain)]
    pub chain: Vec<chain::ChainSpec>,
    /// Period between consecutive edges: CH[:EDGE][,nominal=1ms]; reports frequency and
    /// jitter against the nominal period
    #[arg(long, value_name = "CH[:EDGE]")]
    pub period: Vec<measure::PeriodSpec>,
    /// Nominal period for every --period without an inline nominal= (e.g. 1ms)
    #[arg(long, value_name = "DURATION", value_parser = parse_nonneg_duration, allow_hyphen_values = true)]
    pub nominal: Option<Picos>,
    /// Busy time of a channel (high by default) per window:
    /// CH[:LEVEL][,window=1ms|,per=CH2[:EDGE|:LEVEL]]; also the overall busy %
    #[arg(long, value_name = "CH[,..]")]
    pub busy: Vec<measure::BusySpec>,
    /// Count of edges (pulses) of a channel in each window: CH[:EDGE],per=CH2 or
    /// CH[:EDGE],window=1ms
    #[arg(long, value_name = "CH[,..]")]
    pub count: Vec<measure::CountSpec>,
    /// Default fixed window for --busy/--count without inline options (e.g. 1ms)
    #[arg(
        long,
        value_name = "DURATION",
        conflicts_with = "per",
        value_parser = parse_nonneg_duration,
        allow_hyphen_values = true
    )]
    pub window: Option<Picos>,
    /// Default window channel for --busy/--count without inline options: its periods
    /// (CH2 or CH2:rise) or its pulses (CH2:high)
    #[arg(long, value_name = "CH2[:EDGE|:LEVEL]")]
    pub per: Option<Per>,
    /// Only use the capture from this time on (from the capture start, e.g. 10ms)
    #[arg(long, value_name = "DURATION", value_parser = parse_nonneg_duration, allow_hyphen_values = true)]
    pub from: Option<Picos>,
    /// Only use the capture up to this time (from the capture start)
    #[arg(long, value_name = "DURATION", value_parser = parse_nonneg_duration, allow_hyphen_values = true)]
    pub to: Option<Picos>,
    /// TOML spec file naming channels by role and listing measurements and limits
    /// (see docs/trace.md)
    #[arg(long, value_name = "FILE.toml")]
    pub spec: Option<PathBuf>,
    /// Pass/fail check, e.g. 'SysTick.max<5us', 'Task.busy.max_percent<20%',
    /// 'IRQ->Task.unmatched<=0'; any failure makes the exit status 1
    #[arg(long, value_name = "NAME.STAT<VALUE")]
    pub limit: Vec<Limit>,
    /// Write the results as JSON to this file ('-' for stdout, then no text output)
    #[arg(long, value_name = "OUT")]
    pub json: Option<PathBuf>,
    /// Write every measured value against time as CSV
    /// (measurement,kind,at_ns,value,unit); with --tasks: one row per tick
    /// (time_ns,duration_ns,released, the columns of `simulate --series`, which `fit
    /// --target tick` reads)
    #[arg(long, value_name = "FILE")]
    pub series: Option<PathBuf>,
    /// Task timing of an event recording (perf.data, TraceRecorder .psf, SystemView
    /// .SVDat): per task jobs, start latency, response, execution, preemptions and CPU
    /// share; per interrupt handler and the tick count and duration; lost events
    /// (docs/event-traces.md)
    #[arg(long)]
    pub tasks: bool,
    /// With --tasks: write one row per context switch whose cause the recording shows
    /// (time_ns,duration_ns,task,from_priority,to_priority; duration from the outgoing
    /// task's block or the last handler exit to the switch)
    #[arg(long, value_name = "FILE", requires = "tasks")]
    pub switch_series: Option<PathBuf>,
    /// Write a system description draft from an event recording (the TOML `analyze`
    /// reads): tasks with priorities, observed periods and observed maximum execution as
    /// WCET placeholders, interrupts, the tick rate and fitted tick costs
    #[arg(long, value_name = "FILE.toml")]
    pub system_out: Option<PathBuf>,
    /// Write the capture plus one counter track per measurement as Perfetto JSON
    #[arg(long, value_name = "FILE")]
    pub perfetto: Option<PathBuf>,
    /// How many worst instances to list per measurement
    #[arg(long, value_name = "K", default_value_t = 5)]
    pub worst: usize,
    /// Maximum number of histogram bins in the JSON output
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub bins: usize,
    #[command(flatten)]
    pub labels: crate::labels::LabelArgs,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.tasks || a.system_out.is_some() {
        let capture_flags = !(a.pulse.is_empty()
            && a.latency.is_empty()
            && a.period.is_empty()
            && a.busy.is_empty()
            && a.count.is_empty()
            && a.chain.is_empty()
            && a.limit.is_empty()
            && a.spec.is_none()
            && a.perfetto.is_none()
            && !a.list);
        anyhow::ensure!(
            !capture_flags,
            "--tasks and --system-out take no capture measurement (--pulse, --latency, \
             --chain, --period, --busy, --count, --spec, --limit, --perfetto, --list): run those \
             separately on the same recording"
        );
        return super::trace_tasks::run(&a);
    }
    let labels = a.labels.resolve()?;
    if a.list {
        let (cap, format, _) = a.input.load(&a.files, None)?;
        println!(
            "{} ({format}): {} to {}, sample rate {}",
            cap.source,
            latscope_core::time::format_ps(cap.start.0 as i128),
            latscope_core::time::format_ps(cap.end.0 as i128),
            cap.samplerate_hz
                .map(|r| format!("{r} Hz"))
                .unwrap_or_else(|| "unknown".into())
        );
        for (i, c) in cap.channels.iter().enumerate() {
            println!(
                "#{i}\t{}\tinitial {}\t{} edges",
                c.name,
                c.initial as u8,
                c.edges.len()
            );
        }
        for a in &cap.analog {
            println!("analog\t{}\t{} samples", a.name, a.values.len());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut reqs: Vec<Request> = Vec::new();
    let mut limits: Vec<Limit> = Vec::new();
    let mut from = a.from;
    let mut to = a.to;
    let mut worst = a.worst;
    let mut spec = None;
    if let Some(p) = &a.spec {
        let text = std::fs::read_to_string(p).with_context(|| p.display().to_string())?;
        let mut s = latscope_trace::spec::parse(&text, &p.display().to_string())?;
        reqs.append(&mut s.requests);
        limits.append(&mut s.limits);
        from = from.or(s.from);
        to = to.or(s.to);
        if let Some(w) = s.worst {
            worst = w;
        }
        spec = Some(s);
    }
    let nominal = a.nominal;
    let default_per = match (a.window, &a.per) {
        (Some(w), _) => Per::Window(w),
        (None, Some(p)) => p.clone(),
        (None, None) => Per::Whole,
    };
    reqs.extend(a.pulse.iter().cloned());
    reqs.extend(a.latency.iter().cloned());
    reqs.extend(a.period.iter().map(|p| p.request(nominal)));
    reqs.extend(a.busy.iter().map(|b| b.request(&default_per)));
    for c in &a.count {
        reqs.push(c.request(&default_per)?);
    }
    limits.extend(a.limit.iter().cloned());
    let chains = a.chain.clone();
    // Decode only the channels the measurements read (sigrok, VCD, CSV), unless
    // the whole capture is exported.
    let only = if (reqs.is_empty() && chains.is_empty()) || a.perfetto.is_some() {
        None
    } else {
        Some(
            reqs.iter()
                .flat_map(|r| r.channels())
                .chain(chains.iter().flat_map(|c| c.channels()))
                .map(str::to_string)
                .collect::<Vec<_>>(),
        )
    };
    // a chain step on an actor's event (ready, switch, …) reads the event recording
    let (events, (mut cap, format, mut decoded)) = if chains.iter().any(|c| c.needs_events()) {
        super::trace_chain::load_events(&a.files, &a.input)?
    } else {
        (None, a.input.load(&a.files, only)?)
    };
    // analog channels named in a measurement are measured through a threshold
    let names: Vec<&str> = reqs
        .iter()
        .flat_map(|r| r.channels())
        .chain(chains.iter().flat_map(|c| c.channels()))
        .collect();
    let added =
        import::analog::add_thresholded(&mut cap, &names, a.input.threshold, a.input.hysteresis);
    decoded.extend(added.iter().map(|_| true));
    if let Some(s) = &spec {
        s.check_roles(&cap)?;
    }
    let set = Settings {
        from,
        to,
        worst,
        bins: a.bins.max(1),
        // every value with its time only when written out (16 bytes per instance)
        series: a.series.is_some() || a.perfetto.is_some(),
    };
    let mut ms = measure::run(&cap, &reqs, &set)?;
    let chained = super::trace_chain::measure(&chains, &cap, events.as_ref(), &set)?;
    // a chain's limit reads its end-to-end figure as a measurement's
    let plain = ms.len();
    ms.extend(chained.iter().map(|c| c.as_measurement()));
    let outcomes = measure::check_limits(&limits, &ms);
    ms.truncate(plain);
    let outcomes = outcomes?;
    if let Some(p) = &a.series {
        crate::out::stream(p, "--series", |w| Ok(report::write_series(&ms, w)?))?;
    }
    if let Some(p) = &a.perfetto {
        let tracks = report::counter_tracks(&ms, cap.start);
        crate::out::stream(p, "--perfetto", |w| {
            Ok(latscope_trace::export::perfetto::write(&cap, &tracks, w)?)
        })?;
    }
    let mut rep = Report::new(&cap, &format, from, to, ms, outcomes);
    rep.set_decoded_flags(&cap, &decoded);
    rep.chains = chained;
    let json_stdout = a.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let Some(p) = &a.json {
        crate::labels::write_json(p, &rep, &labels)?;
    }
    if !json_stdout {
        if reqs.is_empty() && rep.chains.is_empty() {
            print!("{}", rep.text());
            println!("\nchannels: {}", cap.channel_list());
            println!("(no measurement asked for: see --pulse, --latency, --chain, --period, --busy, --count, --spec)");
        } else {
            print!("{}", rep.text());
        }
        println!();
        crate::verdict::print(&latscope_results::Verdict::trace(&rep));
    }
    Ok(if rep.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
