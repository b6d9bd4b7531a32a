//! TCP NewReno window rules (RFC 5681 congestion control, RFC 6582 recovery
//! response), plus the window state shared by every loss-based controller.
//!
//! The transport owns loss detection, SACK recovery ("pipe" style, RFC 6675)
//! and retransmission; a controller only moves the window:
//!
//! * slow start: `cwnd += newly_acked` while `cwnd < ssthresh` (RFC 5681 §3.1);
//! * congestion avoidance: `cwnd += newly_acked / cwnd` (RFC 5681 eq. (3));
//! * congestion event (loss or ECN, RFC 3168 §6.1.2):
//!   `ssthresh = max(FlightSize/2, 2)` (RFC 5681 eq. (4)), `cwnd = ssthresh`
//!   (RFC 6582 §3.2 step 3, no window inflation: the transport's pipe
//!   accounting replaces it);
//! * no growth while the connection is in recovery;
//! * retransmission timeout: `ssthresh = max(FlightSize/2, 2)`,
//!   `cwnd = rto_cwnd` (1 packet in RFC 5681; the ns-2 FAST module uses 2).

use crate::{half_flight, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Window parameters shared by all window-based controllers in this crate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowParams {
    /// Initial congestion window in packets (RFC 6928: 10).
    pub initial_cwnd: f64,
    /// Initial slow-start threshold in packets (`f64::INFINITY`: none).
    pub initial_ssthresh: f64,
    /// Window after a retransmission timeout (RFC 5681: 1; ns-2 FAST: 2).
    pub rto_cwnd: f64,
}

impl Default for WindowParams {
    fn default() -> Self {
        WindowParams {
            initial_cwnd: 10.0,
            initial_ssthresh: f64::INFINITY,
            rto_cwnd: 1.0,
        }
    }
}

/// The RFC 5681 window state the loss-based controllers build on:
/// cwnd, ssthresh and the last known flight size.
#[derive(Clone, Debug)]
pub(crate) struct WindowCore {
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets.
    pub ssthresh: f64,
    /// Last known packets in flight (from ACKs and sends), for the RTO rule.
    pub last_flight: u32,
    /// A congestion event has reduced the window and its recovery has not
    /// ended yet (lets an RTO inside recovery avoid reducing twice).
    pub in_episode: bool,
    /// Configuration.
    pub params: WindowParams,
}

impl WindowCore {
    pub fn new(params: WindowParams) -> Self {
        WindowCore {
            cwnd: params.initial_cwnd.max(1.0),
            ssthresh: params.initial_ssthresh,
            last_flight: 0,
            in_episode: false,
            params,
        }
    }

    /// Bookkeeping common to every ACK. Returns the number of packets that
    /// may drive window growth, or `None` when growth is not allowed
    /// (the connection is in loss recovery).
    #[inline]
    pub fn begin_ack(&mut self, ack: &AckSample) -> Option<f64> {
        self.last_flight = ack.in_flight;
        if !ack.in_recovery {
            self.in_episode = false;
        }
        if ack.in_recovery || ack.newly_acked == 0 {
            return None;
        }
        Some(ack.newly_acked as f64)
    }

    /// [`begin_ack`](Self::begin_ack) followed by RFC 5681 §3.1 slow start:
    /// returns the packets left over for congestion avoidance, or `None`
    /// when none are (in recovery, nothing newly acknowledged, or all of it
    /// spent below ssthresh). The common opening of every window-based
    /// controller's `on_ack`.
    #[inline]
    pub fn ack_for_avoidance(&mut self, ack: &AckSample) -> Option<f64> {
        let mut acked = self.begin_ack(ack)?;
        if self.in_slow_start() {
            acked = self.slow_start(acked);
        }
        (acked > 0.0).then_some(acked)
    }

    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 §3.1 slow start, `cwnd += acked`, stopping at ssthresh.
    /// Returns the part of `acked` left over for congestion avoidance.
    #[inline]
    pub fn slow_start(&mut self, acked: f64) -> f64 {
        let room = self.ssthresh - self.cwnd;
        if acked <= room {
            self.cwnd += acked;
            0.0
        } else {
            self.cwnd = self.ssthresh.max(self.cwnd);
            acked - room.max(0.0)
        }
    }

    /// RFC 5681 eq. (3): `cwnd += acked / cwnd` (one packet per RTT).
    #[inline]
    pub fn reno_increase(&mut self, acked: f64) {
        self.cwnd += acked / self.cwnd;
    }

    /// Sets cwnd and ssthresh to `w` (at least 2 packets) after a
    /// multiplicative decrease.
    #[inline]
    pub fn reduce_to(&mut self, w: f64) {
        self.in_episode = true;
        let w = w.max(2.0);
        self.ssthresh = w;
        self.cwnd = w;
    }

    /// RFC 5681 eq. (4) on a timeout: `ssthresh = max(FlightSize/2, 2)`,
    /// then `cwnd = rto_cwnd`.
    #[inline]
    pub fn rto(&mut self) {
        self.ssthresh = half_flight(self.last_flight);
        self.cwnd = self.params.rto_cwnd;
    }

    #[inline]
    pub fn on_send(&mut self, in_flight: u32) {
        self.last_flight = in_flight;
    }

    #[inline]
    pub fn control(&self) -> Control {
        Control {
            cwnd: Some(self.cwnd),
            pacing_rate: None,
            max_burst: None,
        }
    }
}

/// TCP NewReno (RFC 5681 / RFC 6582 window rules).
#[derive(Clone, Debug)]
pub struct NewReno {
    core: WindowCore,
}

impl NewReno {
    /// A NewReno controller with the given window parameters.
    pub fn new(params: WindowParams) -> Self {
        NewReno {
            core: WindowCore::new(params),
        }
    }

    /// Current slow-start threshold in packets.
    pub fn ssthresh(&self) -> f64 {
        self.core.ssthresh
    }

    /// Current congestion window in packets.
    pub fn cwnd(&self) -> f64 {
        self.core.cwnd
    }
}

impl Default for NewReno {
    fn default() -> Self {
        NewReno::new(WindowParams::default())
    }
}

impl Controller for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn control(&self) -> Control {
        self.core.control()
    }

    fn on_ack(&mut self, _now: Time, ack: &AckSample) {
        if let Some(acked) = self.core.ack_for_avoidance(ack) {
            self.core.reno_increase(acked);
        }
    }

    fn on_congestion_event(&mut self, _now: Time, ev: &CongestionEvent) {
        // RFC 5681 eq. (4) / RFC 6582 §3.2: ssthresh = max(FlightSize/2, 2),
        // cwnd = ssthresh. ECN is treated like loss (RFC 3168 §6.1.2).
        let ss = half_flight(ev.in_flight);
        self.core.ssthresh = ss;
        self.core.cwnd = ss;
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

/// Helpers for the unit tests of every controller module.
#[cfg(test)]
pub(crate) mod testkit {
    use crate::{AckSample, CongestionCause, CongestionEvent, Controller, Time, MILLISECOND};

    /// 100 ms.
    pub const RTT100: Time = 100 * MILLISECOND;

    /// A bare ACK of `n` packets carrying the RTT sample `rtt`.
    pub fn ack(rtt: Time, n: u32) -> AckSample {
        AckSample {
            rtt: Some(rtt),
            min_rtt: rtt,
            srtt: rtt,
            newly_acked: n,
            newly_acked_bytes: n as u64 * 1460,
            in_flight: 10,
            in_flight_at_send: 10,
            ..AckSample::default()
        }
    }

    /// A loss event with `in_flight` packets in flight.
    pub fn loss(in_flight: u32) -> CongestionEvent {
        CongestionEvent {
            cause: CongestionCause::Loss,
            lost: 1,
            in_flight,
            srtt: RTT100,
            min_rtt: RTT100,
        }
    }

    /// Current window of a controller.
    pub fn cwnd(c: &dyn Controller) -> f64 {
        c.control().cwnd.expect("window controller")
    }

    /// Feeds `n` single-packet ACKs with RTT `rtt`, 1 ms apart from `*now`.
    pub fn feed(c: &mut dyn Controller, now: &mut Time, rtt: Time, n: u32) {
        for _ in 0..n {
            *now += MILLISECOND;
            c.on_ack(*now, &ack(rtt, 1));
        }
    }

    /// An idealised ACK-clocked, lossless path with a fixed RTT. Each call
    /// to [`Fluid::round`] is one RTT: `floor(cwnd)` single-packet ACKs
    /// evenly spaced over the RTT, each acknowledging a packet sent one RTT
    /// earlier, with consistent `delivered`/`delivered_at_send` counters and
    /// `in_flight_at_send` equal to the previous round's window.
    pub struct Fluid {
        /// Current time.
        pub now: Time,
        /// Rounds completed.
        pub rounds: u64,
        delivered: u64,
        prev_start: u64,
        prev_n: u32,
        min_rtt: Time,
    }

    impl Fluid {
        pub fn new(start: Time) -> Self {
            Fluid {
                now: start,
                rounds: 0,
                delivered: 0,
                prev_start: 0,
                prev_n: 0,
                min_rtt: Time::MAX,
            }
        }

        /// Runs one RTT; returns the number of ACKs delivered.
        pub fn round(&mut self, c: &mut dyn Controller, rtt: Time) -> u32 {
            let n = cwnd(c).floor().max(1.0) as u32;
            let start = self.delivered;
            let t0 = self.now;
            self.min_rtt = self.min_rtt.min(rtt);
            for i in 0..n {
                self.now = t0 + rtt * (i as u64 + 1) / n as u64;
                self.delivered += 1;
                let (dsend, pif_send) = if self.rounds == 0 {
                    (0, n)
                } else {
                    (
                        self.prev_start + (i + 1).min(self.prev_n) as u64,
                        self.prev_n,
                    )
                };
                let a = AckSample {
                    rtt: Some(rtt),
                    min_rtt: self.min_rtt,
                    srtt: rtt,
                    newly_acked: 1,
                    newly_acked_bytes: 1460,
                    delivered: self.delivered,
                    delivered_at_send: dsend,
                    in_flight_at_send: pif_send,
                    in_flight: n,
                    ..AckSample::default()
                };
                c.on_ack(self.now, &a);
            }
            self.now = t0 + rtt;
            self.prev_start = start;
            self.prev_n = n;
            self.rounds += 1;
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::*;
    use super::*;
    use crate::CongestionCause;

    #[test]
    fn slow_start_doubles_per_rtt() {
        let mut c = NewReno::default();
        let mut f = Fluid::new(0);
        assert_eq!(cwnd(&c), 10.0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 20.0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 40.0);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 80.0);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_carries_over() {
        let mut c = NewReno::new(WindowParams {
            initial_cwnd: 10.0,
            initial_ssthresh: 12.0,
            rto_cwnd: 1.0,
        });
        let mut now = 0;
        feed(&mut c, &mut now, RTT100, 2);
        assert_eq!(cwnd(&c), 12.0);
        // An ACK of 3 packets at cwnd 12 = ssthresh: all in CA: 12 + 3/12.
        c.on_ack(now, &ack(RTT100, 3));
        assert!((cwnd(&c) - 12.25).abs() < 1e-12);
    }

    #[test]
    fn congestion_avoidance_adds_one_per_rtt() {
        let mut c = NewReno::new(WindowParams {
            initial_cwnd: 20.0,
            initial_ssthresh: 20.0,
            rto_cwnd: 1.0,
        });
        let mut now = 0;
        feed(&mut c, &mut now, RTT100, 20);
        // 20 ACKs of 1/w each: 20.9773 by direct iteration (slightly < 1
        // because w grows during the RTT).
        assert!((cwnd(&c) - 20.977_315_5).abs() < 1e-6, "{}", cwnd(&c));
    }

    #[test]
    fn loss_halves_flight_and_sets_ssthresh() {
        let mut c = NewReno::default();
        let mut f = Fluid::new(0);
        f.round(&mut c, RTT100);
        f.round(&mut c, RTT100);
        assert_eq!(cwnd(&c), 40.0);
        c.on_congestion_event(f.now, &loss(36));
        assert_eq!(cwnd(&c), 18.0);
        assert_eq!(c.ssthresh(), 18.0);
        // Small flights floor at 2 (RFC 5681 eq. (4)).
        c.on_congestion_event(f.now, &loss(3));
        assert_eq!(cwnd(&c), 2.0);
    }

    #[test]
    fn ecn_is_treated_like_loss() {
        let mut c = NewReno::default();
        let mut ev = loss(30);
        ev.cause = CongestionCause::Ecn;
        c.on_congestion_event(0, &ev);
        assert_eq!(cwnd(&c), 15.0);
    }

    #[test]
    fn no_growth_in_recovery() {
        let mut c = NewReno::default();
        let mut a = ack(RTT100, 5);
        a.in_recovery = true;
        c.on_ack(1, &a);
        assert_eq!(cwnd(&c), 10.0);
        a.in_recovery = false;
        c.on_ack(2, &a);
        assert_eq!(cwnd(&c), 15.0);
    }

    #[test]
    fn rto_uses_last_flight_and_rto_window() {
        let mut c = NewReno::new(WindowParams {
            rto_cwnd: 2.0,
            ..WindowParams::default()
        });
        let mut a = ack(RTT100, 1);
        a.in_flight = 30;
        c.on_ack(1, &a);
        c.on_rto(2);
        assert_eq!(cwnd(&c), 2.0);
        assert_eq!(c.ssthresh(), 15.0);
        // Sends update the flight estimate too.
        c.on_send(3, 100, false, 50);
        c.on_rto(4);
        assert_eq!(c.ssthresh(), 25.0);
        // After the RTO, slow start again up to ssthresh.
        let mut now = 10;
        feed(&mut c, &mut now, RTT100, 30);
        assert!(cwnd(&c) > 25.0 && cwnd(&c) < 26.5, "{}", cwnd(&c));
    }
}
