//! MaxNet's congestion cost at a link (Wydrowski and Zukerman, "MaxNet: a
//! congestion control architecture", IEEE Commun. Lett. 2002; thesis
//! chapter 5 §5.3.2, eq. (5.6)) and its price for ADPM (thesis L7178-7192).
//!
//! The link integrates the excess of its input rate over its target:
//!
//! `p(t + 1) = p(t) + (sum_i x_i(t) - c) phi`          // thesis eq. (5.6)
//!
//! with the aggregate rate `sum_i x_i` measured as the arrival rate y over
//! the last interval T and the target `c = target x C`. The thesis leaves
//! the gain phi open. A constant phi makes the loop's gain depend on the
//! operating point (with the sources' demand `W / p`,
//! [`dropless_cc::maxnet`], the linearised gain is `phi C^2 / (N W)`), so
//! one value cannot serve a 100 Mb/s and a 10 Gb/s link; we take
//! `phi = alpha (T / d) p(t) / C`, which makes the update
//!
//! `p <- p (1 + (T / d) alpha (y - target C) / C)`
//!
//! and the loop's gain `alpha / d` whatever C, N and W (d the flows' mean
//! round trip, a configured constant as RCP's is). There is no queue term:
//! eq. (5.6) has none, so a queue built while the sources start is drained
//! only by a target below 1. The cost stays within `[W / C, 1e11]`: the
//! thesis lets it go negative (every negative cost maps to level 0), but
//! below `W / C` every source crossing the link asks for more than C and
//! the cost would wind down without any effect on the price the sources
//! see; 1e11 is the mapping's top ([`MAXNET_MAX_COST`]).
//!
//! The link carries the cost as the price `log_q(max(1, p + q)) / m_max`
//! in [0, 1] ([`dropless_cc::price_map::maxnet_price`]), whose path maximum
//! is the path's largest cost (MaxNet feeds back the maximum, not the sum),
//! and marks ADPM-capable packets whose probe type is below it.
//!
//! The update runs lazily on the first arrival of each interval, catching up
//! the intervals without arrivals (y = 0 there), as RCP's does
//! ([`crate::rcp_price`]).

use crate::price_interval::PriceInterval;
use crate::rcp_price::RcpTotals;
use dropless_cc::maxnet::{demand, MAXNET_WEIGHT};
use dropless_cc::price_map::{maxnet_price, maxnet_q, MAXNET_MAX_COST};
use dropless_cc::{Time, MILLISECOND};

/// MaxNet's link parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaxnetConfig {
    /// Update interval T (10 ms).
    pub interval: Time,
    /// The flows' mean round trip d, seconds (0.1).
    pub rtt_s: f64,
    /// Gain alpha: the cost moves by `alpha (T / d)` of itself per unit of
    /// relative excess rate (0.1, RCP's alpha).
    pub alpha: f64,
    /// The target aggregate rate c as a fraction of the capacity (1: the
    /// link's capacity, so the equilibrium is max-min fair over C).
    pub target: f64,
}

impl Default for MaxnetConfig {
    fn default() -> Self {
        MaxnetConfig {
            interval: 10 * MILLISECOND,
            rtt_s: 0.1,
            alpha: 0.1,
            target: 1.0,
        }
    }
}

impl MaxnetConfig {
    /// Checks the parameters; the error names the parameter (`rtt`,
    /// `interval`, `alpha`, `target`) and its allowed values.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rtt_s > 0.0 && self.rtt_s <= 3600.0) {
            return Err(format!(
                "rtt: found {} s, expected from above 0 to 1 h",
                self.rtt_s
            ));
        }
        if self.interval == 0 || dropless_cc::secs(self.interval) > self.rtt_s {
            return Err(format!(
                "interval: found {} ns, expected above 0 and at most the round trip",
                self.interval
            ));
        }
        if !(self.alpha > 0.0 && self.alpha <= 2.0) {
            return Err(format!(
                "alpha: found {}, expected a gain in (0, 2]",
                self.alpha
            ));
        }
        if !(self.target > 0.0 && self.target <= 1.0) {
            return Err(format!(
                "target: found {}, expected a fraction of the capacity in (0, 1]",
                self.target
            ));
        }
        Ok(())
    }
}

/// One link's MaxNet state.
#[derive(Clone, Debug)]
pub struct MaxnetPrice {
    cfg: MaxnetConfig,
    c_bps: f64,
    q: f64,
    cost: f64,
    floor: f64,
    price: f64,
    clock: PriceInterval,
    totals: RcpTotals,
}

impl MaxnetPrice {
    /// MaxNet for a link of `c_bps`, starting at the cost at which a source
    /// asks for C.
    pub fn new(cfg: MaxnetConfig, c_bps: f64) -> Self {
        let q = maxnet_q();
        let floor = (MAXNET_WEIGHT / c_bps).min(MAXNET_MAX_COST);
        MaxnetPrice {
            cfg,
            c_bps,
            q,
            cost: floor,
            floor,
            price: maxnet_price(floor, q),
            clock: PriceInterval::new(cfg.interval),
            totals: RcpTotals::default(),
        }
    }

