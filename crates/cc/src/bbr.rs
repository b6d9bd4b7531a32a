//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016), as Linux's
//! `net/ipv4/tcp_bbr.c` runs it: the yardstick a user compares a
//! loss-avoiding sender against (issue 17).
//!
//! # The model
//!
//! On every ACK with a delivery-rate sample ([`AckSample::delivery_interval`],
//! computed by the transport as Linux's `tcp_rate.c` does):
//!
//! * `BtlBw` = the maximum delivery rate over the last `bw_rounds` (10)
//!   packet-timed rounds; application-limited samples count only if they
//!   raise it;
//! * `RTprop` = the minimum RTT over the last `min_rtt_win` (10 s);
//! * pacing rate = `pacing_gain x BtlBw x (1 - pacing_margin)`; the
//!   window = `cwnd_gain x BtlBw x RTprop` plus the ACK-aggregation
//!   allowance and three TSO bursts (Linux's quantization budget).
//!
//! # The state machine
//!
//! * **Startup**: both gains `2/ln 2`; ends when `BtlBw` has not grown by
//!   25 % (`full_bw_thresh`) in 3 (`full_bw_count`) rounds.
//! * **Drain**: pacing gain `ln 2 / 2` until the flight is at most one
//!   BDP.
//! * **ProbeBW**: pacing gains cycle `[1.25, 0.75, 1, 1, 1, 1, 1, 1]`, one
//!   phase per `RTprop`; the 1.25 phase lasts until the flight reaches
//!   1.25 BDP (or a loss), the 0.75 phase ends early once the flight is
//!   down to one BDP. The cycle starts at a random phase other than 0.75,
//!   from the connection's seed (deterministic in the simulator).
//! * **ProbeRTT**: when `RTprop` has not been refreshed for `min_rtt_win`,
//!   the window drops to 4 packets for `probe_rtt_time` (200 ms) and one
//!   round, then the mode before it resumes.
//!
//! # Loss
//!
//! BBR v1 does not cut its model on loss. As Linux: losses reported by an
//! ACK are taken off the window; the first round of a fast recovery keeps
//! packet conservation (the window is the flight plus what was acked);
//! after it the window grows back towards its target by what each ACK
//! acknowledges; at the end of the recovery the window before it is
//! restored. A timeout drops the window to 1 and restores it the same way.
//!
//! # What is not here, and why
//!
//! * Linux's long-term bandwidth (`lt_bw`) token-bucket policer detection:
//!   there are no policers in the simulator or the emulator, and it acts
//!   only at loss rates of 20 % and above.
//! * Idle restart (`bbr_cwnd_event`): dropless's flows are bulk transfers.
//! * The departure-time (EDT) correction of the in-flight estimate: the
//!   transport sends at its departure time, so the flight at EDT is the
//!   flight now (plus one TSO burst when probing up, as Linux adds).
//! * The bandwidth filter keeps the exact maximum of each of the last
//!   `bw_rounds` rounds, where Linux keeps Nichols' three-sample
//!   approximation of it (`lib/minmax.c`); the two agree whenever the
//!   maximum is taken in the window, which is what the model asks.
//! * BBRv3 (draft-ietf-ccwg-bbr): not implemented; v1 is what the kernel
//!   the project compares against ships as `bbr`.

use crate::{AckSample, CongestionCause, CongestionEvent, ConnInfo, Control, Controller, Time};
use crate::{MILLISECOND, SECOND};

/// Pacing gains of ProbeBW's eight phases (Linux `bbr_pacing_gain`).
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Smallest window, packets (Linux `bbr_cwnd_min_target`).
const CWND_MIN: f64 = 4.0;
/// Largest GSO/TSO burst, bytes (Linux `GSO_LEGACY_MAX_SIZE - 1 -
/// MAX_TCP_HEADER`, with a 320-byte header allowance).
const TSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
/// Rounds per half of the two-slot ACK-aggregation filter (Linux
/// `bbr_extra_acked_win_rtts`).
const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
/// ACK-aggregation allowance at most this long a time at `BtlBw` (Linux
/// `bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX: Time = 100 * MILLISECOND;
/// An aggregation epoch is restarted after this many packets (Linux
/// `bbr_ack_epoch_acked_reset_thresh`).
const ACK_EPOCH_RESET: u64 = 1 << 20;

