//! FAST TCP and prose-Vegas equilibria from the thesis (Cui, seed 003,
//! §4.3-4.5, appendix C; reference note §3-5, tables in §4.7 and §6.3).
//!
//! Setting ("persistent congestion"): one bottleneck of capacity `c`
//! packets/s, flows with equal alpha (FAST, packets) or alpha+ (Vegas,
//! packets/s) and equal propagation delay `d`, arriving one at a time, each
//! after the previous equilibrium. Flow `i` takes the queueing delay already
//! present, `p(i-1)`, for propagation delay (`d^ = d + p(i-1)`).
//!
//! All solvers are exact up to floating point: each unknown is the unique
//! root of a strictly monotone function and is found by bisection.

pub mod cli;

use serde::Serialize;

/// Jain's fairness index `(Σx)²/(n Σx²)` (thesis eq. (4.24)).
pub fn jain(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if n == 0.0 || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// Root of a strictly decreasing `f` on `(lo, inf)` with `f(lo+) > 0 >
/// f(inf)`.
fn root_decreasing(lo: f64, scale: f64, f: impl Fn(f64) -> f64) -> f64 {
    let mut a = lo;
    let mut step = scale.max(1e-300);
    let mut b = lo + step;
    while f(b) > 0.0 {
        a = b;
        step *= 2.0;
        b = lo + step;
        assert!(b.is_finite(), "no root found");
    }
    for _ in 0..300 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if f(m) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    0.5 * (a + b)
}

/// Single FAST flow: equilibrium window `alpha + c d` packets (eq. (4.3)
/// with `D - d = alpha/c`) and queue `alpha` (eq. (4.4)).
pub fn fast_single_window(alpha: f64, c: f64, d: f64) -> f64 {
    alpha + c * d
}

/// N FAST flows that all know the true `d`: total queue `N alpha` packets
/// (eq. (4.6)).
pub fn fast_queue_true_d(n: usize, alpha: f64) -> f64 {
    n as f64 * alpha
}

/// FAST under persistent congestion: total queueing delays `p(1..=n)`
/// (seconds), solving thesis eq. (4.19)
/// `Σ_{j=1..i} 1/(p(i) - p(j-1)) = c/alpha`, `p(0) = 0`.
pub fn fast_persistent_delays(n: usize, alpha: f64, c: f64) -> Vec<f64> {
    let mut p = vec![0.0];
    for i in 1..=n {
        let prev = p[i - 1];
        let ps = p.clone();
        let x = root_decreasing(prev, alpha / c, |q| {
            // thesis eq. (4.19)
            ps.iter().map(|pj| 1.0 / (q - pj)).sum::<f64>() - c / alpha
        });
        p.push(x);
    }
    p.remove(0);
    p
}

/// Rates `x_j(i)`, `j = 1..=i`, of the FAST flows between arrivals `i` and
/// `i+1` (thesis eq. (4.20)): `x_j(i) = alpha/(p(i) - p(j-1))`. `p` is the
/// output of [`fast_persistent_delays`].
pub fn fast_persistent_rates(p: &[f64], i: usize, alpha: f64) -> Vec<f64> {
    (1..=i)
        .map(|j| {
            let pj = if j == 1 { 0.0 } else { p[j - 2] };
            alpha / (p[i - 1] - pj)
        })
        .collect()
}

/// Prose Vegas under persistent congestion (thresholds alpha+ = beta+ in
/// packets/s): queueing delays `p+(1..=n)`, solving thesis eq. (4.10)
/// `Σ_{j=1..i} (d + p(j-1))/(p(i) - p(j-1)) = c/alpha+`; `p+(1) =
/// alpha+ d/c` (4.11).
pub fn vegas_persistent_delays(n: usize, alpha_plus: f64, c: f64, d: f64) -> Vec<f64> {
    let mut p = vec![0.0];
    for i in 1..=n {
        let prev = p[i - 1];
        let ps = p.clone();
        let x = root_decreasing(prev, alpha_plus * d / c, |q| {
            // thesis eq. (4.10)
            ps.iter().map(|pj| (d + pj) / (q - pj)).sum::<f64>() - c / alpha_plus
        });
        p.push(x);
    }
    p.remove(0);
    p
}

/// Rates of the prose-Vegas flows between arrivals `i` and `i+1` (thesis
/// eq. (4.12)): `x+_j(i) = alpha+ (d + p(j-1))/(p(i) - p(j-1))`.
pub fn vegas_persistent_rates(p: &[f64], i: usize, alpha_plus: f64, d: f64) -> Vec<f64> {
    (1..=i)
        .map(|j| {
            let pj = if j == 1 { 0.0 } else { p[j - 2] };
            alpha_plus * (d + pj) / (p[i - 1] - pj)
        })
        .collect()
}

/// One row of a persistent-congestion table: the state with `n` flows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PersistentRow {
    /// Number of flows.
    pub n: usize,
    /// Total queueing delay p(n), seconds.
    pub p_s: f64,
    /// Queue, packets (`c p(n)`).
    pub queue_pkts: f64,
    /// Rates x_1..x_n, packets/s (oldest first).
    pub rates: Vec<f64>,
    /// Oldest flow's share relative to fair: `x_1/(c/n)` (§4.3.3 criterion 1).
    pub x1_over_fair: f64,
    /// Jain's index (4.24).
    pub jain: f64,
    /// Queue relative to the one-flow queue, p(n)/p(1) (Fig. 4.8 reading).
    pub p_over_p1: f64,
}

