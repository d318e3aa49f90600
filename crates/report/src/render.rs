//! HTML and Markdown rendering of the report's blocks.

use crate::blocks::{Block, Cell, Doc, Table};
use crate::data::Tone;
use crate::Options;
use std::fmt::Write;

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in crate::units::micro(s).chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn tone_class(t: Tone) -> &'static str {
    match t {
        Tone::Good => "good",
        Tone::Warn => "warn",
        Tone::Bad => "bad",
        Tone::Neutral => "neutral",
    }
}

/// The page script: zoom, pan, hover read-outs and the table ↔ chart crosshair.
const JS: &str = include_str!("page.js");

const CSS: &str = r#"
:root{--ink:#1f2328;--muted:#59636e;--line:#d8dee4;--soft:#f6f8fa;--accent:#2563eb;
--good:#166534;--good-bg:#dcfce7;--warn:#854d0e;--warn-bg:#fef3c7;--bad:#991b1b;--bad-bg:#fee2e2;
--neutral:#374151;--neutral-bg:#eef0f3}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;color:var(--ink);background:#fff;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
header.top{padding:22px 32px 16px;border-bottom:1px solid var(--line);background:linear-gradient(#fbfcfd,#fff)}
header.top h1{margin:0 0 4px;font-size:26px;letter-spacing:-.01em}
header.top .sub{color:var(--muted);font-size:14px}
header.top .sub code{background:var(--soft);padding:1px 5px;border-radius:4px}
.layout{display:flex;align-items:flex-start;max-width:1720px;margin:0 auto}
nav.toc{position:sticky;top:0;flex:0 0 230px;max-height:100vh;overflow:auto;padding:20px 12px 20px 24px;font-size:13.5px}
nav.toc a{display:block;color:var(--muted);text-decoration:none;padding:3px 8px;border-radius:6px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
nav.toc a:hover{background:var(--soft);color:var(--ink)}
nav.toc a.l2{color:var(--ink);font-weight:600;margin-top:8px}
nav.toc a.l3{padding-left:20px}
main{flex:1;min-width:0;padding:8px 32px 64px}
h2{font-size:21px;margin:36px 0 10px;padding-top:12px;border-top:1px solid var(--line);display:flex;gap:10px;align-items:center;flex-wrap:wrap}
h2:first-child{border-top:0}
h3{font-size:17px;margin:28px 0 8px}
h4{font-size:15px;margin:20px 0 6px}
.kind{font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.05em;color:var(--accent);background:#e8effd;border-radius:999px;padding:2px 9px}
.tbl{overflow-x:auto;margin:8px 0 16px}
table{border-collapse:collapse;font-size:13.5px;min-width:40%}
td:first-child{min-width:7em}
th,td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:12.5px;background:var(--soft);border-bottom:1px solid #c9d1d9;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover td{background:#fafbfc}
td strong{font-weight:600}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12.5px;font-weight:600;white-space:nowrap}
td .badge{white-space:normal;border-radius:10px}
.good{color:var(--good);background:var(--good-bg)}.warn{color:var(--warn);background:var(--warn-bg)}
.bad{color:var(--bad);background:var(--bad-bg)}.neutral{color:var(--neutral);background:var(--neutral-bg)}
div.answer{margin:4px 0 14px}div.answer p.worst{margin:2px 0 0;font-size:14px}
p.verdict{display:inline-block;margin:6px 0 10px;padding:6px 14px;border-radius:8px;font-weight:600;font-size:14px}
p.note{color:var(--muted);margin:6px 0 12px;max-width:80ch}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:2px 20px;margin:8px 0 14px;font-size:13.5px}
dl.facts div{display:flex;gap:8px;border-bottom:1px dotted var(--line);padding:3px 0;min-width:0}
dl.facts dt{color:var(--muted);white-space:nowrap}
dl.facts dd{margin:0 0 0 auto;font-variant-numeric:tabular-nums;text-align:right;overflow-wrap:anywhere}
figure.fig{margin:14px 0 22px;padding:14px 16px 10px;border:1px solid var(--line);border-radius:10px;max-width:820px;background:#fff}
figure.fig figcaption{margin-bottom:6px}
figure.fig figcaption strong{display:block;font-size:15px}
figure.fig figcaption span{color:var(--muted);font-size:13px}
figure.fig svg{display:block;width:100%;height:auto}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12.5px;color:var(--muted);margin-top:4px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;vertical-align:-1px}
footer{color:var(--muted);font-size:12.5px;padding:24px 0}
.plot{position:relative}
.plot svg.overlay{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
.readout{min-height:1.4em;font-size:12.5px;color:var(--ink);font-variant-numeric:tabular-nums;margin-top:2px}
.readout button{font:inherit;font-size:12px;margin-left:8px;padding:0 8px;border:1px solid var(--line);border-radius:6px;background:var(--soft);cursor:pointer}
figure.zoomable .plot{cursor:crosshair}
table.linked tbody tr[data-t]{cursor:pointer}
table.linked tbody tr.hit td{background:#fde8e8}
@media (max-width:900px){.layout{display:block}nav.toc{position:static;max-height:none;padding:8px 24px}main{padding:8px 18px 48px}}
@media print{nav.toc{display:none}figure.fig{break-inside:avoid}}
"#;

fn cell_html(c: &Cell, numeric: bool) -> String {
    let inner = esc(&c.text);
    let inner = match c.tone {
        Some(t) => format!("<span class=\"badge {}\">{inner}</span>", tone_class(t)),
        None if c.strong => format!("<strong>{inner}</strong>"),
        None => inner,
    };
    if c.num || numeric {
        format!("<td class=\"num\">{inner}</td>")
    } else {
        format!("<td>{inner}</td>")
    }
}

/// A column of numbers (badges among them, e.g. "unbounded" or a difference) is
/// right-aligned, header included.
fn numeric_column(t: &Table, i: usize) -> bool {
    t.rows.iter().any(|r| r.get(i).is_some_and(|c| c.num))
        && t.rows.iter().all(|r| {
            r.get(i)
                .is_some_and(|c| c.num || c.tone.is_some() || c.text.is_empty())
        })
}

fn table_html(t: &Table, link: Option<(&str, &[Option<f64>])>, out: &mut String) {
    match link {
        Some((id, _)) => {
            let _ = write!(
                out,
                "<div class=\"tbl\"><table class=\"linked\" data-link=\"{}\" title=\"Point at a row to mark its instant on the chart; click to zoom there\">\n<thead><tr>",
                esc(id)
            );
        }
        None => out.push_str("<div class=\"tbl\"><table>\n<thead><tr>"),
    }
    for (i, h) in t.headers.iter().enumerate() {
        // Right-align headers of numeric columns.
        let numeric = numeric_column(t, i);
        if numeric {
            let _ = write!(out, "<th style=\"text-align:right\">{}</th>", esc(h));
        } else {
            let _ = write!(out, "<th>{}</th>", esc(h));
        }
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (ri, r) in t.rows.iter().enumerate() {
        match link.and_then(|(_, times)| times.get(ri).copied().flatten()) {
            Some(at) => {
                let _ = write!(out, "<tr data-t=\"{at}\">");
            }
            None => out.push_str("<tr>"),
        }
        for (i, c) in r.iter().enumerate() {
            out.push_str(&cell_html(c, numeric_column(t, i)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// The whole page.
pub fn html(doc: &Doc, opts: &Options) -> String {
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| "latscope report".into());
    let mut body = String::new();
    let mut toc = String::new();
    let mut figures = 0usize;
    for (bi, b) in doc.blocks.iter().enumerate() {
        match b {
            Block::Heading {
                level,
                id,
                title,
                kind,
            } => {
                let lv = (*level).clamp(2, 5);
                let k = kind
                    .as_ref()
                    .filter(|k| !k.is_empty())
                    .map(|k| format!(" <span class=\"kind\">{}</span>", esc(k)))
                    .unwrap_or_default();
                let _ = writeln!(body, "<h{lv} id=\"{}\">{}{k}</h{lv}>", esc(id), esc(title));
                if lv <= 3 {
                    let _ = writeln!(
                        toc,
                        "<a class=\"l{lv}\" href=\"#{}\" title=\"{t}\">{t}</a>",
                        esc(id),
                        t = esc(title)
                    );
                }
            }
            Block::Table(t) => {
                let link = match doc.blocks.get(bi + 1) {
                    Some(Block::Link { id, times }) => Some((id.as_str(), times.as_slice())),
                    _ => None,
                };
                table_html(t, link, &mut body)
            }
            Block::Link { .. } => {}
            Block::Figure(f) => {
                figures += 1;
                let _ = write!(
                    body,
                    "<figure class=\"fig\" id=\"fig-{figures}\"><figcaption><strong>{}</strong><span>{}</span></figcaption>\n<div class=\"plot\">{}</div>",
                    esc(&f.title),
                    esc(&f.caption),
                    f.chart
                        .svg
                        .replacen("<svg ", &format!("<svg aria-label=\"{}\" ", esc(&f.title)), 1)
                );
                if !f.chart.legend.is_empty() {
                    body.push_str("<div class=\"legend\">");
                    for (name, color) in &f.chart.legend {
                        let _ = write!(
                            body,
                            "<span><i style=\"background:{}\"></i>{}</span>",
                            esc(color),
                            esc(name)
                        );
                    }
                    body.push_str("</div>");
                }
                body.push_str("<div class=\"readout\" aria-live=\"polite\"></div>");
                if let Some(d) = &f.chart.data {
                    // Inert data for the page script; "</" cannot close the element.
                    let _ = write!(
                        body,
                        "<script type=\"application/json\" class=\"chart-data\">{}</script>",
                        d.replace("</", "<\\/")
                    );
                }
                body.push_str("</figure>\n");
            }
            Block::Facts(f) => {
                body.push_str("<dl class=\"facts\">");
                for (k, v) in f {
                    let _ = write!(body, "<div><dt>{}</dt><dd>{}</dd></div>", esc(k), esc(v));
                }
                body.push_str("</dl>\n");
            }
            Block::Verdict(t, s) => {
                let _ = writeln!(
                    body,
                    "<p class=\"verdict {}\">{}</p>",
                    tone_class(*t),
                    esc(s)
                );
            }
            Block::Note(s) => {
                let _ = writeln!(body, "<p class=\"note\">{}</p>", esc(s));
            }
            Block::Answer(v) => {
                let tone = tone_class(crate::blocks::status_tone(v.status));
                let _ = write!(
                    body,
                    "<div class=\"answer\" data-status=\"{}\"><p class=\"verdict {tone}\" data-verdict>{}</p>",
                    esc(v.status.word()),
                    esc(&v.headline())
                );
                if let Some(w) = &v.worst {
                    let at = w
                        .at_ns
                        .map(|t| format!(" data-at=\"{t}\""))
                        .unwrap_or_default();
                    let _ = write!(
                        body,
                        "<p class=\"worst\" data-worst=\"{}\"{at}>{}</p>",
                        w.value_ns,
                        esc(&w.line())
                    );
                }
                body.push_str("</div>\n");
            }
        }
    }
    let inputs: Vec<String> = doc
        .inputs
        .iter()
        .map(|(n, k)| format!("<code>{}</code> ({})", esc(n), esc(k)))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta name=\"generator\" content=\"latscope {ver}\">\n<title>{t}</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
<header class=\"top\"><h1>{t}</h1><div class=\"sub\">Generated by latscope {ver} from {inputs}. \
Charts are inline SVG: the page needs no network. Drag across a time chart to zoom, shift+drag or the arrow keys to pan, double-click to reset; point at any chart for its values.</div></header>\n\
<div class=\"layout\">\n<nav class=\"toc\" aria-label=\"Contents\">\n{toc}</nav>\n<main>\n{body}\
<footer>latscope {ver} · self-contained report: nothing is fetched (no fonts, images or remote scripts); \
the small script below only adds zoom, pan and hover read-outs, and every chart is a static SVG without it.</footer>\n</main>\n</div>\n<script>{JS}</script>\n</body>\n</html>\n",
        t = esc(&title),
        ver = env!("CARGO_PKG_VERSION"),
        inputs = inputs.join(", "),
    )
}

/// The mark before a verdict in Markdown.
fn md_mark(t: Tone) -> &'static str {
    match t {
        Tone::Good => "✅",
        Tone::Warn => "⚠️",
        Tone::Bad => "❌",
        Tone::Neutral => "ℹ️",
    }
}

/// Escapes text for Markdown (GitHub-flavoured, where raw HTML is rendered): `<`, `>`
/// and `&` become entities so capture-controlled names cannot inject HTML into a CI
/// comment, `[`, `]` and `` ` `` are backslash-escaped so a name cannot become a link, an
/// image or a code span, `|` cannot split a table cell and a newline cannot end a table row.
fn md_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in crate::units::micro(s).chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '|' => o.push_str("\\|"),
            // No links or images (`![x](https://tracker/)`) and no code spans from input text.
            '[' => o.push_str("\\["),
            ']' => o.push_str("\\]"),
            '`' => o.push_str("\\`"),
            '\n' | '\r' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// Text for a Markdown code span: HTML is not interpreted inside one, so only a backtick
/// (which would close the span) and line breaks are replaced.
fn md_code(s: &str) -> String {
    crate::units::micro(s)
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

fn md_cell(c: &Cell) -> String {
    let t = md_escape(&c.text);
    match c.tone {
        Some(Tone::Good) => format!("✅ {t}"),
        Some(Tone::Warn) => format!("⚠️ {t}"),
        Some(Tone::Bad) => format!("❌ {t}"),
        Some(Tone::Neutral) => t,
        None if c.strong && !t.is_empty() => format!("**{t}**"),
        None => t,
    }
}

/// The most a Markdown summary may hold: a GitHub comment takes 65,536 characters.
pub const MARKDOWN_LIMIT: usize = 60_000;

/// Markdown summary: headings, verdicts and tables (no charts), cut to
/// [`MARKDOWN_LIMIT`] characters whatever is combined: whole sections are left out from the
/// end, and a closing note names them.
pub fn markdown(doc: &Doc, opts: &Options) -> String {
    let full = markdown_full(doc, opts);
    if full.chars().count() <= MARKDOWN_LIMIT {
        return full;
    }
    // Sections start at a level-2 or level-3 heading (or a folded result).
    let mut chunks: Vec<(String, String)> = Vec::new();
    let mut cur = String::new();
    let mut cur_title = String::new();
    let mut open_details = false;
    for line in full.split_inclusive('\n') {
        let starts = line.starts_with("## ")
            || line.starts_with("### ")
            || line.starts_with("<details><summary>");
        if starts && !cur.is_empty() {
            chunks.push((std::mem::take(&mut cur_title), std::mem::take(&mut cur)));
        }
        if starts {
            cur_title = line
                .trim_start_matches('#')
                .trim()
                .trim_start_matches("<details><summary>")
                .trim_end_matches("</summary>")
                .to_string();
        }
        if line.starts_with("<details>") {
            open_details = true;
        }
        if line.starts_with("</details>") {
            open_details = false;
        }
        cur.push_str(line);
    }
    let _ = open_details;
    chunks.push((cur_title, cur));
    let note_room = 2_000;
    let mut left_out: Vec<String> = Vec::new();
    while chunks.len() > 1
        && chunks.iter().map(|c| c.1.chars().count()).sum::<usize>() + note_room > MARKDOWN_LIMIT
    {
        if let Some((t, _)) = chunks.pop() {
            left_out.push(t);
        }
    }
    left_out.reverse();
    let mut out: String = chunks.into_iter().map(|c| c.1).collect();
    if out.chars().count() + note_room > MARKDOWN_LIMIT {
        // One section alone is too long: cut it at a line.
        let mut cut = String::new();
        for line in out.split_inclusive('\n') {
            if cut.chars().count() + line.chars().count() + note_room > MARKDOWN_LIMIT {
                break;
            }
            cut.push_str(line);
        }
        out = cut;
        left_out.insert(0, "the rest of the section above".into());
    }
    // Close a <details> the cut left open.
    if out.matches("<details>").count() > out.matches("</details>").count() {
        out.push_str("\n</details>\n");
    }
    let mut names: Vec<String> = left_out.iter().map(|t| md_escape(t)).collect();
    let total = names.len();
    let mut listed = String::new();
    while let Some(n) = names.first() {
        if listed.chars().count() + n.chars().count() > 1_200 {
            break;
        }
        if !listed.is_empty() {
            listed.push_str("; ");
        }
        listed.push_str(n);
        names.remove(0);
    }
    if !names.is_empty() {
        listed.push_str(&format!("; and {} more", names.len()));
    }
    let _ = writeln!(
        out,
        "\n---\n_Cut to fit a CI comment ({} characters at most): {total} section(s) left out: {listed}. The HTML report (`--format html`) has everything._",
        MARKDOWN_LIMIT
    );
    out
}

fn markdown_full(doc: &Doc, opts: &Options) -> String {
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| "latscope report".into());
    let mut o = format!("# {}\n\n", md_escape(&title));
    // Results embedded in a scenario fold away (GitHub renders <details>), keeping the
    // comment short: the published-vs-latscope table stays in view.
    let mut folded = false;
    for b in &doc.blocks {
        match b {
            Block::Heading {
                level, title, kind, ..
            } => {
                if folded && *level <= 3 {
                    o.push_str("</details>\n\n");
                    folded = false;
                }
                if *level == 3 && kind.is_some() {
                    let _ = writeln!(o, "<details><summary>{}</summary>\n", esc(title));
                    folded = true;
                    continue;
                }
                let k = kind
                    .as_ref()
                    .filter(|k| !k.is_empty())
                    .map(|k| format!(" ({})", md_escape(k)))
                    .unwrap_or_default();
                let _ = writeln!(
                    o,
                    "{} {}{k}\n",
                    "#".repeat((*level).clamp(2, 6) as usize),
                    md_escape(title)
                );
            }
            Block::Table(t) => {
                let _ = writeln!(
                    o,
                    "| {} |",
                    t.headers
                        .iter()
                        .map(|h| md_escape(h))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
                let aligns: Vec<&str> = (0..t.headers.len())
                    .map(|i| if numeric_column(t, i) { "---:" } else { "---" })
                    .collect();
                let _ = writeln!(o, "|{}|", aligns.join("|"));
                for r in &t.rows {
                    let _ = writeln!(
                        o,
                        "| {} |",
                        r.iter().map(md_cell).collect::<Vec<_>>().join(" | ")
                    );
                }
                o.push('\n');
            }
            Block::Facts(f) => {
                let line: Vec<String> = f
                    .iter()
                    .map(|(k, v)| format!("{}: `{}`", md_escape(k), md_code(v)))
                    .collect();
                let _ = writeln!(o, "{}\n", line.join(" · "));
            }
            Block::Verdict(t, s) => {
                let _ = writeln!(o, "{} **{}**\n", md_mark(*t), md_escape(s));
            }
            Block::Note(s) => {
                let _ = writeln!(o, "_{}_\n", md_escape(s));
            }
            Block::Answer(v) => {
                let _ = writeln!(
                    o,
                    "{} **{}**\n",
                    md_mark(crate::blocks::status_tone(v.status)),
                    md_escape(&v.headline())
                );
                if let Some(w) = &v.worst {
                    let _ = writeln!(o, "{}\n", md_escape(&w.line()));
                }
            }
            Block::Figure(_) | Block::Link { .. } => {}
        }
    }
    if folded {
        o.push_str("</details>\n");
    }
    o
}
