//! RCP's rate computation at a link (Dukkipati, Kobayashi, Zhang-Shen and
//! McKeown, "Processor sharing flows in the Internet", IWQoS 2005, eq. (1))
//! and its price for ADPM (thesis §5.3.2, L7194-7228).
//!
//! Every `interval` T the link updates the rate R each flow crossing it may
//! send at:
//!
//! `R <- R (1 + (T / d) (alpha (C - y) - beta q / d) / C)`
//!
//! with C the capacity and y the arrival rate over the last interval
//! (bits/s), q the queue (bits) and d the flows' mean round trip (a
//! configured constant here; RCP estimates it from the packets). R stays
//! within [1 kb/s, C]. The link carries R as the price
//! `ln(r_max / R) / ln(r_max / r_min)` in [0, 1]
//! ([`dropless_cc::price_map::rcp_price`]), whose path maximum is the path's
//! smallest rate, and marks ADPM-capable packets (ECN 01 -> 10) whose probe
//! type is below it ([`dropless_cc::adpm`]).
//!
//! The update runs lazily on the first arrival of each interval, catching up
//! the intervals without arrivals (y = 0 there): no event of its own, and
//! nothing on links without a price.

use crate::price_interval::PriceInterval;
use dropless_cc::price_map::{rcp_price, RCP_MAX_BPS, RCP_MIN_BPS};
use dropless_cc::{Time, MILLISECOND};

/// RCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpConfig {
    /// Update interval T (10 ms).
    pub interval: Time,
    /// The flows' mean round trip d, seconds (0.1).
    pub rtt_s: f64,
    /// Gain on spare capacity (0.1; RCP's alpha).
    pub alpha: f64,
    /// Gain on the queue (1; RCP's beta).
    pub beta: f64,
    /// Which queue the `beta q / d` term reads.
    pub queue: RcpQueue,
}

/// The queue q RCP's update reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RcpQueue {
    /// The queue at the update (the first arrival of the interval), as
    /// Dukkipati et al. 2005 write it (the default).
    #[default]
    Instant,
    /// The smallest queue an arrival saw during the interval: the standing
    /// queue, blind to bursts that drain within the interval (for real
    /// hosts whose timer wake-ups bunch packets that a perfectly paced
    /// sender would space).
    Min,
}

impl Default for RcpConfig {
    fn default() -> Self {
        RcpConfig {
            interval: 10 * MILLISECOND,
            rtt_s: 0.1,
            alpha: 0.1,
            beta: 1.0,
            queue: RcpQueue::Instant,
        }
    }
}

/// One link's RCP state.
#[derive(Clone, Debug)]
pub struct RcpPrice {
    cfg: RcpConfig,
    c_bps: f64,
    r_bps: f64,
    price: f64,
    clock: PriceInterval,
    /// The smallest queue an arrival saw this interval (`Min` only).
    q_min: u64,
    totals: RcpTotals,
}

/// Sums over a link's RCP updates, for diagnosis: their means say where
/// the equilibrium `alpha (C - y) = beta q / d` settled.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RcpTotals {
    /// Updates run (intervals, including those caught up without arrivals).
    pub updates: u64,
    /// Sum of the rate R after each update, bits/s.
    pub rate_bps: f64,
    /// Sum of the arrival rate y of each interval, bits/s.
    pub input_bps: f64,
    /// Sum of the queue q each update saw, bytes.
    pub queue_bytes: f64,
}

impl RcpPrice {
    /// RCP for a link of `c_bps`, starting at R = C.
    pub fn new(cfg: RcpConfig, c_bps: f64) -> Self {
        RcpPrice {
            cfg,
            c_bps,
            r_bps: c_bps,
            price: rcp_price(c_bps, RCP_MIN_BPS, RCP_MAX_BPS),
            clock: PriceInterval::new(cfg.interval),
            q_min: u64::MAX,
            totals: RcpTotals::default(),
        }
    }

    /// The current rate R, bits/s.
    pub fn rate_bps(&self) -> f64 {
        self.r_bps
    }

    /// Sums over the updates so far.
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
        if self.cfg.queue == RcpQueue::Min {
            self.q_min = self.q_min.min(queue_bytes);
        }
        self.price
    }

    fn update(&mut self, queue_bytes: u64) {
        let queue_bytes = match self.cfg.queue {
            RcpQueue::Instant => queue_bytes,
            // The interval's arrivals and this one (an interval caught up
            // without arrivals has only this one).
            RcpQueue::Min => std::mem::replace(&mut self.q_min, u64::MAX).min(queue_bytes),
        };
        let t = self.clock.secs();
        let y = self.clock.take_rate();
        let d = self.cfg.rtt_s;
        let q = queue_bytes as f64 * 8.0;
        let c = self.c_bps;
        let factor = 1.0 + (t / d) * (self.cfg.alpha * (c - y) - self.cfg.beta * q / d) / c;
        self.r_bps = (self.r_bps * factor.max(0.0)).clamp(RCP_MIN_BPS, c);
        self.price = rcp_price(self.r_bps, RCP_MIN_BPS, RCP_MAX_BPS);
        self.totals.updates += 1;
        self.totals.rate_bps += self.r_bps;
        self.totals.input_bps += y;
        self.totals.queue_bytes += queue_bytes as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overload_lowers_the_rate_and_spare_capacity_raises_it() {
        let cfg = RcpConfig::default();
        let mut r = RcpPrice::new(cfg, 100e6);
        // 200 Mb/s arriving (two 1500-byte packets every 120 us).
        let mut t = 0;
        while t < 2_000 * MILLISECOND {
            r.on_arrival(t, 1500, 0);
            r.on_arrival(t, 1500, 0);
            t += 120_000;
        }
        assert!(r.rate_bps() < 60e6, "{}", r.rate_bps());
        let p_low = r.price();
        // Then 10 Mb/s: R climbs back towards C.
        while t < 20_000 * MILLISECOND {
            r.on_arrival(t, 1500, 0);
            t += 1_200_000;
        }
        assert!(r.rate_bps() > 99e6, "{}", r.rate_bps());
        assert!(r.price() < p_low);
        // A long idle period is caught up at once.
        r.on_arrival(1_000_000 * MILLISECOND, 1500, 0);
        assert_eq!(r.rate_bps(), 100e6);
    }

    #[test]
    fn the_min_queue_ignores_a_burst_that_drains_within_the_interval() {
        // 90 Mb/s arriving, every interval's first arrival seeing 30 kB
        // waiting and the others none: the instant queue holds R down, the
        // interval's smallest queue (0) lets it grow to C.
        let run = |queue| {
            let mut r = RcpPrice::new(
                RcpConfig {
                    queue,
                    ..RcpConfig::default()
                },
                100e6,
            );
            let mut t = 0;
            while t < 5_000 * MILLISECOND {
                let q = if t % (10 * MILLISECOND) == 0 {
                    30_000
                } else {
                    0
                };
                r.on_arrival(t, 1125, q);
                t += 100_000;
            }
            r.rate_bps()
        };
        assert!(run(RcpQueue::Instant) < 50e6, "{}", run(RcpQueue::Instant));
        assert_eq!(run(RcpQueue::Min), 100e6);
    }
}
