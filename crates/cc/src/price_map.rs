//! The thesis's two price mappings that let ADPM carry MaxNet and RCP
//! prices in [0, 1] (§5.3.2, L7141-7228; reference note §4). Shared by the
//! simulator's price-computing links, the explicit-price controllers and
//! the Monte Carlo study.

/// The smallest rate RCP's price covers, bits/s (thesis L7204: 1 kb/s).
pub const RCP_MIN_BPS: f64 = 1e3;
/// The largest, bits/s (thesis L7204: 100 Gb/s).
pub const RCP_MAX_BPS: f64 = 100e9;

/// MaxNet's level, thesis L7178-7192: `m = ceil(log_q(max(1, p + q)))`.
/// Costs at or below `1 - q` (every negative cost) are level 0, a cost of 0
/// level 1; above, levels are spaced by the factor q.
pub fn maxnet_level(p: f64, q: f64) -> u64 {
    ((p + q).max(1.0).ln() / q.ln()).ceil() as u64
}

/// The cost a MaxNet level stands for: `q^m - q`, the level's upper edge
/// (reference note §4.1 \[DERIVED\]).
pub fn maxnet_cost(m: u64, q: f64) -> f64 {
    q.powf(m as f64) - q
}

/// The base q giving `levels` levels up to the cost `p_max`:
/// `p_max^(1/levels)`.
pub fn maxnet_base(levels: u64, p_max: f64) -> f64 {
    p_max.powf(1.0 / levels as f64)
}

/// The largest MaxNet cost the mapping covers (thesis L7176-7178: costs
/// up to 100 Gb/s).
pub const MAXNET_MAX_COST: f64 = 1e11;

/// The base q of the MaxNet mapping the links and sources share: 1024
/// levels up to [`MAXNET_MAX_COST`] (reference note E13: q = 1.0250432).
pub fn maxnet_q() -> f64 {
    maxnet_base(1024, MAXNET_MAX_COST)
}

/// MaxNet's cost as a price in [0, 1] that ADPM's maximum carries: the
/// thesis's level `log_q(max(1, p + q))` (L7178-7192) over the level of
/// [`MAXNET_MAX_COST`], **not rounded up** to a whole level. The thesis
/// rounds to fit a 10-bit probe type; ADPM's probe types here have 16 bits
/// ([`crate::adpm::THRESHOLDS`]), so the code itself is the quantiser and
/// the relative resolution is `ln(p_max) / 65536` (3.9e-4) rather than
/// `q - 1` (2.5 %). Monotone in the cost, so the path's largest cost has
/// the largest price.
pub fn maxnet_price(p: f64, q: f64) -> f64 {
    let top = (MAXNET_MAX_COST + q).ln();
    ((p + q).max(1.0).ln() / top).clamp(0.0, 1.0)
}

/// The cost a price in [0, 1] stands for (the inverse of [`maxnet_price`]
/// above a price of 0: `q^(price m_max) - q`, the continuous form of
/// [`maxnet_cost`]).
pub fn maxnet_cost_of_price(price: f64, q: f64) -> f64 {
    (MAXNET_MAX_COST + q).powf(price) - q
}

/// RCP levels for rates from `r_min` to `r_max` at relative granularity
/// `g`: `ceil(log_(1+g)(r_max / r_min))` (thesis L7204-7214: 931 for
/// 1 kb/s to 100 Gb/s at 2 %).
pub fn rcp_levels(r_min: f64, r_max: f64, g: f64) -> u64 {
    ((r_max / r_min).ln() / g.ln_1p()).ceil() as u64
}

/// RCP's rate as a price in [0, 1] that ADPM's maximum carries:
/// `ln(r_max / r) / ln(r_max / r_min)` (the thesis's `log(1/r)`, L7194-7202,
/// normalised as in reference note §4.2), so the smallest rate on the path
/// has the largest price.
pub fn rcp_price(r: f64, r_min: f64, r_max: f64) -> f64 {
    ((r_max / r).ln() / (r_max / r_min).ln()).clamp(0.0, 1.0)
}

/// The rate a price in [0, 1] stands for (the inverse of [`rcp_price`]).
pub fn rcp_rate(p: f64, r_min: f64, r_max: f64) -> f64 {
    r_max * (r_min / r_max).powf(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference note §8 E12, E13: exact.
    #[test]
    fn the_thesis_levels() {
        assert_eq!(rcp_levels(1e3, 100e9, 0.02), 931);
        let q = 1.0250432;
        let got: Vec<u64> = [-5e10, 0.0, 1.0, 10.0, 1e3, 1e9, 1e11]
            .iter()
            .map(|&p| maxnet_level(p, q))
            .collect();
        assert_eq!(got, [0, 1, 29, 98, 280, 838, 1025]);
        for p in [100.0, 1234.5, 1e6, 7e10] {
            let c = maxnet_cost(maxnet_level(p, q), q);
            assert!(c >= p && (c - p) / p <= q - 1.0, "p = {p}, decoded {c}");
        }
        // The unrounded form agrees with the levels and inverts.
        for p in [1.0, 10.0, 1e3, 2.08e6, 1e9, 1e11] {
            let x = maxnet_price(p, q) * (1e11 + q).ln() / q.ln();
            assert_eq!(x.ceil() as u64, maxnet_level(p, q), "p = {p}");
            let back = maxnet_cost_of_price(maxnet_price(p, q), q);
            assert!((back - p).abs() / p < 1e-9, "p = {p}, back {back}");
        }
        assert!((maxnet_q() - q).abs() < 1e-6);
        assert_eq!(maxnet_price(-5e10, q), 0.0);
        assert_eq!(maxnet_price(1e12, q), 1.0);
        let r = 3.7e6;
        assert!((rcp_rate(rcp_price(r, 1e3, 1e11), 1e3, 1e11) - r).abs() / r < 1e-12);
    }
}