fn rows(p: &[f64], c: f64, rates: impl Fn(usize) -> Vec<f64>) -> Vec<PersistentRow> {
    (1..=p.len())
        .map(|n| {
            let x = rates(n);
            PersistentRow {
                n,
                p_s: p[n - 1],
                queue_pkts: c * p[n - 1],
                x1_over_fair: x[0] / (c / n as f64),
                jain: jain(&x),
                p_over_p1: p[n - 1] / p[0],
                rates: x,
            }
        })
        .collect()
}

/// FAST persistent-congestion table for 1..=n flows (eqs. (4.19), (4.20)).
pub fn fast_persistent_table(n: usize, alpha: f64, c: f64) -> Vec<PersistentRow> {
    let p = fast_persistent_delays(n, alpha, c);
    rows(&p, c, |i| fast_persistent_rates(&p, i, alpha))
}

/// Prose-Vegas persistent-congestion table (eqs. (4.10), (4.12)).
pub fn vegas_persistent_table(n: usize, alpha_plus: f64, c: f64, d: f64) -> Vec<PersistentRow> {
    let p = vegas_persistent_delays(n, alpha_plus, c, d);
    rows(&p, c, |i| vegas_persistent_rates(&p, i, alpha_plus, d))
}

/// Older FAST flow's share with two flows: `1/(1 + phi_g) = 2/(3 + √5) ≈
/// 0.382` (thesis eq. (4.23)), independent of alpha, c and d.
pub fn fast_two_flow_share() -> f64 {
    2.0 / (3.0 + 5f64.sqrt())
}

/// Older prose-Vegas flow's share with two flows, `a = alpha+/c` (thesis
/// eq. (4.22)): `2/(3 + a + √((1+a)(5+a)))`.
pub fn vegas_two_flow_share(a: f64) -> f64 {
    2.0 / (3.0 + a + ((1.0 + a) * (5.0 + a)).sqrt())
}

/// Prose Vegas `p+(2)/p+(1)` (thesis eq. (4.21)).
pub fn vegas_p2_over_p1(d: f64, p1: f64) -> f64 {
    (3.0 * d + p1 + ((d + p1) * (5.0 * d + p1)).sqrt()) / (2.0 * d)
}

/// Queue increase `b1` when one new FAST flow joins `n` flows that know the
/// true `d` (thesis eq. (4.26)): `b1 = alpha (1 + √(1+4N))/2`.
pub fn new_flow_b1(n: usize, alpha: f64) -> f64 {
    alpha * (1.0 + (1.0 + 4.0 * n as f64).sqrt()) / 2.0
}

/// Ratio of an existing flow's rate to the new flow's rate, pure FAST:
/// `x0/x1 = b1/(N alpha + b1)` (the "value predicted by (4.26)" of Fig.
/// 4.10); independent of alpha, c and d.
pub fn new_flow_ratio(n: usize) -> f64 {
    let b1 = new_flow_b1(n, 1.0);
    b1 / (n as f64 + b1)
}

/// New flow's rate before the four phases (note §4.8):
/// `x1 = 2c/(1 + √(1+4N))`.
pub fn new_flow_rate(n: usize, c: f64) -> f64 {
    2.0 * c / (1.0 + (1.0 + 4.0 * n as f64).sqrt())
}

