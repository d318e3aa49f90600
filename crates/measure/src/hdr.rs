//! Latency histograms in HdrHistogram's standard serialised form, base64 in the JSON
//! result's `hdr` keys, so that results from many runs and hosts merge exactly.
//!
//! Written as the *compressed* V2 envelope (cookie `0x1c849314`, length, zlib stream of
//! the V2 encoding): that is what the HdrHistogram libraries' base64 helpers expect
//! (Python `hdrh`'s `HdrHistogram.decode`, Java's `decodeFromCompressedByteBuffer`,
//! Go's `hdrhistogram.Decode`). Results written before this by latscope hold the plain
//! V2 encoding; both are read.
//!
//! Decoding checks the header before anything is allocated: only histograms with the
//! bounds of [`Histogram::for_latency_ns`] (1 ns to 10 s, 3 significant digits) are
//! accepted, the inflated size is capped, and the declared payload must be as long as
//! the data given, so a hostile or truncated string is an error, never a large
//! allocation.

use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use latscope_core::stats::Histogram;
use std::io::Read as _;

/// V2 cookie (uncompressed), as every HdrHistogram implementation writes it.
const V2_COOKIE: u32 = 0x1c84_9313;
/// Compressed V2 cookie: 8 bytes (cookie, zlib length) then a zlib stream of a V2 encoding.
const V2_DEFLATE_COOKIE: u32 = 0x1c84_9314;
/// Largest inflated V2 encoding accepted: a 1 ns..10 s histogram at 3 digits has about
/// 24,000 buckets of at most 9 LEB128 bytes each.
const MAX_INFLATED: u64 = 1 << 20;
/// Bytes of the V2 header: cookie, payload length, normalising offset, significant
/// digits, lowest and highest trackable values, integer-to-double ratio.
const V2_HEADER: usize = 40;
/// Longest `hdr` string accepted (a full 1 ns..10 s histogram with every bucket used
/// encodes to well under this).
pub const MAX_ENCODED: usize = 4 << 20;

/// The histogram's counts, compressed-V2-encoded and base64 (standard alphabet, padded).
pub fn encode(h: &Histogram) -> String {
    let mut buf = Vec::new();
    // Serialising into a Vec cannot fail for a histogram that exists.
    match V2DeflateSerializer::new().serialize(h.hdr(), &mut buf) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(buf),
        Err(_) => String::new(),
    }
}

fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(a)
}

/// Why an `hdr` string is not a latscope latency histogram.
#[derive(Debug, thiserror::Error)]
pub enum HdrError {
    #[error("hdr: {0} characters, more than the {MAX_ENCODED} a latency histogram can need")]
    TooLong(usize),
    #[error("hdr: not base64: {0}")]
    NotBase64(#[from] base64::DecodeError),
    #[error("hdr: {0} bytes, shorter than an HdrHistogram V2 header")]
    Short(usize),
    #[error("hdr: not an uncompressed HdrHistogram V2 encoding (wrong cookie)")]
    WrongCookie,
    #[error("hdr: header declares {declared} payload bytes, {present} present")]
    PayloadLength { declared: usize, present: usize },
    #[error(
        "hdr: bounds {low}..{high} ns at {digits} digits, expected a latscope latency \
         histogram ({want_low}..{want_high} ns at {want_digits} digits)"
    )]
    Bounds {
        low: u64,
        high: u64,
        digits: u32,
        want_low: u64,
        want_high: u64,
        want_digits: u8,
    },
    #[error("hdr: cannot decode: {0}")]
    Decode(String),
    #[error("hdr: {0}")]
    Merge(#[from] latscope_core::stats::MergeError),
    #[error("hdr: compressed envelope declares {declared} bytes, {present} present")]
    EnvelopeLength { declared: usize, present: usize },
    #[error("hdr: compressed envelope does not inflate: {0}")]
    Inflate(std::io::Error),
    #[error("hdr: compressed envelope inflates past {MAX_INFLATED} bytes, more than a latency histogram can need")]
    Bomb,
}

