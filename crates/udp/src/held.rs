//! What a resumed transfer skips (issue 34): the byte ranges of a file that
//! a receiver already holds ([`Held`]), and the stream that carries the
//! rest ([`Gaps`]).
//!
//! An interrupted transfer leaves the receiver with every range that
//! arrived, not only a prefix: data beyond a hole (out of order, or after a
//! loss) was written to the part file as it came. The receiver's resume
//! record lists those ranges, its handshake response offers them, and the
//! resumed stream is the file's *gaps*, the bytes outside the held ranges,
//! in order, followed by whatever comes after the file (its BLAKE3 hash).
//! Both ends derive the same mapping from stream offsets to file offsets
//! from the same list, so the transport carries a plain stream and knows
//! nothing of resuming: its sans-IO core and hot path are unchanged.

use std::io;

/// Most ranges a receiver offers (and its record keeps): 16 bytes each on
/// the wire, so the handshake response stays within about 1.2 kB, one
/// datagram on any path that carries IPv6 (1280-byte MTU). With more holes
/// than this, the largest ranges are kept and the rest are sent again.
pub const MAX_HELD_RANGES: usize = 64;

/// Bytes of one encoded range: start and end, `u64` big-endian each.
pub const RANGE_LEN: usize = 16;

/// Sorted, disjoint, non-adjacent, non-empty half-open byte ranges of a
/// file of known size, at most [`MAX_HELD_RANGES`] of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Held {
    r: Vec<(u64, u64)>,
}

impl Held {
    /// Nothing held.
    pub fn none() -> Held {
        Held::default()
    }

    /// The ranges of `ranges` within `[0, size)`, sorted and merged; with
    /// more than [`MAX_HELD_RANGES`] the largest are kept.
    pub fn from_ranges(mut ranges: Vec<(u64, u64)>, size: u64) -> Held {
        for r in ranges.iter_mut() {
            r.1 = r.1.min(size);
        }
        ranges.retain(|&(s, e)| s < e);
        ranges.sort_unstable();
        let mut r: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for (s, e) in ranges {
            match r.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => r.push((s, e)),
            }
        }
        if r.len() > MAX_HELD_RANGES {
            // The largest (the earliest of equal ones), then back in order.
            r.sort_by_key(|&(s, e)| (std::cmp::Reverse(e - s), s));
            r.truncate(MAX_HELD_RANGES);
            r.sort_unstable();
        }
        Held { r }
    }

    /// The ranges, ascending.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.r
    }

    /// Bytes held.
    pub fn total(&self) -> u64 {
        self.r.iter().map(|&(s, e)| e - s).sum()
    }

    /// True if nothing is held.
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// The wire form: [`RANGE_LEN`] bytes per range (start, end; `u64`
    /// big-endian), nothing else.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.r.len() * RANGE_LEN);
        for &(s, e) in &self.r {
            out.extend_from_slice(&s.to_be_bytes());
            out.extend_from_slice(&e.to_be_bytes());
        }
        out
    }

    /// Reads the wire form for a file of `size` bytes: `None` unless it is
    /// whole ranges, at most [`MAX_HELD_RANGES`], each non-empty, within
    /// the file, ascending, disjoint and not adjacent (the one form
    /// [`Held::encode`] writes).
    pub fn decode(b: &[u8], size: u64) -> Option<Held> {
        if b.len() % RANGE_LEN != 0 || b.len() / RANGE_LEN > MAX_HELD_RANGES {
            return None;
        }
        let mut r = Vec::with_capacity(b.len() / RANGE_LEN);
        let mut floor = 0u64;
        for c in b.chunks_exact(RANGE_LEN) {
            let s = u64::from_be_bytes(c[..8].try_into().expect("8 bytes"));
            let e = u64::from_be_bytes(c[8..].try_into().expect("8 bytes"));
            let adjacent = !r.is_empty() && s == floor;
            if s < floor || s >= e || e > size || adjacent {
                return None;
            }
            r.push((s, e));
            floor = e;
        }
        Some(Held { r })
    }
}

/// The stream of a resumed file: the file's bytes outside the held ranges
/// in order (its gaps), then what follows the file (stream offset
/// `len() + k` is file offset `size + k`, where the receiver keeps the
/// trailing hash until it checks it).
#[derive(Clone, Debug)]
pub struct Gaps {
    /// `(stream offset, file offset, length)` of each gap, ascending.
    g: Vec<(u64, u64, u64)>,
    size: u64,
    len: u64,
}

impl Gaps {
    /// The gaps of a file of `size` bytes of which `held` is held.
    pub fn new(held: &Held, size: u64) -> Gaps {
        let mut g = Vec::with_capacity(held.r.len() + 1);
        let (mut at, mut stream) = (0u64, 0u64);
        for &(s, e) in &held.r {
            if s > at {
                g.push((stream, at, s - at));
                stream += s - at;
            }
            at = e;
        }
        if size > at {
            g.push((stream, at, size - at));
            stream += size - at;
        }
        Gaps {
            g,
            size,
            len: stream,
        }
    }

    /// Stream bytes of the file (its size less what is held).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True if the whole file is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Index of the gap holding stream offset `off` (`g.len()` past the
    /// file's gaps).
    #[inline]
    fn find(&self, off: u64) -> usize {
        self.g.partition_point(|&(s, _, l)| s + l <= off)
    }

