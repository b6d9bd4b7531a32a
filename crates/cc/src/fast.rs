//! FAST TCP, following the ns-2 module used in the thesis (Cui and Andrew,
//! `tcp-fast.cc` v1.1.3; reference note §3.1–3.6).
//!
//! # Estimation (per ACK, module `fast_est`)
//! * `baseRTT = d` = the smallest RTT sample seen.
//! * `avgRTT = D` = EWMA of the samples (thesis eq. (4.5)):
//!   `D <- phi D + (1 - phi) rtt` with `phi = max(255/256, 1 - 3/pif)`,
//!   `pif` = packets in flight ([`AckSample::in_flight`], as the module's
//!   `t_seqno_ - ackno`; the window if unknown). The first sample sets both.
//!
//! # Window control (module `fast_cc`)
//! * MI mode: if `D - d < mi_threshold`, `cwnd += newly_acked` per ACK
//!   (the Linux/ns-2 multiplicative-increase region; 0 = "pure FAST", as in
//!   the thesis's runs).
//! * Otherwise, at most once per `update_period` and, by default, only in
//!   every other RTT, the window target is (thesis eqs. (4.1), (4.2))
//!
//!   ```text
//!   target = min(2 cwnd, (1 - gamma) cwnd + gamma (old_cwnd d/D + alpha)),  target >= 2
//!   ```
//!
//!   with `old_cwnd` = the window one RTT ago (the in-flight count when the
//!   acknowledged packet was sent, [`AckSample::in_flight_at_send`]). As in
//!   the module, the update only happens outside the dead zone
//!   `alpha <= old_cwnd (D - d)/D < beta` (no dead zone when alpha = beta).
//! * Increases are paced (module `fast_pace`): `floor(target - cwnd)`
//!   increments are spread over the ACKs of the next update period, at most
//!   one per ACK (all at once, in doubling stages, while `cwnd <= 4`; not
//!   paced at all when `baseRTT < 4 ms`). A new update replaces any
//!   increments still pending.
//! * Decreases are applied at once (original FAST and the module), or,
//!   with `decrease_pacing`, spread over the next RTT by the thesis's
//!   Algorithm 1 (§4.5.2, note §5.2; see below).
//!
//! Equilibrium (thesis eqs. (4.3), (4.4)): `w* = alpha D/(D - d)`, and the
//! flow keeps `alpha` packets in the bottleneck queue.
//!
//! # Loss
//! A congestion event (loss or ECN) halves cwnd (module
//! `slowdown(CLOSE_CWND_HALF | CLOSE_SSTHRESH_HALF)`); no window updates
//! happen during recovery; an RTO sets `ssthresh` to half the flight and
//! `cwnd = rto_cwnd` (module: 2).
//!
//! # ns-2 module recovery (`ns2_recovery`, off by default)
//! The module runs `fast_est` and `fast_cc` only outside fast recovery
//! (note §3.6, `recv`): during recovery baseRTT, avgRTT and the recorded
//! flight `avg_cwnd_last_RTT_` stay at their pre-loss values, and every
//! packet sent during recovery stores that pre-loss flight as its
//! `old_cwnd`. After recovery the first updates therefore compute
//! `(1 - gamma) cwnd + gamma (W_pre d/D_pre + alpha)` from the halved
//! window, the pre-loss flight `W_pre` and the pre-loss avgRTT, which
//! re-inflates the window within one update. With the option on, this
//! controller does the same: no estimation while the transport reports
//! fast recovery, and for ACKs of packets sent before recovery ended
//! (`delivered_at_send` not above the delivery count at the end) the
//! pre-loss flight replaces the transport's `in_flight_at_send`. Use with
//! the transport's ns-2 recovery (`FlowSpec::ns2_recovery`).
//!
//! # Thesis extensions (Cui, seed 003, §4.4-4.5), each switchable per flow
//! * **Decrease pacing** (`decrease_pacing`, Algorithm 1): an update whose
//!   target `W(t+1)` is below the window `W(t)` no longer sets the window at
//!   once (which silences the flow for `δW` ACKs); instead every
//!   acknowledged packet lowers the window by `δW/W(t)` until the target is
//!   reached, so the flow keeps sending `W(t+1)/W(t)` packets per ACK. The
//!   algorithm is split as the note §5.2 recommends: its lines 2-11 run at
//!   the update, lines 12-20 on each ACK; the last step is clamped to the
//!   target and a new update replaces an unfinished decrease. Increases keep
//!   the module's pacing (+1 per ACK at most, spaced over the update
//!   period), which is what Algorithm 1's increase branch (`amount = 1`)
//!   does when the increments fill the period.
//! * **alpha-adjusting** (`alpha_adjust`, §4.5.3-4.5.4, eqs. (4.32)-(4.35)):
//!   alpha is halved when loss recovery starts (at most once per recovery
//!   episode; floor `alpha_floor * alpha0`, thesis alpha0/100), frozen during
//!   recovery, and after recovery rises towards the configured alpha0 as
//!   `alpha(t) = alpha0 - (alpha0 - alpha_s) e^{-k t}` (k = `alpha_k`,
//!   thesis 0.1/s). Choices the thesis leaves open: the initial alpha is
//!   alpha0 (so the flow starts as original FAST); an RTO halves alpha too
//!   (`alpha_rto_halve`, on by default); a dead zone `beta > alpha` is
//!   scaled with alpha. The thesis always uses decrease pacing with it;
//!   here the two are separate switches.
//! * **Four-phase start** (`four_phase`, §4.4.2): see [`crate::fast_start`].
//!
//! # Slow start
//! Off by default: the module has no separate slow start (growth from a
//! small window comes from MI mode and from the `min(2w, ·)` law with paced
//! increments). With `slow_start` on, the flow starts (and restarts after an
//! RTO) with `cwnd += newly_acked` per ACK until `cwnd >= ssthresh`, a
//! congestion event, or its backlog estimate `old_cwnd (rtt - d)/rtt`
//! (latest RTT sample) reaches `alpha`.

