//! HyStart: leaving slow start before the first loss, as Linux's CUBIC does
//! by default (Ha and Rhee, "Taming the elephants: new TCP slow start",
//! 2011; Linux `net/ipv4/tcp_cubic.c`, `hystart = 1`, `hystart_detect = 3`).
//!
//! Rounds are counted through all of slow start; while the window is at
//! least `low_window` (16) packets, each round trip is watched for two
//! signs that the pipe is full (Linux tcp_cubic.c `hystart_update()`):
//!
//! * **ACK train**: ACKs keep arriving at most `ack_delta` (2 ms) apart from
//!   the start of the round, and the train has lasted longer than
//!   `(delay_min + ack_delay) / 2`, or the whole `delay_min + ack_delay` when
//!   the flow is paced (its ACKs are spread over the round by its own
//!   pacing). `delay_min` is the smallest RTT seen; `ack_delay` is Linux's
//!   `hystart_ack_delay()` slack, `min(1 ms, 4 x GSO size / pacing rate)`,
//!   with Linux's slow-start pacing rate `2 cwnd / srtt`. A train that long
//!   means the window already covers the path's bandwidth-delay product.
//! * **Delay increase**: the smallest RTT among the round's samples exceeds
//!   `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`, tested from the ninth
//!   sample of the round on (`HYSTART_MIN_SAMPLES` = 8 samples first): a
//!   queue is building.
//!
//! Either sets `ssthresh = cwnd`, which ends slow start; the detector then
//! stays quiet until it is reset (after a retransmission timeout, as Linux
//! resets it, `delay_min` included, on entering the Loss state:
//! `cubictcp_state()`).
//!
//! Where dropless differs from Linux, and why:
//!
//! * Rounds are counted by deliveries, not sequence numbers (the controller
//!   sees no sequence numbers): a round ends when an ACK acknowledges a
//!   packet sent after the round began (`delivered_at_send >=` delivered at
//!   the round's start), where Linux waits for `snd_una` to pass the
//!   `snd_nxt` of the round's start. Both end the round with the first ACK
//!   for data sent after it began.
//! * The RTT sample is the transport's per-ACK sample (the packet that
//!   triggered the ACK), as Linux's `ca_rtt_us` is that of the newest
//!   packet the ACK covers.
//! * The slack's GSO size is given in full-size packets (`gso_packets`,
//!   Linux's 64 KB `sk_gso_max_size` over a 1448-byte MSS); the controller
//!   knows windows in packets, not bytes. dropless sends no TSO batches, but
//!   the slack is kept: it is part of the threshold Linux computes, and it
//!   is the full 1 ms until the slow-start pacing rate passes 4 x 64 KB per
//!   ms (cwnd / srtt above about 1 Gb/s).
//! * Linux ignores RTT samples for `delay_min` during the first second of a
//!   congestion-avoidance epoch after a recovery; HyStart only runs in slow
//!   start, where that gate is open, so it is left out.

use crate::{AckSample, Time, MILLISECOND};

/// HyStart's constants (Linux's module parameters and defines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartConfig {
    /// No detection below this window, packets (`hystart_low_window`, 16).
    pub low_window: f64,
    /// Largest gap between ACKs of a train (`hystart_ack_delta_us`, 2 ms).
    pub ack_delta: Time,
    /// RTT samples per round before the delay test (`HYSTART_MIN_SAMPLES`, 8).
    pub min_samples: u32,
    /// Smallest and largest delay-increase threshold
    /// (`HYSTART_DELAY_MIN`/`MAX`, 4 and 16 ms).
    pub delay_thresh: (Time, Time),
    /// The flow is paced: the ACK-train threshold is the whole
    /// `delay_min + ack_delay` (Linux: `sk_pacing_status != SK_PACING_NONE`).
    pub paced: bool,
    /// Cap of the ACK-train slack (`hystart_ack_delay()`, 1 ms);
    /// 0: no slack (dropless's detector before it followed Linux here).
    pub ack_delay_cap: Time,
    /// Largest GSO/TSO packet in full-size packets (`sk_gso_max_size` /
    /// MSS: 65536 / 1448).
    pub gso_packets: f64,
    /// Pacing rate over `cwnd / srtt` in slow start, for the slack
    /// (`tcp_pacing_ss_ratio`, 200 %).
    pub ss_pacing_ratio: f64,
}