/// BBR's parameters (Linux's constants as defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrConfig {
    /// Initial window, packets (10).
    pub initial_cwnd: f64,
    /// Window after a retransmission timeout, packets (1: Linux sets the
    /// flight plus one, and the whole flight is then lost).
    pub rto_cwnd: f64,
    /// Startup's pacing and window gain (2/ln 2 = 2.885).
    pub high_gain: f64,
    /// ProbeBW's window gain (2).
    pub cwnd_gain: f64,
    /// Rounds over which `BtlBw` keeps its maximum (10).
    pub bw_rounds: usize,
    /// How long `RTprop` is kept before ProbeRTT re-measures it (10 s).
    pub min_rtt_win: Time,
    /// Time at 4 packets in ProbeRTT (200 ms).
    pub probe_rtt_time: Time,
    /// Growth of `BtlBw` that keeps Startup going (1.25).
    pub full_bw_thresh: f64,
    /// Rounds without that growth that end Startup (3).
    pub full_bw_count: u32,
    /// Pacing below the model's rate (0.01).
    pub pacing_margin: f64,
    /// Gain of the ACK-aggregation allowance (1; 0 turns it off).
    pub extra_acked_gain: f64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            initial_cwnd: 10.0,
            rto_cwnd: 1.0,
            high_gain: 2.0 / std::f64::consts::LN_2,
            cwnd_gain: 2.0,
            bw_rounds: 10,
            min_rtt_win: 10 * SECOND,
            probe_rtt_time: 200 * MILLISECOND,
            full_bw_thresh: 1.25,
            full_bw_count: 3,
            pacing_margin: 0.01,
            extra_acked_gain: 1.0,
        }
    }
}

/// BBR's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bottleneck rate.
    Startup,
    /// Draining the queue Startup built.
    Drain,
    /// Steady state: gain cycling around `BtlBw`.
    ProbeBw,
    /// Window at 4 packets to re-measure `RTprop`.
    ProbeRtt,
}

/// The BBR v1 controller.
#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    wire: f64,
    mss: f64,
    rng: u64,
    mode: Mode,
    cwnd: f64,
    pacing_rate: f64,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Per-round maxima of the delivery rate (packets/s), by round mod
    /// `bw_rounds`, and the round each slot belongs to.
    bw_slots: Vec<(u64, f64)>,
    round: u64,
    round_start: bool,
    next_round_delivered: u64,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    has_seen_rtt: bool,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    prior_cwnd: f64,
    /// A fast recovery started with this ACK's congestion event.
    entering_recovery: bool,
    packet_conservation: bool,
    in_recovery: bool,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// Samples of packets sent before `delivered` reached this are
    /// application-limited (ProbeRTT's low flight, Linux `tp->app_limited`).
    app_limited_until: u64,
    extra_acked: [f64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
}

