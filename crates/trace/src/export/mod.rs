//! Exporters: VCD, latscope's native capture format, Perfetto (Chrome trace-event JSON).

pub mod native;
pub mod perfetto;
pub mod vcd;
mod vcd_body;
mod vcd_out;

use std::path::Path;

/// Output formats of `latscope convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    Vcd,
    Native,
    Perfetto,
}

impl OutFormat {
    pub fn parse(s: &str) -> Option<OutFormat> {
        match s.to_ascii_lowercase().as_str() {
            "vcd" => Some(OutFormat::Vcd),
            "native" | "lscap" | "latscope" => Some(OutFormat::Native),
            "perfetto" | "json" | "chrome" => Some(OutFormat::Perfetto),
            _ => None,
        }
    }
    /// From the output file's extension (.vcd, .lscap, .json).
    pub fn from_path(p: &Path) -> Option<OutFormat> {
        let ext = p.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "vcd" => Some(OutFormat::Vcd),
            "lscap" => Some(OutFormat::Native),
            "json" => Some(OutFormat::Perfetto),
            _ => None,
        }
    }
}

/// An output format name that `convert` does not write.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown output format (vcd, native, perfetto)")]
pub struct UnknownOutFormat;

/// An output format by name or alias (`vcd`, `native`/`lscap`, `perfetto`/`json`), as
/// `convert --format` takes it.
impl std::str::FromStr for OutFormat {
    type Err = UnknownOutFormat;
    fn from_str(s: &str) -> Result<OutFormat, UnknownOutFormat> {
        OutFormat::parse(s).ok_or(UnknownOutFormat)
    }
}

/// Picoseconds as an exact decimal string in the unit `10^-digits` of ps per unit
/// (`digits` = 6 gives microseconds with 6 decimals).
pub(crate) fn ps_decimal(ps: i64, digits: u32) -> String {
    let div = 10i128.pow(digits);
    let v = ps as i128;
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    let whole = a / div as u128;
    let frac = a % div as u128;
    if frac == 0 {
        return format!("{sign}{whole}");
    }
    let mut f = format!("{:0width$}", frac, width = digits as usize);
    while f.ends_with('0') {
        f.pop();
    }
    format!("{sign}{whole}.{f}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals() {
        assert_eq!(super::ps_decimal(1_500_000, 6), "1.5");
        assert_eq!(super::ps_decimal(2_000_000, 6), "2");
        assert_eq!(super::ps_decimal(-1, 6), "-0.000001");
        assert_eq!(super::ps_decimal(123, 6), "0.000123");
    }
}
