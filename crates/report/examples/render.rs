//! Renders result files without the CLI: `cargo run -p latscope-report --example render -- OUT.html IN...`
//! (`.md` output gives Markdown).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, ins) = args
        .split_first()
        .ok_or("usage: render OUT.(html|md) INPUT...")?;
    let mut inputs = Vec::new();
    for p in ins {
        inputs.push(latscope_report::Input::parse(
            p,
            &std::fs::read_to_string(p)?,
        )?);
    }
    let opts = latscope_report::Options::default();
    let text = if out.ends_with(".md") {
        latscope_report::render_markdown(&inputs, &opts)?
    } else {
        latscope_report::render_html(&inputs, &opts)?
    };
    std::fs::write(out, text)?;
    Ok(())
}
