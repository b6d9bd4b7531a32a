//! TCP Vegas (Brakmo and Peterson 1995) in two forms.
//!
//! Both forms measure, once per RTT, `d` = the smallest RTT seen (baseRTT)
//! and `D` = the mean of the RTT samples of the last RTT, and compare the
//! expected rate `w/d` with the actual rate `w/D`:
//!
//! * [`VegasForm::Packets`], the classic / ns-2 form: thresholds in packets,
//!   `diff = (w/d - w/D) d = w (1 - d/D)` packets, `w += 1` if
//!   `diff < alpha`, `w -= 1` if `diff > beta` (ns-2 defaults alpha = 1,
//!   beta = 3, gamma = 1 packets).
//! * [`VegasForm::Rate`], the "prose" Vegas of the thesis (eq. (2.2), §1.4
//!   of the reference note): thresholds `alpha+`, `beta+` in packets per
//!   second, `diff = w/d - w/D` pkt/s, once per RTT `w += 1` if
//!   `diff < alpha+`, `w -= 1` if `diff > beta+` (the thesis uses alpha+ =
//!   250 or 2475 pkt/s, beta+ = alpha+ + 25).
//!
//! Slow start (optional): while `diff < gamma` (same units as alpha), the
//! window grows by one packet per acknowledged packet every other RTT
//! (doubling every two RTTs, as in Brakmo–Peterson); the first RTT with
//! `diff >= gamma`, or reaching ssthresh, ends it, and the window is cut
//! as [`SsExit`] says: by default to `min(w, w d/D + 1)` (the expected-rate
//! window plus one, as Linux `tcp_vegas.c` does) so the queue built during
//! the last doubling drains; or by an eighth (ns-2 `tcp-vegas.cc`); or not
//! at all.
//!
//! Rounds ("once per RTT") are delimited with the delivery counters of
//! [`AckSample`]: a round ends when an ACK acknowledges a packet sent after
//! the round began (`delivered_at_send >= delivered at round start`).
//!
//! Loss or ECN: the window is halved (the thesis: "like TCP Reno, upon loss
//! the congestion window is halved"); RTO: RFC 5681 (`ssthresh` = half the
//! flight, `cwnd = rto_cwnd`, slow start).

use crate::newreno::{WindowCore, WindowParams};
use crate::{secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Which Vegas threshold convention to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VegasForm {
    /// Thresholds in packets (per RTT), classic / ns-2 Vegas.
    Packets,
    /// Thresholds in packets per second, the thesis's "prose" Vegas.
    Rate,
}

/// What leaving Vegas slow start does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsExit {
    /// Keep the window (for the prose form with large alpha+, where a cut
    /// to the expected-rate window throws away the `alpha+ d` packets the
    /// flow must queue and it would take `alpha+ d` RTTs to rebuild them).
    Keep,
    /// Cut to the expected-rate window plus one, `min(w, w d/D + 1)`
    /// (Linux `tcp_vegas.c`).
    ExpectedPlusOne,
    /// Cut by an eighth, `w - w/8` (ns-2 `tcp-vegas.cc`: "slow-down a bit
    /// to ensure the net is not so congested"). ns-2 also sets ssthresh to
    /// 2; here, as for the other exits, ssthresh drops to the cut window,
    /// which equally keeps the flow out of slow start.
    Eighth,
}

/// Vegas parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Shared window parameters.
    pub window: WindowParams,
    /// Threshold convention.
    pub form: VegasForm,
    /// Lower threshold (packets, or packets/s in the rate form).
    pub alpha: f64,
    /// Upper threshold (same units as `alpha`).
    pub beta: f64,
    /// Slow-start exit threshold (same units as `alpha`).
    pub gamma: f64,
    /// Use Vegas slow start (otherwise start in congestion avoidance).
    pub slow_start: bool,
    /// What leaving slow start does to the window.
    pub ss_exit: SsExit,
}

impl VegasConfig {
    /// ns-2 defaults: packets form, alpha 1, beta 3, gamma 1.
    pub fn packets() -> Self {
        VegasConfig {
            window: WindowParams::default(),
            form: VegasForm::Packets,
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            slow_start: true,
            ss_exit: SsExit::ExpectedPlusOne,
        }
    }

