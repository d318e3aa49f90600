//! sigrok / PulseView session files (.sr): a zip holding `version`, an INI `metadata`
//! and the raw logic samples (`logic-1` or `logic-1-1`, `logic-1-2`, …) plus analog
//! float32 streams (`analog-1-N-k`).
//!
//! Logic data is decoded chunk by chunk straight into edge lists: samples are never
//! materialised. The decoder compares 32 then 8 bytes at a time against the previous
//! sample replicated to the word width, so runs of unchanged samples cost about one
//! comparison per 8 bytes.

use super::analog_input::{AnalogInput, Problem, Times, MAX_SPOOLED_SAMPLES};
use super::limits::{Declared, MAX_ANALOG_SAMPLES, MAX_CHANNELS, MAX_META};
use super::prefault::Prefault;
use super::sigrok_inflate::WholeEntry;
use super::Options;
use crate::error::{Error, Place, Result};
use latscope_core::capture::{AnalogChannel, Capture, DigitalChannel};
use latscope_core::time::{Picos, PS_PER_S};
use std::collections::BTreeMap;
use std::io::{Read, Seek};

/// Refuses archives whose entries share a name or overlap (one compressed stream named by
/// several entries multiplies the work of reading it: a "zip bomb").
fn check_layout<R: Read + Seek>(z: &mut zip::ZipArchive<R>, file: &str) -> Result<()> {
    let mut spans: Vec<(u64, u64, String)> = Vec::with_capacity(z.len());
    let mut names = std::collections::HashSet::with_capacity(z.len());
    for i in 0..z.len() {
        let e = z
            .by_index_raw(i)
            .map_err(|er| Error::format(file, Place::File, format!("zip entry {i}: {er}")))?;
        let name = e.name().to_string();
        let end = e.data_start().saturating_add(e.compressed_size());
        spans.push((e.header_start(), end, name.clone()));
        if !names.insert(name.clone()) {
            return Err(Error::format(
                file,
                Place::Entry(name, None),
                "present twice in the archive: refused (a damaged or hostile archive)",
            ));
        }
    }
    spans.sort();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(Error::format(
                file,
                Place::Entry(w[1].2.clone(), None),
                format!(
                    "overlaps entry '{}' in the archive: refused (a damaged or hostile archive)",
                    w[0].2
                ),
            ));
        }
    }
    Ok(())
}

/// Parsed `metadata` of one device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    pub capturefile: Option<String>,
    pub total_probes: Option<u32>,
    pub samplerate_hz: Option<u64>,
    pub unitsize: Option<u32>,
    /// (bit index, name) of every enabled logic probe.
    pub probes: Vec<(u32, String)>,
    pub total_analog: Option<u32>,
    /// (channel number N, name) of the analog channels.
    pub analog: Vec<(u32, String)>,
}

/// Parses the INI metadata (sigrok writes `key=value`; old files `key = value`).
pub fn parse_metadata(text: &str, file: &str) -> Result<Metadata> {
    let mut m = Metadata::default();
    let mut in_device = false;
    let mut device_seen = false;
    let err = |line: usize, msg: String| {
        Error::format(
            file,
            Place::Entry("metadata".into(), None),
            format!("line {line}: {msg}"),
        )
    };
    for (ln, raw) in text.lines().enumerate() {
        let ln = ln + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(sec) = line.strip_prefix('[') {
            let sec = sec.trim_end_matches(']').trim();
            // only the first device is read
            in_device = sec.starts_with("device") && !device_seen;
            if in_device {
                device_seen = true;
            }
            continue;
        }
        if !in_device {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            return Err(err(ln, format!("expected key=value, found '{line}'")));
        };
        let (k, v) = (k.trim(), v.trim());
        let num = |what: &str| -> Result<u32> {
            v.parse::<u32>()
                .map_err(|_| err(ln, format!("{what} '{v}' is not a number")))
        };
        match k {
            "capturefile" => m.capturefile = Some(v.to_string()),
            "total probes" => m.total_probes = Some(num("total probes")?),
            "total analog" => m.total_analog = Some(num("total analog")?),
            "unitsize" => m.unitsize = Some(num("unitsize")?),
            "samplerate" => {
                let r = latscope_core::time::parse_frequency_hz(v)
                    .map_err(|e| err(ln, format!("samplerate '{v}': {e}")))?;
                if r == 0 {
                    return Err(err(ln, "samplerate is 0".into()));
                }
                m.samplerate_hz = Some(r);
            }
            _ => {
                if let Some(n) = k.strip_prefix("probe") {
                    let n: u32 = n
                        .parse()
                        .map_err(|_| err(ln, format!("bad probe key '{k}'")))?;
                    if n == 0 {
                        return Err(err(ln, "probe numbers start at 1".into()));
                    }
                    m.probes.push((n - 1, v.to_string()));
                } else if let Some(n) = k.strip_prefix("analog") {
                    let n: u32 = n
                        .parse()
                        .map_err(|_| err(ln, format!("bad analog key '{k}'")))?;
                    m.analog.push((n, v.to_string()));
                }
            }
        }
    }
    if !device_seen {
        return Err(Error::format(
            file,
            Place::Entry("metadata".into(), None),
            "no [device 1] section",
        ));
    }
    Ok(m)
}

/// Streaming logic decoder: sample words in, edge sample indices out.
pub struct Decoder {
    unit: usize,
    mask: u64,
    prev: u64,
    /// Samples consumed so far.
    pub samples: u64,
    /// First sample word (initial levels), once seen.
    pub first: Option<u64>,
    /// Picoseconds per sample (1: the edges are sample indices).
    step: i64,
    /// Edge times per bit (64 bits): sample index × `step`, so a rate that divides 1 THz
    /// needs no second pass over the edges to turn indices into times.
    pub edges: Vec<Vec<Picos>>,
    /// Edges kept so far over all bits.
    pub kept: u64,
    /// Per bit: the pages of its edge list made present ahead of the decoder's writes.
    ahead: Vec<Prefault>,
}

#[inline(always)]
fn word(b: &[u8], i: usize, u: usize) -> u64 {
    match u {
        1 => b[i] as u64,
        2 => u16::from_le_bytes([b[i], b[i + 1]]) as u64,
        4 => u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as u64,
        8 => u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8])),
        _ => {
            // 3, 5, 6 or 7 bytes (libsigrok writes what the device delivers)
            let mut w = [0u8; 8];
            w[..u].copy_from_slice(&b[i..i + u]);
            u64::from_le_bytes(w)
        }
    }
}

#[inline(always)]
fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]))
}

