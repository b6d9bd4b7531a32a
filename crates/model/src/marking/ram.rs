//! RAM, Random Additive Marking (Adler, Cai, Shapiro and Towsley 2003;
//! thesis §2.3.4, reference note §3.3): the mark bit's mean after n hops is
//! the mean of the n link prices.

use rand::Rng;
use rand_pcg::Pcg64;

/// The bit a packet carries after crossing links of prices `s` (each in
/// [0, 1]): at hop i (from 1) it keeps its bit with probability (i-1)/i,
/// else becomes 1 with probability s_i/i and 0 otherwise (thesis
/// L1529-1541), so `E[X_n] = Σ s_i / n`.
pub fn path_bit(s: &[f64], rng: &mut Pcg64) -> bool {
    let mut x = false;
    for (k, &p) in s.iter().enumerate() {
        let i = (k + 1) as f64;
        let u: f64 = rng.gen();
        let keep = (i - 1.0) / i;
        if u >= keep {
            x = u < keep + p / i;
        }
    }
    x
}

/// The mean bit over `packets` packets: unbiased for the mean price; times
/// the hop count it estimates the path's total price.
pub fn mean_bit(s: &[f64], packets: u64, rng: &mut Pcg64) -> f64 {
    let ones = (0..packets).filter(|_| path_bit(s, rng)).count();
    ones as f64 / packets.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn one_hop_marks_with_its_price() {
        let mut rng = Pcg64::seed_from_u64(3);
        let m = mean_bit(&[0.25], 100_000, &mut rng);
        assert!((m - 0.25).abs() < 0.006, "{m}");
        assert_eq!(mean_bit(&[0.0, 0.0], 1000, &mut rng), 0.0);
        assert_eq!(mean_bit(&[1.0, 1.0, 1.0], 1000, &mut rng), 1.0);
    }
}