    /// Thesis "prose" Vegas: alpha+ = 250 pkt/s, beta+ = alpha+ + 25,
    /// gamma+ = alpha+.
    pub fn rate() -> Self {
        VegasConfig {
            window: WindowParams::default(),
            form: VegasForm::Rate,
            alpha: 250.0,
            beta: 275.0,
            gamma: 250.0,
            slow_start: true,
            ss_exit: SsExit::ExpectedPlusOne,
        }
    }
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig::packets()
    }
}

/// Vegas `diff` for window `w`, baseRTT `d` and RTT `big_d` (seconds) in
/// the units of `form`: packets (`w (1 - d/D)`) or packets per second
/// (`w/d - w/D`, thesis eq. (2.2)).
pub fn vegas_diff(form: VegasForm, w: f64, d: f64, big_d: f64) -> f64 {
    match form {
        // Brakmo–Peterson: (Expected - Actual) * BaseRTT.
        VegasForm::Packets => w * (1.0 - d / big_d),
        // Thesis eq. (2.2): diff = w/d - w/D.
        VegasForm::Rate => w / d - w / big_d,
    }
}

/// TCP Vegas controller.
#[derive(Clone, Debug)]
pub struct Vegas {
    core: WindowCore,
    cfg: VegasConfig,
    /// baseRTT, seconds (infinite before the first sample).
    base_rtt: f64,
    /// Sum and count of RTT samples in the current round.
    rtt_sum: f64,
    rtt_count: u32,
    /// `delivered` when the current round began.
    round_start: u64,
    /// In Vegas slow start.
    in_ss: bool,
    /// Slow start grows in this round (every other round).
    ss_grow: bool,
    /// Last per-round values, for traces.
    last_rtt: f64,
    last_diff: f64,
}

impl Vegas {
    /// A Vegas controller.
    pub fn new(cfg: VegasConfig) -> Self {
        let core = WindowCore::new(cfg.window);
        let in_ss = cfg.slow_start && core.in_slow_start();
        Vegas {
            core,
            cfg,
            base_rtt: f64::INFINITY,
            rtt_sum: 0.0,
            rtt_count: 0,
            round_start: 0,
            in_ss,
            ss_grow: true,
            last_rtt: 0.0,
            last_diff: 0.0,
        }
    }

    /// Smallest RTT seen, seconds.
    pub fn base_rtt(&self) -> f64 {
        self.base_rtt
    }

    /// True while in Vegas slow start.
    pub fn in_slow_start(&self) -> bool {
        self.in_ss
    }

    /// The once-per-RTT decision.
    fn end_round(&mut self) {
        if self.rtt_count == 0 || !self.base_rtt.is_finite() {
            return;
        }
        let d = self.base_rtt;
        let big_d = self.rtt_sum / self.rtt_count as f64;
        let w = self.core.cwnd;
        let diff = vegas_diff(self.cfg.form, w, d, big_d);
        self.last_rtt = big_d;
        self.last_diff = diff;
        if self.in_ss {
            if diff >= self.cfg.gamma || !self.core.in_slow_start() {
                // Leave slow start, cutting the window as `ss_exit` says.
                self.in_ss = false;
                match self.cfg.ss_exit {
                    SsExit::Keep => {}
                    SsExit::ExpectedPlusOne => {
                        self.core.cwnd = w.min(w * d / big_d + 1.0).max(2.0);
                    }
                    SsExit::Eighth => self.core.cwnd = (w - w / 8.0).max(2.0),
                }
                self.core.ssthresh = self.core.ssthresh.min(self.core.cwnd);
            } else {
                self.ss_grow = !self.ss_grow;
            }
            return;
        }
        // Thesis eq. (2.2) applied once per RTT as +-1 packet.
        if diff < self.cfg.alpha {
            self.core.cwnd = w + 1.0;
        } else if diff > self.cfg.beta {
            self.core.cwnd = (w - 1.0).max(2.0);
        }
    }
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas::new(VegasConfig::default())
    }
}

