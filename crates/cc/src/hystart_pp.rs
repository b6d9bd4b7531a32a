//! HyStart++ (RFC 9406, Balasubramanian, Huang and Olson, 2023): slow start
//! that leaves on a delay increase, through a "conservative slow start"
//! (CSS) that undoes a premature exit caused by jitter. An option of CUBIC
//! (`hystart = 2`); Linux runs the older HyStart ([`crate::hystart`]).
//!
//! # The algorithm (RFC 9406 §4.2)
//!
//! Rounds: a round ends when an ACK acknowledges a packet sent after the
//! round began (counted by deliveries, as [`crate::hystart`] does; the RFC
//! uses `windowEnd = SND.NXT`). At each round's start
//! `lastRoundMinRTT = currentRoundMinRTT`, `currentRoundMinRTT = inf`,
//! `rttSampleCount = 0`; each ACK's RTT sample updates both.
//!
//! * **Slow start**: per ACK `cwnd += min(N, L)` (`N` packets newly
//!   acknowledged; `L` = 8 packets, or infinity when the sender paces).
//!   Once a round has `N_RTT_SAMPLE` (8) samples and both minima are known,
//!   with `RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
//!   MIN_RTT_DIVISOR, MAX_RTT_THRESH))` (4 ms, 8, 16 ms): if
//!   `currentRoundMinRTT >= lastRoundMinRTT + RttThresh`, then
//!   `cssBaselineMinRtt = currentRoundMinRTT` and CSS begins.
//! * **CSS**: per ACK `cwnd += min(N, L) / CSS_GROWTH_DIVISOR` (4). Once a
//!   CSS round has 8 samples, `currentRoundMinRTT < cssBaselineMinRtt`
//!   means the exit was spurious: back to slow start. After `CSS_ROUNDS`
//!   (5) rounds in CSS: congestion avoidance (`ssthresh = cwnd`).
//! * A loss or ECN mark in slow start or CSS ends both as usual (the
//!   controller's reduction); and "an implementation SHOULD use HyStart++
//!   only for the initial slow start ... and fall back to using standard
//!   slow start for the remainder of the connection lifetime" (§4.2): after
//!   the first congestion event or the end of CSS the detector is done.
//!
//! The CSS round count starts with the round after the one in which CSS
//! began (the RFC does not say whether the partial round counts).

use crate::{AckSample, Time, MILLISECOND};

/// RFC 9406's constants (§4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartPpConfig {
    /// `MIN_RTT_THRESH` (4 ms) and `MAX_RTT_THRESH` (16 ms).
    pub rtt_thresh: (Time, Time),
    /// `MIN_RTT_DIVISOR` (8).
    pub min_rtt_divisor: u64,
    /// `N_RTT_SAMPLE` (8).
    pub n_rtt_sample: u32,
    /// `CSS_GROWTH_DIVISOR` (4).
    pub css_growth_divisor: f64,
    /// `CSS_ROUNDS` (5).
    pub css_rounds: u32,
    /// `L`, packets per ACK: 8, or infinity for a paced sender.
    pub limit: f64,
}

impl Default for HyStartPpConfig {
    fn default() -> Self {
        HyStartPpConfig {
            rtt_thresh: (4 * MILLISECOND, 16 * MILLISECOND),
            min_rtt_divisor: 8,
            n_rtt_sample: 8,
            css_growth_divisor: 4.0,
            css_rounds: 5,
            limit: 8.0,
        }
    }
}

/// Where the detector is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start (with the per-ACK limit `L`).
    SlowStart,
    /// Conservative slow start.
    Css,
    /// Done: congestion avoidance, or standard slow start after a loss.
    Done,
}

/// The HyStart++ state of one connection.
#[derive(Clone, Debug)]
pub struct HyStartPp {
    cfg: HyStartPpConfig,
    phase: Phase,
    last_round_min: Time,
    curr_round_min: Time,
    samples: u32,
    css_baseline: Time,
    css_rounds: u32,
    round_delivered: u64,
    started: bool,
}

