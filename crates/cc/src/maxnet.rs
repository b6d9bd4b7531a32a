//! A MaxNet source driven by an explicit price (Wydrowski and Zukerman,
//! "MaxNet: a congestion control architecture", IEEE Commun. Lett. 2002;
//! thesis chapter 5 §5.3.2, L7152-7192).
//!
//! MaxNet's links each compute a congestion cost (thesis eq. (5.6),
//! `dropless_sim::maxnet_price`) and the network feeds back the **largest**
//! cost on the path, not the sum: only the most congested link controls a
//! source. A source's rate is a fixed, decreasing function of that cost,
//! its demand function `x = D(p)`; with the same demand function at every
//! source the equilibrium is max-min fair (Wydrowski and Zukerman 2002).
//! ADPM conveys the path's maximum in one ECN bit per packet (thesis
//! L7152-7178), the links carrying the cost through the thesis's mapping
//! `log_q(max(1, p + q))` ([`crate::price_map::maxnet_price`]); the
//! receiver decodes it and the ACKs bring it back ([`AckSample::price`]).
//!
//! The demand function (the thesis does not give one; our choice):
//! `D(p) = W / p` with `W` = [`MAXNET_WEIGHT`], the demand of a source with
//! the logarithmic utility `W ln x`, Wydrowski and Zukerman's homogeneous
//! utility. The thesis's mapping has a constant relative error in the cost,
//! and with `W / p` that is the same relative error in the rate. With
//! `W = 1e14`, the mapping's costs 1e3 to 1e11 stand for 100 Gb/s down to
//! 1 kb/s, the rates RCP's price covers ([`crate::price_map::RCP_MIN_BPS`]).
//!
//! The rest is a price-driven source's ([`crate::price_source`], shared
//! with [`crate::rcp`]): the source paces at its demand, its window grows as in slow start (one packet per packet
//! acknowledged, from 10) up to `window_gain` times the demand's
//! bandwidth-delay product, which bounds what a wrong early estimate can
//! put in flight (the decoder's estimate starts at price 0, the highest
//! rate). MaxNet does not react to loss; on a loss the window halves (the
//! rate stays the demand's) and a timeout restarts it from 10 packets.

use crate::price_map::{maxnet_cost_of_price, maxnet_q, RCP_MAX_BPS, RCP_MIN_BPS};
use crate::price_source::PriceSource;
use crate::{AckSample, CongestionEvent, Control, Controller, Time};

/// The demand function's weight `W`, (bits/s) x (cost unit): `D(p) = W / p`.
pub const MAXNET_WEIGHT: f64 = 1e14;

/// MaxNet's demand function, bits/s: `W / p`, within 1 kb/s to 100 Gb/s
/// (a cost at or below `W / 100 Gb/s`, including every negative cost, asks
/// for 100 Gb/s).
pub fn demand(cost: f64) -> f64 {
    if cost <= MAXNET_WEIGHT / RCP_MAX_BPS {
        return RCP_MAX_BPS;
    }
    (MAXNET_WEIGHT / cost).clamp(RCP_MIN_BPS, RCP_MAX_BPS)
}

/// The cost at which a source asks for `rate_bps` (the inverse of
/// [`demand`] within its range).
pub fn cost_for_rate(rate_bps: f64) -> f64 {
    MAXNET_WEIGHT / rate_bps.clamp(RCP_MIN_BPS, RCP_MAX_BPS)
}

/// The MaxNet source.
#[derive(Clone, Debug)]
pub struct Maxnet {
    src: PriceSource,
    q: f64,
}

impl Maxnet {
    /// A source for packets of `wire_size` bytes on the wire, its window at
    /// most `window_gain` bandwidth-delay products of its demand.
    pub fn new(wire_size: u32, window_gain: f64) -> Maxnet {
        Maxnet {
            src: PriceSource::new(wire_size, window_gain),
            q: maxnet_q(),
        }
    }
}

