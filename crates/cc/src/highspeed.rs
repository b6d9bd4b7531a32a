//! HighSpeed TCP (RFC 3649).
//!
//! Below `Low_Window` = 38 packets it is standard TCP (`a = 1`, `b = 0.5`).
//! Above, per ACK in congestion avoidance `w += a(w) * newly_acked / w`, and
//! on a congestion event `w = (1 - b(w)) * w`, with (RFC 3649 §5):
//!
//! ```text
//! b(w) = (High_Decrease - 0.5) (ln w - ln Low_Window) / (ln High_Window - ln Low_Window) + 0.5
//! p(w) = 0.078 / w^1.2
//! a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//! ```
//!
//! with `Low_Window = 38`, `High_Window = 83000`, `High_P = 1e-7`,
//! `High_Decrease = 0.1`.
//!
//! Two guards not spelled out by the equations (both match RFC 3649's table
//! and Linux `tcp_highspeed.c`): `a(w)` is never below 1 (the formula gives
//! 0.955 just above w = 38, the RFC table says 1), and `b(w)` is held at
//! `High_Decrease` above `High_Window` (the log formula would fall below 0.1
//! and reach 0 near w = 570 000).
//!
//! Slow start, recovery and RTO behaviour are NewReno's
//! ([`crate::newreno`]).
//!
//! The increase can be overridden through [`IncreaseOverride`] (ACWAP,
//! seed 004, sets `a(w) = 1` close to congestion); without an override the
//! controller is plain RFC 3649.

use crate::acwap::IncreaseOverride;
use crate::newreno::{WindowCore, WindowParams};
use crate::{AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// RFC 3649 `Low_Window` (packets).
pub const LOW_WINDOW: f64 = 38.0;
/// RFC 3649 `High_Window` (packets).
pub const HIGH_WINDOW: f64 = 83000.0;
/// RFC 3649 `High_P` (loss rate at `High_Window`).
pub const HIGH_P: f64 = 1e-7;
/// RFC 3649 `High_Decrease`.
pub const HIGH_DECREASE: f64 = 0.1;

/// RFC 3649 decrease factor `b(w)`.
pub fn hstcp_b(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    let w = w.min(HIGH_WINDOW);
    // RFC 3649 §5: b(w) = (High_Decrease - 0.5)(ln w - ln Low_Window)
    //                     / (ln High_Window - ln Low_Window) + 0.5
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// RFC 3649 response function `p(w) = 0.078 / w^1.2` (loss rate at which
/// HighSpeed TCP holds an average window of `w`).
pub fn hstcp_p(w: f64) -> f64 {
    // RFC 3649 §5, the approximation of the log-log line through
    // (Low_Window, Low_P) and (High_Window, High_P).
    0.078 / w.powf(1.2)
}

/// RFC 3649 increase `a(w)` in packets per RTT.
pub fn hstcp_a(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let b = hstcp_b(w);
    // RFC 3649 §5: a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
    (w * w * hstcp_p(w) * 2.0 * b / (2.0 - b)).max(1.0)
}

/// HighSpeed TCP controller.
#[derive(Clone, Debug)]
pub struct HighSpeed {
    core: WindowCore,
    /// Increase used instead of `a(w)` when set (packets per RTT).
    a_override: Option<f64>,
}

impl HighSpeed {
    /// A HighSpeed TCP controller.
    pub fn new(params: WindowParams) -> Self {
        HighSpeed {
            core: WindowCore::new(params),
            a_override: None,
        }
    }
}

impl Default for HighSpeed {
    fn default() -> Self {
        HighSpeed::new(WindowParams::default())
    }
}

impl Controller for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if let Some(acked) = self.core.ack_for_avoidance(ack) {
            let w = self.core.cwnd;
            // RFC 3649: w += a(w)/w per acknowledged packet (seed 004 eq. (1));
            // ACWAP may replace a(w) by 1.
            let a = self.a_override.unwrap_or_else(|| hstcp_a(w));
            self.core.cwnd = w + a * acked / w;
        }
    }

    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
        let w = self.core.cwnd;
        // RFC 3649: w = (1 - b(w)) w (ECN handled like loss, RFC 3168).
        self.core.reduce_to((1.0 - hstcp_b(w)) * w);
    }

    fn on_rto(&mut self, _now: Time) {
        self.core.rto();
    }

    fn on_send(&mut self, _now: Time, _seq: u64, _retransmit: bool, in_flight: u32) -> PacketFlags {
        self.core.on_send(in_flight);
        PacketFlags::NONE
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ssthresh", self.core.ssthresh));
        out.push((
            "a",
            self.a_override.unwrap_or_else(|| hstcp_a(self.core.cwnd)),
        ));
        out.push(("b", hstcp_b(self.core.cwnd)));
    }
}

