//! BIC TCP, Binary Increase Congestion control (Xu, Harfoush, Rhee,
//! "Binary increase congestion control for fast, long distance networks",
//! INFOCOM 2004).
//!
//! Per RTT in congestion avoidance the window moves by a step `s` packets,
//! applied per ACK as `cwnd += s * newly_acked / cwnd` (recomputed on every
//! ACK, as Linux `tcp_bic.c` does):
//!
//! * `cwnd <= low_window` (14): standard TCP, `s = 1`;
//! * binary search, `cwnd < W_max`: toward the midpoint
//!   `(W_min + W_max)/2` with `W_min = cwnd` (no loss since the last
//!   decrease), so `s = (W_max - cwnd)/2`, clamped to `[S_min, S_max]`;
//! * max probing, `cwnd >= W_max`: the mirror image of binary search,
//!   `s = cwnd - W_max` clamped to `[S_min, S_max]`: the step starts at
//!   `S_min` and doubles each RTT (slow-start-like) until it reaches `S_max`,
//!   then growth is linear;
//! * before the first loss `W_max` is unknown (the paper's "default maximum
//!   window"): `s = S_max`.
//!
//! On a congestion event (loss or ECN): `W_max = cwnd` or, with fast
//! convergence when `cwnd < W_max`, `W_max = cwnd (2 - beta)/2`; then
//! `cwnd = (1 - beta) cwnd` (beta = 0.125) — or halved (RFC 5681) at or
//! below `low_window`. On an RTO outside recovery the same `W_max` update
//! and `ssthresh = (1 - beta) cwnd` apply before `cwnd = rto_cwnd`.
//!
//! The step can be overridden through [`IncreaseOverride`] (ACWAP, seed 004).

use crate::acwap::IncreaseOverride;
use crate::newreno::{WindowCore, WindowParams};
use crate::{half_flight, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// BIC parameters (defaults from the paper and the TCP-Madison comparison:
/// beta 0.125, S_max 32, S_min 0.01, low_window 14, fast convergence on).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicConfig {
    /// Shared window parameters.
    pub window: WindowParams,
    /// Multiplicative decrease `beta` (window becomes `(1-beta) cwnd`).
    pub beta: f64,
    /// Largest per-RTT increase `S_max`, packets.
    pub s_max: f64,
    /// Smallest per-RTT increase `S_min`, packets.
    pub s_min: f64,
    /// At or below this window BIC behaves like standard TCP.
    pub low_window: f64,
    /// Fast convergence on loss below the previous `W_max`.
    pub fast_convergence: bool,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            window: WindowParams::default(),
            beta: 0.125,
            s_max: 32.0,
            s_min: 0.01,
            low_window: 14.0,
            fast_convergence: true,
        }
    }
}

/// The BIC per-RTT increase step (packets per RTT) at window `cwnd` with
/// last maximum `w_max` (`w_max <= 0`: unknown).
pub fn bic_step(cwnd: f64, w_max: f64, cfg: &BicConfig) -> f64 {
    if cwnd <= cfg.low_window {
        1.0
    } else if w_max <= 0.0 {
        cfg.s_max
    } else if cwnd < w_max {
        // Xu et al. 2004, binary search: inc = (W_min + W_max)/2 - cwnd with
        // W_min = cwnd, clamped to [S_min, S_max].
        ((w_max - cwnd) / 2.0).clamp(cfg.s_min, cfg.s_max)
    } else {
        // Max probing, the mirror of binary search: step = distance above
        // W_max, clamped to [S_min, S_max].
        (cwnd - w_max).clamp(cfg.s_min, cfg.s_max)
    }
}

/// BIC TCP controller.
#[derive(Clone, Debug)]
pub struct Bic {
    core: WindowCore,
    cfg: BicConfig,
    w_max: f64,
    /// Step used instead of BIC's own when set (packets per RTT).
    a_override: Option<f64>,
}

