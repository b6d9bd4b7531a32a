//! The receiving half of a connection: reassembly bookkeeping, selective
//! acknowledgements, the ACK policy, ECN echo and packet-pair dispersion.

use dropless_cc::{PacketFlags, Time, MILLISECOND};

use crate::packet::{price_code, AckPacket, DataPacket, Ecn, MAX_SACK, NO_ECHO, NO_PRICE};
use crate::ranges::RangeSet;

/// When the receiver acknowledges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPolicy {
    /// Every data packet is acknowledged at once.
    EveryPacket,
    /// RFC 5681 / RFC 1122 delayed ACK: every `every`-th in-order packet, or
    /// after `max_delay`; out-of-order arrivals, gap fills, probes, pairs and
    /// FIN are acknowledged at once.
    Delayed {
        /// ACK every this many full packets (2 in RFC 5681).
        every: u32,
        /// Longest an ACK may wait (RFC 5681: < 500 ms; Linux ~40 ms).
        max_delay: Time,
    },
    /// Only packets carrying the ACK-request bit (TCP-Madison, seed 002 §4.3),
    /// pair seconds and the FIN are acknowledged — plus, while packets are
    /// missing, every arrival that changes the SACK state other than by
    /// extending the highest out-of-order range: one that starts a new range
    /// (the first packet after a drop) or fills (part of) a hole (a
    /// retransmission).
    ///
    /// An ACK carries at most [`MAX_SACK`] blocks. With ACKs only at probes
    /// (15-100 ms apart, up to hundreds of packets) a loss episode opens more
    /// holes than that between two ACKs, the lower ranges are never reported
    /// and the sender declares their delivered packets lost (measured on the
    /// Fig. 8(a) path: 27,804 packets declared lost for 2,138 queue drops).
    /// ACKing range-changing arrivals reports each range's final extent (the
    /// new range first, then the highest others, RFC 2018), so the sender's
    /// SACK scoreboard is complete; it costs about two ACKs per lost packet
    /// and none on a loss-free path. Seed 002 §4.1 allows extra ACKs ("if the
    /// receiver sends ACKs more often, the sender will selectively use the
    /// probe packet ACKs for RTT_avg").
    ProbeOnly,
}

impl AckPolicy {
    /// The usual delayed-ACK setting: every 2 packets, at most 40 ms.
    pub const DELAYED: AckPolicy = AckPolicy::Delayed {
        every: 2,
        max_delay: 40 * MILLISECOND,
    };
}

/// Counters kept by the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data packets received (including duplicates).
    pub packets_received: u64,
    /// Duplicate data packets.
    pub duplicates: u64,
    /// Payload bytes delivered in order (goodput).
    pub bytes_delivered: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// CE-marked packets received.
    pub ce_received: u64,
}

/// What the application learns from one arrival.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// The packet was new (not a duplicate): its payload should be stored.
    pub is_new: bool,
    /// Packets now deliverable in order: `[from, to)`.
    pub in_order: (u64, u64),
}

/// The receiving endpoint of one connection. Sans-IO.
pub struct Receiver {
    conn: u32,
    policy: AckPolicy,
    mss: u32,
    rcv_nxt: u64,
    ooo: RangeSet,
    ce_count: u64,
    /// An ACK is owed.
    ack_pending: bool,
    /// ACK must go out at once (out-of-order, probe, pair, FIN).
    ack_now: bool,
    unacked: u32,
    ack_deadline: Option<Time>,
    last_seq: u64,
    /// The timestamp the next ACK echoes: the latest arrival's, or
    /// [`NO_ECHO`] under the probe-only policy when that arrival requested
    /// no ACK (see
    /// [`Receiver::poll_ack`]).
    echo_ts: Time,
    /// When the packet whose timestamp the next ACK echoes arrived (the
    /// ACK's [`AckPacket::ack_delay`] is the time since).
    echo_arrival: Time,
    last_flags: PacketFlags,
    pair_first: Option<(u64, Time)>,
    pair_dispersion: Time,
    /// The arrival times handed in are not the datagrams' own (a GRO batch
    /// shares one): measure no pair dispersion from them.
    untimed: bool,
    fin_seq: Option<u64>,
    fin_len: u32,
    /// ADPM's decoder, for a sender driven by explicit prices
    /// ([`Receiver::decode_prices`]).
    adpm: Option<dropless_cc::adpm::Decoder>,
    /// The estimate as [`AckPacket::price`] reports it ([`NO_PRICE`] when
    /// not decoding), kept with it so that an ACK only copies it.
    price_code: u16,
    stats: ReceiverStats,
}

