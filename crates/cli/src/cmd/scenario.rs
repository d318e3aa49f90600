use anyhow::Context;
use latscope_scenario::{Options, Outcome, Role};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope scenario list
  latscope scenario run kernelperf
  latscope scenario run freertos-tick --out out/tick --json out/tick.json
  latscope scenario run linux-wakeup --quick
  latscope scenario run k4perf --markdown k4perf.md

Each scenario reproduces one source document. A row's role says what it proves:
  input       a figure taken from the document (or calibrated on it)
  derived     arithmetic the document itself did on its figures (a sum, a conversion)
  check       agreement with a figure that went into the model: consistency, not proof
  prediction  computed from inputs that do not depend on the figure it is compared with
`uses` (in --json) lists the published figures each value depends on. Only predictions
count as reproduced. A prediction latscope cannot make here (other hardware, a missing
cpufreq driver) shows why instead of a verdict. Exit status 1 when a prediction falls
outside its tolerance, explained or not.")]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// List the bundled scenarios
    List,
    /// Run one scenario and print its "published vs latscope" table
    Run(RunArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// Scenario name (see `latscope scenario list`)
    name: String,
    /// Directory for the artifacts (captures, series, report.html)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the scenario result as JSON (`rows`, `results`, …) to this file (`-`: standard
    /// output, and the table is not printed)
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the table, the explanations and the notes as Markdown to this file (`-`:
    /// standard output); the scenario READMEs embed this block
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Scaled-down run for tests and CI (shorter simulations and measurements)
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    labels: crate::labels::LabelArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::List => {
            println!("{:<26} TITLE", "NAME");
            for i in latscope_scenario::list() {
                let live = if i.live {
                    " (live: measures this machine)"
                } else {
                    ""
                };
                println!("{:<26} {}{live}", i.name, i.title);
                println!("{:<26} source: {}", "", i.document.cite());
                println!("{:<26} {}", "", i.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Run(a) => run_one(a),
    }
}

fn run_one(a: RunArgs) -> anyhow::Result<ExitCode> {
    let labels = a.labels.resolve()?;
    let json_stdout = a.json.as_ref().is_some_and(|j| j.as_os_str() == "-");
    let md_stdout = a.markdown.as_ref().is_some_and(|m| m.as_os_str() == "-");
    if json_stdout && md_stdout {
        anyhow::bail!("--json - and --markdown - cannot both use standard output");
    }
    // The artifact directory first: `--json out/x.json --out out/x` must work in a fresh
    // directory.
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    if let Some(j) = a.json.as_ref().filter(|_| !json_stdout) {
        if let Some(parent) = j.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        super::check_writable(j)?;
    }
    if let Some(m) = a.markdown.as_ref().filter(|_| !md_stdout) {
        if let Some(parent) = m.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        super::check_writable(m)?;
    }
    let opts = Options {
        quick: a.quick,
        out_dir: a.out.clone(),
    };
    if let Some(info) = latscope_scenario::list().iter().find(|i| i.name == a.name) {
        if info.live && std::io::stderr().is_terminal() {
            eprintln!(
                "{}: measuring live on this machine ({}) …",
                info.name,
                if a.quick { "about 10 s" } else { "about 45 s" }
            );
        }
    }
    let out = latscope_scenario::run(&a.name, &opts)?;
    if !json_stdout && !md_stdout {
        print_table(&out);
    }
    if let Some(m) = &a.markdown {
        let cmd = format!(
            "latscope scenario run {}{}",
            out.name,
            if a.quick { " --quick" } else { "" }
        );
        let md = latscope_scenario::markdown::block(&out, &cmd);
        if md_stdout {
            use std::io::Write as _;
            std::io::stdout()
                .lock()
                .write_all(md.as_bytes())
                .context("cannot write the Markdown to standard output")?;
        } else {
            crate::out::write(m, "--markdown", md)?;
        }
    }
    let mut value = serde_json::to_value(&out)?;
    crate::labels::insert(&mut value, &labels)?;
    let text = serde_json::to_string_pretty(&value)? + "\n";
    if json_stdout {
        use std::io::Write as _;
        std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .context("cannot write the JSON to standard output")?;
    } else if let Some(j) = &a.json {
        crate::out::write(j, "--json", &text)?;
    }
    if let Some(dir) = &a.out {
        let p = dir.join("scenario.json");
        crate::out::write(&p, "--out", &text)?;
        let r = dir.join("report.html");
        write_report(&text, &out.name, &r)?;
        eprintln!("report: {}", r.display());
    }
    let failed = out
        .rows
        .iter()
        .any(|r| r.role == Role::Prediction && r.within == Some(false));
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_table(out: &Outcome) {
    let color = crate::ui::color_stdout();
    let paint = |s: &str, code: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    println!("{} — {}", out.name, out.title);
    println!("source: {}", out.source);
    let w = out
        .rows
        .iter()
        .map(|r| r.figure.len())
        .max()
        .unwrap_or(10)
        .min(64);
    println!(
        "{:<w$}  {:>11}  {:>11}  {:<5}  {:<10}  {:>7}  verdict",
        "figure", "published", "latscope", "unit", "role", "dev"
    );
    for r in &out.rows {
        let dev = r
            .deviation
            .map(|d| format!("{:+.1}%", d * 100.0))
            .unwrap_or_else(|| "-".into());
        let verdict = match (r.role, r.within) {
            (Role::Prediction, Some(true)) => paint("within", "32"),
            (Role::Prediction, Some(false)) if r.explanation.is_some() => {
                paint("OUTSIDE (explained)", "31;1")
            }
            (Role::Prediction, Some(false)) => paint("OUTSIDE", "31;1"),
            (Role::Prediction, None) => paint("not compared", "33"),
            (role, _) => paint(role.as_str(), "2"),
        };
        let tol = match (r.tolerance, r.tolerance_abs) {
            (Some(t), _) => format!(" (±{:.0}%)", t * 100.0),
            (_, Some(t)) => format!(" (±{} {})", fmt_num(t), r.unit),
            _ => String::new(),
        };
        let fig: String = r.figure.chars().take(w).collect();
        println!(
            "{:<w$}  {:>11}  {:>11}  {:<5}  {:<10}  {:>7}  {verdict}{tol}",
            fig,
            fmt_num(r.published),
            fmt_num(r.latscope),
            r.unit,
            r.role.as_str(),
            dev
        );
    }
    let t = &out.summary;
    println!(
        "predictions within tolerance: {}/{}; outside: {}; not compared here: {} ({} inputs, {} derived, {} checks shown, not counted)",
        t.within, t.predictions, t.outside, t.not_reproduced, t.inputs, t.derived, t.checks
    );
    // Each explanation once, with the rows it explains.
    let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in &out.rows {
        if let Some(e) = r.explanation.as_deref() {
            match why.iter_mut().find(|(t, _)| *t == e) {
                Some((_, figs)) => figs.push(&r.figure),
                None => why.push((e, vec![&r.figure])),
            }
        }
    }
    for (e, figs) in why {
        println!("why ({}): {e}", figs.join("; "));
    }
    for n in &out.notes {
        println!("note: {n}");
    }
}

fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    if v == v.trunc() && v.abs() < 1e9 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// The scenario's HTML report next to its artifacts.
fn write_report(json: &str, name: &str, path: &std::path::Path) -> anyhow::Result<()> {
    let mut input = latscope_report::Input::parse(&format!("{name}.json"), json)?;
    super::report::attach_artifacts(&mut input, path.parent());
    let html = latscope_report::render_html(
        &[input],
        &latscope_report::Options {
            title: Some(format!("latscope scenario {name}")),
        },
    )
    .with_context(|| format!("building the report of scenario {name}"))?;
    crate::out::write(path, "--out", html)
}
