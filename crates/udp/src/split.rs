//! One file's stream split over N parallel connections (`send -P N FILE`).
//!
//! The stream of an encrypted file transfer (the file's bytes, or for a
//! resumed file the gaps the receiver lacks, then the BLAKE3 hash; for a
//! directory its packed form) is cut into blocks of one mss and dealt out
//! round robin: connection `k` of `n` carries blocks `k, k + n, k + 2n, ...`,
//! so its packet `seq` is the stream's block `seq * n + k`. Every packet
//! but the stream's last block is full, as each connection's conventions
//! require (only a connection's FIN may be short).
//!
//! The connection id names the split: its low byte is `k`, its second
//! byte `n - 1`, its upper 16 bits are shared by all `n` connections
//! (random per transfer). The ids travel inside the sealed datagrams of
//! the one session, so they are as authentic as the data: a receiver
//! takes the split from the first packet of the session and accepts only
//! connections of the same transfer (same upper bits, same `n`, a `k`
//! below `n` not yet seen). With `n = 1` the stream is the connection's
//! stream, as before parallel files existed.

use crate::MAX_STREAMS;

// `n - 1` must fit the id's second byte.
const _: () = assert!(MAX_STREAMS <= 256);

/// Connection `k` of a file's stream split over `n` connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// The connections' shared upper 16 bits.
    pub(crate) tag: u16,
    pub(crate) n: u64,
    pub(crate) k: u64,
}

impl Split {
    /// Connection `k` of `n` with the shared upper bits of `random`.
    pub(crate) fn new(random: u32, n: usize, k: usize) -> Split {
        debug_assert!((1..=MAX_STREAMS).contains(&n) && k < n);
        Split {
            tag: (random >> 16) as u16,
            n: n as u64,
            k: k as u64,
        }
    }

    /// The connection id that names this split.
    pub(crate) fn conn(&self) -> u32 {
        (u32::from(self.tag) << 16) | (((self.n - 1) as u32) << 8) | self.k as u32
    }

    /// The split a connection id names; `None` when `k` is not below `n`.
    pub(crate) fn from_conn(conn: u32) -> Option<Split> {
        let n = u64::from((conn >> 8) & 0xff) + 1;
        let k = u64::from(conn & 0xff);
        (k < n && n as usize <= MAX_STREAMS).then_some(Split {
            tag: (conn >> 16) as u16,
            n,
            k,
        })
    }

    /// Whether `other` is another connection of the same transfer.
    pub(crate) fn same_transfer(&self, other: &Split) -> bool {
        self.tag == other.tag && self.n == other.n
    }

    /// Where this connection's packet `seq` starts in the stream.
    pub(crate) fn stream_offset(&self, seq: u64, mss: u64) -> Option<u64> {
        seq.checked_mul(self.n)?
            .checked_add(self.k)?
            .checked_mul(mss)
    }

    /// Bytes of the stream's first `x` that this connection carries: its
    /// connection's length for a stream of `x` bytes.
    pub(crate) fn carried(&self, x: u64, mss: u64) -> u64 {
        let full = x / mss;
        let rem = x % mss;
        let blocks = if full > self.k {
            (full - 1 - self.k) / self.n + 1
        } else {
            0
        };
        blocks * mss + if full % self.n == self.k { rem } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_k_beyond_n() {
        for n in [1, 2, 4, 128] {
            for k in 0..n {
                let s = Split::new(0xdead_beef, n, k);
                assert_eq!(Split::from_conn(s.conn()), Some(s));
            }
        }
        // k = 5 of n = 4.
        assert_eq!(Split::from_conn((3 << 8) | 5), None);
        assert_eq!(Split::new(0xdead_beef, 1, 0).conn(), 0xdead_0000);
    }

    #[test]
    fn the_connections_cover_the_stream_once() {
        let mss = 10;
        for n in [1usize, 2, 3, 4, 7] {
            for total in [0u64, 1, 9, 10, 11, 29, 30, 31, 95, 100, 1234] {
                let mut owner = vec![usize::MAX; total as usize];
                let mut sum = 0;
                for k in 0..n {
                    let s = Split::new(0, n, k);
                    let len = s.carried(total, mss);
                    sum += len;
                    let mut seq = 0;
                    while seq * mss < len {
                        let at = s.stream_offset(seq, mss).unwrap();
                        let l = (len - seq * mss).min(mss);
                        for b in at..at + l {
                            assert_eq!(owner[b as usize], usize::MAX, "n {n} total {total}");
                            owner[b as usize] = k;
                        }
                        // Only a connection's last packet may be short.
                        assert!(l == mss || (seq + 1) * mss >= len);
                        seq += 1;
                    }
                }
                assert_eq!(sum, total, "n {n} total {total}");
                assert!(owner.iter().all(|&o| o != usize::MAX));
            }
        }
    }
}