impl HyStartPp {
    /// A detector with the given constants, in slow start.
    pub fn new(cfg: HyStartPpConfig) -> Self {
        HyStartPp {
            cfg,
            phase: Phase::SlowStart,
            last_round_min: Time::MAX,
            curr_round_min: Time::MAX,
            samples: 0,
            css_baseline: Time::MAX,
            css_rounds: 0,
            round_delivered: 0,
            started: false,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// A congestion event (loss, ECN) or timeout: HyStart++ is over for
    /// the connection (§4.2).
    pub fn on_congestion(&mut self) {
        self.phase = Phase::Done;
    }

    /// One ACK in slow start that acknowledges `acked` packets. Returns the
    /// window increase in packets; when it returns with [`Phase::Done`]
    /// from CSS, the caller sets `ssthresh = cwnd` (congestion avoidance).
    pub fn on_ack(&mut self, ack: &AckSample, acked: f64) -> f64 {
        if self.phase == Phase::Done {
            return acked;
        }
        if !self.started || ack.delivered_at_send >= self.round_delivered {
            self.started = true;
            self.round_delivered = ack.delivered;
            self.last_round_min = self.curr_round_min;
            self.curr_round_min = Time::MAX;
            self.samples = 0;
            if self.phase == Phase::Css {
                self.css_rounds += 1;
                if self.css_rounds >= self.cfg.css_rounds {
                    self.phase = Phase::Done;
                    return 0.0;
                }
            }
        }
        if let Some(rtt) = ack.rtt.filter(|&r| r > 0) {
            self.curr_round_min = self.curr_round_min.min(rtt);
            self.samples += 1;
        }
        let full = self.samples >= self.cfg.n_rtt_sample && self.curr_round_min != Time::MAX;
        let inc = acked.min(self.cfg.limit);
        match self.phase {
            Phase::SlowStart => {
                if full && self.last_round_min != Time::MAX {
                    let (lo, hi) = self.cfg.rtt_thresh;
                    let thresh = (self.last_round_min / self.cfg.min_rtt_divisor).clamp(lo, hi);
                    if self.curr_round_min >= self.last_round_min + thresh {
                        self.css_baseline = self.curr_round_min;
                        self.css_rounds = 0;
                        self.phase = Phase::Css;
                        return inc / self.cfg.css_growth_divisor;
                    }
                }
                inc
            }
            Phase::Css => {
                if full && self.curr_round_min < self.css_baseline {
                    // The delay increase was jitter: back to slow start.
                    self.css_baseline = Time::MAX;
                    self.phase = Phase::SlowStart;
                    return inc;
                }
                inc / self.cfg.css_growth_divisor
            }
            Phase::Done => acked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(rtt_ms: f64, delivered: u64, at_send: u64, acked: u32) -> AckSample {
        AckSample {
            rtt: Some((rtt_ms * 1e6) as Time),
            delivered,
            delivered_at_send: at_send,
            newly_acked: acked,
            ..AckSample::default()
        }
    }

    /// Feeds one round of `n` ACKs with RTT `rtt_ms`, starting a new round
    /// (delivered counts continue from `*d`). Returns the total increase.
    fn round(h: &mut HyStartPp, d: &mut u64, n: u64, rtt_ms: f64, acked: u32) -> f64 {
        let start = *d;
        let mut inc = 0.0;
        for i in 0..n {
            // The first ACK acknowledges a packet sent after the last round
            // began (a new round), the others packets sent before.
            let at_send = if i == 0 { start } else { start - 1 };
            *d += acked as u64;
            inc += h.on_ack(&ack(rtt_ms, *d, at_send, acked), acked as f64);
        }
        inc
    }

    #[test]
    fn a_delay_increase_enters_css_and_css_rounds_end_slow_start() {
        let mut h = HyStartPp::new(HyStartPpConfig::default());
        let mut d = 1;
        // Two rounds at 100 ms: slow start, increase min(N, L) per ACK.
        assert_eq!(round(&mut h, &mut d, 10, 100.0, 1), 10.0);
        assert_eq!(round(&mut h, &mut d, 10, 100.0, 20), 80.0); // L = 8
        assert_eq!(h.phase(), Phase::SlowStart);
        // +12.5 ms = lastRoundMinRTT/8, the threshold: CSS from the 8th
        // sample of the round; the 8th ACK already grows by a quarter.
        let inc = round(&mut h, &mut d, 10, 112.5, 1);
        assert_eq!(h.phase(), Phase::Css);
        assert_eq!(inc, 7.0 + 3.0 * 0.25);
        // Rounds in CSS at the raised delay grow by a quarter; the fifth
        // round boundary ends it.
        for _ in 0..4 {
            assert_eq!(round(&mut h, &mut d, 8, 112.5, 1), 2.0);
            assert_eq!(h.phase(), Phase::Css);
        }
        round(&mut h, &mut d, 8, 112.5, 1);
        assert_eq!(h.phase(), Phase::Done);
    }

    #[test]
    fn a_spurious_exit_returns_to_slow_start() {
        let mut h = HyStartPp::new(HyStartPpConfig::default());
        let mut d = 1;
        round(&mut h, &mut d, 10, 40.0, 1);
        // 40 ms / 8 = 5 ms: +5 ms enters CSS.
        round(&mut h, &mut d, 10, 45.0, 1);
        assert_eq!(h.phase(), Phase::Css);
        // A CSS round whose minimum falls below the baseline: jitter.
        round(&mut h, &mut d, 10, 41.0, 1);
        assert_eq!(h.phase(), Phase::SlowStart);
        // A rise of 3 ms, below the threshold (41 ms / 8), stays in slow start.
        round(&mut h, &mut d, 10, 44.0, 1);
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn fewer_than_eight_samples_decide_nothing_and_a_loss_ends_it() {
        let mut h = HyStartPp::new(HyStartPpConfig::default());
        let mut d = 1;
        round(&mut h, &mut d, 10, 40.0, 1);
        round(&mut h, &mut d, 7, 80.0, 1);
        assert_eq!(h.phase(), Phase::SlowStart);
        h.on_congestion();
        assert_eq!(h.phase(), Phase::Done);
        // Done: standard slow start, no limit L.
        assert_eq!(round(&mut h, &mut d, 1, 40.0, 20), 20.0);
    }
}
