//! RACK's loss detection by time (RFC 8985 §6): a transmission is lost once
//! a transmission sent later has been delivered and it has been outstanding
//! longer than the latest delivered transmission's RTT plus a reordering
//! window; until then a timer waits for it. Reordering shorter than the
//! window is taken for what it is instead of a loss (RFC 6675's three
//! duplicate ACKs, the sender's default without
//! [`SenderConfig::rack`](crate::SenderConfig::rack), count it as one).
//!
//! The sender owns one [`Rack`], tells it of every delivery
//! ([`Rack::on_delivered`]) and every recovery episode
//! ([`Rack::on_recovery_start`]), asks it for the reordering window once per
//! ACK ([`Rack::reo_wnd`]) and, for each transmission a later one has
//! passed, when it counts as lost ([`Rack::lost_at`]). The scoreboard stays
//! the sender's.

use crate::rtt::RttEstimator;
use dropless_cc::Time;

/// RFC 8985's per-connection state (`RACK.xmit_ts`, `RACK.rtt`,
/// `RACK.reordering_seen`, `RACK.reo_wnd_mult`) and its timer.
#[derive(Clone, Copy, Debug)]
pub struct Rack {
    /// Send time of the most recently sent transmission known delivered
    /// (`RACK.xmit_ts`).
    xmit_ts: Time,
    /// The RTT of that transmission (`RACK.rtt`).
    rtt: Time,
    /// A packet has arrived after one sent later than it
    /// (`RACK.reordering_seen`).
    reordering: bool,
    /// The reordering window in quarters of the minimum RTT
    /// (`RACK.reo_wnd_mult`): one more for each round trip in which a loss
    /// turned out spurious, back to 1 after 16 recoveries without one.
    reo_mult: u32,
    /// When `reo_mult` last grew.
    mult_at: Time,
    /// Recoveries since a spurious loss was seen.
    quiet_recoveries: u32,
    /// The reordering timer (RFC 8985 §6.3): when the oldest transmission
    /// that a later delivery has passed runs out of reordering window.
    pub deadline: Option<Time>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: 0,
            rtt: 0,
            reordering: false,
            reo_mult: 1,
            mult_at: 0,
            quiet_recoveries: 0,
            deadline: None,
        }
    }
}

impl Rack {
    /// A transmission sent at `sent_time` was delivered at `now` (RFC 8985
    /// §6.2 steps 1-3). `known`: which transmission of the packet arrived is
    /// known (else `RACK.xmit_ts` is not advanced by it); `reordered`: it
    /// arrived after a transmission sent later than it; `spurious`: it had
    /// been declared lost, or retransmitted, and the original arrived after
    /// all (RFC 8985 learns that from DSACK; the echoed timestamp says it
    /// here), which makes the reordering window grow, at most once per
    /// `srtt`.
    #[inline]
    pub fn on_delivered(
        &mut self,
        sent_time: Time,
        known: bool,
        reordered: bool,
        spurious: bool,
        now: Time,
        srtt: Time,
    ) {
        if spurious || reordered {
            self.reordering = true;
        }
        if spurious && now.saturating_sub(self.mult_at) >= srtt {
            self.reo_mult = self.reo_mult.saturating_add(1);
            self.mult_at = now;
            self.quiet_recoveries = 0;
        }
        if known && sent_time >= self.xmit_ts {
            self.xmit_ts = sent_time;
            self.rtt = now.saturating_sub(sent_time);
        }
    }

    /// The reordering window (RFC 8985 §6.2 step 4): 0 before any
    /// reordering was seen once in recovery or once `dupthresh` packets are
    /// SACKed (`sacked` is asked only then); otherwise `RACK.reo_wnd_mult`
    /// quarters of the minimum RTT, at most SRTT.
    #[inline]
    pub fn reo_wnd(
        &self,
        rtt: &RttEstimator,
        in_recovery: bool,
        dupthresh: u64,
        sacked: impl FnOnce() -> u64,
    ) -> Time {
        if !self.reordering && (in_recovery || sacked() >= dupthresh) {
            return 0;
        }
        if !rtt.has_sample() {
            return 0;
        }
        (rtt.min_rtt() / 4)
            .saturating_mul(self.reo_mult as u64)
            .min(rtt.srtt())
    }