/// The length of the leading whole 256-byte blocks of `b` whose 8-byte words all equal
/// `pat` on the bits of `mask`: samples where no kept bit changes. A sparse capture is
/// almost all such blocks; written over fixed-size chunks so the compiler drops the
/// bounds checks and compares several words per instruction.
#[inline(always)]
fn unchanged_prefix(b: &[u8], pat: u64, mask: u64) -> usize {
    let mut n = 0;
    for c in b.chunks_exact(256) {
        let mut acc = 0u64;
        for w in c.chunks_exact(8) {
            acc |= u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) ^ pat;
        }
        if acc & mask != 0 {
            break;
        }
        n += 256;
    }
    n
}

fn replicate(w: u64, u: usize) -> u64 {
    match u {
        1 => w.wrapping_mul(0x0101_0101_0101_0101),
        2 => w.wrapping_mul(0x0001_0001_0001_0001),
        4 => w | (w << 32),
        _ => w,
    }
}

impl Decoder {
    /// `unit` in bytes (1 to 8); `mask` selects the bits whose edges are kept.
    pub fn new(unit: usize, mask: u64) -> Decoder {
        Decoder {
            unit: unit.clamp(1, 8),
            mask,
            prev: 0,
            samples: 0,
            first: None,
            step: 1,
            edges: vec![Vec::new(); 64],
            kept: 0,
            ahead: vec![Prefault::default(); 64],
        }
    }

    /// Edge times in units of `step` picoseconds per sample. Multiplied with wrapping:
    /// the caller refuses a capture whose last sample is beyond ±2^62 ps (the product of
    /// any index and the step then fits) and drops the edges.
    pub fn with_step(mut self, step: i64) -> Decoder {
        self.step = step;
        self
    }

    #[inline(always)]
    fn change(&mut self, w: u64, idx: u64) {
        let mut d = (w ^ self.prev) & self.mask;
        while d != 0 {
            let bit = d.trailing_zeros() as usize;
            self.edges[bit].push(Picos((idx as i64).wrapping_mul(self.step)));
            self.kept += 1;
            d &= d - 1;
        }
        self.prev = w;
    }

    /// Feeds whole sample words (`buf.len()` must be a multiple of the unit size).
    pub fn feed(&mut self, buf: &[u8]) {
        // one list per bit is what the writers index; `edges` is public, so a caller may
        // have taken lists away: they come back empty rather than the index panicking
        if self.edges.len() < 64 {
            self.edges.resize_with(64, Vec::new);
        }
        match self.unit {
            1 => self.feed_u::<1>(buf),
            2 => self.feed_u::<2>(buf),
            3 => self.feed_u::<3>(buf),
            4 => self.feed_u::<4>(buf),
            5 => self.feed_u::<5>(buf),
            6 => self.feed_u::<6>(buf),
            7 => self.feed_u::<7>(buf),
            _ => self.feed_u::<8>(buf),
        }
        let mut bits = self.mask;
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            if let (Some(p), Some(e)) = (self.ahead.get_mut(bit), self.edges.get_mut(bit)) {
                p.after_block(e);
            }
            bits &= bits - 1;
        }
    }

    /// The word-wide decoder for units of 1, 2, 4 or 8 bytes, from byte `i` while 8 bytes
    /// remain; returns where it stopped. Only the kept bits (the mask) are looked at:
    /// blocks of 32 bytes that repeat the last sample there are skipped with one compare;
    /// otherwise each 8-byte word is compared with itself shifted by one sample (every
    /// sample against the one before it, the first against the previous word's last), and
    /// every set bit of the difference is one edge: no branch per sample, one per edge.
    ///
    /// `emit(x, at)` takes a word's differences `x` (bit `p`: an edge of bit `p % (8U)` at
    /// sample `at + p / (8U)`) and stores them: [`Self::feed_u`] passes one that writes
    /// every bit's list, or, when one bit is kept (a measurement of one channel), one that
    /// writes that bit's list alone, held in a local so its length stays in a register.
    #[inline(always)]
    fn feed_words<const U: usize>(
        &mut self,
        buf: &[u8],
        mut i: usize,
        (n, base): (usize, u64),
        mut emit: impl FnMut(u64, u64),
    ) -> usize {
        let sh = 8 * U as u32; // bits per sample
        let mrep = replicate(self.mask, U);
        // the sample before byte i
        let mut last = self.prev;
        // one word at byte offset `off`: its edges, and its last sample
        let mut word = |v: u64, off: usize, last: &mut u64| {
            let before = if sh == 64 {
                *last
            } else {
                (v << (sh % 64)) | *last
            };
            let x = (v ^ before) & mrep;
            if x != 0 {
                emit(x, base + (off / U) as u64);
            }
            *last = if sh == 64 { v } else { v >> (64 - sh) };
        };
        while i + 32 <= n {
            let w = [
                u64_at(buf, i),
                u64_at(buf, i + 8),
                u64_at(buf, i + 16),
                u64_at(buf, i + 24),
            ];
            let pat = replicate(last, U);
            if ((w[0] ^ pat) | (w[1] ^ pat) | (w[2] ^ pat) | (w[3] ^ pat)) & mrep == 0 {
                // nothing changes on the kept bits; the last sample may differ elsewhere
                last = if sh == 64 { w[3] } else { w[3] >> (64 - sh) };
                i += 32;
                // and perhaps for long: then 256 bytes a step (a dense capture, which
                // seldom gets here, pays nothing for it)
                let skip = unchanged_prefix(&buf[i..n], pat, mrep);
                if skip > 0 {
                    i += skip;
                    let lw = u64_at(buf, i - 8);
                    last = if sh == 64 { lw } else { lw >> (64 - sh) };
                }
                continue;
            }
            for (k, &v) in w.iter().enumerate() {
                word(v, i + 8 * k, &mut last);
            }
            i += 32;
        }
        while i + 8 <= n {
            word(u64_at(buf, i), i, &mut last);
            i += 8;
        }
        self.prev = last;
        i
    }

    /// The decoder, specialised per unit size so word reads and index arithmetic are
    /// compile-time constants.
    #[inline(never)]
    fn feed_u<const U: usize>(&mut self, buf: &[u8]) {
        let u = U;
        let n = buf.len() - buf.len() % u;
        if n == 0 {
            return;
        }
        let base = self.samples;
        let mut i = 0usize;
        if self.first.is_none() {
            let w = word(buf, 0, u);
            self.first = Some(w);
            self.prev = w;
            i = u;
        }
        // the word-wide path needs a unit that divides 8
        if 8 % u == 0 && i + 8 <= n {
            let sh = 8 * U as u32;
            let step = self.step;
            if self.mask.count_ones() == 1 {
                let bit = self.mask.trailing_zeros() as usize;
                let mut list = std::mem::take(&mut self.edges[bit]);
                let before = list.len();
                i = self.feed_words::<U>(buf, i, (n, base), |mut x, at| {
                    while x != 0 {
                        let idx = at + (x.trailing_zeros() / sh) as u64;
                        list.push(Picos((idx as i64).wrapping_mul(step)));
                        x &= x - 1;
                    }
                });
                // counted once here, not per word: a popcount per word cost a tenth of
                // the dense decoder on the baseline x86-64 target, which has no POPCNT
                self.kept += (list.len() - before) as u64;
                self.edges[bit] = list;
            } else {
                let mut edges = std::mem::take(&mut self.edges);
                let before: usize = edges.iter().map(Vec::len).sum();
                i = self.feed_words::<U>(buf, i, (n, base), |mut x, at| {
                    while x != 0 {
                        let p = x.trailing_zeros();
                        let idx = at + (p / sh) as u64;
                        edges[(p % sh) as usize].push(Picos((idx as i64).wrapping_mul(step)));
                        x &= x - 1;
                    }
                });
                let after: usize = edges.iter().map(Vec::len).sum();
                self.kept += (after - before) as u64;
                self.edges = edges;
            }
        }
        while i < n {
            let w = word(buf, i, u);
            if w != self.prev {
                self.change(w, base + (i / u) as u64);
            }
            i += u;
        }
        self.samples += (n / u) as u64;
    }
}