impl Receiver {
    /// Says whether the arrival times given to the next [`Receiver::handle_data`]
    /// calls are the datagrams' own (true, the default) or shared by a batch
    /// (false: a GRO batch of the UDP driver). Packet pairs are timed only
    /// from their own arrivals: a batch's shared time would make a pair's
    /// dispersion zero, a capacity without bound.
    pub fn set_arrivals_timed(&mut self, timed: bool) {
        self.untimed = !timed;
    }

    /// Creates a receiver for connection `conn` with packets of `mss` payload bytes.
    pub fn new(conn: u32, mss: u32, policy: AckPolicy) -> Self {
        Receiver {
            conn,
            policy,
            mss,
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            ce_count: 0,
            ack_pending: false,
            ack_now: false,
            unacked: 0,
            ack_deadline: None,
            last_seq: 0,
            echo_ts: NO_ECHO,
            echo_arrival: 0,
            last_flags: PacketFlags::NONE,
            pair_first: None,
            pair_dispersion: 0,
            untimed: false,
            fin_seq: None,
            fin_len: 0,
            adpm: None,
            price_code: NO_PRICE,
            stats: ReceiverStats::default(),
        }
    }

    /// Decodes ADPM price marks ([`dropless_cc::adpm`]): every data packet's
    /// codepoint (01 unmarked, 10 marked; not-ECT and CE carry no price)
    /// against the probe type of its packet number's low 16 bits, which
    /// stand in for the IP identification field (sequential, so the
    /// routers' bit reversal gives bit-reversed counting). The estimate
    /// starts at 0 (the thesis's single-number decoder, reference note
    /// §2.4) and goes back in every ACK ([`AckPacket::price`]).
    pub fn decode_prices(&mut self) {
        self.adpm = Some(dropless_cc::adpm::Decoder::new(0.0));
        self.price_code = price_code(0.0);
    }

    /// One packet's price mark, off the hot path of receivers that do not
    /// decode prices.
    #[cold]
    #[inline(never)]
    fn decode_price(&mut self, seq: u64, ecn: Ecn) {
        if let Some(d) = &mut self.adpm {
            d.observe_ecn(dropless_cc::adpm::threshold(seq as u16), ecn as u8);
            self.price_code = price_code(d.estimate);
        }
    }

    /// The current price estimate, if this receiver decodes prices.
    pub fn price(&self) -> Option<f64> {
        self.adpm.map(|d| d.estimate)
    }

    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    /// Next packet number expected in order.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// Payload bytes per full packet.
    pub fn mss(&self) -> u32 {
        self.mss
    }
    /// True once the FIN and everything before it have arrived.
    pub fn is_complete(&self) -> bool {
        self.fin_seq.is_some_and(|f| self.rcv_nxt > f)
    }

