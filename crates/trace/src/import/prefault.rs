//! Pages of a growing edge list made present ahead of the writes, in bulk.
//!
//! A dense capture's edge list is hundreds of megabytes written once, front to back
//! (100 M samples toggling every 3: 33 M edges, 266 MB). Touched page by page, every
//! 4 KiB costs a page fault: 67,000 of them, about 0.2 s of kernel time on the decoder's
//! thread, which is the dense capture's critical path (issue 29 item 4; measured in
//! docs/benchmarks.md, "Captures, session 15"). Linux (5.14 and later) can make a range
//! present in one call (`madvise(MADV_POPULATE_WRITE)`), which costs about a third of the
//! faults it replaces. The contents do not change: the pages are the vector's own spare
//! capacity, anonymous and private, and a page already present is left as it is.
//!
//! Only a list that has already grown past [`START`] elements is handled, so a sparse
//! channel never has pages made present that it would not have used; the range made
//! present runs twice the last block's growth ahead of the list's end, so at most a few
//! megabytes beyond what is written are touched. On other systems, or when the call is
//! refused (an older kernel), nothing happens and the pages fault in as before.

/// Elements a list must hold before its pages are made present ahead (256 Ki: 2 MiB of
/// 8-byte edge times).
const START: usize = 1 << 18;

/// Per list: how far (in elements, from the start of the current buffer) pages were made
/// present, and where the buffer was when that was recorded.
#[derive(Clone, Debug, Default)]
pub struct Prefault {
    buf: usize,
    done: usize,
    last_len: usize,
}

impl Prefault {
    /// After a block was appended to `v`: make present the pages the next blocks will
    /// write, if `v` is long enough to be worth it. Grows `v`'s capacity as `push` would
    /// (doubling), never its length.
    pub fn after_block<T>(&mut self, v: &mut Vec<T>) {
        let len = v.len();
        let grew = len.saturating_sub(self.last_len);
        self.last_len = len;
        if len < START || grew == 0 {
            return;
        }
        let want = len.saturating_add(grew.saturating_mul(2));
        if v.capacity() < want {
            // doubling, as `push` would grow it, so the reallocation count stays logarithmic
            v.reserve(want.max(len.saturating_mul(2)) - len);
        }
        let buf = v.as_ptr() as usize;
        if buf != self.buf {
            // a new buffer: only what was copied into it is known to be present
            self.buf = buf;
            self.done = len;
        }
        let to = want.min(v.capacity());
        if self.done < to {
            let size = std::mem::size_of::<T>();
            populate(buf + self.done * size, buf + to * size);
            self.done = to;
        }
    }
}

/// Makes the pages of a freshly allocated (untouched) buffer present in one call, before
/// it is written whole: its 4 KiB pages then cost no fault each.
pub fn populate_buffer(b: &mut [u8]) {
    let from = b.as_mut_ptr() as usize;
    populate(from, from + b.len());
}

/// Makes the pages of the byte range `[from, to)` of this process's memory present and
/// writable. `from` is rounded down to its page: that page is already present (it holds
/// the list's last element) or belongs to the same allocation.
#[cfg(target_os = "linux")]
fn populate(from: usize, to: usize) {
    const PAGE: usize = 4096;
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    let start = from & !(PAGE - 1);
    if to <= start {
        return;
    }
    // SAFETY: the range lies within (or in the first page of) a live allocation of this
    // process, anonymous and private; MADV_POPULATE_WRITE only faults its pages in,
    // leaving their contents as they are, and reports failure instead of touching
    // anything it cannot. A refusal (EINVAL on kernels before 5.14) is ignored: the pages
    // then fault in when written, as without this call.
    unsafe {
        libc::madvise(start as *mut libc::c_void, to - start, MADV_POPULATE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn populate(_from: usize, _to: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list's contents and length are what pushes alone give; the capacity grows
    /// by doubling at most, and a short list is never touched.
    #[test]
    fn contents_unchanged_and_growth_bounded() {
        let mut plain: Vec<u64> = Vec::new();
        let mut ahead: Vec<u64> = Vec::new();
        let mut p = Prefault::default();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for block in 0..400 {
            let n = if block % 7 == 0 { 0 } else { 3000 + block * 17 };
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                plain.push(x);
                ahead.push(x);
            }
            let cap_before = ahead.capacity();
            p.after_block(&mut ahead);
            assert_eq!(ahead, plain);
            if ahead.len() < START {
                assert_eq!(ahead.capacity(), cap_before, "a short list was grown");
            } else {
                assert!(ahead.capacity() <= 4 * ahead.len().max(START));
            }
        }
        assert!(
            ahead.len() > START,
            "the test never reached the prefault path"
        );
        assert!(p.done >= ahead.len() && p.done <= ahead.capacity());
    }
}