    /// The current cost p.
    pub fn cost(&self) -> f64 {
        self.cost
    }

    /// The rate a source asks for at this link's cost alone, bits/s.
    pub fn rate_bps(&self) -> f64 {
        demand(self.cost)
    }

    /// Sums over the updates so far (`rate_bps`: the demand at the cost).
    pub fn totals(&self) -> RcpTotals {
        self.totals
    }

    /// The current price in [0, 1].
    pub fn price(&self) -> f64 {
        self.price
    }

    /// A packet of `wire` bytes arrives at `now` with `queue_bytes` waiting:
    /// the price to mark it against.
    #[inline]
    pub fn on_arrival(&mut self, now: Time, wire: u32, queue_bytes: u64) -> f64 {
        for _ in 0..self.clock.ended(now) {
            self.update(queue_bytes);
        }
        self.clock.count(wire);
        self.price
    }

    fn update(&mut self, queue_bytes: u64) {
        let t = self.clock.secs();
        let y = self.clock.take_rate();
        let c = self.c_bps;
        // Thesis eq. (5.6) with phi = alpha (T / d) p / C.
        let phi = self.cfg.alpha * (t / self.cfg.rtt_s) * self.cost / c;
        self.cost =
            (self.cost + (y - self.cfg.target * c) * phi).clamp(self.floor, MAXNET_MAX_COST);
        self.price = maxnet_price(self.cost, self.q);
        self.totals.updates += 1;
        self.totals.rate_bps += demand(self.cost);
        self.totals.input_bps += y;
        self.totals.queue_bytes += queue_bytes as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dropless_cc::price_map::maxnet_cost_of_price;

    #[test]
    fn overload_raises_the_cost_and_spare_capacity_lowers_it() {
        let mut m = MaxnetPrice::new(MaxnetConfig::default(), 100e6);
        let p0 = m.price();
        assert!((m.rate_bps() / 100e6 - 1.0).abs() < 1e-12);
        // 200 Mb/s arriving (two 1500-byte packets every 120 us).
        let mut t = 0;
        while t < 2_000 * MILLISECOND {
            m.on_arrival(t, 1500, 0);
            m.on_arrival(t, 1500, 0);
            t += 120_000;
        }
        assert!(m.rate_bps() < 60e6, "{}", m.rate_bps());
        let p_high = m.price();
        assert!(p_high > p0);
        // The price carries the cost: decoding it gives the cost back.
        let back = maxnet_cost_of_price(p_high, maxnet_q());
        assert!((back / m.cost() - 1.0).abs() < 1e-9);
        // Then 10 Mb/s: the cost falls back to its floor (a source asks C).
        while t < 20_000 * MILLISECOND {
            m.on_arrival(t, 1500, 0);
            t += 1_200_000;
        }
        assert_eq!(m.rate_bps(), 100e6);
        assert_eq!(m.price(), p0);
        // A long idle period is caught up at once.
        m.on_arrival(1_000_000 * MILLISECOND, 1500, 0);
        assert_eq!(m.rate_bps(), 100e6);
    }

    #[test]
    fn sources_at_their_demand_settle_at_the_target() {
        // Three sources sending at the demand of the cost the previous
        // interval ended with (one interval of delay): the aggregate
        // settles at target x C, each source at a third.
        for target in [1.0, 0.9] {
            let cfg = MaxnetConfig {
                target,
                ..MaxnetConfig::default()
            };
            let mut m = MaxnetPrice::new(cfg, 90e6);
            let mut t = 0;
            let mut sent = 0.0;
            for _ in 0..3000 {
                let x = demand(m.cost());
                // One interval of three sources at x, in 1000-bit packets.
                let pkts = (3.0 * x * 0.01 / 1000.0 + sent).floor();
                sent = 3.0 * x * 0.01 / 1000.0 + sent - pkts;
                for k in 0..pkts as u64 {
                    m.on_arrival(t + k * (10 * MILLISECOND) / (pkts as u64), 125, 0);
                }
                t += 10 * MILLISECOND;
            }
            let x = demand(m.cost());
            assert!((x / (target * 30e6) - 1.0).abs() < 0.01, "{target}: {x}");
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let d = MaxnetConfig::default();
        assert!(d.validate().is_ok());
        let bad = |c: MaxnetConfig| c.validate().unwrap_err();
        assert!(bad(MaxnetConfig { rtt_s: 0.0, ..d }).starts_with("rtt:"));
        assert!(bad(MaxnetConfig { interval: 0, ..d }).starts_with("interval:"));
        assert!(bad(MaxnetConfig { alpha: 0.0, ..d }).starts_with("alpha:"));
        assert!(bad(MaxnetConfig { target: 1.5, ..d }).starts_with("target:"));
        assert!(bad(MaxnetConfig { target: 0.0, ..d }).starts_with("target:"));
    }
}