    /// Processes an arriving data packet.
    pub fn handle_data(&mut self, now: Time, p: &DataPacket) -> Arrival {
        self.stats.packets_received += 1;
        if p.ecn == Ecn::Ce {
            self.ce_count += 1;
            self.stats.ce_received += 1;
        }
        if self.price_code != NO_PRICE {
            self.decode_price(p.seq, p.ecn);
        }
        if p.flags.contains(PacketFlags::FIN) {
            self.fin_seq = Some(p.seq);
            self.fin_len = p.len;
        }
        // Packet-pair dispersion (seed 002 §4.2; seeds 000/001), only from
        // arrival times that are the datagrams' own.
        if p.flags.contains(PacketFlags::PAIR) {
            self.pair_first = (!self.untimed).then_some((p.seq, now));
        } else if p.flags.contains(PacketFlags::PAIR_SECOND) {
            if let Some((s, t)) = self.pair_first.take() {
                if s + 1 == p.seq && !self.untimed {
                    self.pair_dispersion = (now - t).max(1);
                }
            }
        }
        let before = self.rcv_nxt;
        // The arrival only extends the highest out-of-order range (the
        // common case after a hole): the SACK state changes only at its top.
        // Only an arrival above `rcv_nxt` can (the ranges lie above it).
        let mut extends_top = false;
        let mut is_new = false;
        let mut out_of_order = false;
        if p.seq == self.rcv_nxt {
            is_new = true;
            self.rcv_nxt += 1;
            if let Some((_, e)) = self.ooo.pop_if_starts_at(self.rcv_nxt) {
                self.rcv_nxt = e;
                out_of_order = true; // a gap was filled: ACK at once (RFC 5681)
            }
        } else if p.seq > self.rcv_nxt {
            extends_top = self.ooo.ranges().last().is_some_and(|&(_, e)| e == p.seq);
            if !self.ooo.contains(p.seq) {
                is_new = true;
                self.ooo.insert(p.seq, p.seq + 1);
            }
            out_of_order = true;
        }
        if !is_new {
            self.stats.duplicates += 1;
            out_of_order = true; // duplicate: ACK at once so the sender learns
        }
        self.stats.bytes_delivered += (self.rcv_nxt - before) * self.mss as u64;
        if let Some(f) = self.fin_seq {
            if before <= f && self.rcv_nxt > f {
                // The last packet may be short.
                self.stats.bytes_delivered -= (self.mss - self.fin_len.min(self.mss)) as u64;
            }
        }
        self.last_seq = p.seq;
        self.echo_ts = p.ts;
        self.echo_arrival = now;
        self.last_flags = p.flags;
        // RFC 5681 §4.2: an arrival that fills all or part of a gap is
        // acknowledged at once; a retransmission that fills only the lowest
        // part of a hole (rcv_nxt advances, a range above remains) would
        // otherwise wait for the delayed-ACK timer. (Evaluated only by the
        // policies that use it.)
        let fills_gap = |r: &Self| is_new && p.seq == before && !r.ooo.is_empty();
        match self.policy {
            AckPolicy::EveryPacket => {
                self.ack_pending = true;
                self.ack_now = true;
            }
            AckPolicy::Delayed { every, max_delay } => {
                let urgent = out_of_order
                    || fills_gap(self)
                    || p.flags.contains(PacketFlags::PAIR_SECOND)
                    || p.flags.contains(PacketFlags::ACK_REQUEST)
                    || p.flags.contains(PacketFlags::FIN);
                self.ack_pending = true;
                self.unacked += 1;
                if urgent || self.unacked >= every {
                    self.ack_now = true;
                } else if self.ack_deadline.is_none() {
                    self.ack_deadline = Some(now + max_delay);
                }
            }
            AckPolicy::ProbeOnly => {
                let requested = p.flags.contains(PacketFlags::ACK_REQUEST)
                    || p.flags.contains(PacketFlags::FIN)
                    || p.flags.contains(PacketFlags::PAIR_SECOND);
                if !requested {
                    // An ACK it causes only reports SACK state: no echo.
                    self.echo_ts = NO_ECHO;
                }
                if requested || (out_of_order && !extends_top) || fills_gap(self) {
                    self.ack_pending = true;
                    self.ack_now = true;
                }
            }
        }
        Arrival {
            is_new,
            in_order: (before, self.rcv_nxt),
        }
    }

    /// Earliest time the receiver must be woken (delayed-ACK timer).
    pub fn poll_timeout(&self) -> Option<Time> {
        if self.ack_pending {
            self.ack_deadline
        } else {
            None
        }
    }