/// Decodes an `hdr` string into a latency histogram (with the given out-of-range
/// counts, which travel in their own JSON keys). The error says what is wrong.
pub fn decode(text: &str, overflow: u64, underflow: u64) -> Result<Histogram, HdrError> {
    if text.len() > MAX_ENCODED {
        return Err(HdrError::TooLong(text.len()));
    }
    let raw = base64::engine::general_purpose::STANDARD.decode(text.trim())?;
    let bytes = inflate_envelope(raw)?;
    if bytes.len() < V2_HEADER {
        return Err(HdrError::Short(bytes.len()));
    }
    if be_u32(&bytes, 0) != V2_COOKIE {
        return Err(HdrError::WrongCookie);
    }
    let payload = be_u32(&bytes, 4) as usize;
    if payload != bytes.len() - V2_HEADER {
        return Err(HdrError::PayloadLength {
            declared: payload,
            present: bytes.len() - V2_HEADER,
        });
    }
    let want = Histogram::for_latency_ns();
    let (digits, low, high) = (be_u32(&bytes, 12), be_u64(&bytes, 16), be_u64(&bytes, 24));
    let w = want.hdr();
    if digits != w.sigfig() as u32 || low != w.low() || high != w.high() {
        return Err(HdrError::Bounds {
            low,
            high,
            digits,
            want_low: w.low(),
            want_high: w.high(),
            want_digits: w.sigfig(),
        });
    }
    let h: hdrhistogram::Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| HdrError::Decode(format!("{e:?}")))?;
    let mut out = want;
    out.add_hdr(&h, overflow, underflow)?;
    Ok(out)
}

