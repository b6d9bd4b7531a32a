//! Buffer-sizing rules (thesis §3.8, Appendix A; reference note §8).
//!
//! Units: `mu` is the bit-rate of **one link (wavelength) in packets/s**
//! (the thesis's tables reproduce with 1040-byte packets, note §1.4:
//! `mu = link_bps / 8320`), delays in seconds, buffers in packets.

use super::math::{erf, erf_inv, ln_engset_time_congestion};

/// The inputs of the DWDM rule (3.23) and of the rules it is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RuleInput {
    /// M: input links feeding the output trunk (M >= K).
    pub m: f64,
    /// K: output links (wavelength channels) of the trunk (>= 1).
    pub k: usize,
    /// mu: bit-rate of one output link, packets/s.
    pub mu: f64,
    /// N: number of long-lived TCP flows.
    pub n: f64,
    /// RTT_H: harmonic mean round-trip propagation delay, s.
    pub rtt: f64,
    /// U: target utilization, 0 < U < 1.
    pub u: f64,
}

/// Refuses a target utilization outside (0, 1).
pub fn check_utilization(u: f64) -> Result<(), String> {
    if u > 0.0 && u < 1.0 {
        Ok(())
    } else {
        Err(format!(
            "utilization U must be strictly between 0 and 1 (the rules give an infinite buffer at U = 1), found {u}"
        ))
    }
}

impl RuleInput {
    /// Checks every field: K >= 1, M >= K, N > 0, mu > 0, RTT > 0, 0 < U < 1.
    pub fn validate(&self) -> Result<(), String> {
        if self.k == 0 {
            return Err("channels K must be a whole number >= 1, found 0".into());
        }
        if !(self.m.is_finite() && self.m >= self.k as f64) {
            return Err(format!(
                "inputs M must be >= channels K = {} (with fewer inputs than channels there is no contention), found {}",
                self.k, self.m
            ));
        }
        if !(self.n.is_finite() && self.n > 0.0) {
            return Err(format!("flows N must be > 0, found {}", self.n));
        }
        if !(self.mu.is_finite() && self.mu > 0.0) {
            return Err(format!("rate mu must be > 0 packets/s, found {}", self.mu));
        }
        if !(self.rtt.is_finite() && self.rtt > 0.0) {
            return Err(format!("RTT must be > 0 s, found {}", self.rtt));
        }
        check_utilization(self.u)
    }
}

/// Packets per second of a `bps` link carrying `bytes`-byte packets.
pub fn packets_per_second(bps: f64, bytes: f64) -> f64 {
    bps / (8.0 * bytes)
}

/// Harmonic mean of RTTs uniform on [lo, hi]: (hi - lo) / ln(hi/lo)
/// (thesis L2153-2155; the thesis prints 109.1 ms for [60, 180] ms, the exact
/// value is 109.23 ms, note §10 item 10).
pub fn harmonic_mean_uniform(lo: f64, hi: f64) -> f64 {
    if hi == lo {
        lo
    } else {
        (hi - lo) / (hi / lo).ln()
    }
}

/// The raw exponent log_{F1} F2 of the DWDM rule, before the ceiling
/// (thesis eq. (3.23), Appendix A (A.10); note §8.1):
///
/// F1 = (M - UK) / (UM - UK), a = UK / (M - UK) (A.7),
/// E = C(M,K) a^K / sum_{i<=K} C(M,i) a^i (A.5),
/// F2 = U^2 K^2 mu^2 RTT_H^2 E / (1.5 N^2).
///
/// The thesis prints "B <=" in (A.8)/(A.9); the bound on PB is an *upper*
/// bound, so the sufficient condition is B >= log_{F1} F2 (note §10 item 7),
/// which is what (A.10) and the tables use. With M = K there is no
/// contention (F1 infinite) and the exponent is -inf.
pub fn dwdm_exponent(r: &RuleInput) -> Result<f64, String> {
    r.validate()?;
    let (m, k, u) = (r.m, r.k as f64, r.u);
    if m == k {
        return Ok(f64::NEG_INFINITY);
    }
    let ln_f1 = ((m - u * k) / (u * m - u * k)).ln();
    let a = u * k / (m - u * k);
    let ln_e = ln_engset_time_congestion(m, r.k, a);
    let ln_f2 = 2.0 * (u * k * r.mu * r.rtt).ln() + ln_e - (1.5 * r.n * r.n).ln();
    Ok(ln_f2 / ln_f1)
}

/// Buffer per output trunk, thesis eq. (3.23): B = max(0, ceil(log_{F1} F2)).
pub fn dwdm_buffer(r: &RuleInput) -> Result<u64, String> {
    Ok(ceil_nonneg(dwdm_exponent(r)?))
}

