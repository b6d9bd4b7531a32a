//! An RCP-style rate controller driven by an explicit price (thesis chapter
//! 5 §5.3.2 and chapter 6; RCP: Dukkipati, Kobayashi, Zhang-Shen and
//! McKeown, "Processor sharing flows in the Internet", IWQoS 2005).
//!
//! RCP's links compute a rate `R` each flow may send at and a flow sends at
//! the smallest `R` on its path. Here the links carry `R` as the price
//! `ln(r_max / R) / ln(r_max / r_min)` ([`crate::price_map::rcp_price`]),
//! whose path maximum ADPM conveys in one ECN bit per packet; the receiver
//! decodes it and the ACKs bring it back ([`AckSample::price`]). The
//! controller paces at the decoded rate ([`crate::price_map::rcp_rate`]),
//! with the window of a price-driven source ([`crate::price_source`]): RCP
//! itself does not react to loss.

use crate::price_map::{rcp_rate, RCP_MAX_BPS, RCP_MIN_BPS};
use crate::price_source::PriceSource;
use crate::{AckSample, CongestionEvent, Control, Controller, Time};

/// The RCP-style controller.
#[derive(Clone, Debug)]
pub struct Rcp {
    src: PriceSource,
}

impl Rcp {
    /// A controller for packets of `wire_size` bytes on the wire, its window
    /// at most `window_gain` bandwidth-delay products of the decoded rate.
    pub fn new(wire_size: u32, window_gain: f64) -> Rcp {
        Rcp {
            src: PriceSource::new(wire_size, window_gain),
        }
    }
}

impl Controller for Rcp {
    fn name(&self) -> &'static str {
        "rcp"
    }

    fn control(&self) -> Control {
        self.src.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        self.src
            .on_ack(ack, |p| rcp_rate(p, RCP_MIN_BPS, RCP_MAX_BPS));
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
    use crate::price_map::rcp_price;
    use crate::MILLISECOND;

    fn ack(price: Option<f64>, acked: u32) -> AckSample {
        AckSample {
            srtt: 100 * MILLISECOND,
            newly_acked: acked,
            price_code: price.map_or(crate::adpm::NO_PRICE, crate::adpm::price_code),
            ..AckSample::default()
        }
    }

    #[test]
    fn paces_at_the_decoded_rate_and_caps_the_window() {
        let mut c = Rcp::new(1500, 2.0);
        assert!(c.wants_price());
        assert_eq!(c.control().pacing_rate, None);
        // 12 Mb/s = 1000 packets/s of 1500 B: 100 per 100 ms, cap 200.
        let p = rcp_price(12e6, RCP_MIN_BPS, RCP_MAX_BPS);
        for _ in 0..1000 {
            c.on_ack(0, &ack(Some(p), 1));
        }
        // The code's 2^-16 steps of price: (10^8)^(2^-16) - 1 = 2.8e-4 of rate.
        let r = c.control().pacing_rate.unwrap() * 8.0;
        assert!((r / 12e6 - 1.0).abs() < 2.9e-4, "{r}");
        assert!((c.control().cwnd.unwrap() - 200.0).abs() < 0.06);
        // A higher price (lower rate) pulls the window down at once.
        c.on_ack(0, &ack(Some(rcp_price(1.2e6, RCP_MIN_BPS, RCP_MAX_BPS)), 1));
        assert!(c.control().cwnd.unwrap() <= 20.0 * (1.0 + 2.9e-4));
    }
}