impl Bbr {
    /// A BBR controller for packets of `info.mss` payload bytes
    /// (`info.wire_size` on the wire); `info.seed` picks the first ProbeBW
    /// phase.
    pub fn new(cfg: BbrConfig, info: &ConnInfo) -> Self {
        let cwnd = cfg.initial_cwnd.max(1.0);
        Bbr {
            wire: info.wire_size as f64,
            mss: info.mss as f64,
            rng: info.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            mode: Mode::Startup,
            cwnd,
            // Linux before the first RTT sample: high_gain x cwnd per 1 ms.
            pacing_rate: cfg.high_gain * cwnd * info.wire_size as f64 / 1e-3,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            bw_slots: vec![(0, 0.0); cfg.bw_rounds.max(1)],
            round: 0,
            round_start: false,
            next_round_delivered: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            has_seen_rtt: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            prior_cwnd: 0.0,
            entering_recovery: false,
            packet_conservation: false,
            in_recovery: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            app_limited_until: 0,
            extra_acked: [0.0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            cfg,
        }
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `BtlBw`, packets per second.
    pub fn btl_bw(&self) -> f64 {
        let oldest = self.round.saturating_sub(self.bw_slots.len() as u64 - 1);
        self.bw_slots
            .iter()
            .filter(|&&(r, _)| r >= oldest)
            .map(|&(_, b)| b)
            .fold(0.0, f64::max)
    }

    /// Whether Startup has found the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// xorshift64: the first ProbeBW phase.
    fn next_random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Packets per burst Linux's TSO autosizing would build at the current
    /// pacing rate: 1/1024 s of data, at most 64 KB, at least 2 (1 below
    /// 150 kB/s).
    fn tso_segs(&self) -> f64 {
        let bytes = (self.pacing_rate / 1024.0).min(TSO_MAX_BYTES);
        let min = if self.pacing_rate < 150_000.0 {
            1.0
        } else {
            2.0
        };
        (bytes / self.mss).floor().clamp(min, 127.0)
    }

    /// `gain x BtlBw x RTprop`, packets, rounded up (Linux `bbr_bdp`).
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.cfg.initial_cwnd,
            Some(r) => (bw * crate::secs(r) * gain).ceil(),
        }
    }