fn entry_num(name: &str, prefix: &str) -> Option<u64> {
    if name == prefix {
        return Some(0);
    }
    name.strip_prefix(prefix)?.strip_prefix('-')?.parse().ok()
}

/// Chunks (sorted by number) must be either the one unnumbered entry `stem` or
/// `stem-1` … `stem-N` without a gap: a missing chunk would shift every later sample.
fn check_numbering(file: &str, stem: &str, parts: &[(u64, usize, String)]) -> Result<()> {
    if parts.len() > 1 && parts[0].0 == 0 {
        return Err(Error::format(
            file,
            Place::Entry(stem.into(), None),
            format!(
                "present together with numbered chunks ({}): contradictory chunk layout",
                parts[1].2
            ),
        ));
    }
    if parts.len() == 1 && parts[0].0 == 0 {
        return Ok(());
    }
    for (i, (k, _, name)) in parts.iter().enumerate() {
        let want = i as u64 + 1;
        if *k != want {
            return Err(Error::format(
                file,
                Place::Entry(format!("{stem}-{want}"), None),
                format!("missing (found {name}): chunks must be numbered 1..N"),
            ));
        }
    }
    Ok(())
}

fn zip_err(file: &str, e: zip::result::ZipError) -> Error {
    Error::format(
        file,
        Place::File,
        format!("not a readable sigrok session (zip): {e}"),
    )
}

fn read_small<R: Read + Seek>(
    z: &mut zip::ZipArchive<R>,
    file: &str,
    name: &str,
) -> Result<Option<String>> {
    let mut e = match z.by_name(name) {
        Ok(e) => e,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => {
            return Err(Error::format(
                file,
                Place::Entry(name.into(), None),
                e.to_string(),
            ))
        }
    };
    if e.size() > MAX_META {
        return Err(Error::format(
            file,
            Place::Entry(name.into(), None),
            format!("implausibly large ({} bytes, at most 1 MiB)", e.size()),
        ));
    }
    let declared = e.size();
    let mut s = Vec::new();
    Declared::new(&mut e, declared, "its declared size")
        .read_to_end(&mut s)
        .map_err(|er| {
            Error::format(
                file,
                Place::Entry(name.into(), None),
                format!("cannot read: {er}"),
            )
        })?;
    Ok(Some(String::from_utf8_lossy(&s).into_owned()))
}

/// Reads a sigrok session. `samplerate` is used when the metadata has none; when the
/// metadata states a rate, `samplerate` must equal it (a different one would rescale every
/// time in the capture, so it is an error naming both).
pub fn read<R: Read + Seek>(r: R, file: &str, samplerate: Option<u64>) -> Result<Capture> {
    read_with(r, file, samplerate, None)
}

/// Like [`read_with`], with every import option (sample rate, channels, edge budget,
/// warnings).
pub fn read_opts<R: Read + Seek>(r: R, file: &str, opts: &Options) -> Result<Capture> {
    read_impl(r, file, opts)
}

/// The channel names of a sigrok session, in capture order, from its metadata alone (no
/// sample data is read).
pub fn channel_names<R: Read + Seek>(r: R, file: &str) -> Result<Vec<String>> {
    let mut z = zip::ZipArchive::new(r).map_err(|e| zip_err(file, e))?;
    let meta = read_small(&mut z, file, "metadata")?
        .ok_or_else(|| Error::format(file, Place::File, "no 'metadata' entry"))?;
    let mut probes = parse_metadata(&meta, file)?.probes;
    probes.sort();
    Ok(probes.into_iter().map(|(_, n)| n).collect())
}

/// Like [`read`], decoding edges only for the channels in `only` (names or `#index`);
/// the other channels stay in the capture, in order, with no edges. An analog channel
/// named in `only` is thresholded while it is inflated and added as a digital channel
/// after the others; every analog channel is listed without samples. This keeps memory
/// proportional to the edges actually measured.
pub fn read_with<R: Read + Seek>(
    r: R,
    file: &str,
    samplerate: Option<u64>,
    only: Option<&[String]>,
) -> Result<Capture> {
    let opts = Options {
        samplerate_hz: samplerate,
        only_channels: only.map(<[String]>::to_vec),
        ..Default::default()
    };
    read_impl(r, file, &opts)
}

fn read_impl<R: Read + Seek>(r: R, file: &str, opts: &Options) -> Result<Capture> {
    let mut z = open_session(r, file)?;
    let meta = read_small(&mut z, file, "metadata")?
        .ok_or_else(|| Error::format(file, Place::File, "no 'metadata' entry"))?;
    let m = parse_metadata(&meta, file)?;
    let rate = session_rate(&m, file, opts)?;
    let (unit, mask) = probe_layout(&m, file)?;
    let mask = selected_mask(mask, &m.probes, opts.only_channels.as_deref());
    let entries = list_entries(&mut z, &m, file)?;
    let step = SampleClock::step(rate).unwrap_or(1);
    let dec = decode_logic(
        &mut z,
        file,
        &entries.logic,
        (unit, mask, step),
        opts.edge_budget(),
    )?;
    let clock = SampleClock::new(dec.samples, rate, file)?;
    let channels = digital_channels(dec.first, dec.edges, &m.probes, &clock);
    let mut out = AnalogOut {
        file,
        opts,
        clock: &clock,
        names: &m.analog,
        interval: Picos(PS_PER_S / rate as i64).max(Picos(1)),
        kept_edges: dec.kept,
        samples: dec.samples,
        analog_kept: 0,
        channels,
        analog: Vec::new(),
    };
    for (n, parts) in entries.analog {
        out.channel(&mut z, n, &parts)?;
    }
    Ok(Capture {
        source: file.to_string(),
        samplerate_hz: Some(rate),
        start: Picos(0),
        end: clock.to_ps(out.samples),
        channels: out.channels,
        analog: out.analog,
    })
}

