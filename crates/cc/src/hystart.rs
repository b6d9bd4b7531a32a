//! HyStart: leaving slow start before the first loss, as Linux's CUBIC does
//! by default (Ha and Rhee, "Taming the elephants: new TCP slow start",
//! 2011; Linux `net/ipv4/tcp_cubic.c`, `hystart = 1`, `hystart_detect = 3`).
//!
//! While the window is at least `low_window` (16) packets, each round trip
//! of slow start is watched for two signs that the pipe is full:
//!
//! * **ACK train**: ACKs keep arriving at most `ack_delta` (2 ms) apart and
//!   the train has lasted longer than half the smallest RTT seen
//!   (`delay_min / 2`; the whole `delay_min` when the flow is paced, whose
//!   ACKs are spread over the round by its own pacing). A train that long
//!   means the window already covers the path's bandwidth-delay product.
//! * **Delay increase**: the smallest RTT among the first 8 ACKs of the
//!   round exceeds `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`: a queue
//!   is building.
//!
//! Either sets `ssthresh = cwnd`, which ends slow start; the detector then
//! stays quiet until it is reset (after a retransmission timeout, as Linux
//! resets it on entering the Loss state).
//!
//! Rounds are counted by deliveries, not sequence numbers (the controller
//! sees no sequence numbers): a round ends when an ACK acknowledges a packet
//! sent after the round began (`delivered_at_send >= delivered at the round's
//! start`), the delivery-rate estimator's definition of a round trip.

use crate::{AckSample, Time, MILLISECOND};

/// HyStart's constants (Linux's module parameters and defines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartConfig {
    /// No detection below this window, packets (`hystart_low_window`, 16).
    pub low_window: f64,
    /// Largest gap between ACKs of a train (`hystart_ack_delta`, 2 ms).
    pub ack_delta: Time,
    /// RTT samples per round before the delay test (`HYSTART_MIN_SAMPLES`, 8).
    pub min_samples: u32,
    /// Smallest and largest delay-increase threshold (4 and 16 ms).
    pub delay_thresh: (Time, Time),
    /// The flow is paced: the ACK-train threshold is the whole `delay_min`.
    pub paced: bool,
}

impl Default for HyStartConfig {
    fn default() -> Self {
        HyStartConfig {
            low_window: 16.0,
            ack_delta: 2 * MILLISECOND,
            min_samples: 8,
            delay_thresh: (4 * MILLISECOND, 16 * MILLISECOND),
            paced: false,
        }
    }
}

/// Which test ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The ACK train outlasted half the minimum RTT.
    AckTrain,
    /// The round's minimum RTT rose above the threshold.
    Delay,
}

/// The HyStart detector of one connection.
#[derive(Clone, Debug)]
pub struct HyStart {
    cfg: HyStartConfig,
    /// Slow start was left by HyStart; no more detection until a reset.
    found: Option<Exit>,
    /// The current round began when this many packets had been delivered.
    round_delivered: u64,
    /// Start of the current round and time of the last ACK of the train.
    round_start: Time,
    last_ack: Time,
    /// Smallest RTT of the round so far, and samples taken.
    curr_rtt: Time,
    samples: u32,
    /// Smallest RTT seen on the connection (Linux's `delay_min`).
    delay_min: Time,
    /// A round has begun (the first ACK starts one).
    started: bool,
}

impl HyStart {
    /// A detector with the given constants.
    pub fn new(cfg: HyStartConfig) -> Self {
        HyStart {
            cfg,
            found: None,
            round_delivered: 0,
            round_start: 0,
            last_ack: 0,
            curr_rtt: Time::MAX,
            samples: 0,
            delay_min: 0,
            started: false,
        }
    }

    /// Which test, if any, has ended slow start since the last reset.
    pub fn found(&self) -> Option<Exit> {
        self.found
    }

    /// Detection starts again (after a retransmission timeout).
    pub fn reset(&mut self) {
        self.found = None;
        self.started = false;
    }

    fn new_round(&mut self, now: Time, ack: &AckSample) {
        self.started = true;
        self.round_delivered = ack.delivered;
        self.round_start = now;
        self.last_ack = now;
        self.curr_rtt = Time::MAX;
        self.samples = 0;
    }

