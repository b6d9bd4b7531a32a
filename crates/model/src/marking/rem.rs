//! REM, Random Exponential Marking (Athuraliya, Low et al.; thesis §2.3.3
//! and chapter 5, reference note §3.2), in the base-φ convention of thesis
//! L1441 and L7333: a link of price `p` marks with probability `1 - φ^-p`.

use rand::Rng;
use rand_pcg::Pcg64;

/// One link's marking probability, thesis eq. (2.6): `1 - φ^-p`.
pub fn mark_probability(p: f64, phi: f64) -> f64 {
    1.0 - phi.powf(-p)
}

/// The link price update, thesis eq. (2.5):
/// `p(t+1) = max(p(t) + γ(α(b - b*) + x - c), 0)`.
pub fn price_update(p: f64, gamma: f64, alpha: f64, b: f64, b_star: f64, x: f64, c: f64) -> f64 {
    (p + gamma * (alpha * (b - b_star) + x - c)).max(0.0)
}

/// Whether a packet crossing links of these prices arrives marked: each
/// link marks a packet not already marked upstream (thesis eq. (2.7)).
pub fn path_marked(prices: &[f64], phi: f64, rng: &mut Pcg64) -> bool {
    prices
        .iter()
        .any(|&p| rng.gen::<f64>() < mark_probability(p, phi))
}

/// The path price from the fraction `q` of packets marked: the inverse of
/// eq. (2.7), `Σp = -log_φ(1 - q)` (reference note §3.2 [DERIVED]).
pub fn decode(q: f64, phi: f64) -> f64 {
    -(1.0 - q).ln() / phi.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    // Reference note §8 E16: the numbers are the note's.
    #[test]
    fn rem_probabilities_and_price_update() {
        assert!((mark_probability(0.3, 2.0) - 0.1877).abs() < 5e-5);
        assert!((mark_probability(0.5, 2.0) - 0.2929).abs() < 5e-5);
        assert!((price_update(0.0, 0.001, 0.1, 50.0, 20.0, 1100.0, 1000.0) - 0.103).abs() < 1e-12);
        assert_eq!(price_update(0.0, 0.001, 0.1, 0.0, 20.0, 800.0, 1000.0), 0.0);
        let mut rng = Pcg64::seed_from_u64(1);
        let n = 200_000;
        let m = (0..n)
            .filter(|_| path_marked(&[0.3, 0.5], 2.0, &mut rng))
            .count();
        assert!((decode(m as f64 / n as f64, 2.0) - 0.8).abs() < 0.01);
    }
}