/// Opens the zip (refusing duplicate or overlapping entries) and checks the `version`
/// entry.
fn open_session<R: Read + Seek>(mut r: R, file: &str) -> Result<zip::ZipArchive<R>> {
    super::zip_scan::duplicate_names(&mut r, file)?;
    r.seek(std::io::SeekFrom::Start(0))
        .map_err(|e| Error::io(file, e))?;
    let mut z = zip::ZipArchive::new(r).map_err(|e| zip_err(file, e))?;
    check_layout(&mut z, file)?;
    let version = read_small(&mut z, file, "version")?.ok_or_else(|| {
        Error::format(
            file,
            Place::File,
            "no 'version' entry: not a sigrok session file",
        )
    })?;
    let version = version.trim();
    if version != "1" && version != "2" {
        return Err(Error::format(
            file,
            Place::Entry("version".into(), None),
            format!("unsupported session version '{version}' (1 and 2 are supported)"),
        ));
    }
    Ok(z)
}

fn metadata_place() -> Place {
    Place::Entry("metadata".into(), None)
}

/// The sample rate: `--samplerate` over the metadata's, positive and at most 1 THz.
fn session_rate(m: &Metadata, file: &str, opts: &Options) -> Result<u64> {
    let samplerate = opts.samplerate_hz;
    super::check_stated_rate(file, m.samplerate_hz, samplerate, &opts.warnings)?;
    let rate = samplerate.or(m.samplerate_hz).ok_or_else(|| {
        Error::format(
            file,
            metadata_place(),
            "no samplerate in the metadata; give it with --samplerate (e.g. --samplerate 1MHz)",
        )
    })?;
    if rate == 0 {
        return Err(Error::usage("samplerate must be positive"));
    }
    if rate > PS_PER_S as u64 {
        // times are whole picoseconds: finer samples would collapse to 0-ps pulses
        return Err(Error::format(
            file,
            metadata_place(),
            format!(
                "samplerate {} is above 1 THz: samples closer than the 1-ps time resolution \
                 (if the stated rate is wrong, give the real one with --samplerate)",
                super::format_hz(rate)
            ),
        ));
    }
    Ok(rate)
}

/// The unit size (bytes per sample) and the mask of the enabled probes' bits, checked
/// against each other and against the channel limit.
fn probe_layout(m: &Metadata, file: &str) -> Result<(u32, u64)> {
    if let Some(t) = m.total_probes.filter(|&t| t as usize > MAX_CHANNELS) {
        return Err(Error::format(
            file,
            metadata_place(),
            format!(
                "total probes {t} is more than the {MAX_CHANNELS} channels a capture may have \
                 (a damaged metadata entry)"
            ),
        ));
    }
    let total = m.total_probes.unwrap_or(m.probes.len() as u32);
    let unit = match m.unitsize {
        Some(u) => u,
        // as libsigrok: enough bytes for the highest enabled probe (old sessions declare
        // more probes than they store)
        None => {
            let hi = m.probes.iter().map(|(b, _)| b + 1).max().unwrap_or(total);
            hi.clamp(1, 64).div_ceil(8)
        }
    };
    if !(1..=8).contains(&unit) {
        return Err(Error::format(
            file,
            metadata_place(),
            format!("unitsize {unit} is not between 1 and 8 bytes"),
        ));
    }
    // `total probes` may exceed the unit size (version-1 sessions declare 16 probes and
    // store only the enabled ones in one byte): only the enabled probes must fit.
    let mut mask = 0u64;
    for (bit, name) in &m.probes {
        if *bit >= unit * 8 || (m.total_probes.is_some() && *bit >= total) {
            return Err(Error::format(
                file,
                metadata_place(),
                format!(
                    "contradictory metadata: probe{} ('{name}') is beyond total probes {total} / unitsize {unit}",
                    bit + 1
                ),
            ));
        }
        if mask & (1 << bit) != 0 {
            return Err(Error::format(
                file,
                metadata_place(),
                format!("probe{} is listed twice", bit + 1),
            ));
        }
        mask |= 1 << bit;
    }
    Ok((unit, mask))
}

/// The probe bits to decode: all, or those named (by name or `#index` in probe order) in
/// the selection.
fn selected_mask(mask: u64, probes: &[(u32, String)], only: Option<&[String]>) -> u64 {
    let Some(only) = only else {
        return mask;
    };
    let mut sorted = probes.to_vec();
    sorted.sort();
    let mut keep = 0u64;
    for (i, (bit, name)) in sorted.iter().enumerate() {
        if only.iter().any(|o| {
            o == name || o.strip_prefix('#').and_then(|x| x.parse::<usize>().ok()) == Some(i)
        }) {
            keep |= 1 << bit;
        }
    }
    mask & keep
}

/// The zip entries holding samples: (chunk number, zip index, name), in chunk order.
struct Entries {
    logic: Vec<(u64, usize, String)>,
    /// Per analog channel number.
    analog: BTreeMap<u32, Vec<(u64, usize, String)>>,
}

/// Lists the logic and analog entries, refusing duplicated or missing chunk numbers and a
/// session whose probes have no data.
fn list_entries<R: Read + Seek>(
    z: &mut zip::ZipArchive<R>,
    m: &Metadata,
    file: &str,
) -> Result<Entries> {
    let prefix = m.capturefile.clone().unwrap_or_else(|| "logic-1".into());
    // logic entries in numeric order
    let mut logic: Vec<(u64, usize, String)> = Vec::new();
    let mut analog: BTreeMap<u32, Vec<(u64, usize, String)>> = BTreeMap::new();
    for i in 0..z.len() {
        let name = match z.name_for_index(i) {
            Some(n) => n.to_string(),
            None => continue,
        };
        if let Some(k) = entry_num(&name, &prefix) {
            logic.push((k, i, name));
        } else if let Some(rest) = name.strip_prefix("analog-1-") {
            let mut p = rest.split('-');
            let (Some(Ok(n)), Some(Ok(k))) = (
                p.next().map(str::parse::<u32>),
                p.next().map(str::parse::<u64>),
            ) else {
                continue;
            };
            analog.entry(n).or_default().push((k, i, name));
        }
    }
    logic.sort();
    if logic.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(Error::format(
            file,
            Place::File,
            "duplicate logic chunk entries",
        ));
    }
    check_numbering(file, &prefix, &logic)?;
    for (n, parts) in analog.iter_mut() {
        parts.sort();
        check_numbering(file, &format!("analog-1-{n}"), parts)?;
    }
    if logic.is_empty() && !m.probes.is_empty() && analog.is_empty() {
        return Err(Error::format(
            file,
            Place::File,
            format!("no logic data: metadata lists {} probes but there is no '{prefix}' or '{prefix}-N' entry", m.probes.len()),
        ));
    }
    Ok(Entries { logic, analog })
}

