//! Small numerical helpers for the buffer-sizing models: the error function
//! and its inverse (std has neither), and log-space sums.

/// The Gauss error function, to about 1e-15 absolute.
///
/// Uses the all-positive series erf(x) = 2/sqrt(pi) e^(-x^2) sum_n 2^n
/// x^(2n+1) / (1*3*...*(2n+1)) (Abramowitz & Stegun 7.1.6), which has no
/// cancellation; beyond |x| = 6, erf is 1 to double precision.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    if x > 6.0 {
        return 1.0;
    }
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term > 1e-17 * sum {
        term *= 2.0 * x2 / (2.0 * n + 3.0);
        sum += term;
        n += 1.0;
    }
    (2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * sum).min(1.0)
}

/// The inverse of [`erf`] on (0, 1), by bisection on [0, 6].
pub fn erf_inv(y: f64) -> f64 {
    debug_assert!(y > 0.0 && y < 1.0);
    let (mut lo, mut hi) = (0.0_f64, 6.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if erf(mid) < y {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-15 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// ln of the Engset-type time congestion E(M, K, a) = C(M,K) a^K /
/// sum_{i=0}^{K} C(M,i) a^i, computed in log space (binomials built by the
/// ratio C(M,i+1)/C(M,i) = (M-i)/(i+1), so no factorial overflows).
/// `m` may be large (1e6) and need not be an integer; `k` <= `m`.
pub fn ln_engset_time_congestion(m: f64, k: usize, a: f64) -> f64 {
    let ln_a = a.ln();
    let mut terms = Vec::with_capacity(k + 1);
    let mut ln_c = 0.0;
    for i in 0..=k {
        terms.push(ln_c + i as f64 * ln_a);
        ln_c += ((m - i as f64) / (i as f64 + 1.0)).ln();
    }
    terms[k] - ln_sum_exp(&terms)
}

/// ln(sum exp(x_i)), stable; -inf for an empty or all -inf slice.
pub fn ln_sum_exp(xs: &[f64]) -> f64 {
    let mx = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if mx == f64::NEG_INFINITY {
        return mx;
    }
    mx + xs.iter().map(|x| (x - mx).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_known_values() {
        // A&S table 7.1 / standard values.
        assert!((erf(0.5) - 0.520_499_877_813_046_5).abs() < 1e-14);
        assert!((erf(1.0) - 0.842_700_792_949_714_9).abs() < 1e-14);
        assert!((erf(2.0) - 0.995_322_265_018_952_7).abs() < 1e-14);
        assert!((erf(3.0) - 0.999_977_909_503_001_4).abs() < 1e-14);
        assert_eq!(erf(0.0), 0.0);
        assert!((erf(-1.0) + erf(1.0)).abs() < 1e-16);
    }

    #[test]
    fn erf_inv_round_trips() {
        for y in [1e-6, 0.1, 0.5, 0.6, 0.9, 0.999, 0.999_999] {
            assert!((erf(erf_inv(y)) - y).abs() < 1e-13, "{y}");
        }
    }

    #[test]
    fn engset_time_congestion_small_case() {
        // M = 2, K = 1, a = 1: C(2,1) / (1 + 2) = 2/3.
        assert!((ln_engset_time_congestion(2.0, 1, 1.0).exp() - 2.0 / 3.0).abs() < 1e-15);
        // K = M: a^M / (1+a)^M.
        let v = ln_engset_time_congestion(10.0, 10, 0.5).exp();
        assert!((v - (0.5f64 / 1.5).powi(10)).abs() < 1e-15);
        // No overflow for M = 1000, K = 100.
        assert!(ln_engset_time_congestion(1000.0, 100, 0.2).is_finite());
    }
}