    /// One ACK during slow start with window `cwnd`. Returns the test that
    /// fired on this ACK, if one did: the caller sets `ssthresh = cwnd`.
    pub fn on_ack(&mut self, now: Time, ack: &AckSample, cwnd: f64) -> Option<Exit> {
        let rtt = ack.rtt?;
        if rtt > 0 && (self.delay_min == 0 || rtt < self.delay_min) {
            self.delay_min = rtt;
        }
        if self.found.is_some() || cwnd < self.cfg.low_window {
            return None;
        }
        if !self.started || ack.delivered_at_send >= self.round_delivered {
            self.new_round(now, ack);
        }
        // ACK train.
        if now.saturating_sub(self.last_ack) <= self.cfg.ack_delta {
            self.last_ack = now;
            let threshold = if self.cfg.paced {
                self.delay_min
            } else {
                self.delay_min / 2
            };
            if now.saturating_sub(self.round_start) > threshold {
                self.found = Some(Exit::AckTrain);
                return self.found;
            }
        }
        // Delay increase.
        self.curr_rtt = self.curr_rtt.min(rtt);
        if self.samples < self.cfg.min_samples {
            self.samples += 1;
        } else {
            let (lo, hi) = self.cfg.delay_thresh;
            let thresh = (self.delay_min / 8).clamp(lo, hi);
            if self.curr_rtt > self.delay_min + thresh {
                self.found = Some(Exit::Delay);
                return self.found;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(rtt_ms: f64, delivered: u64, at_send: u64) -> AckSample {
        AckSample {
            rtt: Some((rtt_ms * 1e6) as Time),
            delivered,
            delivered_at_send: at_send,
            newly_acked: 1,
            ..AckSample::default()
        }
    }

    /// ACKs 1 ms apart for longer than half the 100 ms RTT: the train test.
    #[test]
    fn a_long_ack_train_ends_slow_start() {
        let mut h = HyStart::new(HyStartConfig::default());
        let mut fired = None;
        for i in 0..80u64 {
            let now = 1_000 * MILLISECOND + i * MILLISECOND;
            if let Some(e) = h.on_ack(now, &ack(100.0, 100 + i, 50), 32.0) {
                fired = Some((i, e));
                break;
            }
        }
        // Half of delay_min (50 ms) passes after 51 ACKs 1 ms apart.
        assert_eq!(fired, Some((51, Exit::AckTrain)));
        assert_eq!(
            h.on_ack(2_000 * MILLISECOND, &ack(100.0, 500, 400), 64.0),
            None
        );
    }

    /// Spaced ACKs (no train) whose RTT grows by more than
    /// clamp(delay_min/8, 4, 16) ms after eight samples: the delay test.
    #[test]
    fn a_growing_rtt_ends_slow_start_and_a_small_window_is_ignored() {
        let mut h = HyStart::new(HyStartConfig::default());
        // Below the low window nothing fires, but delay_min is learnt.
        assert_eq!(h.on_ack(0, &ack(40.0, 1, 0), 10.0), None);
        let mut t = 0;
        let mut fired = None;
        for i in 0..20u64 {
            t += 5 * MILLISECOND;
            // 40 ms + 4 ms (delay_min/8 = 5 ms is the threshold) + 1 ms.
            if let Some(e) = h.on_ack(t, &ack(46.0, 10 + i, 5), 20.0) {
                fired = Some((i, e));
                break;
            }
        }
        assert_eq!(fired, Some((8, Exit::Delay)));
        h.reset();
        assert_eq!(h.found(), None);
    }

    /// RTTs within the threshold and ACKs spread out: slow start goes on.
    #[test]
    fn a_steady_path_keeps_slow_start() {
        let mut h = HyStart::new(HyStartConfig::default());
        for i in 0..100u64 {
            let now = i * 5 * MILLISECOND;
            // New round every 10 ACKs.
            let round = i / 10;
            assert_eq!(
                h.on_ack(
                    now,
                    &ack(40.0 + (i % 3) as f64, 10 * round + i, 10 * round),
                    100.0
                ),
                None
            );
        }
    }
}