/// Bytes inflated per read of a logic chunk.
const LOGIC_READ: usize = 1 << 20;

/// The budget error: more edges than one import may keep (`read`: the chunk offset read
/// up to when the count passed it).
fn budget_error(file: &str, name: &str, read: u64, budget: u64) -> Error {
    Error::format(
        file,
        Place::Entry(name.to_string(), Some(read)),
        format!(
            "more than {budget} edges on the channels read: more than one \
             import may keep (measure fewer channels, or raise the limit \
             with --max-edges)"
        ),
    )
}

fn chunk_remainder(unit: u32) -> impl Fn(u64) -> String {
    move |off| format!("chunk length {off} is not a multiple of the unit size {unit}")
}

/// Decodes the logic chunks in order into edge lists, against the edge budget.
///
/// The decoder starts on the calling thread, after inflate. Once a block shows more than
/// one edge per [`OVERLAP_BYTES_PER_EDGE`] bytes, the decoder moves to a second thread
/// and inflate overlaps with it on two cores (issue 29 item 4: on a dense capture each is
/// about a fifth of the time); a sparse capture stays on one thread, where the decoder's
/// block skip is cheap and handing blocks over would cost more than it saves. Inflated
/// blocks go over a channel of depth one and come back for reuse, so at most four blocks
/// of `LOGIC_READ` bytes exist. The decoder sees the same blocks in the same order
/// either way, so the edges and every error are the same: an edge-budget error found by
/// the decoder thread comes from earlier in the stream than anything the inflater met
/// after it, and wins. If no thread can be started, one thread does everything.
fn decode_logic<R: Read + Seek>(
    z: &mut zip::ZipArchive<R>,
    file: &str,
    logic: &[(u64, usize, String)],
    (unit, mask, step): (u32, u64, i64),
    budget: u64,
) -> Result<Decoder> {
    let u = unit as usize;
    std::thread::scope(|s| {
        // the decoder while it runs here; `None` once it has moved to `overlap`
        let mut here = Some(Decoder::new(u, mask).with_step(step));
        let mut overlap: Option<Overlap> = None;
        let mut buf = vec![0u8; LOGIC_READ];
        let mut entry = WholeEntry::new();
        let mut inflated = Ok(());
        for (k, (_, idx, name)) in logic.iter().enumerate() {
            let r = stream_entry(
                z,
                file,
                (*idx, name),
                (&mut buf, Some(&mut entry)),
                u,
                chunk_remainder(unit),
                |block, _, read| {
                    let whole = block.len();
                    if let Some(dec) = here.as_mut() {
                        let before = dec.kept;
                        dec.feed(block);
                        if dec.kept > budget {
                            return Err(budget_error(file, name, read, budget));
                        }
                        let edges = dec.kept - before;
                        if edges.saturating_mul(OVERLAP_BYTES_PER_EDGE) > whole as u64 {
                            if let Some(dec) = here.take() {
                                match Overlap::start(s, dec, budget) {
                                    Ok(o) => overlap = Some(o),
                                    Err(dec) => here = Some(dec),
                                }
                            }
                        }
                        return Ok(());
                    }
                    let Some(o) = overlap.as_ref() else {
                        return Ok(()); // one of the two is always there
                    };
                    let mut full = o.free.try_recv().unwrap_or_else(|_| vec![0u8; LOGIC_READ]);
                    full[..whole].copy_from_slice(block);
                    // a closed channel: the decoder stopped on an error, returned below
                    o.full.send((full, whole, k, read)).map_err(|_| {
                        Error::format(
                            file,
                            Place::Entry(name.clone(), Some(read)),
                            "decoder stopped",
                        )
                    })
                },
            );
            if let Err(e) = r {
                inflated = Err(e);
                break;
            }
        }
        let Some(Overlap { full, decoder, .. }) = overlap else {
            return match here {
                Some(dec) => inflated.map(|()| dec),
                None => inflated.and(Err(Error::format(file, Place::File, "no decoder"))),
            };
        };
        drop(full);
        let decoded = match decoder.join() {
            Ok(d) => d,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match decoded {
            Err((k, read)) => {
                let name = logic.get(k).map(|l| l.2.as_str()).unwrap_or("");
                Err(budget_error(file, name, read, budget))
            }
            Ok(dec) => inflated.map(|()| dec),
        }
    })
}

/// A block with more edges than one per this many bytes moves the decoder to a thread of
/// its own: a dense capture (an edge every 3 bytes) at once, a sparse one (tens of
/// thousands of bytes per edge) never. 32 bytes per edge is where decoding a block costs
/// about a tenth of inflating it.
const OVERLAP_BYTES_PER_EDGE: u64 = 32;

/// The decoder on a second thread: full blocks in (block, whole bytes in it, chunk number,
/// chunk offset read up to), emptied ones back for reuse.
struct Overlap<'scope> {
    full: std::sync::mpsc::SyncSender<(Vec<u8>, usize, usize, u64)>,
    free: std::sync::mpsc::Receiver<Vec<u8>>,
    decoder: std::thread::ScopedJoinHandle<'scope, std::result::Result<Decoder, (usize, u64)>>,
}

impl<'scope> Overlap<'scope> {
    /// Moves `dec` to a new thread; gives it back when no thread can be started.
    fn start<'env>(
        s: &'scope std::thread::Scope<'scope, 'env>,
        dec: Decoder,
        budget: u64,
    ) -> std::result::Result<Overlap<'scope>, Decoder> {
        use std::sync::mpsc;
        let (full_tx, full_rx) = mpsc::sync_channel::<(Vec<u8>, usize, usize, u64)>(1);
        let (free_tx, free_rx) = mpsc::channel::<Vec<u8>>();
        // the decoder goes over once the thread runs, so a failed start keeps it here
        let (dec_tx, dec_rx) = mpsc::channel::<Decoder>();
        let spawned = std::thread::Builder::new()
            .name("sr-decode".into())
            .spawn_scoped(s, move || {
                // always sent right after the start; (usize::MAX, 0) names no chunk
                let Ok(mut dec) = dec_rx.recv() else {
                    return Err((usize::MAX, 0));
                };
                for (block, whole, k, read) in full_rx {
                    dec.feed(&block[..whole]);
                    if dec.kept > budget {
                        return Err((k, read));
                    }
                    // the inflater may have finished and gone: the block is then dropped
                    let _ = free_tx.send(block);
                }
                Ok(dec)
            });
        match spawned {
            Ok(decoder) => match dec_tx.send(dec) {
                Ok(()) => Ok(Overlap {
                    full: full_tx,
                    free: free_rx,
                    decoder,
                }),
                // the thread cannot have gone before receiving: never taken
                Err(mpsc::SendError(dec)) => Err(dec),
            },
            Err(_) => Err(dec),
        }
    }
}