impl Bic {
    /// A BIC controller.
    pub fn new(cfg: BicConfig) -> Self {
        Bic {
            core: WindowCore::new(cfg.window),
            cfg,
            w_max: 0.0,
            a_override: None,
        }
    }

    /// Window before the last decrease (`W_max`), 0 before any loss.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Updates `W_max` and returns the reduced window.
    fn reduce(&mut self) -> f64 {
        let w = self.core.cwnd;
        // Xu et al. 2004 fast convergence: W_max = cwnd (2 - beta)/2.
        self.w_max = if self.cfg.fast_convergence && w < self.w_max {
            w * (2.0 - self.cfg.beta) / 2.0
        } else {
            w
        };
        // Multiplicative decrease cwnd = (1 - beta) cwnd.
        (1.0 - self.cfg.beta) * w
    }
}

impl Default for Bic {
    fn default() -> Self {
        Bic::new(BicConfig::default())
    }
}

impl Controller for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if let Some(acked) = self.core.ack_for_avoidance(ack) {
            let w = self.core.cwnd;
            let s = self
                .a_override
                .unwrap_or_else(|| bic_step(w, self.w_max, &self.cfg));
            self.core.cwnd = w + s * acked / w;
        }
    }

    fn on_congestion_event(&mut self, _now: Time, ev: &CongestionEvent) {
        let low = self.core.cwnd <= self.cfg.low_window;
        let reduced = self.reduce();
        if low {
            self.core.reduce_to(half_flight(ev.in_flight));
        } else {
            self.core.reduce_to(reduced);
        }
    }

    fn on_recovery_end(&mut self, _now: Time) {
        self.core.in_episode = false;
    }

    fn on_rto(&mut self, _now: Time) {
        if self.core.in_episode {
            // Already reduced for this episode: keep W_max and ssthresh.
            self.core.cwnd = self.core.params.rto_cwnd;
        } else {
            let reduced = self.reduce().max(2.0);
            self.core.ssthresh = reduced;
            self.core.cwnd = self.core.params.rto_cwnd;
        }
    }

    fn on_send(&mut self, _now: Time, _seq: u64, _retransmit: bool, in_flight: u32) -> PacketFlags {
        self.core.on_send(in_flight);
        PacketFlags::NONE
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ssthresh", self.core.ssthresh));
        out.push(("w_max", self.w_max));
    }
}

impl IncreaseOverride for Bic {
    fn set_increase_override(&mut self, a: Option<f64>) {
        self.a_override = a;
    }

    fn increase_override(&self) -> Option<f64> {
        self.a_override
    }

    fn natural_increase(&self) -> f64 {
        bic_step(self.core.cwnd, self.w_max, &self.cfg)
    }