impl IncreaseOverride for HighSpeed {
    fn set_increase_override(&mut self, a: Option<f64>) {
        self.a_override = a;
    }

    fn increase_override(&self) -> Option<f64> {
        self.a_override
    }

    fn natural_increase(&self) -> f64 {
        hstcp_a(self.core.cwnd)
    }

    fn in_slow_start(&self) -> bool {
        self.core.in_slow_start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;

    // Expected values computed with double precision from the RFC 3649
    // formulas. RFC 3649's table (a rounded to integers, b to 2 digits):
    // w=38 a=1 b=0.50; w=118 a=2 b=0.44; w=347 a=4 b=0.38; w=83000 a=72
    // b=0.10. The table evaluates p(w) on the exact log-log line (so
    // p(83000) = 1e-7 and a(83000) = 72.52); the 0.078/w^1.2 approximation
    // used here gives p(83000) = 9.754e-8 and a = 70.73, 2.5% lower. At
    // w = 118 and 347 the two differ by < 1%.
    #[test]
    fn a_and_b_match_rfc3649() {
        assert_eq!(hstcp_a(38.0), 1.0);
        assert_eq!(hstcp_b(38.0), 0.5);
        assert!((hstcp_a(118.0) - 2.005_813).abs() < 1e-5);
        assert!((hstcp_b(118.0) - 0.441_054).abs() < 1e-5);
        assert!((hstcp_a(347.0) - 4.004_912).abs() < 1e-5);
        assert!((hstcp_b(347.0) - 0.384_940).abs() < 1e-5);
        assert!((hstcp_a(83000.0) - 70.734_856).abs() < 1e-4);
        assert!((hstcp_b(83000.0) - 0.1).abs() < 1e-12);
        // Against the rounded RFC table.
        assert!((hstcp_a(118.0) - 2.0).abs() < 0.05);
        assert!((hstcp_b(118.0) - 0.44).abs() < 0.005);
        assert!((hstcp_a(347.0) - 4.0).abs() < 0.05);
        assert!((hstcp_b(347.0) - 0.38).abs() < 0.005);
        assert!((hstcp_a(83000.0) - 72.0).abs() < 0.03 * 72.0);
    }

    #[test]
    fn guards_at_both_ends() {
        // Just above Low_Window the formula gives 0.955; clamp to 1.
        assert_eq!(hstcp_a(39.0), 1.0);
        // Above High_Window b stays at High_Decrease.
        assert!((hstcp_b(1e6) - 0.1).abs() < 1e-12);
        assert!(hstcp_a(1e6) > hstcp_a(83000.0));
    }

    #[test]
    fn increase_uses_a_of_w() {
        let mut c = HighSpeed::new(WindowParams {
            initial_cwnd: 347.0,
            initial_ssthresh: 1.0,
            rto_cwnd: 1.0,
        });
        c.on_ack(1, &ack(RTT100, 1));
        assert!((cwnd(&c) - (347.0 + 4.004_912 / 347.0)).abs() < 1e-6);
        // One RTT worth of ACKs adds about a(w) = 4 packets.
        let mut now = 2;
        feed(&mut c, &mut now, RTT100, 346);
        assert!((cwnd(&c) - 351.0).abs() < 0.05, "{}", cwnd(&c));
    }

    #[test]
    fn standard_tcp_below_low_window() {
        let mut c = HighSpeed::new(WindowParams {
            initial_cwnd: 20.0,
            initial_ssthresh: 20.0,
            rto_cwnd: 1.0,
        });
        c.on_ack(1, &ack(RTT100, 1));
        assert!((cwnd(&c) - 20.05).abs() < 1e-12);
        c.on_congestion_event(2, &loss(20));
        assert!((cwnd(&c) - 10.025).abs() < 1e-12);
    }

    #[test]
    fn decrease_uses_b_of_w() {
        let mut c = HighSpeed::new(WindowParams {
            initial_cwnd: 347.0,
            ..WindowParams::default()
        });
        c.on_congestion_event(1, &loss(347));
        assert!((cwnd(&c) - 347.0 * (1.0 - 0.384_940)).abs() < 1e-3);
        // No growth in recovery; afterwards congestion avoidance.
        let before = cwnd(&c);
        let mut a = ack(RTT100, 1);
        a.in_recovery = true;
        c.on_ack(2, &a);
        assert_eq!(cwnd(&c), before);
    }
}
