//! How a refused flag value is worded: `--interval '-1ms': must be greater than zero`.
//! The command line (clap's `value_parser` over a library `FromStr`) and the Python
//! binding (the same `FromStr` on a keyword) both word it through [`refusal`], so the
//! two front ends refuse the same text in the same line.

/// The one-line refusal of `value` given to `flag` for the reason `why` (a `FromStr`
/// error). A reason that already names the flag (`--pulse 'x': …`) stands as it is, so
/// the text is the same whether the value was parsed by clap or later.
pub fn refusal(flag: &str, value: &str, why: &str) -> String {
    if why.starts_with(flag) {
        why.to_string()
    } else {
        format!("{flag} '{value}': {why}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_flag_and_value_once() {
        assert_eq!(
            refusal("--interval", "-1ms", "must be greater than zero"),
            "--interval '-1ms': must be greater than zero"
        );
        assert_eq!(
            refusal("--pulse", "x:y", "--pulse 'x:y': unknown level"),
            "--pulse 'x:y': unknown level"
        );
    }
}