/// `decode_logic` on the calling thread alone: the tests' reference for it, with entries
/// inflated in one call (as `decode_logic` does) or only streamed (`one_call` false).
#[cfg(test)]
fn decode_logic_serial<R: Read + Seek>(
    z: &mut zip::ZipArchive<R>,
    file: &str,
    logic: &[(u64, usize, String)],
    (unit, mask, step): (u32, u64, i64),
    budget: u64,
    one_call: bool,
) -> Result<Decoder> {
    let u = unit as usize;
    let mut dec = Decoder::new(u, mask).with_step(step);
    let mut buf = vec![0u8; LOGIC_READ];
    let mut entry = one_call.then(WholeEntry::new);
    for (_, idx, name) in logic {
        stream_entry(
            z,
            file,
            (*idx, name),
            (&mut buf, entry.as_mut()),
            u,
            chunk_remainder(unit),
            |block, _, read| {
                dec.feed(block);
                if dec.kept > budget {
                    return Err(budget_error(file, name, read, budget));
                }
                Ok(())
            },
        )?;
    }
    Ok(dec)
}

/// Sample index → picoseconds at the session's rate.
struct SampleClock {
    rate: u64,
    /// Whole picoseconds per sample, when the rate divides 1 THz.
    step: Option<i64>,
}

impl SampleClock {
    /// Refuses `samples` that would span more than ±2^62 ps (53 days).
    fn new(samples: u64, rate: u64, file: &str) -> Result<SampleClock> {
        // times must stay within ±2^62 ps (53 days); a wrong stated rate can be overridden
        let span = samples as i128 * PS_PER_S as i128 / rate as i128;
        if span > 1i128 << 62 {
            return Err(Error::format(
                file,
                metadata_place(),
                format!(
                    "{} samples at {} span {} days, more than the 53 a capture may: if the stated \
                     rate is wrong, give the real one with --samplerate",
                    samples,
                    super::format_hz(rate),
                    span / (86_400 * PS_PER_S as i128)
                ),
            ));
        }
        // exact either way; a whole number of ps per sample (every rate dividing 1 THz)
        // needs no 128-bit division per edge (the span check above bounds idx × step)
        Ok(SampleClock {
            rate,
            step: Self::step(rate),
        })
    }

    /// Whole picoseconds per sample, when the rate divides 1 THz.
    fn step(rate: u64) -> Option<i64> {
        (rate > 0 && (PS_PER_S as u64).is_multiple_of(rate))
            .then(|| (PS_PER_S as u64 / rate) as i64)
    }

    fn to_ps(&self, idx: u64) -> Picos {
        match self.step {
            Some(st) => Picos((idx as i64).saturating_mul(st)),
            None => Picos(
                (idx as i128 * PS_PER_S as i128 / self.rate as i128).min(i64::MAX as i128) as i64,
            ),
        }
    }
}

/// One channel per probe, in probe order, from the decoded edges: times already when the
/// clock has a whole step (the decoder was given it), else sample indices turned into
/// times here.
fn digital_channels(
    first: Option<u64>,
    mut edges: Vec<Vec<Picos>>,
    probes: &[(u32, String)],
    clock: &SampleClock,
) -> Vec<DigitalChannel> {
    let first = first.unwrap_or(0);
    let mut probes = probes.to_vec();
    probes.sort();
    let mut channels = Vec::with_capacity(probes.len());
    for (bit, name) in probes {
        let e = std::mem::take(&mut edges[bit as usize]);
        channels.push(DigitalChannel {
            name,
            initial: (first >> bit) & 1 == 1,
            edges: match clock.step {
                Some(_) => e,
                None => e.into_iter().map(|i| clock.to_ps(i.0 as u64)).collect(),
            },
        });
    }
    channels
}

/// The analog channels (float32 LE streams) as they are read: kept whole, or, when a
/// subset is asked for, thresholded while read (see `import::analog_input`) so their
/// samples are never held; every analog channel is still listed, without samples.
struct AnalogOut<'a> {
    file: &'a str,
    opts: &'a Options,
    clock: &'a SampleClock,
    names: &'a [(u32, String)],
    interval: Picos,
    kept_edges: u64,
    /// Samples of the longest channel so far.
    samples: u64,
    analog_kept: u64,
    channels: Vec<DigitalChannel>,
    analog: Vec<AnalogChannel>,
}

