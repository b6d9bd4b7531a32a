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
//!
//! [`PaceRtt::Ns2`] paces as the ns-2 TCP pacing patch of D. X. Wei
//! (Caltech netlab, "A TCP pacing implementation for NS2", 2006, its
//! `pace_packet_ = 1`, "traditional pacing"), the pacer of the thesis's
//! paced TCP NewReno as far as its citations tell (thesis L1986 cites
//! [3, 189, 190]: Aggarwal, Savage and Anderson, and two references
//! filed under W; the bibliography is not in the seed):
//!
//! * one packet per `gap = rtt / cwnd` (the patch's `pace_gap`), ns-2's
//!   exact double-precision time (no timer granularity);
//! * `rtt` is the patch's own average `pace_rtt_`: each RTT sample enters
//!   with weight `1 / max(cwnd / 3, 4)`, and ns-2 (no timestamps) takes one
//!   sample per round trip; during loss recovery (`recover_ >=
//!   highest_ack_`) the minimum RTT replaces it, so the recovery is paced
//!   faster;
//! * before the first RTT sample nothing is paced (the initial window
//!   leaves back to back), as in [`Paced`]'s default;
//! * with `random_pace_ = 1` each departure moves by a uniform
//!   `[-0.4, 0.4] gap` about its regular time (the patch's `this_overhead_
//!   - last_overhead_`: the offsets do not accumulate). The patch's default
//!   is 0 (and ns-2's `overhead_` 0); which the thesis set is not known.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::{secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Which round-trip time a [`Paced`] controller spreads its window over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PaceRtt {
    /// The transport's smoothed RTT (RFC 6298 SRTT), every ACK.
    #[default]
    Srtt,
    /// The ns-2 pacing patch's average (see the module documentation);
    /// `random`: its `random_pace_`.
    Ns2 {
        /// Move each departure by U[-0.4, 0.4] gap (`random_pace_ = 1`).
        random: bool,
    },
}

/// The ns-2 pacing patch's state ([`PaceRtt::Ns2`]).
#[derive(Clone, Debug)]
struct Ns2Pace {
    random: bool,
    /// `pace_rtt_`, ns (`None`: no sample yet).
    rtt: Option<f64>,
    /// `pace_min_rtt_`, ns.
    min_rtt: f64,
    /// When the next once-per-round-trip sample may be taken.
    next_sample: Time,
    /// In loss recovery at the last ACK.
    recovering: bool,
    /// The last departure's offset, in gaps (`last_overhead_ / gap`).
    offset: f64,
    /// The next gap's factor: `1 + offset_new - offset_old`.
    factor: f64,
    rng: Pcg64Mcg,
}

/// A controller whose window is paced over one smoothed RTT.
#[derive(Clone, Debug)]
pub struct Paced<C> {
    inner: C,
    wire_size: u32,
    srtt: Option<Time>,
    ns2: Option<Box<Ns2Pace>>,
}

impl<C: Controller> Paced<C> {
    /// Wraps `inner`; `wire_size` is the bytes a full-size packet occupies
    /// on the wire ([`crate::ConnInfo::wire_size`]).
    pub fn new(inner: C, wire_size: u32) -> Self {
        Paced {
            inner,
            wire_size,
            srtt: None,
            ns2: None,
        }
    }

