//! Samples from a CSV file with a header row (one format: CSV).

use super::values::{parse_count, parse_sample_duration, MAX_COUNT};
use super::{switch_levels, Sample};

/// How the x value of a row is obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XColumn {
    /// A count column (released count, queue position, levels scanned).
    Count(String),
    /// Levels scanned from a from-priority and a to-priority column
    /// ([`super::switch_levels`]).
    Priorities { from: String, to: String },
    /// No x (a constant model): every sample has x = 0.
    None,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CsvError {
    #[error("{file}: the CSV is empty (a header row naming the columns is needed)")]
    Empty { file: String },
    #[error("{file}: no data rows after the header (line {header_line})")]
    NoRows { file: String, header_line: usize },
    #[error(
        "{file} is a `latscope trace` JSON result, not a CSV: give each such result as \
         --trace X=FILE with the x it was measured at (one sample per file)"
    )]
    TraceJson { file: String },
    #[error("{file} is JSON, not a CSV with a header row (`latscope trace --json` results go to --trace X=FILE)")]
    Json { file: String },
    #[error("{file}: {message}")]
    Encoding { file: String, message: String },
    #[error(
        "--unit cycles: converting cycles to time needs the CPU clock; give --cpu-hz \
         (e.g. --cpu-hz 84MHz), or --write a system file whose platform.cpu_hz is then used"
    )]
    CyclesWithoutClock,
    #[error("--unit {unit}: not a unit of time (use ps, ns, us, ms, s, or cycles with --cpu-hz)")]
    BadUnit { unit: String },
    #[error("{file}: no column `{want}` (columns: {have})")]
    NoColumn {
        file: String,
        want: String,
        have: String,
    },
    #[error("{file}:{line}: column `{column}`: {message}")]
    Cell {
        file: String,
        line: usize,
        column: String,
        message: String,
    },
}

fn find_col(header: &[String], want: &str, file: &str) -> Result<usize, CsvError> {
    if let Some(i) = want.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()) {
        if i < header.len() {
            return Ok(i);
        }
    }
    header
        .iter()
        .position(|h| h.eq_ignore_ascii_case(want))
        .ok_or_else(|| CsvError::NoColumn {
            file: file.to_string(),
            want: want.to_string(),
            have: header.join(", "),
        })
}

/// The text of a CSV file's bytes: UTF-8 (with or without a byte-order mark). UTF-16
/// (Excel's "Unicode Text") and other encodings are errors saying where and what to do.
pub fn csv_text(bytes: Vec<u8>, file: &str) -> Result<String, CsvError> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(CsvError::Encoding {
            file: file.to_string(),
            message: "the file is UTF-16 text; save it as CSV in UTF-8".into(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let col = at
            - bytes[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        CsvError::Encoding {
            file: file.to_string(),
            message: format!(
                "line {line}, byte {col}: 0x{:02x} is not UTF-8; save the file as UTF-8",
                bytes[at]
            ),
        }
    })
}

/// Reads samples from CSV text (through the `csv` crate) with a header row. Separators `,`, `;` or tab (detected
/// from the header); a UTF-8 byte-order mark and CRLF line ends are accepted. x cells are
/// counts ([`parse_count`]): whole numbers >= 0 (`3` or `3.0`). y cells are durations
/// ([`parse_sample_duration`]) with a unit (`5.9us`), or bare numbers in `default_unit`
/// (e.g. `"ns"`; `None`: a unit is required). Empty lines and lines starting with `#`
/// are skipped. Errors name the file, the line (1-based) and the column.
pub fn samples_from_csv(
    text: &str,
    file: &str,
    x: &XColumn,
    y: &str,
    default_unit: Option<&str>,
    cpu_hz: Option<u64>,
) -> Result<Vec<Sample>, CsvError> {
    check_unit(default_unit, cpu_hz)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    refuse_json(text, file)?;
    let (head_ln, head) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .ok_or_else(|| CsvError::Empty {
            file: file.to_string(),
        })?;
    let sep = [b',', b';', b'\t']
        .into_iter()
        .max_by_key(|c| head.matches(char::from(*c)).count())
        .unwrap_or(b',');
    let mut rows = records(text, sep);
    let read_err = |e: ::csv::Error| CsvError::Encoding {
        file: file.to_string(),
        message: e.to_string(),
    };
    let header: Vec<String> = match rows.next() {
        Some(r) => r.map_err(read_err)?.iter().map(str::to_string).collect(),
        None => {
            return Err(CsvError::Empty {
                file: file.to_string(),
            })
        }
    };
    let cols = Columns::find(header, x, y, file)?;
    let mut out = Vec::new();
    let mut lines = latscope_core::textpos::LineCounter::new();
    for row in rows {
        let cells = row.map_err(read_err)?;
        let ln = cells
            .position()
            .map_or(0, |p| lines.record_line(text, p.byte(), true) - 1);
        out.push(cols.sample(&cells, ln + 1, file, default_unit, cpu_hz)?);
    }
    if out.is_empty() {
        return Err(CsvError::NoRows {
            file: file.to_string(),
            header_line: head_ln + 1,
        });
    }
    Ok(out)
}

/// A unit for bare numbers must be a unit of time, or cycles with the clock given.
fn check_unit(default_unit: Option<&str>, cpu_hz: Option<u64>) -> Result<(), CsvError> {
    let Some(u) = default_unit else {
        return Ok(());
    };
    if matches!(u.trim(), "cycles" | "cycle" | "cyc") && cpu_hz.is_none() {
        return Err(CsvError::CyclesWithoutClock);
    }
    let ok = !u.trim().is_empty()
        && (matches!(u.trim(), "cycles" | "cycle" | "cyc")
            || latscope_core::time::parse_duration(&format!("1{}", u.trim())).is_ok());
    if !ok {
        return Err(CsvError::BadUnit {
            unit: u.to_string(),
        });
    }
    Ok(())
}

/// JSON is refused with what to do instead (a `latscope trace` result goes to
/// `--trace`), rather than failing on a missing column.
fn refuse_json(text: &str, file: &str) -> Result<(), CsvError> {
    let start = text.trim_start();
    if !(start.starts_with('{') || start.starts_with('[')) {
        return Ok(());
    }
    let is_trace = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .is_some_and(|v| v.get("kind").and_then(|k| k.as_str()) == Some("trace"));
    Err(if is_trace {
        CsvError::TraceJson {
            file: file.to_string(),
        }
    } else {
        CsvError::Json {
            file: file.to_string(),
        }
    })
}

/// The records of `text` separated by `sep`, blank and comment rows left out. Rows may
/// differ in length (a short row is "missing value" in the cell it lacks); a row whose
/// first cell starts with `#` is a comment wherever the `#` stands.
fn records(
    text: &str,
    sep: u8,
) -> impl Iterator<Item = Result<::csv::StringRecord, ::csv::Error>> + '_ {
    ::csv::ReaderBuilder::new()
        .delimiter(sep)
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(::csv::Trim::All)
        .from_reader(text.as_bytes())
        .into_records()
        .filter(|r| match r {
            Ok(r) => !r.iter().all(str::is_empty) && !r.get(0).is_some_and(|c| c.starts_with('#')),
            Err(_) => true,
        })
}