impl AnalogOut<'_> {
    fn measuring(&self) -> bool {
        self.opts.only_channels.is_some()
    }

    /// Analog channel `n`, from its entries `parts`.
    fn channel<R: Read + Seek>(
        &mut self,
        z: &mut zip::ZipArchive<R>,
        n: u32,
        parts: &[(u64, usize, String)],
    ) -> Result<()> {
        let name = self
            .names
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, s)| s.clone())
            .unwrap_or_else(|| format!("A{n}"));
        if self.measuring() {
            self.analog.push(AnalogChannel {
                name: name.clone(),
                start: Picos(0),
                interval: self.interval,
                values: Vec::new(),
            });
            // measured: named in the selection, and not the name of a channel already
            // there (a logic channel of that name is the one measured, and an analog name
            // given twice is measured once: as `import::analog::add_thresholded` does)
            let only = self.opts.only_channels.as_deref();
            if !only.is_some_and(|o| o.contains(&name))
                || self.channels.iter().any(|c| c.name == name)
            {
                return Ok(());
            }
        }
        self.check_sizes(z, parts)?;
        if self.measuring() {
            self.measure(z, name, parts)
        } else {
            self.keep(z, name, parts)
        }
    }

    /// What the entries declare, before anything is inflated, against the sample limit.
    fn check_sizes<R: Read + Seek>(
        &mut self,
        z: &mut zip::ZipArchive<R>,
        parts: &[(u64, usize, String)],
    ) -> Result<()> {
        let file = self.file;
        let measuring = self.measuring();
        let spooling =
            measuring && (self.opts.threshold.is_none() || self.opts.hysteresis.is_none());
        let cap_samples = if measuring {
            MAX_SPOOLED_SAMPLES
        } else {
            MAX_ANALOG_SAMPLES
        };
        for (_, idx, ename) in parts {
            let e = z.by_index_raw(*idx).map_err(|er| {
                Error::format(file, Place::Entry(ename.clone(), None), er.to_string())
            })?;
            self.analog_kept += e.size() / 4;
            if self.analog_kept > cap_samples && (spooling || !measuring) {
                return Err(Error::format(
                    file,
                    Place::Entry(ename.clone(), None),
                    if measuring {
                        format!(
                            "more than {cap_samples} analog samples: more than the default \
                             threshold may spool (give --threshold and --hysteresis to measure \
                             them without spooling)"
                        )
                    } else {
                        format!(
                            "more than {cap_samples} analog samples in all: more than one \
                             import may keep whole (convert, --perfetto and --list keep every \
                             sample; a measurement such as --pulse without --perfetto keeps \
                             only edges)"
                        )
                    },
                ));
            }
        }
        Ok(())
    }

    /// Thresholds the channel while reading it into a digital channel.
    fn measure<R: Read + Seek>(
        &mut self,
        z: &mut zip::ZipArchive<R>,
        name: String,
        parts: &[(u64, usize, String)],
    ) -> Result<()> {
        let file = self.file;
        let left = self.opts.edge_budget().saturating_sub(self.kept_edges);
        let times = Times::Uniform {
            start: 0,
            interval: self.interval.0,
        };
        let mut input = AnalogInput::new(
            &name,
            self.opts.threshold,
            self.opts.hysteresis,
            times,
            left,
        )
        .map_err(|p| Error::format(file, Place::File, p.message(&name)))?;
        let count = read_analog(z, file, parts, &name, |v| input.push(0, v))?;
        let mut ch = input
            .finish(left)
            .map_err(|p| Error::format(file, Place::File, p.message(&name)))?;
        self.samples = self.samples.max(count);
        let end = self.clock.to_ps(self.samples);
        ch.edges.retain(|e| *e <= end);
        self.kept_edges += ch.edges.len() as u64;
        self.channels.push(ch);
        Ok(())
    }

    /// Keeps every sample of the channel.
    fn keep<R: Read + Seek>(
        &mut self,
        z: &mut zip::ZipArchive<R>,
        name: String,
        parts: &[(u64, usize, String)],
    ) -> Result<()> {
        let mut values = Vec::new();
        read_analog(z, self.file, parts, &name, |v| {
            values.push(v);
            Ok(())
        })?;
        self.samples = self.samples.max(values.len() as u64);
        self.analog.push(AnalogChannel {
            name,
            start: Picos(0),
            interval: self.interval,
            values,
        });
        Ok(())
    }
}

/// Streams the float32 samples of one analog channel's entries (in order) to `each`;
/// returns how many there were. An entry may not inflate past its declared size, and its
/// length must be a whole number of samples.
fn read_analog<R: Read + Seek>(
    z: &mut zip::ZipArchive<R>,
    file: &str,
    parts: &[(u64, usize, String)],
    channel: &str,
    mut each: impl FnMut(f32) -> std::result::Result<(), Problem>,
) -> Result<u64> {
    let mut buf = vec![0u8; 1 << 16];
    let mut count = 0u64;
    for (_, idx, ename) in parts {
        let len = stream_entry(
            z,
            file,
            (*idx, ename),
            (&mut buf, None),
            4,
            |off| format!("length {off} is not a multiple of 4 (float32 samples)"),
            |block, at, _| {
                for (j, b) in block.chunks_exact(4).enumerate() {
                    each(f32::from_le_bytes([b[0], b[1], b[2], b[3]])).map_err(|p| {
                        Error::format(
                            file,
                            Place::Entry(ename.clone(), Some(at + 4 * j as u64)),
                            p.message(channel),
                        )
                    })?;
                }
                Ok(())
            },
        )?;
        count += len / 4;
    }
    Ok(count)
}

/// Inflates one zip entry (`(index, name)`) through `buf`, refusing it once it passes its
/// declared size, and hands `feed` each block's leading bytes that are whole `unit`-byte
/// words (`unit` ≤ 8), the entry offset of their first byte and the offset read up to;
/// the bytes of a word cut off at the end are carried over. Given `whole`, an entry it
/// can inflate in one call (see `sigrok_inflate`) is cut into the same blocks from there.
/// Returns the entry's length, which must be a whole number of words
/// (`remainder(length)` says why not). Logic chunks and analog streams are both read
/// this way.
fn stream_entry<R: Read + Seek>(
    z: &mut zip::ZipArchive<R>,
    file: &str,
    (idx, name): (usize, &String),
    (buf, whole): (&mut [u8], Option<&mut WholeEntry>),
    unit: usize,
    remainder: impl Fn(u64) -> String,
    mut feed: impl FnMut(&[u8], u64, u64) -> Result<()>,
) -> Result<u64> {
    let mut words = Words {
        unit,
        carry: 0,
        off: 0,
    };
    if let Some(data) = whole.and_then(|w| w.inflate(z, idx)) {
        // the same blocks, offsets and carries as the reads below give when each fills
        // `buf`, cut from the inflated entry instead of copied through `buf`
        let size = data.len() as u64;
        loop {
            let k = (buf.len() - words.carry).min((size - words.off) as usize);
            if k == 0 {
                break;
            }
            let (whole, at) = words.take(k);
            let from = at as usize;
            feed(&data[from..from + whole], at, words.off)?;
        }
        return words.end(file, name, remainder);
    }
    let e = z
        .by_index(idx)
        .map_err(|er| Error::format(file, Place::Entry(name.clone(), None), er.to_string()))?;
    let declared = e.size();
    let mut e = Declared::new(e, declared, "its declared size");
    // the start of a word cut off by the last read (fewer than `unit` ≤ 8 bytes)
    let mut tail = [0u8; 8];
    loop {
        let carry = words.carry;
        buf[..carry].copy_from_slice(&tail[..carry]);
        let k = match e.read(&mut buf[carry..]) {
            Ok(k) => k,
            Err(er) if er.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(er) => {
                return Err(Error::format(
                    file,
                    Place::Entry(name.clone(), Some(words.off)),
                    format!("corrupt or truncated data: {er}"),
                ))
            }
        };
        if k == 0 {
            break;
        }
        let (whole, at) = words.take(k);
        let carry = words.carry;
        tail[..carry].copy_from_slice(&buf[whole..whole + carry]);
        feed(&buf[..whole], at, words.off)?;
    }
    words.end(file, name, remainder)
}

/// An entry read in blocks, cut into whole words: the bytes of a word cut off at a
/// block's end (`carry`) start the next block.
struct Words {
    unit: usize,
    carry: usize,
    /// Entry bytes read so far.
    off: u64,
}

impl Words {
    /// After `k` more bytes were read behind the carried ones: how many of the block's
    /// bytes are whole words, and the entry offset of its first byte.
    fn take(&mut self, k: usize) -> (usize, u64) {
        let have = self.carry + k;
        let whole = have - have % self.unit;
        let at = self.off - self.carry as u64;
        self.off += k as u64;
        self.carry = have - whole;
        (whole, at)
    }