/// Buffer of the whole switch, thesis eq. (3.24): B_S = M B / K (M/K output
/// trunks of B each).
pub fn switch_buffer(m: f64, k: usize, b: u64) -> f64 {
    m * b as f64 / k as f64
}

/// The single-link (non-DWDM) rule, thesis eq. (3.27):
/// B = max(0, ceil(log_U(1.5 N^2 (1+U) / (U^3 mu^2 RTT^2)))), the limit
/// M -> inf, K = 1 of (3.23).
pub fn single_link_buffer(mu: f64, n: f64, rtt: f64, u: f64) -> Result<u64, String> {
    RuleInput {
        m: 1.0,
        k: 1,
        mu,
        n,
        rtt,
        u,
    }
    .validate()?;
    let x = 1.5 * n * n * (1.0 + u) / (u.powi(3) * mu * mu * rtt * rtt);
    Ok(ceil_nonneg(x.ln() / u.ln()))
}

/// The bandwidth-delay product in packets, K mu RTT (the rule of thumb,
/// thesis §2.2.5, L1010-1016), unrounded.
pub fn bdp(k: usize, mu: f64, rtt: f64) -> f64 {
    k as f64 * mu * rtt
}

/// Appenzeller et al.'s utilization for a buffer of x K mu RTT / sqrt(N)
/// packets, thesis eq. (2.3)/(3.26) as rebuilt in note §2.3:
/// U = erf((3 sqrt 3 / (2 sqrt 2)) x / (1 + x / sqrt N)).
pub fn appenzeller_utilization(x: f64, n: f64) -> f64 {
    erf(appenzeller_k() * x / (1.0 + x / n.sqrt()))
}

fn appenzeller_k() -> f64 {
    3.0 * 3f64.sqrt() / (2.0 * 2f64.sqrt())
}

/// The smallest x with U <= erf(k x / (1 + x/sqrt N)) (thesis (3.26),
/// "solved numerically"; here in closed form through erf^-1). Errors when no
/// x reaches U (the right-hand side is bounded by erf(k sqrt N)).
pub fn appenzeller_x(u: f64, n: f64) -> Result<f64, String> {
    check_utilization(u)?;
    let y = erf_inv(u);
    let kk = appenzeller_k();
    let den = kk - y / n.sqrt();
    if den <= 0.0 {
        return Err(format!(
            "Appenzeller's rule cannot reach U = {u} with N = {n} flows"
        ));
    }
    Ok(y / den)
}

/// Appenzeller et al.'s buffer x K mu RTT / sqrt(N), rounded up
/// (thesis §3.8.1, L3872-3993). The thesis's own Table 3.1-3.4 column does
/// **not** reproduce from this formula; see [`super::tables`].
pub fn appenzeller_buffer(k: usize, mu: f64, rtt: f64, n: f64, u: f64) -> Result<u64, String> {
    let x = appenzeller_x(u, n)?;
    Ok(ceil_nonneg(x * bdp(k, mu, rtt) / n.sqrt()))
}

/// Enachescu et al.'s O(log W) rule, thesis eq. (2.4)/(3.25), unrounded:
/// log_{1/varrho}(W^2 / (2 (1 - theta))) with theta = U / varrho and
/// W = varrho K mu RTT_H / N (the window that loads the link to varrho;
/// note §8.3 (CHECK), not stated by the thesis). Defined for U < varrho.
pub fn enachescu_exponent(r: &RuleInput, varrho: f64) -> Result<f64, String> {
    r.validate()?;
    if !(varrho > 0.0 && varrho < 1.0) {
        return Err(format!(
            "over-provision factor varrho must be in (0, 1), found {varrho}"
        ));
    }
    if r.u >= varrho {
        return Err(format!(
            "Enachescu's rule needs U < varrho = {varrho} (found U = {})",
            r.u
        ));
    }
    let theta = r.u / varrho;
    let w = varrho * r.k as f64 * r.mu * r.rtt / r.n;
    Ok((w * w / (2.0 * (1.0 - theta))).ln() / (1.0 / varrho).ln())
}

/// Enachescu's buffer, rounded up (the thesis uses varrho = 0.95, L3896).
pub fn enachescu_buffer(r: &RuleInput, varrho: f64) -> Result<u64, String> {
    Ok(ceil_nonneg(enachescu_exponent(r, varrho)?))
}

/// Gorinsky et al.'s rule B = 2M (thesis L1105-1115).
pub fn gorinsky_buffer(m: f64) -> f64 {
    2.0 * m
}

/// The full-utilization condition, thesis eq. (3.29): utilization is 100 %
/// iff B > c max_i RTT_i^b, with c the bottleneck service rate in packets/s
/// (for a trunk, the trunk's capacity K mu: note §8.5's reading). Returns the
/// smallest whole buffer meeting it.
pub fn full_utilization_buffer(c: f64, max_rtt: f64) -> u64 {
    (c * max_rtt).floor() as u64 + 1
}

