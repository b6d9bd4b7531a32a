//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed
//! wide area networks", CCR 2003).
//!
//! Above the legacy window (`lwnd` = 16 packets): per acknowledged packet in
//! congestion avoidance `cwnd += a` (a = 0.01), and on a congestion event
//! `cwnd -= b * cwnd` (b = 0.125). At or below the legacy window the flow
//! uses the traditional TCP rules for both increase and decrease (Kelly
//! 2003 §2: "for cwnd <= lwnd the traditional TCP algorithm is used").
//! Slow start, recovery and RTO behaviour are NewReno's. The increase can
//! be overridden through [`IncreaseOverride`] (ACWAP, seed 004).

use crate::acwap::IncreaseOverride;
use crate::newreno::{WindowCore, WindowParams};
use crate::{half_flight, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Scalable TCP parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalableConfig {
    /// Shared window parameters.
    pub window: WindowParams,
    /// Increase per acknowledged packet, `a` (0.01).
    pub a: f64,
    /// Multiplicative decrease, `b` (0.125: `cwnd <- 0.875 cwnd`).
    pub b: f64,
    /// Legacy window `lwnd` (16 packets).
    pub legacy_window: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig {
            window: WindowParams::default(),
            a: 0.01,
            b: 0.125,
            legacy_window: 16.0,
        }
    }
}

/// Scalable TCP controller.
#[derive(Clone, Debug)]
pub struct Scalable {
    core: WindowCore,
    cfg: ScalableConfig,
    /// Increase used instead of the protocol's own when set (packets per RTT).
    a_override: Option<f64>,
}

impl Scalable {
    /// A Scalable TCP controller.
    pub fn new(cfg: ScalableConfig) -> Self {
        Scalable {
            core: WindowCore::new(cfg.window),
            cfg,
            a_override: None,
        }
    }
}

impl Default for Scalable {
    fn default() -> Self {
        Scalable::new(ScalableConfig::default())
    }
}

impl Controller for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if let Some(acked) = self.core.ack_for_avoidance(ack) {
            if let Some(a) = self.a_override {
                // ACWAP (seed 004): a packets per RTT, w += a/w per ACK.
                self.core.cwnd += a * acked / self.core.cwnd;
            } else if self.core.cwnd > self.cfg.legacy_window {
                // Kelly 2003: cwnd <- cwnd + a per ACK (a = 0.01).
                self.core.cwnd += self.cfg.a * acked;
            } else {
                self.core.reno_increase(acked);
            }
        }
    }

    fn on_congestion_event(&mut self, _now: Time, ev: &CongestionEvent) {
        let w = self.core.cwnd;
        if w > self.cfg.legacy_window {
            // Kelly 2003: cwnd <- cwnd - b*cwnd (b = 0.125).
            self.core.reduce_to(w - self.cfg.b * w);
        } else {
            // Legacy region: RFC 5681 eq. (4).
            self.core.reduce_to(half_flight(ev.in_flight));
        }
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
    }
}

impl IncreaseOverride for Scalable {
    fn set_increase_override(&mut self, a: Option<f64>) {
        self.a_override = a;
    }

    fn increase_override(&self) -> Option<f64> {
        self.a_override
    }

    fn natural_increase(&self) -> f64 {
        // Kelly 2003: a per ACK, i.e. a*cwnd packets per RTT above lwnd.
        if self.core.cwnd > self.cfg.legacy_window {
            self.cfg.a * self.core.cwnd
        } else {
            1.0
        }
    }

    fn in_slow_start(&self) -> bool {
        self.core.in_slow_start()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;

    fn at(w: f64) -> Scalable {
        Scalable::new(ScalableConfig {
            window: WindowParams {
                initial_cwnd: w,
                initial_ssthresh: w,
                rto_cwnd: 1.0,
            },
            ..ScalableConfig::default()
        })
    }

    #[test]
    fn decrease_is_0_875() {
        let mut c = at(1000.0);
        c.on_congestion_event(1, &loss(1000));
        assert!((cwnd(&c) - 875.0).abs() < 1e-9);
        c.on_congestion_event(2, &loss(875));
        assert!((cwnd(&c) - 765.625).abs() < 1e-9);
    }

    #[test]
    fn increase_is_0_01_per_ack_above_legacy() {
        let mut c = at(1000.0);
        let mut now = 0;
        feed(&mut c, &mut now, RTT100, 1000);
        // 1000 ACKs x 0.01 = +10 packets: 1% per RTT, independent of w.
        assert!((cwnd(&c) - 1010.0).abs() < 1e-9);
        c.on_ack(now + 1, &ack(RTT100, 5));
        assert!((cwnd(&c) - 1010.05).abs() < 1e-9);
    }

    #[test]
    fn legacy_region_is_reno() {
        let mut c = at(10.0);
        c.on_ack(1, &ack(RTT100, 1));
        assert!((cwnd(&c) - 10.1).abs() < 1e-12);
        c.on_congestion_event(2, &loss(10));
        assert_eq!(cwnd(&c), 5.0);
    }

    #[test]
    fn slow_start_then_recovery_freeze() {
        let mut c = Scalable::default();
        c.on_ack(1, &ack(RTT100, 4));
        assert_eq!(cwnd(&c), 14.0);
        let mut a = ack(RTT100, 4);
        a.in_recovery = true;
        c.on_ack(2, &a);
        assert_eq!(cwnd(&c), 14.0);
    }
}