    /// The entry's length, or the `remainder` error when it ended inside a word.
    fn end(&self, file: &str, name: &str, remainder: impl Fn(u64) -> String) -> Result<u64> {
        if self.carry != 0 {
            return Err(Error::format(
                file,
                Place::Entry(name.to_string(), Some(self.off)),
                remainder(self.off),
            ));
        }
        Ok(self.off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edge times at 3 ps per sample, one sample at a time.
    fn naive(data: &[u8], u: usize, mask: u64) -> Vec<Vec<Picos>> {
        let mut out = vec![Vec::new(); 64];
        let mut prev = None;
        for (i, c) in data.chunks_exact(u).enumerate() {
            let mut b = [0u8; 8];
            b[..u].copy_from_slice(c);
            let w = u64::from_le_bytes(b);
            if let Some(p) = prev {
                let d: u64 = (w ^ p) & mask;
                for (bit, o) in out.iter_mut().enumerate() {
                    if d >> bit & 1 == 1 {
                        o.push(Picos(3 * i as i64));
                    }
                }
            }
            prev = Some(w);
        }
        out
    }

    #[test]
    fn decoder_matches_naive_for_every_unit_and_split() {
        let mut x: u64 = 12345;
        // a change every ~2, ~7, ~97 and ~700 samples (long runs exercise the block skips
        // of 32 and 256 bytes, and changes of the unkept bit 2 alone must not make edges)
        for (u, every) in [1usize, 2, 3, 4, 5, 8]
            .into_iter()
            .flat_map(|u| [(u, 2u64), (u, 7), (u, 97), (u, 700)])
        {
            let mut data = Vec::new();
            let mut w = 0u64;
            for _ in 0..3000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x.checked_rem(every) == Some(0) {
                    w ^= 1 << (x % (u as u64 * 8));
                }
                if x.is_multiple_of(61) {
                    w ^= 4;
                }
                data.extend_from_slice(&w.to_le_bytes()[..u]);
            }
            let all = if u == 8 {
                u64::MAX
            } else {
                (1u64 << (u * 8)) - 1
            } & !4;
            // every bit but 2, and one bit alone (the lowest, the highest of the unit, and
            // bit 2, which changes on its own): the two ways edges are stored
            let top = 1u64 << (u * 8 - 1);
            for mask in [all, 1, top, 4] {
                let want = naive(&data, u, mask);
                for split in [u, 3 * u, 40 * u, 1000 * u, data.len()] {
                    let mut d = Decoder::new(u, mask).with_step(3);
                    for c in data.chunks(split) {
                        d.feed(c);
                    }
                    assert_eq!(d.edges, want, "unit {u} mask {mask:#x} split {split}");
                    assert_eq!(d.samples, 3000);
                    let kept: usize = want.iter().map(Vec::len).sum();
                    assert_eq!(d.kept, kept as u64, "unit {u} mask {mask:#x} split {split}");
                }
            }
        }
    }

    /// Lists taken out of the public `edges` (all of them, here) come back empty and
    /// fill as before, on both writers (one kept bit, several), instead of a panic.
    #[test]
    fn edges_taken_away_are_restored_not_a_panic() {
        let data: Vec<u8> = (0..200u32).map(|i| ((i / 3) % 2) as u8 * 0b11).collect();
        for mask in [1u64, 0b11] {
            let mut d = Decoder::new(1, mask).with_step(3);
            d.edges.clear();
            d.feed(&data);
            assert_eq!(d.edges.len(), 64);
            assert_eq!(d.edges[0], naive(&data, 1, mask)[0], "mask {mask:#b}");
        }
    }

    #[test]
    fn metadata_quirks() {
        let m = parse_metadata(
            "[global]\nsigrok version = 0.2.0\n[device 1]\ncapturefile = logic-1\ntotal probes = 16\nsamplerate = 200 kHz\nprobe1 = Clock line\nprobe9 = D8\nunitsize = 2\n",
            "f.sr",
        )
        .unwrap();
        assert_eq!(m.samplerate_hz, Some(200_000));
        assert_eq!(m.probes, vec![(0, "Clock line".into()), (8, "D8".into())]);
        assert_eq!(m.unitsize, Some(2));
    }

    /// The two-thread decoder against the one-thread one on chunks longer than a block,
    /// of a length that is not a multiple of it: the same edges, and the same budget
    /// error (entry and offset) wherever the budget runs out; with the decoder moving to
    /// its thread at the first block, in the middle of the stream, or never.
    #[test]
    fn overlapped_decoding_matches_one_thread() {
        for dense_from in [0, LOGIC_READ + 5000, usize::MAX] {
            overlapped_matches(dense_from);
        }
    }

    fn overlapped_matches(dense_from: usize) {
        use std::io::Write;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut at = 0usize; // bytes so far over all chunks
        let mut chunk = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|i| {
                    // long runs with bursts of changes, so both decoder paths are taken
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    at += 1;
                    if (i / 4096) % 3 == 0 && at > dense_from {
                        x as u8
                    } else {
                        (i / 5000) as u8
                    }
                })
                .collect()
        };
        let sizes = [LOGIC_READ * 2 + 1234, 2 * 777, LOGIC_READ + 2];
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut w = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let mut logic = Vec::new();
        for (k, &n) in sizes.iter().enumerate() {
            let name = format!("logic-1-{}", k + 1);
            w.start_file(name.as_str(), o).unwrap();
            w.write_all(&chunk(n)).unwrap();
            logic.push((k as u64 + 1, k, name));
        }
        w.finish().unwrap();
        let bytes = buf.into_inner();
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let layout = (2, 0xffff, 7);
        let all = decode_logic_serial(&mut z, "t.sr", &logic, layout, u64::MAX, true).unwrap();
        assert!(all.kept > 1000);
        // streamed (blocks as the inflater returns them) or inflated in one call: the same
        let streamed =
            decode_logic_serial(&mut z, "t.sr", &logic, layout, u64::MAX, false).unwrap();
        assert_eq!(streamed.edges, all.edges);
        assert_eq!((streamed.kept, streamed.samples), (all.kept, all.samples));
        let two = decode_logic(&mut z, "t.sr", &logic, layout, u64::MAX).unwrap();
        assert_eq!(two.edges, all.edges);
        assert_eq!(
            (two.kept, two.samples, two.first),
            (all.kept, all.samples, all.first)
        );
        for budget in [0, 10, all.kept / 3, all.kept - 1, all.kept] {
            let a = decode_logic_serial(&mut z, "t.sr", &logic, layout, budget, true);
            let b = decode_logic(&mut z, "t.sr", &logic, layout, budget);
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!(a.edges, b.edges),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("budget {budget}: {:?} against {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
}
