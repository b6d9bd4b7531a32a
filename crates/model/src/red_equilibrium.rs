//! RED's operating point with long-lived NewReno flows: where RED's control
//! law meets the flows' response function (Firoiu and Borden, "A study of
//! active queue management for congestion control", INFOCOM 2000, §3-4).
//!
//! * Control law, as `crates/sim/src/red.rs` implements it: between the
//!   thresholds `p_b = max_p (q - min_th) / (max_th - min_th)`, and the
//!   count correction makes the gaps between marks uniform on
//!   `1 ..= 1/p_b - 1`, so the per-packet rate is `2 p_b` (capped at 1;
//!   the gentle region continues `p_b` from `max_p` to 1 up to `2 max_th`).
//! * Queue law: N NewReno flows share a link of C packets/s; each flow's
//!   window is `w = (C R0 + q) / N` (the link full, round trip `R0 + q/C`),
//!   and its loss rate is `p = 3 / (2 w^2)` (Mathis, Semke, Mahdavi and Ott
//!   1997: `w = sqrt(3 / (2 p))`, one ACK per packet).
//!
//! The operating point is the queue `q*` (packets) where the two rates are
//! equal; both are monotone in `q`, so bisection finds it.

/// RED's per-packet mark or drop rate at average queue `q`.
pub fn red_rate(q: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> f64 {
    let p_b = if q < min_th {
        0.0
    } else if q < max_th {
        max_p * (q - min_th) / (max_th - min_th)
    } else if gentle && q < 2.0 * max_th {
        max_p + (1.0 - max_p) * (q - max_th) / max_th
    } else {
        1.0
    };
    (2.0 * p_b).min(1.0)
}

/// NewReno's loss rate when `n` flows keep a link of `c` packets/s busy
/// with `q` packets queued and round-trip propagation `r0` seconds.
pub fn reno_rate(q: f64, n: f64, c: f64, r0: f64) -> f64 {
    let w = (c * r0 + q) / n;
    1.5 / (w * w)
}

/// The operating point: `(q*, p*)`, or an error when the laws do not meet
/// between `min_th` and `2 max_th` (or bad parameters).
pub fn operating_point(
    n: f64,
    c: f64,
    r0: f64,
    min_th: f64,
    max_th: f64,
    max_p: f64,
    gentle: bool,
) -> Result<(f64, f64), String> {
    if !(n >= 1.0
        && c > 0.0
        && r0 >= 0.0
        && min_th >= 0.0
        && max_th > min_th
        && max_p > 0.0
        && max_p <= 1.0)
    {
        return Err(
            "needs n >= 1, c > 0, r0 >= 0, 0 <= min_th < max_th and max_p in (0, 1]".into(),
        );
    }
    let f = |q: f64| red_rate(q, min_th, max_th, max_p, gentle) - reno_rate(q, n, c, r0);
    let (mut lo, mut hi) = (min_th, 2.0 * max_th);
    if f(lo) > 0.0 || f(hi) < 0.0 {
        return Err(format!(
            "no operating point between min_th and 2 max_th: NewReno's rate is {:.3e} at min_th and {:.3e} at 2 max_th",
            reno_rate(lo, n, c, r0),
            reno_rate(hi, n, c, r0)
        ));
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let q = 0.5 * (lo + hi);
    Ok((q, reno_rate(q, n, c, r0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_laws_meet_where_both_rates_agree() {
        let (q, p) = operating_point(30.0, 8333.3, 0.1, 100.0, 300.0, 0.002, true).unwrap();
        assert!((red_rate(q, 100.0, 300.0, 0.002, true) - p).abs() < 1e-12);
        assert!(q > 100.0 && q < 300.0, "{q}");
        // Fewer flows need a lower rate: a shorter queue.
        let (q2, _) = operating_point(10.0, 8333.3, 0.1, 100.0, 300.0, 0.002, true).unwrap();
        assert!(q2 < q);
        // So many flows that even dropping every packet cannot hold them.
        assert!(operating_point(1e5, 8333.3, 0.1, 100.0, 300.0, 0.002, false).is_err());
        assert!(operating_point(3.0, 8333.3, 0.1, 300.0, 100.0, 0.002, false).is_err());
    }
}