    /// When a transmission sent at `sent_time`, passed by a later delivery,
    /// counts as lost (RFC 8985 §6.2 step 5: outstanding longer than
    /// `RACK.rtt + reo_wnd`).
    #[inline]
    pub fn lost_at(&self, sent_time: Time, reo_wnd: Time) -> Time {
        sent_time + self.rtt + reo_wnd
    }

    /// A recovery episode starts (RFC 8985 §6.2 step 4): the multiplier
    /// returns to 1 after 16 recoveries without a spurious loss.
    #[inline]
    pub fn on_recovery_start(&mut self) {
        self.quiet_recoveries += 1;
        if self.quiet_recoveries >= 16 {
            self.reo_mult = 1;
            self.quiet_recoveries = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtt_of(min: Time, srtt_samples: &[Time]) -> RttEstimator {
        let mut r = RttEstimator::new(1_000_000_000, 200_000_000, 60_000_000_000);
        r.sample(min);
        for &s in srtt_samples {
            r.sample(s);
        }
        r
    }

    /// Without reordering seen the window is 0 in recovery or once
    /// dupthresh packets are SACKed, a quarter of the minimum RTT before.
    #[test]
    fn window_is_zero_until_reordering_is_seen_in_recovery_or_past_dupthresh() {
        let rtt = rtt_of(40_000_000, &[]);
        let r = Rack::default();
        assert_eq!(r.reo_wnd(&rtt, false, 3, || 2), 10_000_000);
        assert_eq!(r.reo_wnd(&rtt, false, 3, || 3), 0);
        assert_eq!(r.reo_wnd(&rtt, true, 3, || 0), 0);
        let mut seen = Rack::default();
        seen.on_delivered(5, true, true, false, 50_000_000, 40_000_000);
        assert_eq!(seen.reo_wnd(&rtt, true, 3, || 100), 10_000_000);
    }

    /// A spurious loss widens the window by a quarter of the minimum RTT,
    /// at most once per SRTT, never past SRTT; 16 recoveries without one
    /// bring it back.
    #[test]
    fn spurious_losses_widen_the_window_once_per_srtt_and_quiet_recoveries_reset_it() {
        let rtt = rtt_of(40_000_000, &[]);
        let mut r = Rack::default();
        r.on_delivered(1, true, false, true, 100_000_000, rtt.srtt());
        r.on_delivered(2, true, false, true, 110_000_000, rtt.srtt());
        assert_eq!(
            r.reo_wnd(&rtt, true, 3, || 0),
            20_000_000,
            "one step within an SRTT"
        );
        r.on_delivered(3, true, false, true, 200_000_000, rtt.srtt());
        r.on_delivered(4, true, false, true, 300_000_000, rtt.srtt());
        r.on_delivered(5, true, false, true, 400_000_000, rtt.srtt());
        assert_eq!(r.reo_wnd(&rtt, true, 3, || 0), 40_000_000, "capped at SRTT");
        for _ in 0..15 {
            r.on_recovery_start();
        }
        assert_eq!(r.reo_wnd(&rtt, true, 3, || 0), 40_000_000);
        r.on_recovery_start();
        assert_eq!(
            r.reo_wnd(&rtt, true, 3, || 0),
            10_000_000,
            "back to one quarter"
        );
    }

    /// A passed transmission is lost RACK.rtt + reo_wnd after it was sent;
    /// RACK.rtt follows the most recently sent delivered transmission, not
    /// the most recently delivered one.
    #[test]
    fn loss_time_follows_the_latest_sent_delivery() {
        let mut r = Rack::default();
        r.on_delivered(1_000, true, false, false, 41_000, 40_000);
        assert_eq!(r.lost_at(500, 7), 500 + 40_000 + 7);
        // Sent earlier, delivered later: RACK.rtt does not move.
        r.on_delivered(900, true, true, false, 90_000, 40_000);
        assert_eq!(r.lost_at(500, 0), 40_500);
        // Unknown transmission: no RTT from it.
        r.on_delivered(2_000, false, false, false, 99_000, 40_000);
        assert_eq!(r.lost_at(500, 0), 40_500);
    }
}