    /// Fires the delayed-ACK timer if due.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.ack_pending && self.ack_deadline.is_some_and(|d| d <= now) {
            self.ack_now = true;
        }
    }

    /// The acknowledgement to send now, if one is due.
    pub fn poll_ack(&mut self, now: Time) -> Option<AckPacket> {
        if !(self.ack_pending && self.ack_now) {
            return None;
        }
        self.ack_pending = false;
        self.ack_now = false;
        self.unacked = 0;
        self.ack_deadline = None;
        // Probe-only: an ACK sent only to report SACK state (see
        // `AckPolicy::ProbeOnly`) echoes no timestamp, so that RTT samples
        // (RTT_avg, the transport's RTT statistics) still come from the
        // requested ACKs alone and are not biased toward loss episodes
        // (`echo_ts` is `NO_ECHO` then, set on arrival).
        //
        // RFC 2018: the block holding the most recent arrival first, then
        // the others, highest first.
        let mut sack = [(0, 0); MAX_SACK];
        let mut n = 0usize;
        let first = self.ooo.range_of(self.last_seq);
        if let Some(r) = first {
            sack[0] = r;
            n = 1;
        }
        for &r in self.ooo.ranges().iter().rev() {
            if n == MAX_SACK {
                break;
            }
            if Some(r) != first {
                sack[n] = r;
                n += 1;
            }
        }
        self.stats.acks_sent += 1;
        // Built in the return value itself (a local moved into `Some` was
        // copied, 112 bytes per ACK).
        Some(AckPacket {
            conn: self.conn,
            cum_ack: self.rcv_nxt,
            sack,
            n_sack: n as u8,
            ts_echo: self.echo_ts,
            echo_seq: self.last_seq,
            echo_flags: self.last_flags,
            ce_count: self.ce_count,
            pair_dispersion: std::mem::take(&mut self.pair_dispersion),
            price: self.price_code,
            // The hold since the echoed arrival: the delayed-ACK timer's
            // wait (RFC 9000 §19.3's ACK Delay), 0 for an ACK sent on
            // arrival; none without an echo.
            ack_delay: if self.echo_ts == NO_ECHO {
                0
            } else {
                now.saturating_sub(self.echo_arrival)
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u64, flags: PacketFlags) -> DataPacket {
        DataPacket {
            seq,
            len: 1000,
            flags,
            ts: 1 + seq,
            ..Default::default()
        }
    }

    #[test]
    fn every_packet_acks_with_sack_blocks() {
        let mut r = Receiver::new(0, 1000, AckPolicy::EveryPacket);
        r.handle_data(1, &pkt(0, PacketFlags::NONE));
        let a = r.poll_ack(1).unwrap();
        assert_eq!((a.cum_ack, a.n_sack), (1, 0));
        assert!(r.poll_ack(1).is_none());
        r.handle_data(2, &pkt(2, PacketFlags::NONE));
        r.handle_data(3, &pkt(5, PacketFlags::NONE));
        let a = r.poll_ack(3).unwrap();
        assert_eq!(a.cum_ack, 1);
        assert_eq!(a.sack_blocks(), &[(5, 6), (2, 3)]);
        assert_eq!(a.echo_seq, 5);
        // fill the first gap
        let arr = r.handle_data(4, &pkt(1, PacketFlags::NONE));
        assert_eq!(arr.in_order, (1, 3));
        let a = r.poll_ack(4).unwrap();
        assert_eq!(a.cum_ack, 3);
        assert_eq!(a.sack_blocks(), &[(5, 6)]);
        // duplicate
        let arr = r.handle_data(5, &pkt(0, PacketFlags::NONE));
        assert!(!arr.is_new);
        assert_eq!(r.stats().duplicates, 1);
    }

    #[test]
    fn delayed_ack_every_second_packet_or_timer() {
        let mut r = Receiver::new(0, 1000, AckPolicy::DELAYED);
        r.handle_data(0, &pkt(0, PacketFlags::NONE));
        assert!(r.poll_ack(0).is_none());
        assert_eq!(r.poll_timeout(), Some(40 * MILLISECOND));
        r.handle_data(1, &pkt(1, PacketFlags::NONE));
        let a = r.poll_ack(1).unwrap();
        assert_eq!((a.cum_ack, a.ack_delay), (2, 0));
        r.handle_data(2, &pkt(2, PacketFlags::NONE));
        assert!(r.poll_ack(2).is_none());
        r.handle_timeout(40 * MILLISECOND + 2);
        let a = r.poll_ack(40 * MILLISECOND + 2).unwrap();
        // The timer's ACK says how long it held packet 2's echo.
        assert_eq!((a.cum_ack, a.ack_delay), (3, 40 * MILLISECOND));
        // out of order: at once
        r.handle_data(50 * MILLISECOND, &pkt(4, PacketFlags::NONE));
        assert!(r.poll_ack(50 * MILLISECOND).is_some());
    }

    #[test]
    fn delayed_ack_is_immediate_when_part_of_a_gap_is_filled() {
        // RFC 5681 §4.2: "fills in all or part of a gap".
        let mut r = Receiver::new(0, 1000, AckPolicy::DELAYED);
        r.handle_data(0, &pkt(0, PacketFlags::NONE));
        assert!(r.poll_ack(0).is_none());
        // 1 and 2 dropped; 3 out of order: at once.
        r.handle_data(1, &pkt(3, PacketFlags::NONE));
        assert_eq!(r.poll_ack(1).unwrap().cum_ack, 1);
        // The retransmission of 1 fills the lower part of the hole: at once.
        r.handle_data(2, &pkt(1, PacketFlags::NONE));
        let a = r.poll_ack(2).unwrap();
        assert_eq!((a.cum_ack, a.sack_blocks()), (2, &[(3, 4)][..]));
        // 2 fills the rest.
        r.handle_data(3, &pkt(2, PacketFlags::NONE));
        assert_eq!(r.poll_ack(3).unwrap().cum_ack, 4);
        // In order with no hole: delayed again.
        r.handle_data(4, &pkt(4, PacketFlags::NONE));
        assert!(r.poll_ack(4).is_none());
    }

    #[test]
    fn untimed_arrivals_give_no_pair_dispersion() {
        let mut r = Receiver::new(1, 1000, AckPolicy::EveryPacket);
        r.set_arrivals_timed(false);
        r.handle_data(20, &pkt(0, PacketFlags::PAIR));
        r.handle_data(20, &pkt(1, PacketFlags::PAIR_SECOND));
        assert_eq!(r.poll_ack(20).map(|a| a.pair_dispersion), Some(0));
        r.set_arrivals_timed(true);
        r.handle_data(30, &pkt(2, PacketFlags::PAIR));
        r.handle_data(42, &pkt(3, PacketFlags::PAIR_SECOND));
        assert_eq!(r.poll_ack(42).map(|a| a.pair_dispersion), Some(12));
    }

    #[test]
    fn probe_only_policy_and_pair_dispersion() {
        let mut r = Receiver::new(0, 1000, AckPolicy::ProbeOnly);
        r.handle_data(10, &pkt(0, PacketFlags::NONE));
        assert!(r.poll_ack(10).is_none());
        r.handle_data(20, &pkt(1, PacketFlags::PAIR));
        assert!(r.poll_ack(20).is_none());
        r.handle_data(32, &pkt(2, PacketFlags::PAIR_SECOND));
        let a = r.poll_ack(32).unwrap();
        assert_eq!(a.pair_dispersion, 12);
        assert_eq!(a.cum_ack, 3);
        r.handle_data(40, &pkt(3, PacketFlags::ACK_REQUEST));
        let a = r.poll_ack(40).unwrap();
        assert_eq!(a.pair_dispersion, 0);
        assert!(a.echo_flags.contains(PacketFlags::ACK_REQUEST));
    }

    #[test]
    fn timestamp_zero_is_echoed() {
        // A packet sent at t = 0 is echoed as 0, which is not "no echo".
        let mut r = Receiver::new(0, 1000, AckPolicy::EveryPacket);
        let p = DataPacket {
            ts: 0,
            ..pkt(0, PacketFlags::NONE)
        };
        r.handle_data(5, &p);
        let a = r.poll_ack(5).unwrap();
        assert_eq!(a.ts_echo, 0);
        assert_eq!(a.echoed_ts(), Some(0));
        // The probe-only policy echoes it too when the packet requests an ACK.
        let mut r = Receiver::new(0, 1000, AckPolicy::ProbeOnly);
        let p = DataPacket {
            ts: 0,
            ..pkt(0, PacketFlags::ACK_REQUEST)
        };
        r.handle_data(5, &p);
        assert_eq!(r.poll_ack(5).unwrap().echoed_ts(), Some(0));
    }

    #[test]
    fn probe_only_acks_arrivals_that_change_the_sack_state() {
        let mut r = Receiver::new(0, 1000, AckPolicy::ProbeOnly);
        r.handle_data(1, &pkt(0, PacketFlags::NONE));
        assert!(r.poll_ack(1).is_none());
        // 1 and 2 dropped; 3 starts a new range: ACK at once.
        r.handle_data(2, &pkt(3, PacketFlags::NONE));
        let a = r.poll_ack(2).unwrap();
        assert_eq!((a.cum_ack, a.sack_blocks()), (1, &[(3, 4)][..]));
        // It reports SACK state only: no timestamp echo (no RTT sample).
        assert_eq!(a.ts_echo, NO_ECHO);
        assert_eq!(a.echoed_ts(), None);
        // 4, 5 extend the top range: no ACK.
        r.handle_data(3, &pkt(4, PacketFlags::NONE));
        r.handle_data(4, &pkt(5, PacketFlags::NONE));
        assert!(r.poll_ack(4).is_none());
        // 6 dropped, 7 starts a range: the ACK reports the new range and the
        // final extent of the previous one.
        r.handle_data(5, &pkt(7, PacketFlags::NONE));
        let a = r.poll_ack(5).unwrap();
        assert_eq!(a.sack_blocks(), &[(7, 8), (3, 6)]);
        // A retransmission filling a hole: ACK at once.
        r.handle_data(6, &pkt(6, PacketFlags::NONE));
        let a = r.poll_ack(6).unwrap();
        assert_eq!(a.sack_blocks(), &[(3, 8)]);
        // With no holes, only requested packets are acknowledged.
        r.handle_data(7, &pkt(1, PacketFlags::NONE));
        assert_eq!(r.poll_ack(7).map(|a| a.cum_ack), Some(2));
        r.handle_data(8, &pkt(2, PacketFlags::NONE));
        assert_eq!(r.poll_ack(8).map(|a| a.cum_ack), Some(8));
        r.handle_data(9, &pkt(8, PacketFlags::NONE));
        assert!(r.poll_ack(9).is_none());
        r.handle_data(10, &pkt(9, PacketFlags::ACK_REQUEST));
        assert_eq!(r.poll_ack(10).unwrap().ts_echo, 1 + 9);
    }

    #[test]
    fn ce_marks_are_counted_and_fin_completes() {
        let mut r = Receiver::new(0, 1000, AckPolicy::EveryPacket);
        let mut p = pkt(0, PacketFlags::NONE);
        p.ecn = Ecn::Ce;
        r.handle_data(1, &p);
        assert_eq!(r.poll_ack(1).unwrap().ce_count, 1);
        r.handle_data(2, &pkt(1, PacketFlags::FIN));
        assert!(r.is_complete());
    }

    /// ADPM decoding (thesis L6655-6659): packet numbers stand in for the
    /// IPid, ECN 01 is unmarked and 10 marked, CE and not-ECT carry no
    /// price; the estimate goes back in every ACK as a 16-bit code.
    #[test]
    fn decodes_adpm_marks_into_the_acks_price() {
        let mut plain = Receiver::new(1, 1000, AckPolicy::EveryPacket);
        plain.handle_data(
            0,
            &DataPacket {
                conn: 1,
                seq: 0,
                len: 1000,
                ecn: Ecn::Ect1,
                ..Default::default()
            },
        );
        assert_eq!(plain.poll_ack(1).unwrap().price, NO_PRICE);
        let mut r = Receiver::new(1, 1000, AckPolicy::EveryPacket);
        r.decode_prices();
        // A path price of 0.6: seq 1 (probe 1/2) marked, seq 2 (1/4)
        // marked, seq 3 (3/4) unmarked, seq 5 (5/8) unmarked, seq 4
        // (1/8) CE: ignored.
        let price = 0.6;
        for seq in [1u64, 2, 3, 5, 4] {
            let i = dropless_cc::adpm::threshold(seq as u16);
            let ecn = if seq == 4 {
                Ecn::Ce
            } else if price > i {
                Ecn::Ect0
            } else {
                Ecn::Ect1
            };
            r.handle_data(
                0,
                &DataPacket {
                    conn: 1,
                    seq,
                    len: 1000,
                    ecn,
                    ..Default::default()
                },
            );
        }
        assert_eq!(r.price(), Some(0.5));
        assert_eq!(r.poll_ack(1).unwrap().price, price_code(0.5));
        assert_eq!(price_code(0.5), 32768);
    }
}