/// Queue increases `b_1..=b_m` for new flows joining `n` flows that know the
/// true `d` (each keeping `b0 = alpha`), solving thesis eq. (C.4)
/// `N/(N b0 + Σ_{k=1..i} b_k) + Σ_{j=1..i} 1/(Σ_{k=j..i} b_k) = 1/alpha`.
pub fn new_flow_increments(n: usize, m: usize, alpha: f64) -> Vec<f64> {
    let nf = n as f64;
    let mut b: Vec<f64> = Vec::with_capacity(m);
    for _ in 0..m {
        let prev = b.clone();
        let x = root_decreasing(0.0, alpha, |bi| {
            let total: f64 = prev.iter().sum::<f64>() + bi;
            let mut s = if n > 0 {
                nf / (nf * alpha + total)
            } else {
                0.0
            };
            // Σ_{j} 1/(Σ_{k=j..i} b_k): suffix sums.
            let mut suffix = bi;
            s += 1.0 / suffix;
            for bk in prev.iter().rev() {
                suffix += bk;
                s += 1.0 / suffix;
            }
            s - 1.0 / alpha
        });
        b.push(x);
    }
    b
}

/// Coefficients `a_1..=a_m` of the large-N asymptotics `b_i/alpha ≈ a_i √N`
/// (thesis eq. (4.29), read with the lower index k = 1):
/// `Σ_{j=1..i} 1/(Σ_{k=j..i} a_k) = Σ_{k=1..i} a_k`.
pub fn new_flow_asymptotic_coefficients(m: usize) -> Vec<f64> {
    let mut a: Vec<f64> = Vec::with_capacity(m);
    for _ in 0..m {
        let prev = a.clone();
        // LHS - RHS is decreasing in a_i.
        let x = root_decreasing(0.0, 1.0, |ai| {
            let mut suffix = ai;
            let mut s = 1.0 / suffix;
            for ak in prev.iter().rev() {
                suffix += ak;
                s += 1.0 / suffix;
            }
            s - suffix
        });
        a.push(x);
    }
    a
}

/// Time for the queue to empty during the four-phase depletion, with `n`
/// existing flows, rate-scaling factor `r` (note §4.8, thesis §4.4.2):
/// `T = alpha N r (1+s)/(2c(r-1)) + alpha r (1+s)²/(4c(r-1))`, `s = √(1+4N)`.
pub fn drain_time(n: usize, alpha: f64, c: f64, r: f64) -> f64 {
    let nf = n as f64;
    let s = (1.0 + 4.0 * nf).sqrt();
    alpha * nf * r * (1.0 + s) / (2.0 * c * (r - 1.0))
        + alpha * r * (1.0 + s).powi(2) / (4.0 * c * (r - 1.0))
}

/// [`drain_time`] for `r → ∞`: `alpha/(2c) (1 + 3N + (N+1)√(1+4N))`.
pub fn drain_time_limit(n: usize, alpha: f64, c: f64) -> f64 {
    let nf = n as f64;
    alpha / (2.0 * c) * (1.0 + 3.0 * nf + (nf + 1.0) * (1.0 + 4.0 * nf).sqrt())
}

/// The thesis's approximation used for Fig. 4.10's thresholds:
/// `alpha/c (N^{3/2} + N)` ("about 4.16 (N^{3/2} + N) ms" at alpha = 50,
/// c = 12019 pkt/s).
pub fn drain_time_thesis_approx(n: usize, alpha: f64, c: f64) -> f64 {
    let nf = n as f64;
    alpha / c * (nf.powf(1.5) + nf)
}

/// Largest N (up to `n_max`) whose drain time `t(N)` is below the smallest
/// RTT on the link `d`: the four-phase start still empties the queue
/// (thesis eq. (4.31): `N ≲ (c d/alpha)^{2/3}`).
pub fn drain_threshold(d: f64, n_max: usize, t: impl Fn(usize) -> f64) -> usize {
    (1..=n_max).take_while(|&n| t(n) < d).last().unwrap_or(0)
}

/// The scaling rule (4.31): `(c d/alpha)^{2/3}`.
pub fn drain_threshold_scaling(alpha: f64, c: f64, d: f64) -> f64 {
    (c * d / alpha).powf(2.0 / 3.0)
}

/// alpha-adjusting recovery (thesis eq. (4.33)):
/// `alpha(t) = alpha0 - (alpha0 - alpha_s) e^{-k t}`.
pub fn alpha_recovery(alpha0: f64, alpha_s: f64, k: f64, t: f64) -> f64 {
    alpha0 - (alpha0 - alpha_s) * (-k * t).exp()
}

