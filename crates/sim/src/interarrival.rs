//! Intervals between packet arrivals at a link: an opt-in statistic
//! (`interarrivals` in a link's table), kept for the thesis's test that the
//! aggregate packet generation of many TCP sources is Poisson
//! (`thesis_ch3_buffer_sizing.md` §3.2: the mean and variance of the
//! intervals, whose ratio std/mean is 1 for a Poisson process).
//!
//! Every packet offered to the link counts, whether the buffer then takes
//! it or drops it: at a trunk these are the departures of the input links,
//! the packets the sources generated less the few the input links' own
//! buffers lost. A link that records them takes the slow arrival path
//! (`Simulation::arrive_slow`); the others pay nothing.
//!
//! Sums are kept in integer nanoseconds, so the statistic is exact and a
//! run deterministic.

use dropless_cc::Time;
use serde::Serialize;

/// The running sums over the intervals between arrivals at or after `from`.
#[derive(Clone, Debug)]
pub(crate) struct Interarrivals {
    /// Arrivals before this time are not counted.
    from: Time,
    /// Time of the previous counted arrival.
    last: Option<Time>,
    /// Intervals counted.
    n: u64,
    /// Sum of the intervals, ns.
    sum: u128,
    /// Sum of their squares, ns².
    sum_sq: u128,
}

impl Interarrivals {
    /// Counts the intervals between arrivals from `from` on.
    pub fn new(from: Time) -> Self {
        Interarrivals {
            from,
            last: None,
            n: 0,
            sum: 0,
            sum_sq: 0,
        }
    }

    /// An arrival at `now`.
    #[inline]
    pub fn record(&mut self, now: Time) {
        if now < self.from {
            return;
        }
        if let Some(prev) = self.last {
            let d = (now - prev) as u128;
            self.n += 1;
            self.sum += d;
            self.sum_sq += d * d;
        }
        self.last = Some(now);
    }

    /// The summary so far.
    pub fn result(&self) -> InterarrivalResult {
        if self.n == 0 {
            return InterarrivalResult {
                intervals: 0,
                mean_s: f64::NAN,
                std_s: f64::NAN,
                cv: f64::NAN,
            };
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        // Population variance, E[d²] − E[d]², from the exact sums.
        let var = (self.sum_sq as f64 / n - mean * mean).max(0.0);
        InterarrivalResult {
            intervals: self.n,
            mean_s: mean / 1e9,
            std_s: var.sqrt() / 1e9,
            cv: if mean > 0.0 {
                var.sqrt() / mean
            } else {
                f64::NAN
            },
        }
    }
}

/// Intervals between packet arrivals at a link (summary.json
/// `links[i].interarrival`, present only when the link records them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct InterarrivalResult {
    /// Intervals counted.
    pub intervals: u64,
    /// Mean interval, seconds.
    pub mean_s: f64,
    /// Standard deviation of the intervals, seconds.
    pub std_s: f64,
    /// Coefficient of variation std/mean (1 for a Poisson process).
    pub cv: f64,
}

#[cfg(test)]
mod tests {
    use super::Interarrivals;

    #[test]
    fn mean_and_cv_of_known_intervals() {
        let mut a = Interarrivals::new(100);
        // Before `from`: ignored.
        a.record(10);
        a.record(50);
        assert_eq!(a.result().intervals, 0);
        assert!(a.result().mean_s.is_nan());
        // Intervals 10, 30, 20: mean 20, population std sqrt(200/3).
        for t in [100, 110, 140, 160] {
            a.record(t);
        }
        let r = a.result();
        assert_eq!(r.intervals, 3);
        assert!((r.mean_s - 20e-9).abs() < 1e-18);
        let std = (200.0f64 / 3.0).sqrt();
        assert!((r.std_s - std * 1e-9).abs() < 1e-18);
        assert!((r.cv - std / 20.0).abs() < 1e-12);
    }

    #[test]
    fn regular_arrivals_have_zero_cv() {
        let mut a = Interarrivals::new(0);
        for i in 0..1000u64 {
            a.record(i * 416_000);
        }
        let r = a.result();
        assert_eq!(r.intervals, 999);
        assert!((r.mean_s - 416e-6).abs() < 1e-15);
        assert_eq!(r.cv, 0.0);
    }

    #[test]
    fn exponential_intervals_have_cv_near_one() {
        // A deterministic LCG stands in for a Poisson process.
        let mut x: u64 = 12345;
        let mut t: u64 = 0;
        let mut a = Interarrivals::new(0);
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
            t += (-u.ln() * 1e6).round() as u64;
            a.record(t);
        }
        let r = a.result();
        assert!((r.mean_s - 1e-3).abs() < 2e-5, "{r:?}");
        assert!((r.cv - 1.0).abs() < 0.01, "{r:?}");
    }
}
