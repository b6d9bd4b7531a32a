//! The thesis's four-phase queue-draining start for FAST TCP (Cui, seed 003,
//! §4.4.2; reference note §4.8).
//!
//! A flow that starts while the bottleneck queue is not empty takes the
//! standing queue for propagation delay (`d^ = d + p`), and FAST then gives
//! it more than its share (thesis eqs. (4.19), (4.26)). The fix: once the new
//! flow's window has stabilised, it runs four phases, once:
//!
//! | phase | duration / exit | window |
//! |---|---|---|
//! | 1 reduction | one RTT (`D_pre`, the avgRTT when it starts) | `cwnd -= (1 - 1/r)` per acknowledged packet: one new packet per `r` ACKs |
//! | 2 depletion | until baseRTT stabilises, at most two RTTs | constant |
//! | 3 refilling | until `cwnd >= w_i = alpha d^/(D_pre - d^)` | `cwnd += r - 1` per acknowledged packet: at most `r` packets per ACK |
//! | 4 stabilisation | one RTT | constant; then FAST resumes |
//!
//! `d^` is the baseRTT after depletion (the true `d` if the queue emptied),
//! `D_pre` the average RTT before reduction. The rate after refilling is
//! `w_i/d^ = alpha/(D_pre - d^)`, the rate of a flow that knows the true `d`
//! at the pre-reduction queueing delay, i.e. the old flows' rate.
//!
//! # Choices the thesis leaves open (note §7 item 11), made here
//! * **"Window stabilised"** (start of phase 1): at `stable_updates`
//!   consecutive FAST update rounds (default 3) the target differs from
//!   the current window by at most `max(1, stable_tol * cwnd)` packets
//!   (default 1%). Only the first update of a round counts (an update at
//!   least one avgRTT after the last counted one): within an update round
//!   the module updates every `update_period` (10 ms), and those updates
//!   see nearly the same state, so counting them would declare the window
//!   stable within one RTT, while the flow and the older flows (whose RTT
//!   may be five times longer) are still converging.
//! * **"baseRTT stabilises"** (end of phase 2): the first depletion RTT is
//!   timed with `D_pre` (the ACKs of the packets sent during reduction come
//!   back after the congested RTT); if baseRTT made no new minimum during it,
//!   depletion ends, otherwise it lasts one more RTT, timed with the latest
//!   RTT sample, and then ends ("at most two RTTs").
//! * **Refill target**: the thesis's `alpha d^/(D_pre - d^)` (its eq. (C.2)
//!   form) by default; `refill_full` uses `alpha D_pre/(D_pre - d^)` (the
//!   (4.3) form, alpha packets more). If `D_pre <= d^` (no queueing delay was
//!   ever seen) the target is the pre-reduction window.
//! * **Stabilisation**: the phase lasts one RTT timed with the latest RTT
//!   sample; the avgRTT EWMA, which lags badly after the low RTTs of phases 2
//!   and 3, is replaced at the end by the plain mean of the RTT samples taken
//!   during stabilisation.
//! * **r**: the thesis recommends `r ~ alpha`; `r = 0` in the configuration
//!   means "alpha, rounded, at least 2".
//! * A congestion event or timeout during the phases aborts them (the flow
//!   returns to FAST with the usual loss reaction and does not retry).
//! * The phases run once per connection; a flow alone on an empty link runs
//!   them too (they cost a few RTTs and change nothing).

use crate::{from_secs, Time};

/// Four-phase start parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FourPhaseConfig {
    /// Rate-scaling factor r (0: alpha, rounded, at least 2).
    pub r: f64,
    /// Consecutive "stable" FAST updates that start phase 1.
    pub stable_updates: u32,
    /// Relative tolerance of "stable" (packets: `max(1, tol * cwnd)`).
    pub stable_tol: f64,
    /// Refill to `alpha D_pre/(D_pre - d^)` instead of the thesis's
    /// `alpha d^/(D_pre - d^)`.
    pub refill_full: bool,
}

impl Default for FourPhaseConfig {
    fn default() -> Self {
        FourPhaseConfig {
            r: 0.0,
            stable_updates: 3,
            stable_tol: 0.01,
            refill_full: false,
        }
    }
}

