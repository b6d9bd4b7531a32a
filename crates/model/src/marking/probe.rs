//! Probe types: how a packet's 16-bit IP identification field (IPid) becomes
//! the threshold `i ∈ [0, 1)` that ADPM routers compare their price with,
//! and the three probe-type sequences of thesis §5.4 (reference note §2.3).

use rand::Rng;
use rand_pcg::Pcg64;

pub use dropless_cc::adpm::{threshold, THRESHOLDS};

/// How an IPid maps to a threshold (thesis L6749-6767, reference note §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpidMap {
    /// `f(v)`: plain bit reversal (sequential IPids in host order).
    BitReverse,
    /// `f(A + 256 (A xor B))`, A the low byte, B the high byte: the map as
    /// printed (L6758). It spreads sequential IPids but not byte-swapped ones.
    Printed,
    /// `f((A xor B) + 256 A)`: the variant that works for both byte orders
    /// (reference note §2.3, [DERIVED]).
    Swapped,
    /// The 8-bit map `f8(A xor B)`: 256 thresholds only.
    Xor8,
}

impl IpidMap {
    /// Every map, with its name.
    pub const ALL: [(&'static str, IpidMap); 4] = [
        ("bitrev", IpidMap::BitReverse),
        ("printed", IpidMap::Printed),
        ("swapped", IpidMap::Swapped),
        ("xor8", IpidMap::Xor8),
    ];

    /// The map called `name`, or an error listing the names.
    pub fn parse(name: &str) -> Result<IpidMap, String> {
        by_name(&IpidMap::ALL, name, "IPid map")
    }

    /// The threshold of a packet with this IPid.
    pub fn threshold(self, ipid: u16) -> f64 {
        let a = ipid & 0xff;
        let b = ipid >> 8;
        match self {
            IpidMap::BitReverse => threshold(ipid),
            IpidMap::Printed => threshold(a | ((a ^ b) << 8)),
            IpidMap::Swapped => threshold((a ^ b) | (a << 8)),
            IpidMap::Xor8 => f64::from(((a ^ b) as u8).reverse_bits()) / 256.0,
        }
    }
}

/// The entry of `all` called `name`, or an error naming `what` and listing
/// the names.
fn by_name<T: Copy>(all: &[(&str, T)], name: &str, what: &str) -> Result<T, String> {
    all.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
            format!("unknown {what} \"{name}\" (allowed: {})", names.join(", "))
        })
}

/// The probe-type sequences simulated in thesis §5.4 (L7239-7245).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sequence {
    /// Pure bit-reversed counting: IPids 1, 2, 3, ...
    Brc,
    /// Bit-reversed counting from a random start d uniform on 1..=65535,
    /// wrapping modulo 2^16 (the wrap is the note's [ASSUMPTION]).
    RandomBrc,
    /// Independent uniform IPids.
    Random,
}

impl Sequence {
    /// Every sequence, with its name.
    pub const ALL: [(&'static str, Sequence); 3] = [
        ("brc", Sequence::Brc),
        ("random-brc", Sequence::RandomBrc),
        ("random", Sequence::Random),
    ];

    /// The sequence called `name`, or an error listing the names.
    pub fn parse(name: &str) -> Result<Sequence, String> {
        by_name(&Sequence::ALL, name, "probe sequence")
    }

    /// The name of this sequence.
    pub fn name(self) -> &'static str {
        Sequence::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map(|(n, _)| *n)
            .expect("every sequence is named")
    }
}

/// A stream of IPids following a [`Sequence`]; `start` draws its random
/// start (random-start BRC) from `rng`, and [`Probes::next_ipid`] draws from
/// it again for random probes.
#[derive(Clone, Debug)]
pub struct Probes {
    seq: Sequence,
    next: u16,
}

impl Probes {
    /// A new stream; random-start BRC draws its start now.
    pub fn start(seq: Sequence, rng: &mut Pcg64) -> Probes {
        let next = match seq {
            Sequence::Brc => 1,
            Sequence::RandomBrc => rng.gen_range(1..=65535u16),
            Sequence::Random => 0,
        };
        Probes { seq, next }
    }

    /// The next packet's IPid.
    #[inline]
    pub fn next_ipid(&mut self, rng: &mut Pcg64) -> u16 {
        match self.seq {
            Sequence::Random => rng.gen(),
            _ => {
                let v = self.next;
                self.next = self.next.wrapping_add(1);
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    // Reference note §8 E1.
    #[test]
    fn bit_reversal_gives_the_thesis_sequence() {
        let want = [
            (1, 0.5),
            (2, 0.25),
            (3, 0.75),
            (4, 0.125),
            (5, 0.625),
            (6, 0.375),
            (7, 0.875),
            (0x8000, 1.0 / 65536.0),
            (0, 0.0),
        ];
        for (v, f) in want {
            assert_eq!(threshold(v), f, "F({v})");
        }
    }

    #[test]
    fn the_first_2j_minus_1_probes_split_the_unit_interval_evenly() {
        for j in 1..=16u32 {
            let n = 1u32 << j;
            let mut got: Vec<u32> = (1..n)
                .map(|v| (threshold(v as u16) * f64::from(n)) as u32)
                .collect();
            got.sort_unstable();
            assert_eq!(got, (1..n).collect::<Vec<_>>(), "j = {j}");
        }
    }

    #[test]
    fn any_2j_consecutive_ipids_probe_each_cell_once() {
        let mut rng = Pcg64::seed_from_u64(5);
        for _ in 0..200 {
            let d: u16 = rng.gen();
            let j = rng.gen_range(0..=12u32);
            let n = 1usize << j;
            let mut hit = vec![0u8; n];
            for t in 0..n {
                let i = threshold(d.wrapping_add(t as u16));
                hit[(i * n as f64) as usize] += 1;
            }
            assert!(hit.iter().all(|&h| h == 1), "d = {d}, j = {j}");
        }
    }

    #[test]
    fn the_swapped_map_spreads_both_byte_orders() {
        // 256 consecutive IPids, in either byte order, give 256 distinct
        // thresholds in the swapped map; the printed map gives one
        // threshold region per low byte when the bytes are swapped.
        for start in [0u16, 1234, 0xff00] {
            let seq: Vec<u16> = (0..256u16).map(|t| start.wrapping_add(t)).collect();
            for order in [false, true] {
                let v: Vec<u16> = seq
                    .iter()
                    .map(|&x| if order { x.swap_bytes() } else { x })
                    .collect();
                let mut s: Vec<u64> = v
                    .iter()
                    .map(|&x| (IpidMap::Swapped.threshold(x) * 65536.0) as u64)
                    .collect();
                s.sort_unstable();
                s.dedup();
                assert_eq!(s.len(), 256);
            }
        }
    }
}
