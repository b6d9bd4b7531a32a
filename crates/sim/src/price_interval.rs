//! The update clock that RCP's and MaxNet's link prices share: the bits
//! arriving in each interval T, and how many intervals ended by an
//! arrival.
//!
//! Both prices update lazily on the first arrival of each interval,
//! catching up the intervals without arrivals (whose arrival rate is 0):
//! no event of their own. Only what the two updates do differs
//! (`rcp_price.rs`, `maxnet_price.rs`).

use dropless_cc::Time;

/// Most intervals one arrival catches up; after a longer idle period both
/// prices are at their bound anyway (no arrivals: RCP's rate only grows,
/// MaxNet's cost only falls), and the clock restarts at the arrival.
const MAX_CATCH_UP: u32 = 100_000;

/// The interval clock and the bits counted in the current interval.
#[derive(Clone, Copy, Debug)]
pub struct PriceInterval {
    interval: Time,
    next: Time,
    bits: f64,
}

impl PriceInterval {
    /// A clock of `interval` whose first interval ends at `interval`.
    pub fn new(interval: Time) -> Self {
        PriceInterval {
            interval,
            next: interval,
            bits: 0.0,
        }
    }

    /// The interval T, seconds.
    pub fn secs(&self) -> f64 {
        dropless_cc::secs(self.interval)
    }

    /// Intervals that ended by `now` (each needs one update, the first with
    /// the bits counted so far, the others with none); at most
    /// `MAX_CATCH_UP`, after which the clock restarts at `now`.
    #[inline]
    pub fn ended(&mut self, now: Time) -> u32 {
        let mut n = 0;
        while now >= self.next {
            self.next += self.interval;
            n += 1;
            if n == MAX_CATCH_UP {
                self.next = now + self.interval;
                break;
            }
        }
        n
    }

    /// Counts an arrival of `wire` bytes in the current interval.
    #[inline]
    pub fn count(&mut self, wire: u32) {
        self.bits += f64::from(wire) * 8.0;
    }

    /// The arrival rate y over the interval that ended, bits/s, and a new
    /// count for the next.
    pub fn take_rate(&mut self) -> f64 {
        let y = self.bits / self.secs();
        self.bits = 0.0;
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dropless_cc::MILLISECOND;

    #[test]
    fn counts_intervals_and_rates() {
        let mut c = PriceInterval::new(10 * MILLISECOND);
        assert_eq!(c.ended(5 * MILLISECOND), 0);
        c.count(1250); // 10,000 bits in 10 ms: 1 Mb/s
        assert_eq!(c.ended(10 * MILLISECOND), 1);
        assert!((c.take_rate() - 1e6).abs() < 1e-6);
        // Three intervals later: three updates, the rate 0 for all.
        assert_eq!(c.ended(45 * MILLISECOND), 3);
        assert_eq!(c.take_rate(), 0.0);
        assert_eq!(c.ended(49 * MILLISECOND), 0);
    }

    #[test]
    fn a_long_idle_period_restarts_the_clock() {
        let mut c = PriceInterval::new(MILLISECOND);
        let late = 10 * u64::from(MAX_CATCH_UP) * MILLISECOND;
        assert_eq!(c.ended(late), MAX_CATCH_UP);
        assert_eq!(c.ended(late + MILLISECOND - 1), 0);
        assert_eq!(c.ended(late + MILLISECOND), 1);
    }
}