/// Where the four-phase start is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Normal FAST, waiting for the window to stabilise.
    Waiting,
    /// Phase 1.
    Reduction,
    /// Phase 2.
    Depletion,
    /// Phase 3.
    Refill,
    /// Phase 4.
    Stabilize,
    /// Finished (or aborted): normal FAST from now on.
    Done,
}

impl Phase {
    /// Numeric code for traces: 0 waiting, 1-4 the phases, 5 done.
    pub fn code(self) -> f64 {
        match self {
            Phase::Waiting => 0.0,
            Phase::Reduction => 1.0,
            Phase::Depletion => 2.0,
            Phase::Refill => 3.0,
            Phase::Stabilize => 4.0,
            Phase::Done => 5.0,
        }
    }
}

/// State of the four-phase start of one flow.
#[derive(Clone, Debug)]
pub struct FourPhase {
    cfg: FourPhaseConfig,
    phase: Phase,
    stable_count: u32,
    /// Time of the last update counted towards `stable_count`.
    last_counted: Option<Time>,
    r: f64,
    /// avgRTT and window when reduction started.
    d_pre: f64,
    w0: f64,
    /// End of the current timed phase (or of the current depletion RTT).
    t_end: Time,
    /// baseRTT at the start of the current depletion RTT.
    base_mark: f64,
    /// Depletion is in its second RTT.
    second_rtt: bool,
    w_target: f64,
    stab_sum: f64,
    stab_n: u32,
    /// Start times of phases 1-4 and of the return to FAST.
    pub times: [Option<Time>; 5],
}