    fn in_slow_start(&self) -> bool {
        self.core.in_slow_start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;

    /// A BIC flow in congestion avoidance at `w` with `W_max = w_max`.
    fn at(w: f64, w_max: f64) -> Bic {
        let mut c = Bic::new(BicConfig {
            window: WindowParams {
                initial_cwnd: w,
                initial_ssthresh: w,
                rto_cwnd: 1.0,
            },
            ..BicConfig::default()
        });
        c.w_max = w_max;
        c
    }

    fn one_ack(c: &mut Bic) -> f64 {
        let before = cwnd(c);
        c.on_ack(1, &ack(RTT100, 1));
        cwnd(c) - before
    }

    #[test]
    fn binary_search_step_and_clamping() {
        let cfg = BicConfig::default();
        // Midpoint 150 is 50 away: clamped to S_max = 32.
        assert_eq!(bic_step(100.0, 200.0, &cfg), 32.0);
        // Midpoint 105: step 5.
        assert_eq!(bic_step(100.0, 110.0, &cfg), 5.0);
        // Very close to W_max: clamped up to S_min.
        assert_eq!(bic_step(100.0, 100.01, &cfg), 0.01);
        // Per ACK: step / cwnd.
        assert!((one_ack(&mut at(100.0, 200.0)) - 0.32).abs() < 1e-12);
        assert!((one_ack(&mut at(100.0, 110.0)) - 0.05).abs() < 1e-12);
        assert!((one_ack(&mut at(100.0, 100.01)) - 0.0001).abs() < 1e-12);
    }

    #[test]
    fn max_probing_mirrors_binary_search() {
        let cfg = BicConfig::default();
        assert_eq!(bic_step(100.0, 100.0, &cfg), 0.01);
        assert_eq!(bic_step(100.0, 90.0, &cfg), 10.0);
        assert_eq!(bic_step(100.0, 50.0, &cfg), 32.0);
        // Unknown W_max (no loss yet): S_max.
        assert_eq!(bic_step(100.0, 0.0, &cfg), 32.0);
        // Reno below low_window.
        assert_eq!(bic_step(14.0, 200.0, &cfg), 1.0);
        // s_min / s_max are honoured when changed (Madison's settings).
        let c2 = BicConfig {
            s_max: 8.0,
            s_min: 0.5,
            ..cfg
        };
        assert_eq!(bic_step(100.0, 200.0, &c2), 8.0);
        assert_eq!(bic_step(100.0, 100.1, &c2), 0.5);
    }

    #[test]
    fn decrease_and_fast_convergence() {
        let mut c = at(1000.0, 0.0);
        c.on_congestion_event(1, &loss(1000));
        assert_eq!(c.w_max(), 1000.0);
        assert!((cwnd(&c) - 875.0).abs() < 1e-9);
        // Loss below W_max: W_max = 875 * 1.875/2 = 820.3125.
        c.on_congestion_event(2, &loss(875));
        assert!((c.w_max() - 820.3125).abs() < 1e-9);
        assert!((cwnd(&c) - 765.625).abs() < 1e-9);
        // Low window: halve the flight.
        let mut c = at(12.0, 0.0);
        c.on_congestion_event(1, &loss(12));
        assert_eq!(cwnd(&c), 6.0);
    }

    #[test]
    fn binary_search_approaches_w_max_then_probes() {
        let mut c = at(1000.0, 0.0);
        c.on_congestion_event(0, &loss(1000));
        let mut f = Fluid::new(0);
        // Distance 125: two S_max-limited RTTs (per-ACK application gives a
        // little less than 32 each), then the distance shrinks by
        // about e^-1/2 per RTT.
        f.round(&mut c, RTT100);
        let w1 = cwnd(&c);
        assert!(w1 > 875.0 + 30.0 && w1 < 875.0 + 32.0, "{w1}");
        for _ in 0..9 {
            f.round(&mut c, RTT100);
        }
        let w10 = cwnd(&c);
        assert!(w10 > 990.0 && w10 < 1000.0, "{w10}");
        // It stays below W_max for a while (steps shrink), then max probing
        // takes it above and accelerates.
        for _ in 0..40 {
            f.round(&mut c, RTT100);
        }
        let w50 = cwnd(&c);
        assert!(w50 > 1000.0, "{w50}");
        f.round(&mut c, RTT100);
        let step = cwnd(&c) - w50;
        assert!(step > 0.0 && step <= 32.0 + 1e-9, "{step}");
    }

    #[test]
    fn rto_outside_recovery_updates_w_max() {
        let mut c = at(500.0, 0.0);
        c.on_rto(1);
        assert_eq!(c.w_max(), 500.0);
        assert_eq!(cwnd(&c), 1.0);
        assert_eq!(c.core.ssthresh, 437.5);
        // Inside recovery: no second reduction.
        let mut c = at(500.0, 0.0);
        c.on_congestion_event(1, &loss(500));
        c.on_rto(2);
        assert_eq!(c.w_max(), 500.0);
        assert_eq!(c.core.ssthresh, 437.5);
        assert_eq!(cwnd(&c), 1.0);
    }
}
