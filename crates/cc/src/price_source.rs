//! A source that sends at the rate its path's price names: what the RCP
//! ([`crate::rcp`]) and MaxNet ([`crate::maxnet`]) controllers share, each
//! with its own map from the decoded price to a rate.
//!
//! The source paces at that rate. The decoder's estimate starts at price 0
//! (the highest rate) and rises as marked probes arrive, so the first
//! packets' prices are too low: the window therefore grows as in slow
//! start (one packet per packet acknowledged, from 10) and never exceeds
//! `window_gain` times the rate's bandwidth-delay product, which bounds
//! what a wrong early estimate can put in flight. The price, not loss, sets
//! the rate; on a loss the window halves (the rate stays the network's)
//! and a timeout restarts it from the initial window.

use crate::{AckSample, Control};

/// Initial window, packets.
const INITIAL_WINDOW: f64 = 10.0;

/// The state of a price-driven source.
#[derive(Clone, Debug)]
pub struct PriceSource {
    wire: f64,
    window_gain: f64,
    cwnd: f64,
    /// The rate the decoded price names, bits/s, once a price has arrived.
    rate_bps: Option<f64>,
    srtt_s: f64,
}

impl PriceSource {
    /// A source for packets of `wire_size` bytes on the wire, its window at
    /// most `window_gain` bandwidth-delay products of its rate.
    pub fn new(wire_size: u32, window_gain: f64) -> PriceSource {
        PriceSource {
            wire: f64::from(wire_size.max(1)),
            window_gain,
            cwnd: INITIAL_WINDOW,
            rate_bps: None,
            srtt_s: 0.0,
        }
    }

    fn cap(&self) -> f64 {
        match self.rate_bps {
            Some(r) if self.srtt_s > 0.0 => {
                (self.window_gain * r / 8.0 * self.srtt_s / self.wire).max(4.0)
            }
            _ => f64::INFINITY,
        }
    }

    /// The window and the pacing rate (none before a price has arrived).
    pub fn control(&self) -> Control {
        Control {
            cwnd: Some(self.cwnd),
            pacing_rate: self.rate_bps.map(|r| r / 8.0),
            max_burst: None,
        }
    }

    /// An ACK: the smoothed RTT, the rate `rate_of_price` names for the
    /// price it carries (if any), and the window's growth up to its cap.
    #[inline]
    pub fn on_ack(&mut self, ack: &AckSample, rate_of_price: impl FnOnce(f64) -> f64) {
        if ack.srtt > 0 {
            self.srtt_s = crate::secs(ack.srtt);
        }
        if let Some(p) = ack.price() {
            self.rate_bps = Some(rate_of_price(p));
        }
        self.cwnd = (self.cwnd + f64::from(ack.newly_acked)).min(self.cap());
    }

    /// A loss: the window halves (at least 2 packets).
    pub fn on_congestion_event(&mut self) {
        self.cwnd = (self.cwnd / 2.0).max(2.0);
    }

    /// A timeout: the window restarts from the initial window.
    pub fn on_rto(&mut self) {
        self.cwnd = INITIAL_WINDOW;
    }

    /// The rate the last decoded price named, bits/s.
    pub fn rate_bps(&self) -> Option<f64> {
        self.rate_bps
    }
}
