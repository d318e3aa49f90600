use anyhow::Context;
use latscope_scenario::{Options, Outcome};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  latscope scenario list
  latscope scenario run kernelperf
  latscope scenario run freertos-tick -o out/tick --json out/tick.json
  latscope scenario run linux-wakeup --quick
  latscope scenario run k4perf --markdown k4perf.md

Each scenario reproduces one source document. A row's role says what it proves:
  input         a figure taken from the document (or calibrated on it)
  derived       arithmetic the document itself did on its figures, or a restatement of
                another row (a ratio of it, the same function called again)
  check         agreement with a figure that went into the model: consistency, not proof
  prediction    computed by latscope from inputs that exclude the figure it is compared
                with and anything derived from it; tolerance from the document's own
                resolution (`tolerance_reason` in --json)
  finding       a yes/no the model gives by construction: shown, never counted
  not compared  nothing to compare here (other hardware, no number): the reason is shown
`uses` (in --json) lists the published figures each value depends on. Only predictions
count. Exit status: 0 when every miss is explained, 1 on a miss without explanation;
with --strict, 1 on any miss.")]
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
    /// The README's scenario table (Markdown) from `scenario run --json` results
    Table(TableArgs),
}

#[derive(clap::Args)]
struct TableArgs {
    /// `scenario run --json` results, in the table's order
    #[arg(required = true, value_name = "JSON")]
    results: Vec<PathBuf>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// Scenario name (see `latscope scenario list`)
    name: String,
    /// Directory for the artifacts (captures, series, report.html); `--out`, the old
    /// spelling, is kept as a hidden alias for one release
    #[arg(long = "output", short = 'o', alias = "out", value_name = "DIR")]
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
    /// Exit 1 on any prediction outside its tolerance, explained or not (without it, only
    /// an unexplained miss exits 1)
    #[arg(long)]
    strict: bool,
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
        Action::Table(t) => {
            let mut outs = Vec::new();
            for p in &t.results {
                let text = std::fs::read_to_string(p)
                    .with_context(|| format!("cannot read {}", p.display()))?;
                let mut o: Outcome = serde_json::from_str(&text)
                    .with_context(|| format!("{}: not a scenario result", p.display()))?;
                o.finish();
                outs.push(o);
            }
            print!("{}", latscope_scenario::markdown::readme_table(&outs));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run_one(a: RunArgs) -> anyhow::Result<ExitCode> {
    let labels = a.labels.resolve()?;
    let json_stdout = a.json.as_ref().is_some_and(|j| j.as_os_str() == "-");
    let md_stdout = a.markdown.as_ref().is_some_and(|m| m.as_os_str() == "-");
    if json_stdout && md_stdout {
        anyhow::bail!("--json - and --markdown - cannot both use standard output");
    }
    // The artifact directory first: `--json out/x.json -o out/x` must work in a fresh
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
    let mut text = Vec::new();
    crate::labels::write_labeled(&mut text, &out, &labels)?;
    let text = String::from_utf8(text).context("the scenario's JSON is not UTF-8")?;
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
        crate::out::write(&p, "--output", &text)?;
        let r = dir.join("report.html");
        write_report(&text, &out.name, &r)?;
        eprintln!("report: {}", r.display());
    }
    Ok(ExitCode::from(out.exit_status(a.strict)))
}

fn print_table(out: &Outcome) {
    let color = crate::ui::color_stdout();
    print!(
        "{}",
        latscope_scenario::terminal::text(
            out,
            color,
            &latscope_results::Verdict::of_scenario(out).headline()
        )
    );
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
    crate::out::write(path, "--output", html)
}
