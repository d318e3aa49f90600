//! `--shard K/N`: the K-th of N contiguous blocks of the sweep's fixed enumeration of work
//! items, so shards 1..N written one after the other are the whole sweep in order.

use super::SweepError;
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Parses `K/N` with 1 <= K <= N; the error names the flag (`--shard`) for callers outside clap.
    pub fn parse(text: &str) -> Result<Shard, SweepError> {
        text.parse().map_err(|e| match e {
            SweepError::Invalid(m) => SweepError::Invalid(format!("--shard {text:?}: {m}")),
            e => e,
        })
    }

    /// The work items of this shard out of `total`: `[(K-1)·total/N, K·total/N)`.
    pub fn items(&self, total: usize) -> Range<usize> {
        let at = |k: u64| (total as u128 * k as u128 / self.count as u128) as usize;
        at(self.index - 1)..at(self.index)
    }

    pub fn is_first(&self) -> bool {
        self.index == 1
    }
}

/// The value of `--shard` (clap's `value_parser` and Python read it through this).
impl std::str::FromStr for Shard {
    type Err = SweepError;
    fn from_str(text: &str) -> Result<Shard, SweepError> {
        let bad = |why: &str| {
            SweepError::Invalid(format!("{why} (expected K/N with 1 <= K <= N, e.g. 3/8)"))
        };
        let (k, n) = text.split_once('/').ok_or_else(|| bad("no '/'"))?;
        let k: u64 = k
            .trim()
            .parse()
            .map_err(|_| bad(&format!("{:?} is not a whole number", k.trim())))?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| bad(&format!("{:?} is not a whole number", n.trim())))?;
        if n == 0 {
            return Err(bad("N must be at least 1"));
        }
        if k == 0 || k > n {
            return Err(bad(&format!("K must be between 1 and {n}")));
        }
        Ok(Shard { index: k, count: n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_the_items_in_order() {
        for total in [0usize, 1, 5, 17, 1000] {
            for n in 1..=7u64 {
                let mut next = 0;
                for k in 1..=n {
                    let r = Shard { index: k, count: n }.items(total);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn bad_shards_say_why() {
        for (t, why) in [
            ("3", "no '/'"),
            ("0/4", "between 1 and 4"),
            ("5/4", "between 1 and 4"),
            ("1/0", "at least 1"),
            ("a/4", "\"a\" is not"),
            ("-1/4", "\"-1\" is not"),
        ] {
            let e = Shard::parse(t).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("--shard"), "{t}: {e}");
        }
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
    }
}
