//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use dropless_cc::{Time, MILLISECOND, SECOND};

/// RFC 6298 estimator with a configurable floor and ceiling.
#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    srtt: Time,
    rttvar: Time,
    min_rtt: Time,
    latest: Time,
    has_sample: bool,
    initial_rto: Time,
    min_rto: Time,
    max_rto: Time,
    /// Exponential backoff shift applied after consecutive timeouts.
    backoff: u32,
}

/// Clock granularity G in RFC 6298 section 2 (we use 1 ms).
const GRANULARITY: Time = MILLISECOND;

impl RttEstimator {
    /// New estimator; before the first sample RTO = `initial_rto` (RFC 6298 (2.1): 1 s).
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        RttEstimator {
            srtt: 0,
            rttvar: 0,
            min_rtt: Time::MAX,
            latest: 0,
            has_sample: false,
            initial_rto,
            min_rto,
            max_rto,
            backoff: 0,
        }
    }

    /// Feeds one RTT measurement.
    pub fn sample(&mut self, r: Time) {
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        if !self.has_sample {
            // RFC 6298 (2.2)
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_sample = true;
        } else {
            // RFC 6298 (2.3): beta = 1/4, alpha = 1/8
            let diff = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + diff) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
    }

    /// Smoothed RTT (0 before the first sample).
    pub fn srtt(&self) -> Time {
        self.srtt
    }
    /// RTT variation.
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }
    /// Smallest sample, `Time::MAX` before the first.
    pub fn min_rtt(&self) -> Time {
        self.min_rtt
    }
    /// Latest sample.
    pub fn latest(&self) -> Time {
        self.latest
    }
    /// True once a sample has been taken.
    pub fn has_sample(&self) -> bool {
        self.has_sample
    }

    /// Current retransmission timeout including backoff.
    pub fn rto(&self) -> Time {
        let base = if self.has_sample {
            // RFC 6298 (2.3): RTO = SRTT + max(G, K*RTTVAR), K = 4, with the
            // floor on the variance term as in Linux (`tcp_rtt_estimator`:
            // rttvar >= rto_min, RTO = srtt + rttvar), not on the whole RTO
            // ((2.4) with its 1 s). With a 200 ms floor on the whole RTO, a
            // path whose RTT exceeds 200 ms gets RTO = SRTT + 4*RTTVAR, and
            // RTTVAR sampled on every ACK of a steady flow is a few
            // hundred microseconds: a retransmission sent into the queue an
            // overflow has just filled takes longer than that to be
            // acknowledged and the timer fires spuriously (TCP-Madison Fig.
            // 8(a) path, seed 7: RTO 294.4 ms, SRTT 289.9 ms).
            self.srtt + GRANULARITY.max(4 * self.rttvar).max(self.min_rto)
        } else {
            self.initial_rto
        };
        base.saturating_mul(1u64 << self.backoff.min(20))
            .min(self.max_rto)
    }

    /// Doubles the timeout (RFC 6298 (5.5)).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(20);
    }

    /// Clears the backoff after new data is acknowledged.
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Current backoff exponent.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator::new(SECOND, 200 * MILLISECOND, 60 * SECOND)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = RttEstimator::new(SECOND, 0, 60 * SECOND);
        assert_eq!(e.rto(), SECOND);
        e.sample(100 * MILLISECOND);
        assert_eq!(e.srtt(), 100 * MILLISECOND);
        assert_eq!(e.rttvar(), 50 * MILLISECOND);
        assert_eq!(e.rto(), 300 * MILLISECOND);
        e.sample(200 * MILLISECOND);
        // rttvar = 3/4*50 + 1/4*100 = 62.5 ms; srtt = 7/8*100 + 1/8*200 = 112.5 ms
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), 112_500_000);
        assert_eq!(e.rto(), 112_500_000 + 250_000_000);
        assert_eq!(e.min_rtt(), 100 * MILLISECOND);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::new(SECOND, 200 * MILLISECOND, 3 * SECOND);
        e.back_off();
        assert_eq!(e.rto(), 2 * SECOND);
        e.back_off();
        assert_eq!(e.rto(), 3 * SECOND);
        e.reset_backoff();
        assert_eq!(e.rto(), SECOND);
        e.sample(MILLISECOND);
        // The floor applies to the variance term: SRTT + 200 ms.
        assert_eq!(e.rto(), MILLISECOND + 200 * MILLISECOND, "floor applies");
    }
}