use crate::fast_start::{FourPhase, FourPhaseConfig};
use crate::newreno::{WindowCore, WindowParams};
use crate::{from_secs, secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Below this baseRTT (seconds) increases are not paced (module constant).
pub const PACE_MIN_BASE_RTT: f64 = 0.004;

/// FAST TCP parameters (defaults: the ns-2 module's `ns-default.tcl`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastConfig {
    /// Shared window parameters (`rto_cwnd` defaults to 2, as the module).
    pub window: WindowParams,
    /// alpha, packets the flow keeps queued (100).
    pub alpha: f64,
    /// beta >= alpha, upper edge of the dead zone (100 = alpha: none).
    pub beta: f64,
    /// Smoothing gain gamma in (0, 1] (0.5).
    pub gamma: f64,
    /// Minimum time between window updates, seconds (0.01).
    pub update_period: f64,
    /// MI threshold on the queueing delay, seconds (0.00075; 0 = pure FAST).
    pub mi_threshold: f64,
    /// Separate slow start (off, as in the module).
    pub slow_start: bool,
    /// Update only every other RTT (on, the module default "as in Linux").
    pub every_other_rtt: bool,
    /// Thesis Algorithm 1: pace window decreases over the next RTT (off).
    pub decrease_pacing: bool,
    /// Thesis alpha-adjusting (off); `alpha` is then alpha0.
    pub alpha_adjust: bool,
    /// alpha-adjusting recovery rate k, 1/s (thesis 0.1).
    pub alpha_k: f64,
    /// alpha-adjusting floor as a fraction of alpha0 (thesis 1/100).
    pub alpha_floor: f64,
    /// alpha-adjusting: an RTO halves alpha too (on; the thesis is silent).
    pub alpha_rto_halve: bool,
    /// Estimation frozen during loss recovery and the pre-loss flight as
    /// `old_cwnd` for packets sent in recovery, as the ns-2 module (off).
    pub ns2_recovery: bool,
    /// Thesis four-phase queue-draining start (off).
    pub four_phase: Option<FourPhaseConfig>,
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig {
            window: WindowParams {
                rto_cwnd: 2.0,
                ..WindowParams::default()
            },
            alpha: 100.0,
            beta: 100.0,
            gamma: 0.5,
            update_period: 0.01,
            mi_threshold: 0.00075,
            slow_start: false,
            every_other_rtt: true,
            decrease_pacing: false,
            alpha_adjust: false,
            alpha_k: 0.1,
            alpha_floor: 0.01,
            alpha_rto_halve: true,
            ns2_recovery: false,
            four_phase: None,
        }
    }
}

/// alpha after `t` seconds of recovery from `alpha_s` towards `alpha0` at
/// rate `k` (thesis eq. (4.33), the solution of (4.32)
/// `d alpha/dt = k (alpha0 - alpha)`).
pub fn alpha_recovery(alpha0: f64, alpha_s: f64, k: f64, t: f64) -> f64 {
    alpha0 - (alpha0 - alpha_s) * (-k * t.max(0.0)).exp()
}

/// FAST window target (thesis eq. (4.1) with constant alpha, i.e. (4.2),
/// and the module's floor of 2):
/// `min(2 cwnd, (1-gamma) cwnd + gamma (old_cwnd d/D + alpha))`, at least 2.
pub fn fast_target(
    cwnd: f64,
    old_cwnd: f64,
    base_rtt: f64,
    avg_rtt: f64,
    alpha: f64,
    gamma: f64,
) -> f64 {
    // thesis eq. (4.2): (1-gamma) w + gamma (w d/D + alpha)
    let t = (1.0 - gamma) * cwnd + gamma * (old_cwnd * base_rtt / avg_rtt + alpha);
    // thesis eq. (4.1): no faster than slow start; module: target >= 2.
    t.min(2.0 * cwnd).max(2.0)
}

/// Single-flow equilibrium window on a link of `capacity_pkts_per_s` with
/// propagation RTT `base_rtt_s`: `alpha + C d` packets (thesis eq. (4.3),
/// `w* = alpha D/(D - d)`, with `D - d = alpha/x` and `x = C`).
pub fn equilibrium_window(alpha: f64, capacity_pkts_per_s: f64, base_rtt_s: f64) -> f64 {
    alpha + capacity_pkts_per_s * base_rtt_s
}

/// Equilibrium window for measured RTTs (thesis eq. (4.3)):
/// `w* = alpha D/(D - d)`.
pub fn equilibrium_window_rtt(alpha: f64, base_rtt_s: f64, avg_rtt_s: f64) -> f64 {
    alpha * avg_rtt_s / (avg_rtt_s - base_rtt_s)
}

/// FAST TCP controller.
#[derive(Clone, Debug)]
pub struct Fast {
    core: WindowCore,
    cfg: FastConfig,
    /// baseRTT d, seconds (infinite before the first sample).
    base_rtt: f64,
    /// avgRTT D, seconds (0 before the first sample).
    avg_rtt: f64,
    /// Time of the last window update (module `cwnd_update_time`).
    last_update: Option<Time>,
    /// Start of the current RTT (module `fast_calc_cwnd_end`).
    round_start: Option<Time>,
    /// This RTT is an update RTT (module `on_first_rtt_`).
    update_round: bool,
    /// ACKs in the current and the last RTT.
    acks_per_rtt: u32,
    acks_last_rtt: u32,
    /// Paced increments still to apply, and the ACK spacing between them
    /// (module `cwnd_increments`, `bc_spacing`, `bc_ack`).
    pending: u32,
    spacing: u32,
    bc_ack: u32,
    /// In the optional slow start.
    in_ss: bool,
    /// Last computed target, for traces.
    last_target: f64,
    /// Current alpha (alpha0 = `cfg.alpha` unless alpha-adjusting moved it).
    alpha: f64,
    /// alpha-adjusting: alpha and time at the end of the last recovery.
    alpha_s: f64,
    t_s: Option<Time>,
    /// Decrease pacing: target of the decrease in progress (0: none) and
    /// the per-ACK step (negative).
    dec_target: f64,
    dec_step: f64,
    /// Four-phase start, when enabled.
    fp: Option<FourPhase>,
    /// `ns2_recovery`: flight at the last ACK outside recovery (module
    /// `avg_cwnd_last_RTT_`), the value frozen for the current or last
    /// recovery, the delivery count of the latest ACK and the one at the
    /// end of the last recovery (packets with `delivered_at_send` up to it
    /// were sent before recovery ended).
    pif_outside: f64,
    pif_frozen: f64,
    delivered: u64,
    rec_end_delivered: Option<u64>,
}