impl Controller for Vegas {
    fn name(&self) -> &'static str {
        match self.cfg.form {
            VegasForm::Packets => "vegas",
            VegasForm::Rate => "vegas-rate",
        }
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        let sample = ack.rtt.map(secs).filter(|&r| r > 0.0);
        if let Some(r) = sample {
            self.base_rtt = self.base_rtt.min(r);
        }
        let Some(acked) = self.core.begin_ack(ack) else {
            if ack.in_recovery {
                // In recovery: discard the round's samples, keep baseRTT.
                self.rtt_sum = 0.0;
                self.rtt_count = 0;
                self.round_start = ack.delivered;
            }
            return;
        };
        // The ACK of the first packet sent after the round began closes the
        // round; its own sample belongs to the new round.
        if ack.delivered_at_send >= self.round_start {
            self.end_round();
            self.rtt_sum = 0.0;
            self.rtt_count = 0;
            self.round_start = ack.delivered;
        }
        if let Some(r) = sample {
            self.rtt_sum += r;
            self.rtt_count += 1;
        }
        if self.in_ss && self.ss_grow && self.core.in_slow_start() {
            self.core.slow_start(acked);
        }
    }

    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
        // Thesis §1.4: on loss the window is halved, like Reno.
        self.in_ss = false;
        self.core.reduce_to(self.core.cwnd / 2.0);
    }

    fn on_rto(&mut self, _now: Time) {
        self.core.rto();
        self.in_ss = self.cfg.slow_start;
        self.ss_grow = true;
    }

    fn on_send(&mut self, _now: Time, _seq: u64, _retransmit: bool, in_flight: u32) -> PacketFlags {
        self.core.on_send(in_flight);
        PacketFlags::NONE
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("base_rtt", self.base_rtt));
        out.push(("rtt", self.last_rtt));
        out.push(("diff", self.last_diff));
        out.push(("ssthresh", self.core.ssthresh));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;
    use crate::MILLISECOND;

    fn ca(form: VegasForm, w: f64, alpha: f64, beta: f64) -> Vegas {
        Vegas::new(VegasConfig {
            window: WindowParams {
                initial_cwnd: w,
                initial_ssthresh: f64::INFINITY,
                rto_cwnd: 1.0,
            },
            form,
            alpha,
            beta,
            gamma: alpha,
            slow_start: false,
            ss_exit: SsExit::ExpectedPlusOne,
        })
    }

    /// Runs `n` rounds: the first at the base RTT (to learn d), the rest at `rtt`.
    fn run(c: &mut Vegas, base: Time, rtt: Time, n: u32) {
        let mut f = Fluid::new(0);
        f.round(c, base);
        for _ in 1..n {
            f.round(c, rtt);
        }
    }

    #[test]
    fn diff_formulas() {
        // w = 20, d = 100 ms, D = 110 ms.
        let p = vegas_diff(VegasForm::Packets, 20.0, 0.1, 0.11);
        assert!((p - 1.818_181_8).abs() < 1e-6);
        let r = vegas_diff(VegasForm::Rate, 20.0, 0.1, 0.11);
        assert!((r - 18.181_818).abs() < 1e-5);
        // Rate diff times d is the packet diff.
        assert!((r * 0.1 - p).abs() < 1e-12);
    }

    #[test]
    fn packets_form_increments_decrements_and_holds() {
        let base = 100 * MILLISECOND;
        // Each round's decision is taken at the first ACK of the next round,
        // so 11 rounds give 10 decisions (on rounds 0..=9).
        // No queueing: diff = 0 < alpha: +1 per RTT.
        let mut c = ca(VegasForm::Packets, 20.0, 1.0, 3.0);
        run(&mut c, base, base, 11);
        assert_eq!(cwnd(&c), 30.0);
        // D = 2d: diff = w/2 > beta: -1 per RTT. Round 0 ran at D = d (+1);
        // rounds 1..=9 each subtract 1.
        let mut c = ca(VegasForm::Packets, 20.0, 1.0, 3.0);
        run(&mut c, base, 2 * base, 11);
        assert_eq!(cwnd(&c), 20.0 + 1.0 - 9.0);
        // D = 1.1 d: after the +1 from round 0, w = 21 and diff = 21 * (1 -
        // 1/1.1) = 1.91 sits between alpha and beta: hold.
        let mut c = ca(VegasForm::Packets, 20.0, 1.0, 3.0);
        run(&mut c, base, 110 * MILLISECOND, 11);
        assert_eq!(cwnd(&c), 21.0);
    }

    #[test]
    fn rate_form_uses_packets_per_second() {
        let base = 40 * MILLISECOND;
        // w = 100, d = 40 ms, D = 41 ms: diff = 100/0.04 - 100/0.041 = 60.98
        // pkt/s: below alpha+ = 250 (grow), above beta+ = 50 (shrink).
        // 6 rounds = 5 decisions, the first on the base-RTT round 0 (+1).
        let mut c = ca(VegasForm::Rate, 100.0, 250.0, 275.0);
        run(&mut c, base, 41 * MILLISECOND, 6);
        assert_eq!(cwnd(&c), 105.0);
        let mut c = ca(VegasForm::Rate, 100.0, 25.0, 50.0);
        run(&mut c, base, 41 * MILLISECOND, 6);
        assert_eq!(cwnd(&c), 100.0 + 1.0 - 4.0);
        assert_eq!(c.name(), "vegas-rate");
        // Equilibrium: a prose Vegas flow keeps about alpha+ * d packets
        // queued: here the window settles where w/d - w/D lies in
        // [alpha+, beta+] = [25, 50] pkt/s: w in [41, 82].
        let mut c = ca(VegasForm::Rate, 100.0, 25.0, 50.0);
        run(&mut c, base, 41 * MILLISECOND, 60);
        let w = cwnd(&c);
        let diff = vegas_diff(VegasForm::Rate, w, 0.04, 0.041);
        assert!((25.0..=50.0).contains(&diff), "w={w} diff={diff}");
    }

    #[test]
    fn slow_start_doubles_every_other_rtt_and_exits_on_gamma() {
        let base = 100 * MILLISECOND;
        let mut c = Vegas::default();
        assert!(c.in_slow_start());
        let mut f = Fluid::new(0);
        let mut ws = vec![cwnd(&c)];
        for _ in 0..5 {
            f.round(&mut c, base);
            ws.push(cwnd(&c));
        }
        // The window grows during rounds 0, 2, 4 and holds during 1 and 3.
        assert_eq!(ws, vec![10.0, 20.0, 20.0, 40.0, 40.0, 80.0]);
        // Queueing appears in round 5 (a hold round): D = 1.25 d, so at the
        // start of round 6 diff = 80 * (1 - 0.8) = 16 >= gamma = 1.
        f.round(&mut c, 125 * MILLISECOND);
        assert!(c.in_slow_start());
        f.round(&mut c, 125 * MILLISECOND);
        assert!(!c.in_slow_start());
        // Exit cuts to the expected-rate window + 1 = 80 * 0.8 + 1 = 65.
        assert!((cwnd(&c) - 65.0).abs() < 1e-9, "{}", cwnd(&c));
    }

    #[test]
    fn slow_start_exit_eighth_and_keep() {
        // As the doubling test, leaving slow start at w = 80 with D = 1.25 d.
        for (exit, w) in [(SsExit::Eighth, 70.0), (SsExit::Keep, 80.0)] {
            let mut c = Vegas::new(VegasConfig {
                ss_exit: exit,
                ..VegasConfig::packets()
            });
            let mut f = Fluid::new(0);
            for _ in 0..5 {
                f.round(&mut c, 100 * MILLISECOND);
            }
            f.round(&mut c, 125 * MILLISECOND);
            f.round(&mut c, 125 * MILLISECOND);
            assert!(!c.in_slow_start());
            assert!((cwnd(&c) - w).abs() < 1e-9, "{exit:?}: {}", cwnd(&c));
        }
    }

    #[test]
    fn loss_halves_and_rto_restarts() {
        let mut c = ca(VegasForm::Packets, 40.0, 1.0, 3.0);
        c.on_congestion_event(1, &loss(40));
        assert_eq!(cwnd(&c), 20.0);
        let mut a = ack(RTT100, 1);
        a.in_recovery = true;
        a.in_flight = 30;
        c.on_ack(2, &a);
        assert_eq!(cwnd(&c), 20.0);
        c.on_rto(3);
        assert_eq!(cwnd(&c), 1.0);
        assert_eq!(c.core.ssthresh, 15.0);
    }
}
