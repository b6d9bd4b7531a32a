//! One pacer for all the senders of a host (seed 001's "pacing at layer 3").
//!
//! Flows that leave one host towards the same bottleneck and pace
//! themselves still send their bursts independently: two bursts of `b`
//! packets that happen to leave together arrive at the bottleneck as one
//! burst of `2b`, which a buffer sized for `b` drops. The seed's remedy is
//! to pace at the host: one pacer sends the packets of all its flows, at the
//! sum of their rates, in bursts no larger than the smallest of their
//! bursts, taking the flows in turn.
//!
//! [`HostPacer`] is that pacer, sans-IO like [`Sender`]: each member sender
//! is configured with [`crate::SenderConfig::host_paced`] (it keeps its window
//! and asks for a rate and burst through [`Sender::pacing_request`], but no
//! longer times its own departures), and the caller asks the host pacer,
//! not the senders, for the next packet. The simulator's `host` key and the
//! UDP driver's parallel streams (`dropless send -P N`) both run this code.
//!
//! Choices the seed leaves open (it names the idea, not the algorithm):
//! * the rate is the sum of the members' rates and the burst the smallest
//!   of their bursts, so the host never sends a burst that one of its flows
//!   would not have sent alone; if one member does not pace, the host does
//!   not either;
//! * members are served round robin, one packet at a time, starting after
//!   the member that sent last, so a member with a smaller window is not
//!   starved by one with a larger window.

use dropless_cc::Time;

use crate::pacer::Pacer;
use crate::DataPacket;
#[cfg(doc)]
use crate::Sender;

/// The pacing of a group of senders: the sum of the rates (bytes/s) and
/// the smallest of the bursts (packets) of the requests, `None` (no pacing)
/// if a request is `None` or there is none.
pub fn aggregate(requests: impl IntoIterator<Item = Option<(f64, u32)>>) -> Option<(f64, u32)> {
    let mut sum = PacingSum::new();
    for r in requests {
        sum.add(r);
    }
    sum.pacing()
}

/// [`aggregate`] one request at a time.
#[derive(Clone, Copy, Debug)]
pub struct PacingSum {
    rate: f64,
    burst: u32,
    unpaced: bool,
}

impl Default for PacingSum {
    fn default() -> Self {
        PacingSum::new()
    }
}

impl PacingSum {
    /// No request yet.
    pub fn new() -> PacingSum {
        PacingSum {
            rate: 0.0,
            burst: u32::MAX,
            unpaced: false,
        }
    }

    /// Adds a member's [`Sender::pacing_request`].
    pub fn add(&mut self, request: Option<(f64, u32)>) {
        match request {
            Some((r, b)) => {
                self.rate += r;
                self.burst = self.burst.min(b);
            }
            None => self.unpaced = true,
        }
    }

    /// The group's pacing so far.
    pub fn pacing(&self) -> Option<(f64, u32)> {
        (!self.unpaced && self.rate > 0.0).then_some((self.rate, self.burst))
    }
}

/// A pacer shared by several senders, served in turn.
#[derive(Clone, Debug, Default)]
pub struct HostPacer {
    pacer: Pacer,
    /// The member asked first next time.
    next: usize,
}

impl HostPacer {
    /// A pacer that may send at once.
    pub fn new() -> HostPacer {
        HostPacer::default()
    }

    /// True if a packet may leave at `now`.
    pub fn ready(&self, now: Time) -> bool {
        self.pacer.ready(now)
    }

    /// Earliest time the next packet may leave.
    pub fn next_departure(&self) -> Time {
        self.pacer.next_departure()
    }

    /// The next packet of the group at `now`, if the pacer is ready and a
    /// member has one: asks members `0..n` in turn, starting after the one
    /// that sent last, through `try_send(k)` (which returns member `k`'s
    /// packet from [`Sender::poll_transmit`] and its bytes on the wire, or
    /// `None` if `k` has nothing to send or is not active). `pacing` is the
    /// members' [`aggregate`]; the departure is charged to it. Returns the
    /// member that sent and its packet.
    pub fn poll_transmit(
        &mut self,
        now: Time,
        n: usize,
        pacing: Option<(f64, u32)>,
        mut try_send: impl FnMut(usize) -> Option<(DataPacket, u32)>,
    ) -> Option<(usize, DataPacket)> {
        if n == 0 || !self.pacer.ready(now) {
            return None;
        }
        for i in 0..n {
            let k = (self.first() + i) % n;
            if let Some((d, wire)) = try_send(k) {
                self.on_send(now, k, n, wire, pacing);
                return Some((k, d));
            }
        }
        None
    }

    /// The member to ask first (the one after the member that sent last),
    /// for a caller that asks its members itself.
    pub fn first(&self) -> usize {
        self.next
    }

    /// Records that member `k` of `n` sent `wire` bytes at `now` under the
    /// members' [`aggregate`] pacing (what [`HostPacer::poll_transmit`]
    /// does after a member sent).
    pub fn on_send(
        &mut self,
        now: Time,
        k: usize,
        n: usize,
        wire: u32,
        pacing: Option<(f64, u32)>,
    ) {
        self.next = (k + 1) % n.max(1);
        if let Some((rate, burst)) = pacing {
            self.pacer.on_send(now, wire, rate, burst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_sums_rates_and_takes_the_smallest_burst() {
        assert_eq!(
            aggregate([Some((100.0, 8)), Some((50.0, 4))]),
            Some((150.0, 4))
        );
        assert_eq!(aggregate([Some((100.0, 8)), None]), None);
        assert_eq!(aggregate(std::iter::empty()), None);
    }

    /// Three members that always have a packet: served in turn, in bursts
    /// of the smallest burst, at the summed rate.
    #[test]
    fn members_take_turns_at_the_summed_rate() {
        let mut h = HostPacer::new();
        let pkt = |k: usize| DataPacket {
            conn: k as u32,
            seq: 0,
            len: 1000,
            flags: dropless_cc::PacketFlags::NONE,
            ecn: crate::Ecn::NotEct,
            ts: 0,
        };
        // 1000 bytes at 1e6 B/s: 1 ms per packet; bursts of 2.
        let pacing = Some((1e6, 2));
        let mut now = 0;
        let mut order = Vec::new();
        let mut times = Vec::new();
        while order.len() < 6 {
            match h.poll_transmit(now, 3, pacing, |k| Some((pkt(k), 1000))) {
                Some((k, _)) => {
                    order.push(k);
                    times.push(now);
                }
                None => now = h.next_departure(),
            }
        }
        assert_eq!(order, [0, 1, 2, 0, 1, 2]);
        assert_eq!(times, [0, 0, 2_000_000, 2_000_000, 4_000_000, 4_000_000]);
        // A member with nothing to send is skipped, not waited for.
        let got = h.poll_transmit(now + 10_000_000, 3, pacing, |k| {
            (k != 0).then(|| (pkt(k), 1000))
        });
        assert_eq!(got.map(|(k, _)| k), Some(1));
    }
}