impl Controller for Maxnet {
    fn name(&self) -> &'static str {
        "maxnet"
    }

    fn control(&self) -> Control {
        self.src.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        // The path's largest cost, decoded (thesis L7178-7192), and the
        // source's rate its demand there.
        let q = self.q;
        self.src.on_ack(ack, |p| demand(maxnet_cost_of_price(p, q)));
    }

    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
        self.src.on_congestion_event();
    }

    fn on_rto(&mut self, _now: Time) {
        self.src.on_rto();
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("rate_bps", self.src.rate_bps().unwrap_or(f64::NAN)));
    }

    fn wants_price(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::price_map::maxnet_price;
    use crate::MILLISECOND;

    fn ack(price: Option<f64>, acked: u32) -> AckSample {
        AckSample {
            srtt: 100 * MILLISECOND,
            newly_acked: acked,
            price_code: price.map_or(crate::adpm::NO_PRICE, crate::adpm::price_code),
            ..AckSample::default()
        }
    }

    /// The price a path of links with these costs carries: ADPM conveys
    /// the maximum of the links' prices (thesis L6649-6655).
    fn path_price(costs: &[f64]) -> f64 {
        costs
            .iter()
            .map(|&c| maxnet_price(c, maxnet_q()))
            .fold(0.0, f64::max)
    }

    fn rate(c: &Maxnet) -> f64 {
        c.control().pacing_rate.unwrap() * 8.0
    }

    #[test]
    fn the_rate_follows_the_price() {
        let mut c = Maxnet::new(1500, 2.0);
        assert!(c.wants_price());
        assert_eq!(c.control().pacing_rate, None);
        // A cost asking for 12 Mb/s: 1000 packets/s of 1500 B, 100 per
        // 100 ms, window cap 200.
        for _ in 0..1000 {
            c.on_ack(0, &ack(Some(path_price(&[cost_for_rate(12e6)])), 1));
        }
        // The code's 2^-16 steps of price: ln(1e11) / 65536 = 3.9e-4 of cost.
        assert!((rate(&c) / 12e6 - 1.0).abs() < 4e-4, "{}", rate(&c));
        assert!((c.control().cwnd.unwrap() - 200.0).abs() < 0.1);
        // Ten times the cost, a tenth of the rate, and the window follows.
        c.on_ack(0, &ack(Some(path_price(&[cost_for_rate(1.2e6)])), 1));
        assert!((rate(&c) / 1.2e6 - 1.0).abs() < 4e-4, "{}", rate(&c));
        assert!(c.control().cwnd.unwrap() <= 20.0 * (1.0 + 4e-4));
        // A lower cost raises the rate again: the demand is decreasing.
        c.on_ack(0, &ack(Some(path_price(&[cost_for_rate(50e6)])), 1));
        assert!((rate(&c) / 50e6 - 1.0).abs() < 4e-4, "{}", rate(&c));
    }

    #[test]
    fn the_most_congested_link_alone_sets_the_rate() {
        // Two links on the path: the rate is the demand at the larger cost
        // (MaxNet), not at the sum (which would ask for 1/(1/10 + 1/40)
        // = 8 Mb/s).
        let mut c = Maxnet::new(1500, 2.0);
        let (a, b) = (cost_for_rate(10e6), cost_for_rate(40e6));
        c.on_ack(0, &ack(Some(path_price(&[a, b])), 1));
        assert!((rate(&c) / 10e6 - 1.0).abs() < 4e-4, "{}", rate(&c));
        c.on_ack(0, &ack(Some(path_price(&[b, a, b])), 1));
        assert!((rate(&c) / 10e6 - 1.0).abs() < 4e-4, "{}", rate(&c));
        // Lowering the less congested link's cost changes nothing.
        c.on_ack(0, &ack(Some(path_price(&[a, b / 4.0])), 1));
        assert!((rate(&c) / 10e6 - 1.0).abs() < 4e-4, "{}", rate(&c));
    }

    #[test]
    fn the_demand_is_bounded() {
        assert_eq!(demand(-5e10), RCP_MAX_BPS);
        assert_eq!(demand(0.0), RCP_MAX_BPS);
        assert_eq!(demand(1e12), RCP_MIN_BPS);
        let mut c = Maxnet::new(1500, 2.0);
        // Price 0 (nothing marked): 100 Gb/s; price 1: the mapping's top
        // cost 1e11, 1 kb/s; the window never below 4 packets.
        c.on_ack(0, &ack(Some(0.0), 1));
        assert!((rate(&c) / RCP_MAX_BPS - 1.0).abs() < 1e-9, "{}", rate(&c));
        c.on_ack(0, &ack(Some(1.0 - 1.0 / 65536.0), 1));
        assert!(rate(&c) < 1.01e3, "{}", rate(&c));
        assert_eq!(c.control().cwnd, Some(4.0));
        // Halving on loss, never below 2; a timeout restarts at 10.
        for _ in 0..5 {
            c.on_congestion_event(0, &crate::newreno::testkit::loss(10));
        }
        assert_eq!(c.control().cwnd, Some(2.0));
        c.on_rto(0);
        assert_eq!(c.control().cwnd, Some(10.0));
    }
}