/// The lowest queue after a loss, thesis eq. (3.28) as rebuilt in note §8.5
/// (§10 item 9): Q_min = ((B - c max RTT^b) / 2)^+. The OCR is ambiguous
/// between this and B - c maxRTT/2; the proof (w1 = c RTT_1 + B halves, the
/// link drains c RTT_1) gives this form.
pub fn min_queue(b: f64, c: f64, max_rtt: f64) -> f64 {
    ((b - c * max_rtt) / 2.0).max(0.0)
}

fn ceil_nonneg(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        x.ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MU40: f64 = 40e9 / 8320.0;

    fn inp(m: f64, k: usize, n: f64, rtt: f64, u: f64) -> RuleInput {
        RuleInput {
            m,
            k,
            mu: MU40,
            n,
            rtt,
            u,
        }
    }

    #[test]
    fn harmonic_mean_of_60_180() {
        let h = harmonic_mean_uniform(0.06, 0.18);
        assert!((h - 0.109_225).abs() < 1e-5, "{h}");
        // Thesis prints 109.1 ms: within the note's 0.2 ms.
        assert!((h - 0.1091).abs() < 2e-4);
    }

    #[test]
    fn note_examples_of_the_dwdm_rule() {
        // Note §11 item 3.
        assert_eq!(dwdm_buffer(&inp(8.0, 1, 400.0, 0.05, 0.9)).unwrap(), 97);
        assert_eq!(
            dwdm_buffer(&inp(128.0, 64, 256_000.0, 0.1, 0.7)).unwrap(),
            0
        );
        // Raw exponents of note §8.4, e.g. T3.1 50 ms and T3.4 K=64.
        let e = dwdm_exponent(&inp(8.0, 1, 400.0, 0.05, 0.6)).unwrap();
        assert!((e - 18.43).abs() < 0.01, "{e}");
        let e = dwdm_exponent(&inp(128.0, 64, 256_000.0, 0.1, 0.6)).unwrap();
        assert!((e + 6.68).abs() < 0.01, "{e}");
        // T16 / note §10 item 15: M=400, K=100, N=500k, 0.1 s, 80 % gives 8 (7.84).
        let e = dwdm_exponent(&inp(400.0, 100, 500_000.0, 0.1, 0.8)).unwrap();
        assert!((e - 7.84).abs() < 0.01, "{e}");
        assert_eq!(
            dwdm_buffer(&inp(400.0, 100, 500_000.0, 0.1, 0.8)).unwrap(),
            8
        );
        let e = dwdm_exponent(&inp(400.0, 100, 500_000.0, 0.1, 0.7)).unwrap();
        assert!((e + 4.73).abs() < 0.01, "{e}");
    }

    #[test]
    fn whole_switch_buffer() {
        // Note §11 item 4: M = 32, K = 16, U = 70 % -> B = 9 -> B_S = 18.
        let b = dwdm_buffer(&inp(32.0, 16, 64_000.0, 0.1, 0.7)).unwrap();
        assert_eq!(b, 9);
        assert_eq!(switch_buffer(32.0, 16, b), 18.0);
    }

    #[test]
    fn rule_is_monotone() {
        // Larger U, RTT, M or fewer flows: more buffer; more channels
        // (with flows in proportion): less (note §5 item 7).
        let base = inp(32.0, 16, 64_000.0, 0.1, 0.7);
        let e0 = dwdm_exponent(&base).unwrap();
        let with = |f: &dyn Fn(&mut RuleInput)| {
            let mut r = base;
            f(&mut r);
            dwdm_exponent(&r).unwrap()
        };
        assert!(with(&|r| r.u = 0.8) > e0);
        assert!(with(&|r| r.rtt = 0.2) > e0);
        assert!(with(&|r| r.m = 64.0) > e0);
        assert!(with(&|r| r.n = 32_000.0) > e0);
        assert!(
            with(&|r| {
                r.k = 32;
                r.m = 64.0;
                r.n = 128_000.0
            }) < e0
        );
        let mut last = f64::NEG_INFINITY;
        for u in [0.1, 0.3, 0.5, 0.7, 0.9, 0.99] {
            let e = with(&|r| r.u = u);
            assert!(e > last);
            last = e;
        }
    }

    #[test]
    fn rule_without_contention_needs_no_buffer() {
        assert_eq!(dwdm_buffer(&inp(16.0, 16, 64_000.0, 0.1, 0.9)).unwrap(), 0);
    }

    #[test]
    fn robust_at_the_size_limits() {
        for (m, k) in [(1000.0, 100), (1e6, 100), (100.0, 100), (1000.0, 1)] {
            for u in [0.01, 0.5, 0.999] {
                let e = dwdm_exponent(&inp(m, k, 4000.0 * k as f64, 0.1, u)).unwrap();
                assert!(!e.is_nan(), "{m} {k} {u}");
            }
        }
    }

    #[test]
    fn single_link_rule_values_of_note_9_2() {
        let cases = [
            (10.0, [20, 120, 623, 6274]),
            (20.0, [15, 93, 485, 4888]),
            (40.0, [10, 66, 347, 3503]),
            (60.0, [7, 51, 266, 2692]),
            (80.0, [5, 39, 209, 2117]),
            (100.0, [4, 31, 165, 1671]),
        ];
        for (n, want) in cases {
            for (u, w) in [0.75, 0.95, 0.99, 0.999].into_iter().zip(want) {
                assert_eq!(single_link_buffer(4000.0, n, 0.1, u).unwrap(), w, "{n} {u}");
            }
        }
    }

    #[test]
    fn single_link_rule_is_the_limit_m_to_infinity() {
        // Note §11 item 5: (M = 1e6, K = 1) gives the same integers as (3.27).
        for n in [10.0, 20.0, 40.0, 60.0, 80.0, 100.0] {
            for u in [0.75, 0.95, 0.99, 0.999] {
                let r = RuleInput {
                    m: 1e6,
                    k: 1,
                    mu: 4000.0,
                    n,
                    rtt: 0.1,
                    u,
                };
                assert_eq!(
                    dwdm_buffer(&r).unwrap(),
                    single_link_buffer(4000.0, n, 0.1, u).unwrap(),
                    "{n} {u}"
                );
            }
        }
    }

    #[test]
    fn appenzeller_example() {
        // Note §11 item 7: x = 1, N = 10000 -> 0.98990 (thesis L1060-1064).
        let u = appenzeller_utilization(1.0, 10_000.0);
        assert!((u - 0.98990).abs() < 1e-4, "{u}");
        let x = appenzeller_x(u, 10_000.0).unwrap();
        assert!((x - 1.0).abs() < 1e-9);
        // Note §8.4: x ~ 0.324/0.399/0.493/0.633 at large N.
        for (u, want) in [(0.6, 0.324), (0.7, 0.399), (0.8, 0.493), (0.9, 0.633)] {
            let x = appenzeller_x(u, 1e9).unwrap();
            assert!((x - want).abs() < 1e-3, "{u}: {x}");
        }
        // Note §9.2: single link, N = 10, 75 %: 65.1 packets (unrounded).
        let x = appenzeller_x(0.75, 10.0).unwrap();
        assert!((x * 400.0 / 10f64.sqrt() - 65.1).abs() < 0.05);
    }

    #[test]
    fn enachescu_example() {
        // Note §8.3: K=1, N=400, 50 ms: W = 570.9, B = 253.44.
        let e = enachescu_exponent(&inp(8.0, 1, 400.0, 0.05, 0.6), 0.95).unwrap();
        assert!((e - 253.44).abs() < 0.01, "{e}");
        assert!(enachescu_exponent(&inp(8.0, 1, 400.0, 0.05, 0.95), 0.95).is_err());
    }

    #[test]
    fn bdp_and_full_utilization() {
        assert_eq!(bdp(1, MU40, 0.05).ceil(), 240_385.0);
        assert_eq!(bdp(16, MU40, 0.1).ceil(), 7_692_308.0);
        // B > c maxRTT: c = 1000 pkt/s, 180 ms -> 181.
        assert_eq!(full_utilization_buffer(1000.0, 0.18), 181);
        assert_eq!(min_queue(181.0, 1000.0, 0.18), 0.5);
        assert_eq!(min_queue(100.0, 1000.0, 0.18), 0.0);
    }

    #[test]
    fn bad_input_is_refused_with_the_parameter_named() {
        for (r, word) in [
            (inp(8.0, 0, 400.0, 0.1, 0.5), "channels K"),
            (inp(4.0, 8, 400.0, 0.1, 0.5), "inputs M"),
            (inp(8.0, 1, 400.0, 0.1, 1.0), "utilization U"),
            (inp(8.0, 1, 400.0, 0.1, 0.0), "utilization U"),
            (inp(8.0, 1, 0.0, 0.1, 0.5), "flows N"),
            (inp(8.0, 1, 400.0, -0.1, 0.5), "RTT"),
        ] {
            let e = dwdm_buffer(&r).unwrap_err();
            assert!(e.contains(word) && !e.contains('\n'), "{e}");
        }
        assert!(single_link_buffer(4000.0, 10.0, 0.1, 1.0).is_err());
        assert!(appenzeller_x(1.2, 10.0).is_err());
    }
}