/// The header and where x and y are read.
struct Columns {
    header: Vec<String>,
    /// The count column, or the from- and to-priority columns; `None`: x = 0.
    x: Option<(usize, Option<usize>)>,
    y: usize,
}

impl Columns {
    fn find(header: Vec<String>, x: &XColumn, y: &str, file: &str) -> Result<Columns, CsvError> {
        let yc = find_col(&header, y, file)?;
        let xc: Option<(usize, Option<usize>)> = match x {
            XColumn::Count(c) => Some((find_col(&header, c, file)?, None)),
            XColumn::Priorities { from, to } => Some((
                find_col(&header, from, file)?,
                Some(find_col(&header, to, file)?),
            )),
            XColumn::None => None,
        };
        Ok(Columns {
            header,
            x: xc,
            y: yc,
        })
    }

    /// The sample of the row `cells` on line `line` (1-based).
    fn sample(
        &self,
        cells: &::csv::StringRecord,
        line: usize,
        file: &str,
        default_unit: Option<&str>,
        cpu_hz: Option<u64>,
    ) -> Result<Sample, CsvError> {
        let bad = |i: usize, m: String| CsvError::Cell {
            file: file.to_string(),
            line,
            column: self.header[i].clone(),
            message: m,
        };
        let cell = |i: usize| -> Result<&str, CsvError> {
            cells
                .get(i)
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .ok_or_else(|| bad(i, "missing value".into()))
        };
        let count = |i: usize, max: u64| -> Result<u64, CsvError> {
            parse_count(cell(i)?, max).map_err(|e| bad(i, e.to_string()))
        };
        let xv = match self.x {
            None => 0.0,
            Some((i, None)) => count(i, MAX_COUNT)? as f64,
            Some((f, Some(t))) => {
                let max = u64::from(u32::MAX);
                let (a, b) = (count(f, max)?, count(t, max)?);
                // Both are at most u32::MAX (checked above).
                switch_levels(a as u32, b as u32)
            }
        };
        let yv = parse_sample_duration(cell(self.y)?, default_unit, cpu_hz)
            .map_err(|e| bad(self.y, e.to_string()))?;
        Ok(Sample {
            x: xv,
            y_ns: yv,
            row: line,
        })
    }
}

#[cfg(test)]
mod csv_tests {
    use super::*;

    #[test]
    fn reads_counts_and_priorities() {
        let text = "released,tick\n0,1.5us\n10, 60.75us\n# comment\n\n1,7407ns\n";
        let s = samples_from_csv(
            text,
            "t.csv",
            &XColumn::Count("released".into()),
            "tick",
            None,
            None,
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].y_ns, 60750.0);
        assert_eq!(s[2].row, 6);
        let text = "from;to;us\n6;0;4.375\n0;6;1.5\n";
        let s = samples_from_csv(
            text,
            "s.csv",
            &XColumn::Priorities {
                from: "from".into(),
                to: "to".into(),
            },
            "us",
            Some("us"),
            None,
        )
        .unwrap();
        assert_eq!((s[0].x, s[0].y_ns), (6.0, 4375.0));
        assert_eq!(s[1].x, 1.0);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = samples_from_csv(
            "a,b\n1,2\n",
            "t.csv",
            &XColumn::Count("a".into()),
            "b",
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("t.csv:2: column `b`") && e.contains("no unit"),
            "{e}"
        );
        let e = samples_from_csv(
            "a,b\n1,2us\n",
            "t.csv",
            &XColumn::Count("x".into()),
            "b",
            None,
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no column `x`"), "{e}");
    }
}