/// The plain V2 encoding inside a compressed envelope, or the bytes as they are when
/// they are not one (results written by earlier latscope versions).
fn inflate_envelope(raw: Vec<u8>) -> Result<Vec<u8>, HdrError> {
    if raw.len() < 8 || be_u32(&raw, 0) != V2_DEFLATE_COOKIE {
        return Ok(raw);
    }
    let declared = be_u32(&raw, 4) as usize;
    if declared != raw.len() - 8 {
        return Err(HdrError::EnvelopeLength {
            declared,
            present: raw.len() - 8,
        });
    }
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(&raw[8..])
        .take(MAX_INFLATED + 1)
        .read_to_end(&mut out)
        .map_err(HdrError::Inflate)?;
    if out.len() as u64 > MAX_INFLATED {
        return Err(HdrError::Bomb);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Histogram {
        let mut h = Histogram::for_latency_ns();
        for v in [0i64, 1, 999, 2048, 55_555, 1_000_000, 9_999_999_999] {
            h.record(v);
        }
        h.record_n(3_000, 1000);
        h.record(-5);
        h.record(20_000_000_000);
        h
    }

    #[test]
    fn round_trip_is_exact() {
        let h = sample();
        let s = encode(&h);
        assert!(
            s.starts_with("HISTFA"),
            "compressed V2 cookie in base64: {s}"
        );
        let d = decode(&s, h.overflow(), h.underflow()).unwrap();
        assert_eq!(d.buckets(), h.buckets());
        assert_eq!(d.count(), h.count());
        assert_eq!((d.overflow(), d.underflow()), (1, 1));
        for p in [50.0, 90.0, 99.0, 99.9, 100.0] {
            assert_eq!(d.percentile(p), h.percentile(p), "p{p}");
        }
        assert_eq!(encode(&d), s, "re-encoding is stable");
    }

    /// The uncompressed V2 bytes, as latscope wrote them before the compressed envelope.
    fn plain_v2(h: &Histogram) -> Vec<u8> {
        let mut buf = Vec::new();
        hdrhistogram::serialization::V2Serializer::new()
            .serialize(h.hdr(), &mut buf)
            .unwrap();
        buf
    }

    #[test]
    fn results_written_before_the_envelope_still_decode() {
        let h = sample();
        let old = base64::engine::general_purpose::STANDARD.encode(plain_v2(&h));
        assert!(old.starts_with("HISTEw"));
        let d = decode(&old, h.overflow(), h.underflow()).unwrap();
        assert_eq!(d.buckets(), h.buckets());
        assert_eq!(encode(&d), encode(&h), "re-encoded in the compressed form");
    }

    #[test]
    fn a_hostile_envelope_is_an_error() {
        let b64 = |v: &[u8]| base64::engine::general_purpose::STANDARD.encode(v);
        let e = |v: &[u8]| decode(&b64(v), 0, 0).unwrap_err().to_string();
        // Zlib of 8 MB of zeros: inflates past the cap.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut z, &vec![0u8; 8 << 20]).unwrap();
        let bomb = z.finish().unwrap();
        let mut env = V2_DEFLATE_COOKIE.to_be_bytes().to_vec();
        env.extend_from_slice(&(bomb.len() as u32).to_be_bytes());
        env.extend_from_slice(&bomb);
        assert!(e(&env).contains("inflates past"), "{}", e(&env));
        // Declared length past the end, and a stream that is not zlib.
        let mut long = env.clone();
        long[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(e(&long).contains("declares"));
        let mut junk = V2_DEFLATE_COOKIE.to_be_bytes().to_vec();
        junk.extend_from_slice(&4u32.to_be_bytes());
        junk.extend_from_slice(&[1, 2, 3, 4]);
        assert!(e(&junk).contains("does not inflate"));
    }

    #[test]
    fn a_known_encoding_decodes_to_its_counts() {
        // Built by hand: V2 header for 1..10^10 at 3 digits, payload zig-zag LEB128:
        // -1000 zeros (skip), then count 3 at index 1000 (value 1000 ns).
        let mut b = Vec::new();
        b.extend_from_slice(&V2_COOKIE.to_be_bytes());
        let payload: Vec<u8> = vec![0xcf, 0x0f, 0x06]; // zz(-1000)=1999, zz(3)=6
        b.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        b.extend_from_slice(&0u32.to_be_bytes());
        b.extend_from_slice(&3u32.to_be_bytes());
        b.extend_from_slice(&1u64.to_be_bytes());
        b.extend_from_slice(&10_000_000_000u64.to_be_bytes());
        b.extend_from_slice(&1.0f64.to_be_bytes());
        b.extend_from_slice(&payload);
        let s = base64::engine::general_purpose::STANDARD.encode(&b);
        let h = decode(&s, 0, 0).unwrap();
        assert_eq!(h.count(), 3);
        let bk = h.buckets();
        assert_eq!(bk.len(), 1);
        assert_eq!((bk[0].low, bk[0].high, bk[0].count), (1000, 1000, 3));
    }

    #[test]
    fn bad_strings_are_errors_not_allocations() {
        let e = |s: &str| decode(s, 0, 0).unwrap_err().to_string();
        assert!(e("***").contains("not base64"));
        assert!(e("AAAA").contains("shorter"));
        let good = plain_v2(&sample());
        // A payload length of 4 GB with a few bytes present.
        let mut huge = good.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
        let b64 = |v: &[u8]| base64::engine::general_purpose::STANDARD.encode(v);
        assert!(e(&b64(&huge)).contains("payload bytes"));
        // Other bounds (5 digits, up to 2^62).
        let mut other = good.clone();
        other[12..16].copy_from_slice(&5u32.to_be_bytes());
        other[24..32].copy_from_slice(&(1u64 << 62).to_be_bytes());
        assert!(e(&b64(&other)).contains("expected a latscope latency histogram"));
        let mut cookie = good;
        cookie[0] = 0;
        assert!(e(&b64(&cookie)).contains("cookie"));
        assert!(e(&"A".repeat(MAX_ENCODED + 4)).contains("more than"));
    }
}
