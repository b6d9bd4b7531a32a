//! The explicit price a link computes and carries in ADPM marks (thesis
//! chapter 5): RCP's rate ([`crate::rcp_price`]) or MaxNet's cost
//! ([`crate::maxnet_price`]), one type for the simulator's links and the
//! emulator's.

use crate::maxnet_price::MaxnetPrice;
use crate::rcp_price::{RcpPrice, RcpTotals};
use dropless_cc::Time;

/// One link's price state.
#[derive(Clone, Debug)]
pub enum LinkPrice {
    /// RCP's rate as the price.
    Rcp(RcpPrice),
    /// MaxNet's cost as the price.
    Maxnet(MaxnetPrice),
}

impl LinkPrice {
    /// A packet of `wire` bytes arrives at `now` with `queue_bytes` waiting:
    /// the price in [0, 1] to mark it against.
    #[inline]
    pub fn on_arrival(&mut self, now: Time, wire: u32, queue_bytes: u64) -> f64 {
        match self {
            LinkPrice::Rcp(r) => r.on_arrival(now, wire, queue_bytes),
            LinkPrice::Maxnet(m) => m.on_arrival(now, wire, queue_bytes),
        }
    }

    /// The rate the link gives each flow crossing it, bits/s: RCP's R, or
    /// the MaxNet demand at the link's cost.
    pub fn rate_bps(&self) -> f64 {
        match self {
            LinkPrice::Rcp(r) => r.rate_bps(),
            LinkPrice::Maxnet(m) => m.rate_bps(),
        }
    }

    /// Sums over the price's updates so far.
    pub fn totals(&self) -> RcpTotals {
        match self {
            LinkPrice::Rcp(r) => r.totals(),
            LinkPrice::Maxnet(m) => m.totals(),
        }
    }

    /// The current price in [0, 1].
    pub fn price(&self) -> f64 {
        match self {
            LinkPrice::Rcp(r) => r.price(),
            LinkPrice::Maxnet(m) => m.price(),
        }
    }
}
