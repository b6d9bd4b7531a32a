//! DCTCP, Data Center TCP (RFC 8257; Alizadeh et al., SIGCOMM 2010): the
//! sender estimates the fraction of its packets the network marked and
//! cuts its window in proportion, instead of halving it.
//!
//! * Per observation window (one window of data: it ends when every packet
//!   in flight at its start has been acknowledged), with `F` the fraction
//!   of the packets acknowledged in it that carried a CE echo:
//!   `alpha = (1 - g) alpha + g F` (RFC 8257 §3.3 step 8; `g = 1/16`,
//!   `alpha` starts at 1, §4.2 and Linux's `dctcp_alpha_on_init`).
//! * On a congestion event caused by CE echoes:
//!   `cwnd = ssthresh = max(cwnd (1 - alpha / 2), 2)` (§3.3 step 9). The
//!   transport raises such an event at most once per window of data (the
//!   rule RFC 8257 §3.3 takes from RFC 3168 §6.1.2).
//! * Loss and timeouts: NewReno's response (§3.4), as is growth (slow
//!   start, then one packet per RTT; none during recovery).
//!
//! The receiver echoes every CE mark exactly (the ACK's cumulative CE
//! count, [`crate::AckSample::ecn_ce`]), which is what RFC 8257 §3.2's
//! receiver state machine achieves with delayed ACKs.

use crate::newreno::{WindowCore, WindowParams};
use crate::{
    half_flight, AckSample, CongestionCause, CongestionEvent, Control, Controller, PacketFlags,
    Time,
};

/// DCTCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpConfig {
    /// Window parameters.
    pub window: WindowParams,
    /// Gain of the marked fraction's moving average (1/16).
    pub g: f64,
    /// Initial `alpha` (1).
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            window: WindowParams::default(),
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
        }
    }
}

/// The DCTCP controller.
#[derive(Clone, Debug)]
pub struct Dctcp {
    core: WindowCore,
    g: f64,
    alpha: f64,
    /// Packets acknowledged, and those with a CE echo, in this window.
    acked: u64,
    marked: u64,
    /// The observation window ends once `delivered` reaches this.
    window_end: u64,
}

impl Dctcp {
    /// A DCTCP controller.
    pub fn new(cfg: DctcpConfig) -> Self {
        Dctcp {
            core: WindowCore::new(cfg.window),
            g: cfg.g,
            alpha: cfg.initial_alpha,
            acked: 0,
            marked: 0,
            window_end: 0,
        }
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Current congestion window in packets.
    pub fn cwnd(&self) -> f64 {
        self.core.cwnd
    }
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp::new(DctcpConfig::default())
    }
}

impl Controller for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        // RFC 8257 §3.3 steps 1-8: count every acknowledged packet, in
        // recovery too.
        self.acked += ack.newly_acked as u64;
        self.marked += ack.ecn_ce as u64;
        if self.window_end == 0 {
            // The first ACK opens the first window: the packets in flight.
            self.window_end = ack.delivered + ack.in_flight.max(1) as u64;
        } else if ack.delivered >= self.window_end {
            if self.acked > 0 {
                let f = (self.marked as f64 / self.acked as f64).min(1.0);
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            self.acked = 0;
            self.marked = 0;
            // The next window: every packet now in flight acknowledged.
            self.window_end = ack.delivered + ack.in_flight.max(1) as u64;
        }
        if let Some(acked) = self.core.ack_for_avoidance(ack) {
            self.core.reno_increase(acked);
        }
    }

    fn on_congestion_event(&mut self, _now: Time, ev: &CongestionEvent) {
        match ev.cause {
            // RFC 8257 §3.3 step 9.
            CongestionCause::Ecn => self
                .core
                .reduce_to(self.core.cwnd * (1.0 - self.alpha / 2.0)),
            // §3.4: loss as NewReno.
            CongestionCause::Loss => self.core.reduce_to(half_flight(ev.in_flight)),
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
        out.push(("alpha", self.alpha));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;

    /// `n` single-packet ACKs, the first `marked` of them echoing CE, over
    /// a path with `in_flight` packets outstanding.
    fn window(c: &mut Dctcp, delivered: &mut u64, n: u32, marked: u32, in_flight: u32) {
        for i in 0..n {
            *delivered += 1;
            let mut a = ack(RTT100, 1);
            a.delivered = *delivered;
            a.in_flight = in_flight;
            a.ecn_ce = u32::from(i < marked);
            c.on_ack(0, &a);
        }
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        let mut c = Dctcp::default();
        let mut d = 0;
        // The first ACK opens a window that ends when the 20 packets then
        // in flight are acknowledged: alpha unchanged until then.
        window(&mut c, &mut d, 1, 0, 20);
        assert_eq!(c.alpha(), 1.0);
        window(&mut c, &mut d, 19, 0, 20);
        assert_eq!(c.alpha(), 1.0);
        // The 21st packet closes it: 21 packets, 1 marked.
        window(&mut c, &mut d, 1, 1, 20);
        let a0 = 15.0 / 16.0 + (1.0 / 21.0) / 16.0;
        assert!((c.alpha() - a0).abs() < 1e-12, "{}", c.alpha());
        // The next window: 20 packets, 5 marked, F = 0.25.
        window(&mut c, &mut d, 20, 5, 20);
        let a1 = (1.0 - 1.0 / 16.0) * a0 + 0.25 / 16.0;
        assert!((c.alpha() - a1).abs() < 1e-12, "{} vs {a1}", c.alpha());
        // Unmarked windows decay it geometrically by 15/16 each.
        for _ in 0..10 {
            window(&mut c, &mut d, 20, 0, 20);
        }
        assert!((c.alpha() - a1 * (15.0f64 / 16.0).powi(10)).abs() < 1e-12);
    }

    #[test]
    fn a_ce_event_cuts_by_half_alpha_and_loss_halves() {
        let mut c = Dctcp::new(DctcpConfig {
            initial_alpha: 0.2,
            window: WindowParams {
                initial_cwnd: 100.0,
                ..WindowParams::default()
            },
            ..DctcpConfig::default()
        });
        let mut ev = loss(100);
        ev.cause = CongestionCause::Ecn;
        c.on_congestion_event(0, &ev);
        assert!((c.cwnd() - 90.0).abs() < 1e-12, "{}", c.cwnd());
        c.on_congestion_event(0, &loss(90));
        assert_eq!(c.cwnd(), 45.0);
    }

    #[test]
    fn fully_marked_windows_drive_alpha_to_one_and_the_cut_to_half() {
        let mut c = Dctcp::new(DctcpConfig {
            initial_alpha: 0.0,
            ..DctcpConfig::default()
        });
        let mut d = 0;
        for _ in 0..200 {
            window(&mut c, &mut d, 10, 10, 10);
        }
        assert!(c.alpha() > 0.999, "{}", c.alpha());
    }
}
