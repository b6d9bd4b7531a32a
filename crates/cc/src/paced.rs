//! "Paced TCP": any window controller with its packets spread evenly over
//! an RTT (thesis §2 / reference note §1.6: "evenly spacing data packets
//! over an RTT").
//!
//! [`Paced`] forwards every call to the wrapped controller and adds
//! `pacing_rate = cwnd * wire_size / srtt` bytes per second, with `srtt`
//! the smoothed RTT of the last [`AckSample`]. Before the first RTT sample
//! (or if the inner controller has no window) the inner decision is passed
//! through unchanged. `max_burst` is left to the inner controller
//! (`None` = 1 packet).

use crate::{secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// A controller whose window is paced over one smoothed RTT.
#[derive(Clone, Debug)]
pub struct Paced<C> {
    inner: C,
    wire_size: u32,
    srtt: Option<Time>,
}

impl<C: Controller> Paced<C> {
    /// Wraps `inner`; `wire_size` is the bytes a full-size packet occupies
    /// on the wire ([`crate::ConnInfo::wire_size`]).
    pub fn new(inner: C, wire_size: u32) -> Self {
        Paced {
            inner,
            wire_size,
            srtt: None,
        }
    }

    /// The wrapped controller.
    pub fn inner(&self) -> &C {
        &self.inner
    }

    /// The wrapped controller, mutably.
    pub fn inner_mut(&mut self) -> &mut C {
        &mut self.inner
    }
}

impl<C: Controller> Controller for Paced<C> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn control(&self) -> Control {
        let mut c = self.inner.control();
        if let (Some(w), Some(srtt)) = (c.cwnd, self.srtt) {
            // Thesis §2 "paced TCP": one window per RTT, evenly spaced.
            c.pacing_rate = Some(w * self.wire_size as f64 / secs(srtt));
        }
        c
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        let srtt = if ack.srtt > 0 {
            Some(ack.srtt)
        } else {
            ack.rtt
        };
        if let Some(s) = srtt.filter(|&s| s > 0) {
            self.srtt = Some(s);
        }
        self.inner.on_ack(now, ack);
    }

    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent) {
        self.inner.on_congestion_event(now, ev);
    }

    fn on_recovery_end(&mut self, now: Time) {
        self.inner.on_recovery_end(now);
    }

    fn on_rto(&mut self, now: Time) {
        self.inner.on_rto(now);
    }

    fn on_send(&mut self, now: Time, seq: u64, retransmit: bool, in_flight: u32) -> PacketFlags {
        self.inner.on_send(now, seq, retransmit, in_flight)
    }

    fn timer(&self) -> Option<Time> {
        self.inner.timer()
    }

    fn on_timer(&mut self, now: Time) {
        self.inner.on_timer(now);
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace_vars(out);
        if let Some(rate) = self.control().pacing_rate {
            out.push(("pacing_rate", rate));
        }
    }

    fn wants_delivery_rate(&self) -> bool {
        self.inner.wants_delivery_rate()
    }

    fn wants_price(&self) -> bool {
        self.inner.wants_price()
    }
}

/// Lets boxed controllers be wrapped (`Paced<Box<dyn Controller>>`) and
/// used wherever a `Controller` is expected.
impl<T: Controller + ?Sized> Controller for Box<T> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn control(&self) -> Control {
        (**self).control()
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        (**self).on_ack(now, ack)
    }
    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent) {
        (**self).on_congestion_event(now, ev)
    }
    fn on_recovery_end(&mut self, now: Time) {
        (**self).on_recovery_end(now)
    }
    fn on_rto(&mut self, now: Time) {
        (**self).on_rto(now)
    }
    fn on_send(&mut self, now: Time, seq: u64, retransmit: bool, in_flight: u32) -> PacketFlags {
        (**self).on_send(now, seq, retransmit, in_flight)
    }
    fn timer(&self) -> Option<Time> {
        (**self).timer()
    }
    fn on_timer(&mut self, now: Time) {
        (**self).on_timer(now)
    }
    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        (**self).trace_vars(out)
    }
    fn wants_delivery_rate(&self) -> bool {
        (**self).wants_delivery_rate()
    }
    fn wants_price(&self) -> bool {
        (**self).wants_price()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;
    use crate::newreno::NewReno;

    #[test]
    fn no_pacing_before_a_sample_then_cwnd_over_srtt() {
        let mut p = Paced::new(NewReno::default(), 1500);
        assert_eq!(p.control().pacing_rate, None);
        assert_eq!(p.control().cwnd, Some(10.0));
        // One ACK: cwnd 11, srtt 100 ms: 11 * 1500 / 0.1 = 165 000 B/s.
        p.on_ack(1, &ack(RTT100, 1));
        let c = p.control();
        assert_eq!(c.cwnd, Some(11.0));
        assert!((c.pacing_rate.unwrap() - 165_000.0).abs() < 1e-6);
        assert_eq!(c.max_burst, None);
        // Passes events through: loss halves the flight.
        p.on_congestion_event(2, &loss(20));
        assert_eq!(p.control().cwnd, Some(10.0));
        assert!((p.control().pacing_rate.unwrap() - 150_000.0).abs() < 1e-6);
        assert_eq!(p.name(), "newreno");
    }

    #[test]
    fn boxed_inner() {
        let inner: Box<dyn Controller> = Box::new(NewReno::default());
        let mut p = Paced::new(inner, 1000);
        let mut a = ack(RTT100, 2);
        a.srtt = 200 * crate::MILLISECOND;
        p.on_ack(1, &a);
        // cwnd 12, srtt 0.2 s: 60 000 B/s.
        assert!((p.control().pacing_rate.unwrap() - 60_000.0).abs() < 1e-6);
        p.on_rto(2);
        assert_eq!(p.control().cwnd, Some(1.0));
    }
}