impl FourPhase {
    /// A four-phase start waiting for the window to stabilise.
    pub fn new(cfg: FourPhaseConfig, alpha: f64) -> Self {
        let r = if cfg.r > 0.0 {
            cfg.r.max(1.0)
        } else {
            alpha.round().max(2.0)
        };
        FourPhase {
            cfg,
            phase: Phase::Waiting,
            stable_count: 0,
            last_counted: None,
            r,
            d_pre: 0.0,
            w0: 0.0,
            t_end: 0,
            base_mark: 0.0,
            second_rtt: false,
            w_target: 0.0,
            stab_sum: 0.0,
            stab_n: 0,
            times: [None; 5],
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The rate-scaling factor in use.
    pub fn r(&self) -> f64 {
        self.r
    }

    /// The refill target (0 before phase 3).
    pub fn refill_target(&self) -> f64 {
        self.w_target
    }

    /// True while FAST's own window control is suspended.
    pub fn active(&self) -> bool {
        !matches!(self.phase, Phase::Waiting | Phase::Done)
    }

    /// Aborts the phases (loss or timeout).
    pub fn abort(&mut self) {
        if self.phase != Phase::Done {
            self.phase = Phase::Done;
        }
    }

    /// Called at each FAST window update while waiting, with the window
    /// before the update and the update's target; starts phase 1 once the
    /// window has been stable long enough.
    pub fn on_update(&mut self, now: Time, cwnd_before: f64, target: f64, avg_rtt: f64) {
        if self.phase != Phase::Waiting {
            return;
        }
        // Only the first update of an update round counts: within one round
        // the module updates every `update_period` (10 ms), and those
        // updates see nearly the same state, so counting them would call
        // the window stable within a single RTT.
        if let Some(t) = self.last_counted {
            if now < t + from_secs(avg_rtt) {
                return;
            }
        }
        self.last_counted = Some(now);
        let tol = (self.cfg.stable_tol * cwnd_before).max(1.0);
        if (target - cwnd_before).abs() <= tol {
            self.stable_count += 1;
        } else {
            self.stable_count = 0;
        }
        if self.stable_count >= self.cfg.stable_updates.max(1) {
            self.phase = Phase::Reduction;
            self.d_pre = avg_rtt;
            self.w0 = target;
            self.t_end = now + from_secs(avg_rtt);
            self.times[0] = Some(now);
        }
    }

    /// Per-ACK work while a phase is active. `cwnd` is changed in place;
    /// `avg_rtt` is replaced at the end of stabilisation. `rtt` is this
    /// ACK's sample (seconds), `base_rtt` the (already updated) baseRTT.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: Time,
        acked: f64,
        rtt: Option<f64>,
        base_rtt: f64,
        alpha: f64,
        cwnd: &mut f64,
        avg_rtt: &mut f64,
    ) {
        let latest = rtt.unwrap_or(*avg_rtt);
        match self.phase {
            Phase::Waiting | Phase::Done => {}
            Phase::Reduction => {
                // One new packet per r ACKs: the window shrinks by 1 - 1/r
                // per acknowledged packet.
                *cwnd = (*cwnd - (1.0 - 1.0 / self.r) * acked).max(1.0);
                if now >= self.t_end {
                    self.phase = Phase::Depletion;
                    self.times[1] = Some(now);
                    // First depletion RTT timed with the congested RTT.
                    self.t_end = now + from_secs(self.d_pre);
                    self.base_mark = base_rtt;
                    self.second_rtt = false;
                }
            }
            Phase::Depletion => {
                if now >= self.t_end {
                    let settled = base_rtt >= self.base_mark;
                    if settled || self.second_rtt {
                        self.start_refill(now, base_rtt, alpha, cwnd, latest);
                    } else {
                        self.second_rtt = true;
                        self.base_mark = base_rtt;
                        self.t_end = now + from_secs(latest);
                    }
                }
            }
            Phase::Refill => {
                *cwnd += (self.r - 1.0) * acked;
                if *cwnd >= self.w_target {
                    *cwnd = self.w_target;
                    self.start_stabilize(now, latest);
                }
            }
            Phase::Stabilize => {
                if let Some(r) = rtt {
                    self.stab_sum += r;
                    self.stab_n += 1;
                }
                if now >= self.t_end {
                    if self.stab_n > 0 {
                        *avg_rtt = self.stab_sum / self.stab_n as f64;
                    }
                    self.phase = Phase::Done;
                    self.times[4] = Some(now);
                }
            }
        }
    }

    fn start_refill(&mut self, now: Time, base_rtt: f64, alpha: f64, cwnd: &mut f64, latest: f64) {
        self.phase = Phase::Refill;
        self.times[2] = Some(now);
        let q = self.d_pre - base_rtt;
        // thesis §4.4.2 refill target w_i = alpha d^/(D_i - d^) (eq. (C.2)
        // form); optionally alpha D/(D - d^) (eq. (4.3) form).
        self.w_target = if q > 1e-9 {
            let num = if self.cfg.refill_full {
                self.d_pre
            } else {
                base_rtt
            };
            (alpha * num / q).max(2.0)
        } else {
            self.w0
        };
        if *cwnd >= self.w_target {
            *cwnd = self.w_target;
            self.start_stabilize(now, latest);
        }
    }

    fn start_stabilize(&mut self, now: Time, latest: f64) {
        self.phase = Phase::Stabilize;
        self.times[3] = Some(now);
        self.t_end = now + from_secs(latest);
        self.stab_sum = 0.0;
        self.stab_n = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MILLISECOND, SECOND};

    #[test]
    fn r_defaults_to_alpha() {
        assert_eq!(FourPhase::new(FourPhaseConfig::default(), 50.0).r(), 50.0);
        assert_eq!(FourPhase::new(FourPhaseConfig::default(), 1.2).r(), 2.0);
        let c = FourPhaseConfig {
            r: 8.0,
            ..FourPhaseConfig::default()
        };
        assert_eq!(FourPhase::new(c, 50.0).r(), 8.0);
    }

    #[test]
    fn walks_through_the_four_phases() {
        // alpha = 10, r = 10; D_pre = 0.2 s, window 100.
        let mut p = FourPhase::new(FourPhaseConfig::default(), 10.0);
        let mut t = SECOND;
        // Three stable updates in three update rounds start reduction.
        p.on_update(t, 90.0, 100.0, 0.2);
        assert_eq!(p.phase(), Phase::Waiting);
        // Updates of the same round (10 ms apart, within one avgRTT of the
        // last counted one) do not count.
        for _ in 0..5 {
            t += 10 * MILLISECOND;
            p.on_update(t, 100.0, 100.5, 0.2);
        }
        assert_eq!(p.phase(), Phase::Waiting);
        for _ in 0..2 {
            t += 200 * MILLISECOND;
            p.on_update(t, 100.0, 100.5, 0.2);
        }
        assert_eq!(p.phase(), Phase::Waiting);
        t += 200 * MILLISECOND;
        p.on_update(t, 100.0, 100.5, 0.2);
        assert_eq!(p.phase(), Phase::Reduction);
        let (mut w, mut avg) = (100.0, 0.2);
        // 100 ACKs in one RTT: the window falls by 0.9 per ACK, to 10.
        for _ in 0..100 {
            t += 2 * MILLISECOND;
            p.on_ack(t, 1.0, Some(0.2), 0.15, 10.0, &mut w, &mut avg);
        }
        assert_eq!(p.phase(), Phase::Depletion);
        assert!((w - 10.0).abs() < 1e-9 || w == 1.0, "{w}");
        let w_dep = w;
        // The queue drains: baseRTT falls to 0.1 during the first RTT.
        t += 100 * MILLISECOND;
        p.on_ack(t, 1.0, Some(0.1), 0.1, 10.0, &mut w, &mut avg);
        t += 101 * MILLISECOND;
        p.on_ack(t, 1.0, Some(0.1), 0.1, 10.0, &mut w, &mut avg);
        // A new minimum was seen: a second RTT (latest sample 0.1 s).
        assert_eq!(p.phase(), Phase::Depletion);
        assert_eq!(w, w_dep);
        t += 101 * MILLISECOND;
        p.on_ack(t, 1.0, Some(0.1), 0.1, 10.0, &mut w, &mut avg);
        // Target alpha d/(D_pre - d) = 10 * 0.1/0.1 = 10 (with refill_full
        // it would be 20): the window is already there, so refilling ends at
        // once (or one ACK later, after rounding in the reduction) and
        // stabilisation starts.
        assert!((p.refill_target() - 10.0).abs() < 1e-9);
        if p.phase() == Phase::Refill {
            p.on_ack(t, 1.0, Some(0.1), 0.1, 10.0, &mut w, &mut avg);
        }
        assert_eq!(p.phase(), Phase::Stabilize);
        assert!((w - 10.0).abs() < 1e-9);
    }

    #[test]
    fn refill_grows_by_r_minus_one_per_ack_and_stabilizes() {
        let cfg = FourPhaseConfig {
            r: 4.0,
            refill_full: true,
            ..FourPhaseConfig::default()
        };
        let mut p = FourPhase::new(cfg, 10.0);
        for i in 0..3 {
            p.on_update(SECOND + i * 200 * MILLISECOND, 100.0, 100.0, 0.2);
        }
        let (mut w, mut avg) = (100.0, 0.2);
        let mut t = SECOND + 601 * MILLISECOND;
        p.on_ack(t, 1.0, Some(0.2), 0.2, 10.0, &mut w, &mut avg);
        assert_eq!(p.phase(), Phase::Depletion);
        assert_eq!(w, 99.25);
        w = 5.0;
        // No new minimum in the first RTT (baseRTT unchanged): one RTT only.
        t += 201 * MILLISECOND;
        p.on_ack(t, 1.0, Some(0.15), 0.2, 10.0, &mut w, &mut avg);
        // D_pre = base: no queueing delay seen: target = w0 = 100.
        assert_eq!(p.phase(), Phase::Refill);
        assert_eq!(p.refill_target(), 100.0);
        for _ in 0..31 {
            p.on_ack(t, 1.0, Some(0.15), 0.2, 10.0, &mut w, &mut avg);
        }
        assert_eq!(w, 98.0);
        p.on_ack(t, 1.0, Some(0.15), 0.2, 10.0, &mut w, &mut avg);
        assert_eq!(w, 100.0);
        assert_eq!(p.phase(), Phase::Stabilize);
        p.on_ack(
            t + 50 * MILLISECOND,
            1.0,
            Some(0.1),
            0.1,
            10.0,
            &mut w,
            &mut avg,
        );
        p.on_ack(
            t + 160 * MILLISECOND,
            1.0,
            Some(0.12),
            0.1,
            10.0,
            &mut w,
            &mut avg,
        );
        assert_eq!(p.phase(), Phase::Done);
        assert!((avg - 0.11).abs() < 1e-12);
        assert_eq!(w, 100.0);
    }
}