    /// Wraps `inner` with the pacing `rtt` says; `seed` draws the random
    /// offsets of [`PaceRtt::Ns2`] `{ random: true }`.
    pub fn with_rtt(inner: C, wire_size: u32, rtt: PaceRtt, seed: u64) -> Self {
        let mut p = Self::new(inner, wire_size);
        if let PaceRtt::Ns2 { random } = rtt {
            p.ns2 = Some(Box::new(Ns2Pace {
                random,
                rtt: None,
                min_rtt: f64::INFINITY,
                next_sample: 0,
                recovering: false,
                offset: 0.0,
                factor: 1.0,
                rng: Pcg64Mcg::seed_from_u64(seed),
            }));
        }
        p
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
        if let Some(n) = self.ns2.as_deref() {
            if let (Some(w), Some(rtt)) = (c.cwnd, n.rtt) {
                // Wei's pace_gap(), pace_packet_ = 1: rtt / cwnd, the
                // minimum RTT during recovery; random_pace_ scales the gap.
                let rtt = if n.recovering { n.min_rtt } else { rtt };
                c.pacing_rate = Some(w * self.wire_size as f64 / (rtt * 1e-9) / n.factor);
            }
            return c;
        }
        if let (Some(w), Some(srtt)) = (c.cwnd, self.srtt) {
            // Thesis §2 "paced TCP": one window per RTT, evenly spaced.
            c.pacing_rate = Some(w * self.wire_size as f64 / secs(srtt));
        }
        c
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if let Some(n) = self.ns2.as_deref_mut() {
            n.recovering = ack.in_recovery;
            if let Some(tao) = ack.rtt.filter(|&r| r > 0) {
                let tao = tao as f64;
                n.min_rtt = n.min_rtt.min(tao);
                match n.rtt {
                    None => {
                        n.rtt = Some(tao);
                        n.next_sample = now + tao as Time;
                    }
                    // One sample per round trip (ns-2 times one packet
                    // per RTT), weight 1 / max(cwnd / 3, 4).
                    Some(r) if now >= n.next_sample => {
                        let w = (self.inner.control().cwnd.unwrap_or(1.0) / 3.0).max(4.0);
                        let r = (r * (w - 1.0) + tao) / w;
                        n.rtt = Some(r);
                        n.next_sample = now + r as Time;
                    }
                    Some(_) => {}
                }
            }
        }
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
        if let Some(n) = self.ns2.as_deref_mut().filter(|n| n.random) {
            // random_pace_: this departure's offset U[-0.4, 0.4) gap; the
            // gap to it is the regular one plus the change of offset.
            let offset = n.rng.gen_range(-0.4..0.4);
            n.factor = 1.0 + offset - n.offset;
            n.offset = offset;
        }
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
    fn ns2_pacing_averages_one_sample_per_rtt_and_uses_the_minimum_in_recovery() {
        let mut p = Paced::with_rtt(NewReno::default(), 1000, PaceRtt::Ns2 { random: false }, 1);
        assert_eq!(p.control().pacing_rate, None);
        // First sample 100 ms: cwnd 11 over 0.1 s.
        p.on_ack(1, &ack(RTT100, 1));
        assert!((p.control().pacing_rate.unwrap() - 110_000.0).abs() < 1e-6);
        // A 200 ms sample within the same round trip is not taken.
        p.on_ack(2, &ack(2 * RTT100, 1));
        assert!((p.control().pacing_rate.unwrap() - 120_000.0).abs() < 1e-6);
        // One round trip later it is, with weight 1/4 (cwnd 13 / 3 < 4):
        // (3 * 100 + 200) / 4 = 125 ms.
        p.on_ack(1 + RTT100, &ack(2 * RTT100, 1));
        let want = 13.0 * 1000.0 / 0.125;
        assert!((p.control().pacing_rate.unwrap() - want).abs() < 1e-6);
        // In recovery the minimum RTT (100 ms) replaces the average.
        let mut a = ack(2 * RTT100, 1);
        a.in_recovery = true;
        p.on_ack(2 + RTT100, &a);
        let w = p.control().cwnd.unwrap();
        assert!((p.control().pacing_rate.unwrap() - w * 1000.0 / 0.1).abs() < 1e-6);
    }

    #[test]
    fn ns2_random_pacing_moves_each_departure_without_accumulating() {
        let mut p = Paced::with_rtt(NewReno::default(), 1000, PaceRtt::Ns2 { random: true }, 7);
        p.on_ack(1, &ack(RTT100, 1));
        let base = p.control().pacing_rate.unwrap();
        // Sum of the gaps' factors telescopes: n + last offset - first.
        let mut sum = 0.0;
        let mut seen_fast = false;
        let mut seen_slow = false;
        for s in 0..1000 {
            p.on_send(2, s, false, 0);
            let f = base / p.control().pacing_rate.unwrap();
            assert!((0.2..=1.8).contains(&f), "{f}");
            seen_fast |= f < 0.9;
            seen_slow |= f > 1.1;
            sum += f;
        }
        assert!((sum - 1000.0).abs() <= 0.8 + 1e-9, "{sum}");
        assert!(seen_fast && seen_slow);
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