    /// Linux `bbr_quantization_budget`.
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let mut c = cwnd + 3.0 * self.tso_segs();
        c = (c / 2.0).ceil() * 2.0; // the next even number
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2.0;
        }
        c
    }

    /// Linux `bbr_inflight`.
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn update_bw(&mut self, ack: &AckSample) {
        self.round_start = false;
        if ack.delivery_interval == 0 {
            return;
        }
        if ack.delivered_at_send >= self.next_round_delivered {
            self.next_round_delivered = ack.delivered;
            self.round += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let pkts = ack.delivered.saturating_sub(ack.delivered_at_send) as f64;
        let bw = pkts / crate::secs(ack.delivery_interval);
        let app_limited = ack.app_limited || ack.delivered_at_send < self.app_limited_until;
        if !app_limited || bw >= self.btl_bw() {
            let n = self.bw_slots.len();
            let slot = &mut self.bw_slots[(self.round % n as u64) as usize];
            if slot.0 != self.round {
                *slot = (self.round, bw);
            } else if bw > slot.1 {
                slot.1 = bw;
            }
        }
    }

    fn extra_acked_allowance(&self) -> f64 {
        if self.cfg.extra_acked_gain <= 0.0 || !self.full_bw_reached {
            return 0.0;
        }
        let max = self.btl_bw() * crate::secs(EXTRA_ACKED_MAX);
        (self.cfg.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1])).min(max)
    }

    /// Linux `bbr_update_ack_aggregation`.
    fn update_ack_aggregation(&mut self, now: Time, ack: &AckSample) {
        if self.cfg.extra_acked_gain <= 0.0 || ack.newly_acked == 0 || ack.delivery_interval == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= EXTRA_ACKED_WIN_ROUNDS {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let epoch = crate::secs(now.saturating_sub(self.ack_epoch_stamp));
        let mut expected = self.btl_bw() * epoch;
        if self.ack_epoch_acked as f64 <= expected
            || self.ack_epoch_acked + ack.newly_acked as u64 >= ACK_EPOCH_RESET
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = now;
            expected = 0.0;
        }
        self.ack_epoch_acked += ack.newly_acked as u64;
        let extra = (self.ack_epoch_acked as f64 - expected).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        // Linux: CYCLE_LEN - 1 - rand(7), then advanced: never the 0.75 phase.
        let r = (self.next_random() % 7) as usize;
        self.cycle_idx = CYCLE.len() - 1 - r;
        self.advance_cycle(now);
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = now;
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, now: Time, ack: &AckSample) -> bool {
        let full_length = now.saturating_sub(self.cycle_stamp) > self.min_rtt.unwrap_or(0);
        let gain = CYCLE[self.cycle_idx];
        if gain == 1.0 {
            return full_length;
        }
        let prior_in_flight = (ack.in_flight + ack.newly_acked) as f64;
        let bw = self.btl_bw();
        if gain > 1.0 {
            let inflight = prior_in_flight + self.tso_segs();
            full_length && (ack.newly_lost > 0 || inflight >= self.inflight(bw, gain))
        } else {
            full_length || prior_in_flight <= self.inflight(bw, 1.0)
        }
    }

    fn check_full_bw_reached(&mut self, ack: &AckSample) {
        if self.full_bw_reached || !self.round_start || ack.app_limited {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * self.cfg.full_bw_thresh {
            self.full_bw = bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.cfg.full_bw_count;
    }

    fn check_drain(&mut self, now: Time, ack: &AckSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && ack.in_flight as f64 <= self.inflight(self.btl_bw(), 1.0) {
            self.enter_probe_bw(now);
        }
    }

    fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_recovery && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Linux `bbr_update_min_rtt`, with ProbeRTT.
    fn update_min_rtt(&mut self, now: Time, ack: &AckSample) {
        let expired = now > self.min_rtt_stamp + self.cfg.min_rtt_win;
        if let Some(r) = ack.rtt {
            if self.min_rtt.is_none_or(|m| r <= m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if self.cfg.probe_rtt_time > 0 && expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.app_limited_until = ack.delivered + ack.in_flight as u64;
            match self.probe_rtt_done {
                None if ack.in_flight as f64 <= CWND_MIN => {
                    self.probe_rtt_done = Some(now + self.cfg.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = ack.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.min_rtt_stamp = now;
                        self.cwnd = self.cwnd.max(self.prior_cwnd);
                        self.reset_mode(now);
                    }
                }
                None => {}
            }
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (1.0 / self.cfg.high_gain, self.cfg.high_gain),
            Mode::ProbeBw => (CYCLE[self.cycle_idx], self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_set_pacing_rate` (with `bbr_init_pacing_rate_from_rtt`).
    fn set_pacing_rate(&mut self, ack: &AckSample) {
        if !self.has_seen_rtt {
            if let Some(r) = ack.rtt.filter(|&r| r > 0) {
                self.has_seen_rtt = true;
                self.pacing_rate =
                    self.cfg.high_gain * self.cfg.initial_cwnd * self.wire / crate::secs(r);
            }
        }
        let rate = self.pacing_gain * self.btl_bw() * self.wire * (1.0 - self.cfg.pacing_margin);
        if self.has_seen_rtt && (self.full_bw_reached || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// Linux `bbr_set_cwnd` and `bbr_set_cwnd_to_recover_or_restore`.
    fn set_cwnd(&mut self, ack: &AckSample) {
        let acked = ack.newly_acked as f64;
        if acked > 0.0 {
            let mut cwnd = self.cwnd;
            if ack.newly_lost > 0 {
                cwnd = (cwnd - ack.newly_lost as f64).max(1.0);
            }
            let flight_plus_acked = ack.in_flight as f64 + acked;
            if self.entering_recovery {
                self.entering_recovery = false;
                self.packet_conservation = true;
                self.next_round_delivered = ack.delivered;
                cwnd = flight_plus_acked;
            }
            if self.packet_conservation {
                self.cwnd = cwnd.max(flight_plus_acked);
            } else {
                let bw = self.btl_bw();
                let target = self.quantization_budget(
                    self.bdp(bw, self.cwnd_gain) + self.extra_acked_allowance(),
                );
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || ack.delivered < self.cfg.initial_cwnd as u64 {
                    cwnd += acked;
                }
                self.cwnd = cwnd.max(CWND_MIN);
            }
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN);
        }
    }
}

impl Controller for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn control(&self) -> Control {
        Control {
            cwnd: Some(self.cwnd),
            pacing_rate: Some(self.pacing_rate),
            max_burst: Some(self.tso_segs() as u32),
        }
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if now > 0 && self.ack_epoch_stamp == 0 {
            self.ack_epoch_stamp = now;
        }
        self.update_bw(ack);
        self.update_ack_aggregation(now, ack);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(now, ack) {
            self.advance_cycle(now);
        }
        self.check_full_bw_reached(ack);
        self.check_drain(now, ack);
        self.update_min_rtt(now, ack);
        self.update_gains();
        self.set_pacing_rate(ack);
        self.set_cwnd(ack);
    }

    fn on_congestion_event(&mut self, _now: Time, ev: &CongestionEvent) {
        // ECN: BBR v1 does not react (Linux's CWR state leaves it alone).
        // A loss inside a recovery (the transport's second event, RFC 5681
        // §4.3) does not start a new one: Linux stays in its Recovery state
        // and its packet conservation is not restarted.
        if ev.cause == CongestionCause::Loss && !self.in_recovery {
            self.save_cwnd();
            self.in_recovery = true;
            self.entering_recovery = true;
        }
    }

    fn on_recovery_end(&mut self, _now: Time) {
        if self.in_recovery {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        self.in_recovery = false;
        self.entering_recovery = false;
        self.packet_conservation = false;
    }

    fn on_rto(&mut self, _now: Time) {
        // Linux: tcp_enter_loss saves the window (bbr_ssthresh) and sets it
        // to the flight plus one (all of it now lost: `rto_cwnd`, 1);
        // bbr_set_state forgets the full-pipe estimate's growth check. (It
        // also ends the round, for the long-term sampling not modelled here.)
        self.save_cwnd();
        self.in_recovery = true;
        self.entering_recovery = false;
        self.packet_conservation = false;
        self.cwnd = self.cfg.rto_cwnd;
        self.full_bw = 0.0;
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("btl_bw_bps", self.btl_bw() * self.wire * 8.0));
        out.push(("rtprop_s", self.min_rtt.map_or(0.0, crate::secs)));
        out.push(("pacing_gain", self.pacing_gain));
        out.push((
            "mode",
            match self.mode {
                Mode::Startup => 0.0,
                Mode::Drain => 1.0,
                Mode::ProbeBw => 2.0,
                Mode::ProbeRtt => 3.0,
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ConnInfo {
        ConnInfo {
            mss: 1460,
            wire_size: 1500,
            seed: 7,
        }
    }

    /// An ACK in a steady flow: `rate` packets/s delivered, one round
    /// (100 ms) of `rate/10` packets in flight.
    fn ack(delivered: u64, rate: f64, rtt_ms: u64, in_flight: u32) -> AckSample {
        let interval = 100 * MILLISECOND;
        let pkts = (rate * 0.1) as u64;
        AckSample {
            rtt: Some(rtt_ms * MILLISECOND),
            min_rtt: rtt_ms * MILLISECOND,
            srtt: rtt_ms * MILLISECOND,
            newly_acked: 1,
            newly_acked_bytes: 1460,
            delivered,
            delivered_at_send: delivered.saturating_sub(pkts),
            delivery_interval: interval,
            in_flight,
            ..AckSample::default()
        }
    }

    /// Startup ends after three rounds without 25 % growth, Drain follows,
    /// then ProbeBW paces at BtlBw x gain x 0.99.
    #[test]
    fn startup_finds_the_full_pipe_and_drains() {
        let mut b = Bbr::new(BbrConfig::default(), &info());
        let mut now = 0;
        let mut delivered = 0u64;
        // Delivery rate doubles for 4 rounds, then stays at 8000 packets/s.
        let mut rate = 500.0;
        let mut modes = vec![];
        for round in 0..12 {
            if round > 0 && rate < 8000.0 {
                rate *= 2.0;
            }
            for _ in 0..(rate * 0.1) as u64 {
                delivered += 1;
                now += (1e9 / rate) as Time;
                let flight = if b.mode() == Mode::Startup { 2000 } else { 700 };
                b.on_ack(now, &ack(delivered, rate, 100, flight));
            }
            modes.push(b.mode());
        }
        assert!(b.full_bw_reached());
        assert!(modes.contains(&Mode::Drain) || modes.contains(&Mode::ProbeBw));
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!((b.btl_bw() - 8000.0).abs() < 1.0, "{}", b.btl_bw());
        let rate = b.control().pacing_rate.unwrap();
        let want = b.pacing_gain * 8000.0 * 1500.0 * 0.99;
        assert!((rate - want).abs() < 1e-6 * want, "{rate} vs {want}");
        // The window: 2 x BDP (800 packets) plus three TSO bursts (1/1024 s
        // at 12 MB/s: 8 packets of 1460 bytes, so at least 7) and any
        // aggregation allowance.
        let cwnd = b.control().cwnd.unwrap();
        assert!(cwnd >= 1600.0 + 3.0 * 7.0, "{cwnd}");
    }

    /// A loss does not change the model; packet conservation holds in the
    /// first round of recovery and the window is restored at its end.
    #[test]
    fn loss_keeps_the_model_and_restores_the_window() {
        let mut b = Bbr::new(BbrConfig::default(), &info());
        let mut now = 0;
        let mut delivered = 0u64;
        for _ in 0..20_000 {
            delivered += 1;
            now += 125_000;
            b.on_ack(now, &ack(delivered, 8000.0, 100, 800));
        }
        assert_eq!(b.mode(), Mode::ProbeBw);
        let (bw, cwnd, rate) = (b.btl_bw(), b.cwnd, b.pacing_rate);
        b.on_congestion_event(
            now,
            &CongestionEvent {
                cause: CongestionCause::Loss,
                lost: 5,
                in_flight: 805,
                srtt: 100 * MILLISECOND,
                min_rtt: 100 * MILLISECOND,
            },
        );
        let mut a = ack(delivered + 1, 8000.0, 100, 500);
        a.newly_lost = 5;
        b.on_ack(now + 1, &a);
        assert_eq!(b.cwnd, 501.0, "packet conservation: flight + acked");
        assert_eq!(b.btl_bw(), bw);
        // The loss ends a 1.25 phase (Linux), but the rate stays the model's.
        let model = b.pacing_gain * bw * 1500.0 * 0.99;
        assert!(
            (b.pacing_rate - model).abs() < 1e-6 * model,
            "{} vs {model}",
            b.pacing_rate
        );
        assert!(b.pacing_rate >= 0.6 * rate);
        b.on_recovery_end(now + 2);
        assert_eq!(b.cwnd, cwnd);
    }

    /// ProbeRTT after 10 s without a new minimum: the window is 4 packets
    /// for 200 ms and a round, then ProbeBW again.
    #[test]
    fn probe_rtt_every_ten_seconds() {
        let mut b = Bbr::new(BbrConfig::default(), &info());
        let mut now = 0;
        let mut delivered = 0u64;
        let mut saw_probe_rtt_at = None;
        let mut left_at = None;
        while now < 12 * SECOND {
            delivered += 1;
            now += 125_000;
            // The RTT never gets down to its first sample again.
            let flight = if b.mode() == Mode::ProbeRtt { 4 } else { 800 };
            let rtt = if delivered == 1 { 100 } else { 101 };
            b.on_ack(now, &ack(delivered, 8000.0, rtt, flight));
            if b.mode() == Mode::ProbeRtt && saw_probe_rtt_at.is_none() {
                saw_probe_rtt_at = Some(now);
                assert_eq!(b.control().cwnd, Some(4.0));
            }
            if saw_probe_rtt_at.is_some() && left_at.is_none() && b.mode() != Mode::ProbeRtt {
                left_at = Some(now);
            }
        }
        let at = saw_probe_rtt_at.expect("ProbeRTT");
        assert!(
            at > 10 * SECOND && at < 10 * SECOND + 200 * MILLISECOND,
            "{at}"
        );
        let dwell = left_at.expect("left ProbeRTT") - at;
        assert!(
            (200 * MILLISECOND..400 * MILLISECOND).contains(&dwell),
            "{dwell}"
        );
        assert!(b.control().cwnd.unwrap() > 1000.0);
    }
}