impl Fast {
    /// A FAST TCP controller.
    pub fn new(cfg: FastConfig) -> Self {
        let core = WindowCore::new(cfg.window);
        let in_ss = cfg.slow_start && core.in_slow_start();
        Fast {
            core,
            cfg,
            base_rtt: f64::INFINITY,
            avg_rtt: 0.0,
            last_update: None,
            round_start: None,
            update_round: true,
            acks_per_rtt: 0,
            acks_last_rtt: 0,
            pending: 0,
            spacing: 0,
            bc_ack: 0,
            in_ss,
            last_target: 0.0,
            alpha: cfg.alpha,
            alpha_s: cfg.alpha,
            t_s: None,
            dec_target: 0.0,
            dec_step: 0.0,
            fp: cfg.four_phase.map(|c| FourPhase::new(c, cfg.alpha)),
            pif_outside: 0.0,
            pif_frozen: 0.0,
            delivered: 0,
            rec_end_delivered: None,
        }
    }

    /// Current alpha (packets).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Changes alpha, and alpha0 with it (and beta when there was no dead
    /// zone).
    pub fn set_alpha(&mut self, alpha: f64) {
        if self.cfg.beta == self.cfg.alpha {
            self.cfg.beta = alpha;
        }
        self.cfg.alpha = alpha;
        self.alpha = alpha;
        self.alpha_s = alpha;
    }

    /// The four-phase start's state, if enabled.
    pub fn four_phase(&self) -> Option<&FourPhase> {
        self.fp.as_ref()
    }

    /// Current window, packets.
    pub fn cwnd(&self) -> f64 {
        self.core.cwnd
    }

    /// Upper edge of the dead zone for the current alpha.
    fn beta(&self) -> f64 {
        if self.cfg.beta == self.cfg.alpha {
            self.alpha
        } else {
            self.cfg.beta * self.alpha / self.cfg.alpha
        }
    }

    /// alpha-adjusting, halving part: on entering loss recovery.
    fn halve_alpha(&mut self) {
        if self.cfg.alpha_adjust {
            self.alpha = (self.alpha / 2.0).max(self.cfg.alpha_floor * self.cfg.alpha);
            self.t_s = None;
            self.alpha_s = self.alpha;
        }
    }

    /// baseRTT in seconds (infinite before the first sample).
    pub fn base_rtt(&self) -> f64 {
        self.base_rtt
    }

    /// avgRTT in seconds (0 before the first sample).
    pub fn avg_rtt(&self) -> f64 {
        self.avg_rtt
    }

    /// The last window target computed by an update (0 before any).
    pub fn last_target(&self) -> f64 {
        self.last_target
    }

    /// Paced increments not yet applied.
    pub fn pending_increments(&self) -> u32 {
        self.pending
    }

    /// Estimation (module `fast_est`): baseRTT and the avgRTT EWMA.
    fn estimate(&mut self, rtt: f64, pif: f64) {
        if rtt < self.base_rtt {
            self.base_rtt = rtt;
        }
        if self.avg_rtt == 0.0 {
            self.avg_rtt = rtt;
            return;
        }
        // thesis eq. (4.5), module fast_est_update_avgrtt:
        // phi = 1 - 3/pif if pif/3 > 256, else 255/256.
        let scale = pif / 3.0;
        self.avg_rtt = if scale > 256.0 {
            ((scale - 1.0) * self.avg_rtt + rtt) / scale
        } else {
            (self.avg_rtt * 255.0 + rtt) / 256.0
        };
    }

    /// The window target of one update, or the current window inside the
    /// dead zone (module `fast_calc_cwnd`).
    fn compute_target(&self, old_cwnd: f64) -> f64 {
        let cwnd = self.core.cwnd;
        let backlog_x_d = old_cwnd * (self.avg_rtt - self.base_rtt);
        if backlog_x_d < self.alpha * self.avg_rtt || backlog_x_d >= self.beta() * self.avg_rtt {
            fast_target(
                cwnd,
                old_cwnd,
                self.base_rtt,
                self.avg_rtt,
                self.alpha,
                self.cfg.gamma,
            )
        } else {
            cwnd
        }
    }

    /// Applies a decrease chosen by a window update. Original FAST and the
    /// ns-2 module set the window at once. With decrease pacing (thesis
    /// Algorithm 1, lines 7-11) the target and the per-ACK step
    /// `amount = (target - W)/W` are recorded and this ACK takes the first
    /// step.
    fn decrease_to(&mut self, target: f64, acked: f64) {
        if self.cfg.decrease_pacing {
            let w = self.core.cwnd;
            self.dec_target = target;
            self.dec_step = (target - w) / w;
            self.decrease_step(acked);
        } else {
            self.core.cwnd = target;
        }
    }