    /// The file offset of stream offset `off`.
    pub fn file_offset(&self, off: u64) -> u64 {
        match self.g.get(self.find(off)) {
            Some(&(s, fs, _)) => fs + (off - s),
            None => self.size + (off - self.len),
        }
    }

    /// Calls `f(file offset, a..b)` for each piece of the stream's bytes
    /// `[off, off + len)`, in order, where `a..b` are the piece's
    /// positions counted from `off`.
    pub fn pieces(
        &self,
        off: u64,
        len: usize,
        mut f: impl FnMut(u64, std::ops::Range<usize>) -> io::Result<()>,
    ) -> io::Result<()> {
        let end = off + len as u64;
        let mut at = off;
        let mut i = self.find(off);
        while at < end {
            let (file_at, run) = match self.g.get(i) {
                Some(&(s, fs, l)) => (fs + (at - s), (s + l).min(end) - at),
                None => (self.size + (at - self.len), end - at),
            };
            let a = (at - off) as usize;
            f(file_at, a..a + run as usize)?;
            at += run;
            i += 1;
        }
        Ok(())
    }

    /// The file ranges that the stream's bytes `[s, e)` cover (what lies
    /// past the file is not part of it), appended to `out`.
    pub fn file_ranges(&self, s: u64, e: u64, out: &mut Vec<(u64, u64)>) {
        let e = e.min(self.len);
        let mut at = s;
        let mut i = self.find(s);
        while at < e {
            let Some(&(gs, fs, l)) = self.g.get(i) else {
                break;
            };
            let run = (gs + l).min(e) - at;
            let from = fs + (at - gs);
            out.push((from, from + run));
            at += run;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_normalised_and_capped_to_the_largest() {
        let h = Held::from_ranges(vec![(50, 60), (0, 10), (10, 20), (55, 200), (5, 5)], 100);
        assert_eq!(h.ranges(), &[(0, 20), (50, 100)]);
        assert_eq!(h.total(), 70);
        // 100 ranges of growing size: the 64 largest stay.
        let many: Vec<(u64, u64)> = (0..100u64).map(|k| (k * 1000, k * 1000 + k + 1)).collect();
        let h = Held::from_ranges(many, u64::MAX);
        assert_eq!(h.ranges().len(), MAX_HELD_RANGES);
        assert_eq!(h.ranges()[0], (36_000, 36_037));
        assert_eq!(*h.ranges().last().unwrap(), (99_000, 99_100));
    }

    #[test]
    fn the_wire_form_decodes_back_and_refuses_anything_else() {
        let h = Held::from_ranges(vec![(3, 9), (20, 21), (30, 100)], 100);
        let b = h.encode();
        assert_eq!(b.len(), 3 * RANGE_LEN);
        assert_eq!(Held::decode(&b, 100), Some(h.clone()));
        assert_eq!(Held::decode(&[], 5), Some(Held::none()));
        assert_eq!(Held::decode(&b, 99), None, "beyond the file");
        assert_eq!(Held::decode(&b[..20], 100), None, "a partial range");
        let enc = |r: &[(u64, u64)]| {
            r.iter()
                .flat_map(|&(s, e)| [s.to_be_bytes(), e.to_be_bytes()].concat())
                .collect::<Vec<u8>>()
        };
        assert_eq!(Held::decode(&enc(&[(5, 5)]), 100), None, "empty");
        assert_eq!(Held::decode(&enc(&[(5, 9), (1, 2)]), 100), None, "unsorted");
        assert_eq!(Held::decode(&enc(&[(5, 9), (8, 12)]), 100), None, "overlap");
        assert_eq!(
            Held::decode(&enc(&[(5, 9), (9, 12)]), 100),
            None,
            "adjacent"
        );
        let many: Vec<(u64, u64)> = (0..65u64).map(|k| (2 * k, 2 * k + 1)).collect();
        assert_eq!(Held::decode(&enc(&many), 1000), None, "too many");
        assert!(Held::decode(&enc(&many[..64]), 1000).is_some());
    }

    #[test]
    fn the_stream_is_the_gaps_then_what_follows_the_file() {
        let held = Held::from_ranges(vec![(0, 10), (20, 25), (90, 100)], 100);
        let g = Gaps::new(&held, 100);
        assert_eq!(g.len(), 10 + 65);
        let mut seen = vec![];
        // Stream 5..80: file 15..20, 25..90, then 0..5 past the file (100..105).
        g.pieces(5, 75, |at, r| {
            seen.push((at, r));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(15, 0..5), (25, 5..70), (100, 70..75)]);
        assert_eq!(
            [0, 9, 10, 74, 75, 80].map(|o| g.file_offset(o)),
            [10, 19, 25, 89, 100, 105]
        );
        let mut out = vec![];
        g.file_ranges(5, 80, &mut out);
        assert_eq!(out, vec![(15, 20), (25, 90)]);
        // Nothing held: the stream is the file.
        let g = Gaps::new(&Held::none(), 50);
        let mut seen = vec![];
        g.pieces(40, 20, |at, r| {
            seen.push((at, r));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(40, 0..10), (50, 10..20)]);
        // All held: only what follows.
        let g = Gaps::new(&Held::from_ranges(vec![(0, 50)], 50), 50);
        assert!(g.is_empty());
        let mut seen = vec![];
        g.pieces(0, 32, |at, r| {
            seen.push((at, r));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(50, 0..32)]);
    }
}