/// Time for alpha-adjusting to recover from `alpha_s` to `frac * alpha0`:
/// `ln((alpha0 - alpha_s)/((1 - frac) alpha0))/k`.
pub fn alpha_recovery_time(alpha0: f64, alpha_s: f64, k: f64, frac: f64) -> f64 {
    ((alpha0 - alpha_s) / ((1.0 - frac) * alpha0)).ln() / k
}

/// Capacity in packets/s of a link of `rate_bps` carrying packets of
/// `packet_bytes` on the wire (thesis: 1000-byte packets, ns-2 adds 40).
pub fn pkts_per_s(rate_bps: f64, packet_bytes: f64) -> f64 {
    rate_bps / (8.0 * packet_bytes)
}

/// Rates (packets/s) of the FAST flows of the thesis's parking lot
/// (Appendix B2; eqs. (4.13)-(4.16), proportional fairness with each flow's
/// queueing delay its links' sum) in phase 0 (flows 1 and 2 on link A), 1
/// (flow 1 over A and B, flow 3 on B) or 2 (flow 1 over A and C, flows 3
/// and 4 on C), every flow with `alpha`, every link of capacity `c`; flow 2
/// over-estimates its propagation delay by `delta2` seconds (it started
/// with flow 1's `alpha` packets queued at A: `delta2 = alpha / c`).
/// Solved by bisection on the links' queueing delays.
pub fn parking_lot_rates(phase: usize, alpha: f64, c: f64, delta2: f64) -> Vec<f64> {
    let bis = |f: &dyn Fn(f64) -> f64, lo: f64| {
        // f decreasing in p, root above lo.
        let (mut a, mut b) = (lo, lo + 1e-3);
        while f(b) > 0.0 {
            b = lo + 2.0 * (b - lo);
        }
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if f(m) > 0.0 {
                a = m
            } else {
                b = m
            }
        }
        0.5 * (a + b)
    };
    match phase {
        // Flows 1, 2 on link A.
        0 => {
            let pa = bis(&|p| alpha / p + alpha / (p - delta2) - c, delta2);
            vec![alpha / pa, alpha / (pa - delta2)]
        }
        // Flows 1, 2 (A), 1, 3 (B).
        1 => {
            let inner = |pa: f64| bis(&|pb| alpha / (pa + pb) + alpha / pb - c, 0.0);
            let pa = bis(
                &|pa| {
                    let pb = inner(pa);
                    alpha / (pa + pb) + alpha / (pa - delta2) - c
                },
                delta2,
            );
            let pb = inner(pa);
            vec![alpha / (pa + pb), alpha / (pa - delta2), alpha / pb]
        }
        // Flows 1, 2 (A), 1, 3, 4 (C).
        _ => {
            let inner = |pa: f64| bis(&|pc| alpha / (pa + pc) + 2.0 * alpha / pc - c, 0.0);
            let pa = bis(
                &|pa| {
                    let pc = inner(pa);
                    alpha / (pa + pc) + alpha / (pa - delta2) - c
                },
                delta2,
            );
            let pc = inner(pa);
            vec![
                alpha / (pa + pc),
                alpha / (pa - delta2),
                alpha / pc,
                alpha / pc,
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parking_lot_without_error_is_proportionally_fair() {
        // No baseRTT error: C/2, C/2; then C/3, 2C/3, 2C/3; then C/4, 3C/4, 3C/8, 3C/8.
        let c = 1000.0;
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6 * c);
        assert!(close(&parking_lot_rates(0, 10.0, c, 0.0), &[500.0, 500.0]));
        assert!(close(
            &parking_lot_rates(1, 10.0, c, 0.0),
            &[c / 3.0, 2.0 * c / 3.0, 2.0 * c / 3.0]
        ));
        assert!(close(
            &parking_lot_rates(2, 10.0, c, 0.0),
            &[c / 4.0, 3.0 * c / 4.0, 3.0 * c / 8.0, 3.0 * c / 8.0]
        ));
        // Flow 2's error gives it more than flow 1.
        let r = parking_lot_rates(0, 10.0, c, 10.0 / c);
        assert!(r[1] > r[0] && (r[0] + r[1] - c).abs() < 1e-6 * c);
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn fast_persistent_matches_the_note_table() {
        // Note §6.3: c = 12500 pkt/s, alpha = 200.
        let t = fast_persistent_table(10, 200.0, 12500.0);
        let q: Vec<f64> = t.iter().map(|r| r.queue_pkts).collect();
        let want = [
            200.0, 523.6, 919.9, 1368.4, 1857.9, 2381.1, 2932.9, 3509.8, 4108.7, 4727.4,
        ];
        for (a, b) in q.iter().zip(want) {
            assert!(close(*a, b, 1e-4), "{a} vs {b}");
        }
        let r10 = &t[9].rates;
        assert!(close(r10[0], 528.8, 1e-3));
        assert!(close(r10[1], 552.2, 1e-3));
        assert!(close(r10[5], 871.2, 1e-3));
        assert!(close(r10[9], 4040.5, 1e-3));
        assert!(close(t[9].x1_over_fair, 0.423, 2e-3));
        assert!(close(t[9].jain, 0.594, 2e-3));
        assert!(close(t[9].p_over_p1, 23.64, 1e-3));
        assert!(close(t[2].rates[1], 3472.9, 1e-3));
        assert!(close(t[1].p_s * 1000.0, 41.89, 1e-3));
        // Rates add up to c at every n (4.17).
        for r in &t {
            assert!(close(r.rates.iter().sum(), 12500.0, 1e-9));
        }
        // Two flows: 0.382 / 0.618, three: 0.217 / 0.278 / 0.505 (B1).
        assert!(close(t[1].rates[0] / 12500.0, fast_two_flow_share(), 1e-9));
        assert!(close(fast_two_flow_share(), 0.38197, 1e-4));
        let s3: Vec<f64> = t[2].rates.iter().map(|x| x / 12500.0).collect();
        assert!((s3[0] - 0.217).abs() < 5e-4 && (s3[1] - 0.278).abs() < 5e-4);
        assert!((s3[2] - 0.505).abs() < 5e-4);
        // B(i)/B(1) - ln i = 0.791 at i = 10 (note §4.5).
        let b10 = t[9].queue_pkts - t[8].queue_pkts;
        assert!(((b10 / 200.0) - 10f64.ln() - 0.791).abs() < 1e-3);
        // Shares are independent of alpha and c; delays scale with alpha/c.
        let u = fast_persistent_table(10, 50.0, 3125.0);
        assert!(close(u[9].p_s, t[9].p_s, 1e-9));
        assert!(close(u[9].rates[5] * 4.0, r10[5], 1e-9));
    }

    #[test]
    fn vegas_persistent_matches_the_note_tables() {
        let t = vegas_persistent_table(10, 2475.0, 12500.0, 0.04);
        assert!(close(t[9].rates[0], 118.0, 0.01), "{}", t[9].rates[0]);
        assert!(close(t[9].rates[1], 142.7, 1e-3));
        assert!(close(t[9].rates[5], 557.3, 1e-3));
        assert!(close(t[9].rates[9], 6077.0, 1e-3), "{}", t[9].rates[9]);
        assert!(close(t[9].queue_pkts, 10487.4, 1e-4));
        assert!(close(t[0].queue_pkts, 99.0, 1e-9));
        assert!(close(t[9].x1_over_fair, 0.094, 0.01));
        assert!(close(t[9].jain, 0.335, 2e-3));
        assert!(close(t[9].p_over_p1, 105.9, 1e-3));
        let t = vegas_persistent_table(10, 250.0, 12500.0, 0.04);
        assert!(close(t[9].rates[1], 474.7, 1e-3));
        assert!(close(t[9].rates[5], 828.5, 1e-3));
        assert!(close(t[9].queue_pkts, 278.6, 1e-3));
        assert!(close(t[9].x1_over_fair, 0.359, 2e-3));
        assert!(close(t[9].jain, 0.542, 2e-3));
        assert!(close(t[9].p_over_p1, 27.86, 1e-3));
        // Table 4.1: alpha+ = 2500, c = 125, d = 40 ms.
        let p = vegas_persistent_delays(10, 2500.0, 125.0, 0.04);
        let want = [0.8, 18.37, 403.3, 8839.0, 1.937e5, 4.245e6, 9.30e7, 2.04e9];
        for (a, b) in p.iter().zip(want) {
            assert!(close(*a, b, 2e-3), "{a} vs {b}");
        }
        // With the 8.8 ms packetisation delay in d: 0.976, 22.4, 492.
        let p = vegas_persistent_delays(3, 2500.0, 125.0, 0.0488);
        assert!(close(p[0], 0.976, 1e-3) && close(p[1], 22.4, 0.01) && close(p[2], 492.0, 0.01));
        // Two-flow closed forms (4.21), (4.22).
        assert!(close(vegas_two_flow_share(20.0), 0.0436, 2e-3));
        assert!(close(vegas_two_flow_share(250.0 / 12500.0), 0.3786, 1e-3));
        assert!(close(vegas_two_flow_share(2475.0 / 12500.0), 0.3513, 1e-3));
        let t = vegas_persistent_table(2, 2475.0, 12500.0, 0.04);
        assert!(close(
            t[1].rates[0] / 12500.0,
            vegas_two_flow_share(2475.0 / 12500.0),
            1e-9
        ));
        assert!(close(
            t[1].p_s / t[0].p_s,
            vegas_p2_over_p1(0.04, t[0].p_s),
            1e-9
        ));
    }

    #[test]
    fn new_flow_closed_forms() {
        let want = [
            (1, 0.618),
            (2, 0.500),
            (3, 0.434),
            (5, 0.358),
            (10, 0.270),
            (11, 0.260),
            (12, 0.250),
            (100, 0.095),
        ];
        for (n, r) in want {
            assert!((new_flow_ratio(n) - r).abs() < 6e-4, "N={n}");
        }
        assert!((new_flow_b1(10, 50.0) / 50.0 - 3.70).abs() < 5e-3);
        // (C.4) solved numerically gives b1 of (4.26) exactly.
        for n in [1, 3, 10, 40] {
            let b = new_flow_increments(n, 3, 50.0);
            assert!(close(b[0], new_flow_b1(n, 50.0), 1e-9));
        }
        // a_i of (4.29): 1, 0.801938, 0.697845, 0.629923, 0.580723.
        let a = new_flow_asymptotic_coefficients(5);
        for (x, y) in a.iter().zip([1.0, 0.801938, 0.697845, 0.629923, 0.580723]) {
            assert!((x - y).abs() < 1e-6, "{x} {y}");
        }
        // b_2/alpha -> a_2 sqrt(N) for large N.
        let b = new_flow_increments(1_000_000, 2, 1.0);
        assert!(close(b[1] / 1000.0, 0.801938, 0.01));
        // The new flow's rate 2c/(1+s) is alpha c/b1.
        assert!(close(
            new_flow_rate(10, 12019.0),
            50.0 * 12019.0 / new_flow_b1(10, 50.0),
            1e-12
        ));
    }

    #[test]
    fn drain_time_and_thresholds() {
        let c = pkts_per_s(100e6, 1040.0);
        for (n, ms) in [(1, 17.6), (2, 33.3), (3, 50.8), (5, 90.5), (10, 211.0)] {
            let t = drain_time_limit(n, 50.0, c) * 1000.0;
            assert!(
                (t - ms).abs() < 0.06 * ms.max(1.0) / 10.0 + 0.5,
                "N={n}: {t}"
            );
        }
        // Finite r approaches the limit.
        assert!(close(
            drain_time(10, 50.0, c, 1e9),
            drain_time_limit(10, 50.0, c),
            1e-6
        ));
        assert!(drain_time(10, 50.0, c, 50.0) > drain_time_limit(10, 50.0, c));
        // Thresholds: exact N <= 9 (200 ms), N <= 2 (40 ms); thesis approx
        // N <= 11 and N <= 3.
        let ex = |n| drain_time_limit(n, 50.0, c);
        let ap = |n| drain_time_thesis_approx(n, 50.0, c);
        assert_eq!(drain_threshold(0.2, 100, ex), 9);
        assert_eq!(drain_threshold(0.04, 100, ex), 2);
        assert_eq!(drain_threshold(0.2, 100, ap), 11);
        assert_eq!(drain_threshold(0.04, 100, ap), 3);
        // (4.31) example: alpha/c = 2.5 ms, D = 40 ms: 16^{2/3} = 6.35.
        assert!(close(drain_threshold_scaling(1.0, 400.0, 0.04), 6.35, 1e-3));
    }

    #[test]
    fn alpha_recovery_law() {
        assert!(close(
            alpha_recovery_time(800.0, 400.0, 0.1, 0.9),
            16.09,
            1e-3
        ));
        assert!(close(
            alpha_recovery_time(800.0, 400.0, 0.1, 0.99),
            39.12,
            1e-3
        ));
        assert!(close(
            alpha_recovery(800.0, 400.0, 0.1, 16.094),
            720.0,
            1e-4
        ));
        assert!(close(
            fast_single_window(200.0, 12500.0, 0.1),
            1450.0,
            1e-12
        ));
        assert_eq!(fast_queue_true_d(3, 200.0), 600.0);
    }
}