    /// Per-ACK part of decrease pacing (Algorithm 1, lines 16-19), clamped
    /// so the target is not overshot.
    fn decrease_step(&mut self, acked: f64) {
        if self.dec_target <= 0.0 {
            return;
        }
        let w = self.core.cwnd + self.dec_step * acked.max(1.0);
        if w <= self.dec_target {
            self.core.cwnd = self.dec_target;
            self.dec_target = 0.0;
        } else {
            self.core.cwnd = w;
        }
    }

    /// Schedules `incr` paced increments (module `fast_pace` with
    /// `incre_4_cwnd = incr`) and applies this ACK's share.
    fn pace(&mut self, incr: u32) {
        if self.avg_rtt == 0.0 {
            return;
        }
        if incr >= 1 {
            let acks_per_period = self.acks_last_rtt as f64 * self.cfg.update_period / self.avg_rtt;
            self.pending += incr;
            // ACKs between increments.
            self.spacing = (acks_per_period / self.pending as f64) as u32;
            self.bc_ack = 1;
        } else {
            self.bc_ack += 1;
        }
        self.pace_step();
    }

    /// Per-ACK part of the pacing: one pending increment every `spacing`
    /// ACKs; small windows take theirs at once, at most doubling.
    fn pace_step(&mut self) {
        if self.pending == 0 {
            return;
        }
        let w = self.core.cwnd;
        if w <= 4.0 {
            if w < self.pending as f64 {
                self.pending -= w as u32;
                self.core.cwnd = w + w;
            } else {
                self.core.cwnd = w + self.pending as f64;
                self.pending = 0;
                self.spacing = 0;
            }
            self.bc_ack = 0;
        } else if self.bc_ack >= self.spacing {
            self.core.cwnd = w + 1.0;
            self.pending -= 1;
            self.bc_ack = 0;
        }
    }

    fn update_due(&self, now: Time) -> bool {
        let period_ok = match self.last_update {
            None => true,
            Some(t) => now >= t + from_secs(self.cfg.update_period),
        };
        period_ok && (!self.cfg.every_other_rtt || self.update_round)
    }
}

impl Default for Fast {
    fn default() -> Self {
        Fast::new(FastConfig::default())
    }
}