impl Default for HyStartConfig {
    fn default() -> Self {
        HyStartConfig {
            low_window: 16.0,
            ack_delta: 2 * MILLISECOND,
            min_samples: 8,
            delay_thresh: (4 * MILLISECOND, 16 * MILLISECOND),
            paced: false,
            ack_delay_cap: MILLISECOND,
            gso_packets: 65536.0 / 1448.0,
            ss_pacing_ratio: 2.0,
        }
    }
}

impl HyStartConfig {
    /// Linux tcp_cubic.c `hystart_ack_delay()`: `min(1 ms, 4 x GSO size /
    /// pacing rate)` with the slow-start pacing rate `ss_pacing_ratio x cwnd
    /// / srtt` (`tcp_update_pacing_rate()`), in packets: `4 gso_packets srtt
    /// / (ratio cwnd)`. 0 before the first RTT sample (no pacing rate yet).
    pub fn ack_delay(&self, cwnd: f64, srtt: Time) -> Time {
        if self.ack_delay_cap == 0 || srtt == 0 || cwnd <= 0.0 {
            return 0;
        }
        let d = 4.0 * self.gso_packets * srtt as f64 / (self.ss_pacing_ratio * cwnd);
        (d as Time).min(self.ack_delay_cap)
    }
}

/// Which test ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The ACK train outlasted the threshold.
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

    /// Smallest RTT seen since the last reset (0 before the first sample).
    pub fn delay_min(&self) -> Time {
        self.delay_min
    }

    /// Detection starts again, `delay_min` too (after a retransmission
    /// timeout; Linux `cubictcp_state()`: `bictcp_reset()` and
    /// `bictcp_hystart_reset()` on entering the Loss state).
    pub fn reset(&mut self) {
        self.found = None;
        self.started = false;
        self.delay_min = 0;
    }

    /// Linux tcp_cubic.c `bictcp_hystart_reset()`: a new round.
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
        // Linux tcp_cubic.c cubictcp_acked(): delay_min from every sample
        // (0 counts as 1 us there; a zero sample is ignored here).
        if rtt > 0 && (self.delay_min == 0 || rtt < self.delay_min) {
            self.delay_min = rtt;
        }
        // Linux cubictcp_acked(): hystart_update() only until `found`.
        if self.found.is_some() {
            return None;
        }
        // Linux hystart_update(): a new round once snd_una passes end_seq,
        // tested on every slow-start ACK, below the low window too (the
        // reset comes before the low-window test since Linux 5.13, commit
        // "tcp_cubic: fix spurious HYSTART_DELAY exit upon drop in min
        // RTT"): a round that began below 16 packets keeps its start.
        if !self.started || ack.delivered_at_send >= self.round_delivered {
            self.new_round(now, ack);
        }
        // hystart_low_window: no test below it.
        if cwnd < self.cfg.low_window {
            return None;
        }
        // ACK train (Linux hystart_update(), HYSTART_ACK_TRAIN).
        if now.saturating_sub(self.last_ack) <= self.cfg.ack_delta {
            self.last_ack = now;
            let srtt = if ack.srtt > 0 { ack.srtt } else { rtt };
            let mut threshold = self.delay_min + self.cfg.ack_delay(cwnd, srtt);
            if !self.cfg.paced {
                threshold /= 2;
            }
            if now.saturating_sub(self.round_start) > threshold {
                self.found = Some(Exit::AckTrain);
                return self.found;
            }
        }
        // Delay increase (Linux hystart_update(), HYSTART_DELAY): the
        // round's smallest RTT, tested once min_samples have been taken.
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

    const US: Time = 1_000;

    fn ack(rtt_us: Time, delivered: u64, at_send: u64) -> AckSample {
        AckSample {
            rtt: Some(rtt_us * US),
            delivered,
            delivered_at_send: at_send,
            newly_acked: 1,
            ..AckSample::default()
        }
    }

    /// One round of ACKs `gap_us` apart with RTT `rtt_us` (all for packets
    /// sent before the round began), window `cwnd`: the index of the ACK on
    /// which a test fired, if one did.
    fn round(
        h: &mut HyStart,
        start: Time,
        n: u64,
        gap_us: Time,
        rtt_us: Time,
        cwnd: f64,
    ) -> Option<(u64, Exit)> {
        (0..n).find_map(|i| {
            h.on_ack(start + i * gap_us * US, &ack(rtt_us, 1_000 + i, 500), cwnd)
                .map(|e| (i, e))
        })
    }

    /// Linux hystart_update(): the train fires on the first ACK more than
    /// (delay_min + ack_delay) / 2 after the round's start; with ACKs
    /// 100 us apart, delay_min 40 ms and the 1-ms slack that is 20.5 ms:
    /// ACK 206 (20.6 ms), not 205 (20.5 ms, not more).
    #[test]
    fn the_ack_train_fires_past_half_of_delay_min_plus_the_slack() {
        let mut h = HyStart::new(HyStartConfig::default());
        assert_eq!(
            round(&mut h, 0, 1_000, 100, 40_000, 100.0),
            Some((206, Exit::AckTrain))
        );
        assert_eq!(h.found(), Some(Exit::AckTrain));
        // Found: no more detection until a reset.
        assert_eq!(
            round(&mut h, 10 * crate::SECOND, 1_000, 100, 90_000, 100.0),
            None
        );
        // Without the slack (the earlier detector): 20 ms, ACK 201.
        let mut h = HyStart::new(HyStartConfig {
            ack_delay_cap: 0,
            ..HyStartConfig::default()
        });
        assert_eq!(
            round(&mut h, 0, 1_000, 100, 40_000, 100.0),
            Some((201, Exit::AckTrain))
        );
    }

    /// A paced flow's train must outlast the whole delay_min + ack_delay:
    /// 41 ms, ACK 411.
    #[test]
    fn a_paced_flows_train_must_last_the_whole_delay_min() {
        let mut h = HyStart::new(HyStartConfig {
            paced: true,
            ..HyStartConfig::default()
        });
        assert_eq!(
            round(&mut h, 0, 1_000, 100, 40_000, 100.0),
            Some((411, Exit::AckTrain))
        );
    }

    /// A gap longer than ack_delta (2 ms) ends the train: ACKs 2.1 ms apart
    /// never make one, however long the round; 2.0 ms apart do (22 ms > 20.5).
    #[test]
    fn a_gap_over_two_ms_breaks_the_train() {
        let mut h = HyStart::new(HyStartConfig::default());
        assert_eq!(round(&mut h, 0, 100, 2_100, 40_000, 100.0), None);
        let mut h = HyStart::new(HyStartConfig::default());
        assert_eq!(
            round(&mut h, 0, 100, 2_000, 40_000, 100.0),
            Some((11, Exit::AckTrain))
        );
    }

    /// Linux hystart_ack_delay(): min(1 ms, 4 x 64 KB / (2 cwnd mss / srtt)).
    #[test]
    fn the_slack_follows_the_slow_start_pacing_rate() {
        let c = HyStartConfig::default();
        let ms = MILLISECOND as f64;
        // cwnd 10 000 packets, srtt 50 ms: 4 x 45.26 x 50 / 20 000 = 0.4526 ms.
        let d = c.ack_delay(10_000.0, 50 * MILLISECOND) as f64 / ms;
        assert!((d - 0.452_596).abs() < 1e-5, "{d}");
        assert_eq!(c.ack_delay(100.0, 50 * MILLISECOND), MILLISECOND);
        assert_eq!(c.ack_delay(100.0, 0), 0);
    }

    /// The delay test needs HYSTART_MIN_SAMPLES (8) samples in the round
    /// first: with every RTT over the threshold it fires on the ninth ACK
    /// (index 8), with ACKs 5 ms apart (no train).
    #[test]
    fn the_delay_test_waits_for_eight_samples() {
        let mut h = HyStart::new(HyStartConfig::default());
        // delay_min 40 ms learnt below the low window.
        assert_eq!(h.on_ack(0, &ack(40_000, 1, 0), 10.0), None);
        assert_eq!(h.delay_min(), 40 * MILLISECOND);
        assert_eq!(
            round(&mut h, 0, 20, 5_000, 46_000, 20.0),
            Some((8, Exit::Delay))
        );
        // Seven samples only: nothing.
        let mut h = HyStart::new(HyStartConfig::default());
        h.on_ack(0, &ack(40_000, 1, 0), 10.0);
        assert_eq!(round(&mut h, 0, 8, 5_000, 46_000, 20.0), None);
        // With min_samples 4, the fifth ACK.
        let mut h = HyStart::new(HyStartConfig {
            min_samples: 4,
            ..HyStartConfig::default()
        });
        h.on_ack(0, &ack(40_000, 1, 0), 10.0);
        assert_eq!(
            round(&mut h, 0, 20, 5_000, 46_000, 20.0),
            Some((4, Exit::Delay))
        );
    }

    /// The threshold is delay_min + clamp(delay_min / 8, 4 ms, 16 ms), and
    /// the round's smallest RTT must exceed it.
    #[test]
    fn the_delay_threshold_is_an_eighth_of_delay_min_clamped_to_4_16_ms() {
        // (delay_min, RTT at the threshold) in us: 5 ms, 4 ms (clamped), 16 ms (clamped).
        for (min, at) in [(40_000, 45_000), (20_000, 24_000), (200_000, 216_000)] {
            for (rtt, fires) in [(at, false), (at + 1, true)] {
                let mut h = HyStart::new(HyStartConfig::default());
                h.on_ack(0, &ack(min, 1, 0), 10.0);
                let got = round(&mut h, 0, 12, 5_000, rtt, 20.0);
                assert_eq!(
                    got.is_some(),
                    fires,
                    "delay_min {min} us, rtt {rtt} us: {got:?}"
                );
            }
        }
        // One low sample among the round's first eight keeps its minimum low.
        let mut h = HyStart::new(HyStartConfig::default());
        h.on_ack(0, &ack(40_000, 1, 0), 10.0);
        let mut fired = None;
        for i in 0..12u64 {
            let rtt = if i == 3 { 41_000 } else { 50_000 };
            fired = fired.or(h.on_ack(i * 5 * MILLISECOND, &ack(rtt, 100 + i, 50), 20.0));
        }
        assert_eq!(fired, None);
    }

    /// hystart_low_window: nothing below 16 packets, detection at 16.
    #[test]
    fn no_detection_below_the_low_window() {
        let mut h = HyStart::new(HyStartConfig::default());
        assert_eq!(round(&mut h, 0, 1_000, 100, 40_000, 15.9), None);
        assert_eq!(round(&mut h, 0, 20, 5_000, 60_000, 15.9), None);
        assert_eq!(h.found(), None);
        let mut h = HyStart::new(HyStartConfig::default());
        assert_eq!(
            round(&mut h, 0, 1_000, 100, 40_000, 16.0),
            Some((206, Exit::AckTrain))
        );
    }

    /// Linux hystart_update() resets the round before it tests the low
    /// window: a round that began below 16 packets keeps its start and its
    /// last train ACK. Here the first ACK (window 10) starts a round at 0;
    /// the next ACKs of the same round come 10 ms later at window 16, so the
    /// gap since the train's last ACK (0) is over 2 ms and no train forms
    /// in this round. Counting the round from the first ACK at 16 packets
    /// (the rule before) would fire the train 20.6 ms after it.
    #[test]
    fn rounds_count_from_the_first_ack_below_the_low_window() {
        let mut h = HyStart::new(HyStartConfig::default());
        assert_eq!(h.on_ack(0, &ack(40_000, 1_000, 500), 10.0), None);
        assert_eq!(
            round(&mut h, 10 * MILLISECOND, 1_000, 100, 40_000, 16.0),
            None
        );
        assert_eq!(h.found(), None);
        // The next round (an ACK for data sent after it began) trains again.
        let t = 200 * MILLISECOND;
        let mut fired = None;
        for i in 0..1_000u64 {
            fired = fired.or(h
                .on_ack(t + i * 100 * US, &ack(40_000, 5_000 + i, 2_000), 16.0)
                .map(|e| (i, e)));
        }
        assert_eq!(fired, Some((206, Exit::AckTrain)));
    }

    /// A new round (an ACK for a packet sent after the round began) restarts
    /// the train and the samples; a reset (RTO) forgets delay_min as well.
    #[test]
    fn rounds_restart_the_train_and_a_reset_forgets_delay_min() {
        let mut h = HyStart::new(HyStartConfig::default());
        // 150 ACKs 100 us apart (15 ms, under 20.5), then a new round.
        assert_eq!(round(&mut h, 0, 150, 100, 40_000, 100.0), None);
        let t = 15 * MILLISECOND;
        assert_eq!(h.on_ack(t, &ack(40_000, 2_000, 1_000), 100.0), None);
        // The train counts from the new round's start: 205 more ACKs (20.5 ms) do not fire.
        let mut fired = None;
        for i in 1..=205u64 {
            fired = fired.or(h.on_ack(t + i * 100 * US, &ack(40_000, 2_000 + i, 1_500), 100.0));
        }
        assert_eq!(fired, None);
        assert_eq!(
            h.on_ack(t + 206 * 100 * US, &ack(40_000, 2_300, 1_500), 100.0),
            Some(Exit::AckTrain)
        );
        h.reset();
        assert_eq!(h.found(), None);
        assert_eq!(h.delay_min(), 0);
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
                    &ack(40_000 + (i % 3) * 1_000, 10 * round + i, 10 * round),
                    100.0
                ),
                None
            );
        }
    }
}
