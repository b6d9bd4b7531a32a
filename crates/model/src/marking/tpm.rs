//! TPM, deterministic binary marking of the path's summed price (Thommes
//! and Coates 2004/2006; thesis §2.3.5 and L7335-7363, reference note §3.4),
//! in the single-bit form the thesis simulates: `30 n` probe types, one per
//! (hop, bit) for paths of up to 30 routers and n-bit prices.
//!
//! The thesis does not give the probe-to-(hop, bit) map, the quantiser or
//! the decoder; these are the note's [ASSUMPTION]s: type `t` is (hop `t / n`,
//! bit `t % n`), prices round to the nearest of `2^n` uniform levels on
//! [0, 1], and a bit not yet seen counts as 0.

/// Hops a probe type can name (paths of up to 30 routers, thesis L7335).
pub const HOPS: usize = 30;

/// Probe types of the multi-bit sum version, thesis eq. (2.9):
/// `T_sum = 2 b ceil(h / 6)`.
pub fn sum_probe_types(bits: u64, hops: u64) -> u64 {
    2 * bits * hops.div_ceil(6)
}

/// A price in [0, 1] quantised to the nearest of `2^bits` levels: the level.
pub fn quantise(p: f64, bits: u32) -> u32 {
    let top = (1u32 << bits) - 1;
    (p.clamp(0.0, 1.0) * f64::from(top)).round() as u32
}

/// The receiver's table: which bits of which hop it has seen.
#[derive(Clone, Debug)]
pub struct Decoder {
    bits: u32,
    known: [u32; HOPS],
    value: [u32; HOPS],
}

impl Decoder {
    /// An empty table for `bits`-bit prices.
    pub fn new(bits: u32) -> Decoder {
        Decoder {
            bits,
            known: [0; HOPS],
            value: [0; HOPS],
        }
    }

    /// Probe type `t` (below `30 bits`) arrived, marked or not.
    pub fn observe(&mut self, t: usize, marked: bool) {
        let (hop, bit) = (t / self.bits as usize, t as u32 % self.bits);
        self.known[hop] |= 1 << bit;
        if marked {
            self.value[hop] |= 1 << bit;
        } else {
            self.value[hop] &= !(1 << bit);
        }
    }

    /// The estimated sum of the hops' prices (unseen bits as 0).
    pub fn sum(&self) -> f64 {
        let top = f64::from((1u32 << self.bits) - 1);
        self.value
            .iter()
            .zip(&self.known)
            .map(|(v, k)| f64::from(v & k) / top)
            .sum()
    }
}

/// Whether the router at `hop` (from 0) with quantised `level` marks probe
/// type `t`: only the named hop marks, with the named bit of its level.
pub fn marks(t: usize, bits: u32, hop: usize, level: u32) -> bool {
    t / bits as usize == hop && level >> (t as u32 % bits) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bit_seen_gives_the_quantised_sum() {
        let prices = [0.2, 0.9, 0.55];
        let bits = 4;
        let mut d = Decoder::new(bits);
        for t in 0..HOPS * bits as usize {
            let m = prices
                .iter()
                .enumerate()
                .any(|(h, &p)| marks(t, bits, h, quantise(p, bits)));
            d.observe(t, m);
        }
        let want: f64 = prices
            .iter()
            .map(|&p| f64::from(quantise(p, bits)) / 15.0)
            .sum();
        assert!((d.sum() - want).abs() < 1e-12);
        assert_eq!(sum_probe_types(4, 30), 40);
    }
}