impl Controller for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        let sample = ack.rtt.map(secs).filter(|&r| r > 0.0);
        let pif = if ack.in_flight > 0 {
            ack.in_flight as f64
        } else {
            self.core.cwnd
        };
        let frozen = self.cfg.ns2_recovery && ack.in_recovery;
        if let Some(r) = sample.filter(|_| !frozen) {
            self.estimate(r, pif);
        }
        self.core.last_flight = ack.in_flight;
        self.delivered = ack.delivered;
        if !ack.in_recovery {
            self.pif_outside = pif;
        }
        if ack.in_recovery {
            // Module: no window control in fast recovery, only the update
            // clock moves.
            self.last_update = Some(now);
            return;
        }
        if self.avg_rtt == 0.0 {
            return;
        }
        if self.cfg.alpha_adjust {
            if let Some(ts) = self.t_s {
                // thesis eq. (4.33) with k = alpha_k (4.35).
                self.alpha = alpha_recovery(
                    self.cfg.alpha,
                    self.alpha_s,
                    self.cfg.alpha_k,
                    secs(now.saturating_sub(ts)),
                );
            }
        }
        if let Some(fp) = self.fp.as_mut() {
            if fp.active() {
                fp.on_ack(
                    now,
                    ack.newly_acked as f64,
                    sample,
                    self.base_rtt,
                    self.alpha,
                    &mut self.core.cwnd,
                    &mut self.avg_rtt,
                );
                // FAST's own control is suspended during the phases.
                self.last_update = Some(now);
                self.pending = 0;
                self.dec_target = 0.0;
                return;
            }
        }
        let rtt = sample.unwrap_or(self.avg_rtt);

        // RTT boundaries (module fast_cc): toggles the update RTT.
        match self.round_start {
            None => {
                self.round_start = Some(now);
                self.update_round = true;
            }
            Some(t) if t + from_secs(rtt) < now => {
                self.round_start = Some(now);
                self.acks_last_rtt = self.acks_per_rtt;
                self.acks_per_rtt = 0;
                self.update_round = !self.update_round;
            }
            Some(_) => {}
        }
        self.acks_per_rtt += 1;

        let acked = ack.newly_acked as f64;
        let mut old_cwnd = if ack.in_flight_at_send > 0 {
            ack.in_flight_at_send as f64
        } else {
            self.core.cwnd
        };
        if let Some(end) = self.rec_end_delivered {
            // ns-2 module: packets sent in recovery recorded the frozen
            // pre-loss flight as their old_cwnd (note §3.6).
            if ack.delivered_at_send <= end {
                old_cwnd = self.pif_frozen;
            } else {
                self.rec_end_delivered = None;
            }
        }
        let q = self.avg_rtt - self.base_rtt;

        if self.in_ss {
            // Exit test on the latest sample, not the slow avgRTT EWMA, so
            // the exit is not delayed by the EWMA's lag.
            let backlog = old_cwnd * (rtt - self.base_rtt) / rtt;
            if self.core.cwnd >= self.core.ssthresh || backlog >= self.alpha {
                self.in_ss = false;
            } else {
                self.core.cwnd = (self.core.cwnd + acked).min(self.core.ssthresh);
                self.last_update = Some(now);
                return;
            }
        }

        // Module: MI mode while the queueing delay is below mi_threshold.
        if q < self.cfg.mi_threshold {
            self.core.cwnd += acked;
            self.last_update = Some(now);
            return;
        }

        let paced = self.base_rtt >= PACE_MIN_BASE_RTT;
        if self.update_due(now) {
            self.pending = 0;
            self.dec_target = 0.0;
            let target = self.compute_target(old_cwnd);
            self.last_target = target;
            let w = self.core.cwnd;
            if target < w {
                self.decrease_to(target, acked);
            } else if paced {
                self.pace((target - w) as u32);
            } else {
                self.core.cwnd = target;
            }
            self.last_update = Some(now);
            if let Some(fp) = self.fp.as_mut() {
                fp.on_update(now, w, target, self.avg_rtt);
                if fp.active() {
                    // Phase 1 starts from the window the update chose.
                    self.pending = 0;
                    self.dec_target = 0.0;
                    self.core.cwnd = target;
                }
            }
        } else if self.dec_target > 0.0 {
            self.decrease_step(acked);
        } else if paced {
            self.pace(0);
        }
    }

    fn on_congestion_event(&mut self, now: Time, _ev: &CongestionEvent) {
        // Module dupack_action: slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF).
        self.core.reduce_to(self.core.cwnd / 2.0);
        if self.cfg.ns2_recovery {
            self.pif_frozen = self.pif_outside;
            self.rec_end_delivered = None;
        }
        self.pending = 0;
        self.dec_target = 0.0;
        self.in_ss = false;
        self.last_update = Some(now);
        // Thesis §4.5.4: "once FAST TCP starts loss recovery, alpha is halved".
        self.halve_alpha();
        if let Some(fp) = self.fp.as_mut() {
            fp.abort();
        }
    }

    fn on_recovery_end(&mut self, now: Time) {
        if self.cfg.ns2_recovery && self.pif_frozen > 0.0 {
            self.rec_end_delivered = Some(self.delivered);
        }
        // Thesis §4.5.4: after returning to congestion avoidance alpha
        // starts to increase (eq. (4.35)).
        if self.cfg.alpha_adjust {
            self.alpha_s = self.alpha;
            self.t_s = Some(now);
        }
    }

    fn on_rto(&mut self, _now: Time) {
        // Module timeout: CLOSE_SSTHRESH_HALF, cwnd = slowstart_ (2).
        self.core.rto();
        self.rec_end_delivered = None;
        self.pif_frozen = 0.0;
        self.pending = 0;
        self.dec_target = 0.0;
        self.in_ss = self.cfg.slow_start;
        if self.cfg.alpha_rto_halve {
            self.halve_alpha();
        }
        if let Some(fp) = self.fp.as_mut() {
            fp.abort();
        }
    }

    fn on_send(&mut self, _now: Time, _seq: u64, _retransmit: bool, in_flight: u32) -> PacketFlags {
        self.core.on_send(in_flight);
        PacketFlags::NONE
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("base_rtt", self.base_rtt));
        out.push(("avg_rtt", self.avg_rtt));
        out.push(("target", self.last_target));
        if let Some(fp) = &self.fp {
            out.push(("phase", fp.phase().code()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;
    use crate::{MILLISECOND, SECOND};

    #[test]
    fn target_formula_by_hand() {
        // cwnd = old = 100, d = 0.1, D = 0.12, alpha = 100, gamma = 0.5:
        // 50 + 0.5 (100/1.2 + 100) = 141.6667.
        let t = fast_target(100.0, 100.0, 0.1, 0.12, 100.0, 0.5);
        assert!((t - 141.666_666_7).abs() < 1e-6);
        // Limited to 2w: cwnd 10, no queue, alpha 100: 5 + 0.5 (10 + 100)
        // = 60 -> 20.
        assert_eq!(fast_target(10.0, 10.0, 0.1, 0.1, 100.0, 0.5), 20.0);
        // Never below 2.
        assert_eq!(fast_target(2.0, 2.0, 0.1, 10.0, 0.1, 1.0), 2.0);
        // Fixed point of (4.2) is w* = alpha D/(D-d) = 600.
        let w = equilibrium_window_rtt(100.0, 0.1, 0.12);
        assert!((w - 600.0).abs() < 1e-9);
        assert!((fast_target(w, w, 0.1, 0.12, 100.0, 0.5) - w).abs() < 1e-9);
    }

    #[test]
    fn equilibrium_window_and_queue() {
        // 100 Mb/s of 1040-byte packets: C = 12019.2 pkt/s, d = 50 ms,
        // alpha = 200: w* = 200 + 600.96 = 800.96.
        let c = 100e6 / (1040.0 * 8.0);
        let w = equilibrium_window(200.0, c, 0.05);
        assert!((w - 800.961_538).abs() < 1e-5);
        // Same as eq. (4.3) with D = d + alpha/C ...
        let big_d = 0.05 + 200.0 / c;
        assert!((equilibrium_window_rtt(200.0, 0.05, big_d) - w).abs() < 1e-6);
        // ... and the flow's queue (eq. (4.4)) q* = w (D-d)/D is alpha.
        assert!((w * (big_d - 0.05) / big_d - 200.0).abs() < 1e-6);
        // Rate alpha/(D-d) = C.
        assert!((200.0 / (big_d - 0.05) - c).abs() < 1e-6);
    }

    fn cfg(alpha: f64, cwnd: f64) -> FastConfig {
        FastConfig {
            window: WindowParams {
                initial_cwnd: cwnd,
                ..FastConfig::default().window
            },
            alpha,
            beta: alpha,
            mi_threshold: 0.0,
            ..FastConfig::default()
        }
    }

    /// First ACK at 1 s with RTT 0.1 s (sets d = D = 0.1), then a second
    /// ACK 20 ms later with RTT `r2`: D becomes (255 * 0.1 + r2)/256.
    fn two_acks(c: &mut Fast, r2: f64) {
        let mut a = ack(from_secs(0.1), 1);
        a.in_flight = 100;
        a.in_flight_at_send = 100;
        c.on_ack(SECOND, &a);
        a.rtt = Some(from_secs(r2));
        c.on_ack(SECOND + 20 * MILLISECOND, &a);
    }

    #[test]
    fn one_decrease_update_by_hand() {
        let mut c = Fast::new(cfg(1.0, 100.0));
        // r2 = 25.7 s: D = (25.5 + 25.7)/256 = 0.2.
        two_acks(&mut c, 25.7);
        assert!((c.avg_rtt() - 0.2).abs() < 1e-12);
        assert!((c.base_rtt() - 0.1).abs() < 1e-15);
        // target = 0.5 * 100 + 0.5 * (100 * 0.1/0.2 + 1) = 75.5, at once.
        assert!((c.last_target() - 75.5).abs() < 1e-9);
        assert!((cwnd(&c) - 75.5).abs() < 1e-9);
    }

    #[test]
    fn one_increase_update_by_hand_is_paced() {
        let mut c = Fast::new(cfg(100.0, 100.0));
        // r2 = 0.356 s: D = (25.5 + 0.356)/256 = 0.101.
        two_acks(&mut c, 0.356);
        assert!((c.avg_rtt() - 0.101).abs() < 1e-12);
        // The first ACK (d = D) already updated: target 50 + 0.5 (100 +
        // 100) = 150, 50 paced increments, the first taken at once: 101.
        // Second ACK: pending increments are replaced by the new update,
        // target = 0.5 * 101 + 0.5 (100 * 0.1/0.101 + 100) = 150.00495.
        assert!((c.last_target() - 150.004_950_5).abs() < 1e-6);
        // floor(49.005) = 49 increments, one per ACK (no ACK history yet,
        // so zero spacing): the update ACK itself takes the first.
        assert_eq!(cwnd(&c), 102.0);
        assert_eq!(c.pending_increments(), 48);
        let mut a = ack(from_secs(0.101), 1);
        a.in_flight = 100;
        c.on_ack(SECOND + 21 * MILLISECOND, &a);
        assert_eq!(cwnd(&c), 103.0);
        assert_eq!(c.pending_increments(), 47);
    }

    #[test]
    fn paced_increments_are_spaced_over_the_period() {
        let mut c = Fast::new(cfg(100.0, 50.0));
        c.base_rtt = 0.1;
        c.avg_rtt = 0.1;
        // 100 ACKs per RTT, 10 ms period: 10 ACKs per period; 2 increments
        // -> one every 5 ACKs.
        c.acks_last_rtt = 100;
        c.pace(2);
        assert_eq!(c.spacing, 5);
        let mut seen = vec![cwnd(&c)];
        for _ in 0..10 {
            c.pace(0);
            seen.push(cwnd(&c));
        }
        assert_eq!(
            seen,
            vec![50.0, 50.0, 50.0, 50.0, 51.0, 51.0, 51.0, 51.0, 51.0, 52.0, 52.0]
        );
        assert_eq!(c.pending_increments(), 0);
        // Small windows take the increments at once, at most doubling.
        let mut c = Fast::new(cfg(100.0, 3.0));
        c.avg_rtt = 0.1;
        c.pace(10);
        assert_eq!(cwnd(&c), 6.0);
        assert_eq!(c.pending_increments(), 7);
    }

    /// Runs a fixed-RTT path: round 0 at `d`, then `rounds` at `big_d`.
    fn converge(mut c: Fast, d: Time, big_d: Time, rounds: u32) -> (Fast, Vec<f64>) {
        let mut f = Fluid::new(0);
        f.round(&mut c, d);
        let mut ws = Vec::new();
        for _ in 0..rounds {
            f.round(&mut c, big_d);
            ws.push(cwnd(&c));
        }
        (c, ws)
    }

    #[test]
    fn converges_to_alpha_d_over_queueing_delay() {
        // d = 0.1 s, D = 0.2 s, alpha = 100: w* = alpha D/(D-d) = 200.
        // Increments are floor(target - cwnd) (module fast_pace), and
        // target - cwnd = gamma (old d/D + alpha - cwnd) with old =
        // floor(cwnd) (an in-flight count), so the increments stop once
        // gamma (alpha - cwnd (1 - d/D) - frac/2) < 1: within
        // 1/(gamma (1 - d/D)) + 1 = 5 packets below w*.
        let (c, ws) = converge(
            Fast::new(cfg(100.0, 10.0)),
            100 * MILLISECOND,
            200 * MILLISECOND,
            150,
        );
        let w = *ws.last().unwrap();
        assert!((c.avg_rtt() - 0.2).abs() < 1e-6);
        assert!(w > 195.0 && w <= 200.0 + 1e-9, "w = {w}");
        // Settled: the last 20 RTTs stay within 1 packet.
        let tail = &ws[ws.len() - 20..];
        let (lo, hi) = tail
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        assert!(hi - lo <= 1.0 + 1e-9, "{lo} {hi}");
        // It starts above w* and comes down: decreases converge exactly.
        let (_, ws) = converge(
            Fast::new(cfg(100.0, 400.0)),
            100 * MILLISECOND,
            200 * MILLISECOND,
            150,
        );
        let w = *ws.last().unwrap();
        assert!(w > 195.0 && w <= 200.5, "w = {w}");
        // gamma = 1: bound 1/(1 - d/D) + 1 = 3 packets.
        let mut g1 = cfg(100.0, 10.0);
        g1.gamma = 1.0;
        let (_, ws) = converge(Fast::new(g1), 100 * MILLISECOND, 200 * MILLISECOND, 150);
        let w = *ws.last().unwrap();
        assert!(w > 197.0 && w <= 200.0 + 1e-9, "w = {w}");
    }

    #[test]
    fn mi_mode_below_threshold() {
        // Default mi_threshold 0.75 ms: with no queueing delay FAST grows
        // by one packet per ACK, doubling per RTT.
        let mut c = Fast::default();
        let mut f = Fluid::new(0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 20.0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 40.0);
        // Queueing delay 0.5 ms: still MI (below 0.75 ms), +newly_acked at
        // once, even between updates.
        let mut c = Fast {
            base_rtt: 0.1,
            avg_rtt: 0.1005,
            last_update: Some(SECOND),
            ..Fast::default()
        };
        c.on_ack(SECOND + MILLISECOND, &ack(from_secs(0.1005), 3));
        assert_eq!(cwnd(&c), 13.0);
        // Pure FAST (mi_threshold 0): no MI; between updates nothing moves.
        let mut c = Fast::new(cfg(100.0, 10.0));
        c.base_rtt = 0.1;
        c.avg_rtt = 0.1005;
        c.last_update = Some(SECOND);
        c.on_ack(SECOND + MILLISECOND, &ack(from_secs(0.1005), 3));
        assert_eq!(cwnd(&c), 10.0);
    }

    #[test]
    fn dead_zone_when_beta_exceeds_alpha() {
        // d = 0.1, D = 0.2, old = 100: backlog old (D-d)/D = 50 packets.
        let mut k = cfg(40.0, 100.0);
        k.beta = 60.0;
        let mut c = Fast::new(k);
        c.base_rtt = 0.1;
        c.avg_rtt = 0.2;
        // 40 <= 50 < 60: inside the dead zone, no change.
        assert_eq!(c.compute_target(100.0), 100.0);
        c.cfg.beta = 40.0;
        // Outside: 50 + 0.5 (50 + 40) = 95.
        assert!((c.compute_target(100.0) - 95.0).abs() < 1e-12);
    }

    #[test]
    fn loss_halves_rto_sets_two() {
        let mut c = Fast::new(cfg(100.0, 100.0));
        c.on_congestion_event(0, &loss(100));
        assert_eq!(cwnd(&c), 50.0);
        // No window updates in recovery.
        let mut a = ack(RTT100, 1);
        a.in_recovery = true;
        c.on_ack(1, &a);
        c.on_ack(2 * SECOND, &a);
        assert_eq!(cwnd(&c), 50.0);
        c.on_rto(3 * SECOND);
        assert_eq!(cwnd(&c), 2.0);
        let mut v = Vec::new();
        c.trace_vars(&mut v);
        assert_eq!(v[0], ("alpha", 100.0));
        assert_eq!(v[1].0, "base_rtt");
        assert!((v[1].1 - 0.1).abs() < 1e-15);
        assert_eq!(v[2].0, "avg_rtt");
    }

    #[test]
    fn optional_slow_start_exits_on_backlog() {
        let mut k = cfg(20.0, 10.0);
        k.slow_start = true;
        let mut c = Fast::new(k);
        let mut f = Fluid::new(0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 20.0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 40.0);
        assert!(c.in_ss);
        // A 50% queueing delay. The fluid path reports as in_flight_at_send
        // the window at the start of the previous round, so the backlog
        // estimate old (rtt - d)/rtt is 20/3, then 40/3 (< alpha = 20,
        // still doubling), then 80/3 = 26.7, which ends slow start at the
        // first ACK of the third such round.
        f.round(&mut c, 150 * MILLISECOND);
        f.round(&mut c, 150 * MILLISECOND);
        assert!(c.in_ss);
        assert_eq!(cwnd(&c), 160.0);
        f.round(&mut c, 150 * MILLISECOND);
        assert!(!c.in_ss);
        // The FAST law then takes over and, with a 50 ms queueing delay,
        // decreases the window instead of doubling it again.
        assert!(cwnd(&c) < 160.0, "{}", cwnd(&c));
    }

    #[test]
    fn small_base_rtt_applies_increase_at_once() {
        let mut c = Fast::new(cfg(100.0, 100.0));
        let mut a = ack(from_secs(0.002), 1);
        a.in_flight = 100;
        a.in_flight_at_send = 100;
        c.on_ack(SECOND, &a);
        // d = D = 2 ms: target = 50 + 0.5 (100 + 100) = 150, unpaced.
        assert!((cwnd(&c) - 150.0).abs() < 1e-9);
    }

    #[test]
    fn decrease_pacing_spreads_the_decrease_over_an_rtt() {
        // Same update as one_decrease_update_by_hand: target 75.5 from 100.
        let mut k = cfg(1.0, 100.0);
        k.decrease_pacing = true;
        let mut c = Fast::new(k);
        two_acks(&mut c, 25.7);
        assert!((c.last_target() - 75.5).abs() < 1e-9);
        // Algorithm 1: amount = (75.5 - 100)/100 = -0.245 per ACK; the
        // update ACK took the first step.
        assert!((cwnd(&c) - 99.755).abs() < 1e-9, "{}", cwnd(&c));
        let mut a = ack(from_secs(0.2), 1);
        a.in_flight = 100;
        a.in_flight_at_send = 100;
        // (All within the 10 ms update period: no new update.)
        let t = |i: u64| SECOND + 20 * MILLISECOND + i * 50 * crate::MICROSECOND;
        for i in 1..=98 {
            c.on_ack(t(i), &a);
        }
        // 99 steps: 100 - 99 * 0.245 = 75.745.
        assert!((cwnd(&c) - 75.745).abs() < 1e-9, "{}", cwnd(&c));
        // The 100th step is clamped to the target.
        c.on_ack(t(99), &a);
        assert!((cwnd(&c) - 75.5).abs() < 1e-9);
        c.on_ack(t(100), &a);
        assert!((cwnd(&c) - 75.5).abs() < 1e-9);
        // A loss cancels a decrease in progress and halves at once.
        let mut c = Fast::new(k);
        two_acks(&mut c, 25.7);
        c.on_congestion_event(2 * SECOND, &loss(100));
        assert!((cwnd(&c) - 99.755 / 2.0).abs() < 1e-9);
        c.on_ack(2 * SECOND + MILLISECOND, &a);
        assert!((cwnd(&c) - 99.755 / 2.0).abs() < 1e-9);
    }

    #[test]
    fn alpha_adjusting_halves_and_recovers_exponentially() {
        let mut k = cfg(800.0, 100.0);
        k.alpha_adjust = true;
        let mut c = Fast::new(k);
        assert_eq!(c.alpha(), 800.0);
        c.on_congestion_event(SECOND, &loss(100));
        assert_eq!(c.alpha(), 400.0);
        // Frozen during recovery.
        let mut a = ack(from_secs(0.1), 1);
        a.in_recovery = true;
        c.on_ack(3 * SECOND, &a);
        assert_eq!(c.alpha(), 400.0);
        c.on_recovery_end(4 * SECOND);
        // thesis eq. (4.33): 10 s later, 800 - 400 e^{-1}.
        a.in_recovery = false;
        c.on_ack(14 * SECOND, &a);
        let want = 800.0 - 400.0 * (-1.0f64).exp();
        assert!((c.alpha() - want).abs() < 1e-9, "{}", c.alpha());
        // 90% of alpha0 after ln(5)/0.1 = 16.09 s from alpha0/2.
        assert!(alpha_recovery(800.0, 400.0, 0.1, 16.0) < 720.0);
        assert!(alpha_recovery(800.0, 400.0, 0.1, 16.2) > 720.0);
        // Floor alpha0/100.
        let mut c = Fast::new(k);
        for i in 0..20 {
            c.on_congestion_event(i * SECOND, &loss(10));
        }
        assert_eq!(c.alpha(), 8.0);
        // An RTO halves too (the default), unless switched off.
        let mut c = Fast::new(k);
        c.on_rto(SECOND);
        assert_eq!(c.alpha(), 400.0);
        k.alpha_rto_halve = false;
        let mut c = Fast::new(k);
        c.on_rto(SECOND);
        assert_eq!(c.alpha(), 800.0);
        // Without alpha-adjusting nothing moves.
        let mut c = Fast::new(cfg(800.0, 100.0));
        c.on_congestion_event(SECOND, &loss(100));
        assert_eq!(c.alpha(), 800.0);
    }

    #[test]
    fn four_phase_start_runs_once_after_the_window_settles() {
        let mut k = cfg(20.0, 10.0);
        k.four_phase = Some(FourPhaseConfig::default());
        let (c, ws) = converge(Fast::new(k), 100 * MILLISECOND, 200 * MILLISECOND, 300);
        let fp = c.four_phase().unwrap();
        assert_eq!(fp.phase(), crate::fast_start::Phase::Done);
        assert!(fp.times.iter().all(|t| t.is_some()), "{:?}", fp.times);
        let mut v = Vec::new();
        c.trace_vars(&mut v);
        assert_eq!(v.last(), Some(&("phase", 5.0)));
        // FAST resumed afterwards: the window rests at a fixed point of the
        // module's law, where the target is less than one whole paced
        // increment above it (fast_pace adds whole packets), ...
        let gap = c.last_target() - c.cwnd();
        assert!(
            (0.0..1.0).contains(&gap),
            "{} {}",
            c.cwnd(),
            c.last_target()
        );
        assert!(ws[ws.len() - 100..].iter().all(|&w| w == c.cwnd()));
        // ... near the equilibrium alpha D/(D-d) = 40: these fluid rounds
        // report floor(cwnd) as the flight (old_cwnd), whose fixed point
        // with whole increments lies a few packets lower (35.8 here).
        assert!((c.cwnd() - 40.0).abs() <= 5.0, "{}", c.cwnd());
    }

    #[test]
    fn ns2_recovery_freezes_estimation_and_the_old_window() {
        let mut k = cfg(1.0, 100.0);
        k.ns2_recovery = true;
        let run = |k: FastConfig| {
            let mut c = Fast::new(k);
            let mut a = ack(from_secs(0.1), 1);
            a.in_flight = 100;
            a.in_flight_at_send = 100;
            a.delivered = 100;
            c.on_ack(SECOND, &a);
            assert_eq!(cwnd(&c), 100.0);
            c.on_congestion_event(SECOND + 100 * MILLISECOND, &loss(100));
            assert_eq!(cwnd(&c), 50.0);
            // A recovery ACK with a lower RTT.
            a.rtt = Some(from_secs(0.05));
            a.in_recovery = true;
            a.delivered = 150;
            c.on_ack(SECOND + 200 * MILLISECOND, &a);
            c.on_recovery_end(SECOND + 300 * MILLISECOND);
            // First update after recovery: ACK of a packet sent in recovery
            // (delivered_at_send 120 <= 150), the transport's flight 50.
            a.rtt = Some(from_secs(0.4));
            a.in_recovery = false;
            a.in_flight = 50;
            a.in_flight_at_send = 50;
            a.delivered_at_send = 120;
            a.delivered = 160;
            c.on_ack(SECOND + 310 * MILLISECOND, &a);
            c
        };
        // Module: baseRTT and avgRTT untouched by the recovery ACK; the
        // update uses the pre-loss flight 100 as old_cwnd:
        // 25 + 0.5 (100 d/D + 1), D = (255 * 0.1 + 0.4)/256.
        let c = run(k);
        let big_d = (255.0 * 0.1 + 0.4) / 256.0;
        assert_eq!(c.base_rtt(), 0.1);
        assert!((c.avg_rtt() - big_d).abs() < 1e-12);
        let want = 25.0 + 0.5 * (100.0 * 0.1 / big_d + 1.0);
        assert!((c.last_target() - want).abs() < 1e-9, "{}", c.last_target());
        assert_eq!(c.rec_end_delivered, Some(150));
        // Default: the recovery ACK's sample counts, and old_cwnd is the
        // transport's flight at send (50).
        let c = run(cfg(1.0, 100.0));
        assert_eq!(c.base_rtt(), 0.05);
        let big_d = c.avg_rtt();
        let want = 25.0 + 0.5 * (50.0 * 0.05 / big_d + 1.0);
        assert!((c.last_target() - want).abs() < 1e-9, "{}", c.last_target());
    }
}
