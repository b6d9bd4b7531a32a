//! The sending half of a connection: sequence numbers, SACK scoreboard, loss
//! detection, fast retransmit and recovery, RTO with backoff, and pacing —
//! all decided by the controller's [`Control`].

use std::collections::VecDeque;

use dropless_cc::{
    AckSample, CongestionCause, CongestionEvent, Control, Controller, PacketFlags, Time,
    MILLISECOND, SECOND,
};

use crate::ns2_recovery::Ns2Episode;
use crate::pacer::Pacer;
use crate::packet::{AckPacket, DataPacket, Ecn};
use crate::prr::Prr;
use crate::rack::Rack;
use crate::ranges::RangeSet;
use crate::rtt::RttEstimator;
use crate::tlp::Tlp;

/// Sender configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderConfig {
    /// Connection identifier written into every packet.
    pub conn: u32,
    /// Payload bytes per full packet.
    pub mss: u32,
    /// Header bytes added on the wire (for pacing and link occupancy).
    pub header: u32,
    /// Bytes to send, `None` for an unlimited bulk flow.
    pub total_bytes: Option<u64>,
    /// Duplicate threshold for loss detection (RFC 5681: 3).
    pub dupthresh: u32,
    /// RTO before the first RTT sample (RFC 6298: 1 s).
    pub initial_rto: Time,
    /// RTO floor, on the variance term: RTO >= SRTT + `min_rto` as in Linux
    /// (200 ms there; RFC 6298 (2.4) floors the whole RTO at 1 s).
    pub min_rto: Time,
    /// RTO ceiling.
    pub max_rto: Time,
    /// Receiver window / send buffer cap, in packets beyond `snd_una`.
    pub max_window: u64,
    /// Send packets ECN-capable (ECT(0)).
    pub ecn: bool,
    /// Restart the retransmission timer when the oldest outstanding packet
    /// is retransmitted (on by default; Linux `tcp_xmit_retransmit_queue`
    /// rearms it for the head, ns-2 calls `reset_rtx_timer` on a fast
    /// retransmit). RFC 6298 (5.3) runs the timer from the last cumulative
    /// ACK, which left before the loss was detected; the retransmission's
    /// ACK needs a full RTT after it leaves. With the 200 ms floor the RTO
    /// is about one RTT on long paths (and per-ACK samples shrink RTTVAR),
    /// so without the restart the timer fires before that ACK can return
    /// (TCP-Madison Fig. 8(a) path, FAST: 661 of 777 declared losses were a
    /// timeout's, for 148 queue drops). With sparse ACKs (the probe-only
    /// policy) the cumulative ACK also stalls for a probe interval.
    pub rto_restart_on_head_retransmit: bool,
    /// On entering loss recovery, send the first retransmission at once even
    /// though the flight exceeds the reduced window (RFC 6675 §5 step (4.3),
    /// RFC 5681 §3.2 fast retransmit). On by default. Off: the first
    /// retransmission waits until the flight falls below the reduced window,
    /// about `b * RTT` after detection (b the controller's decrease), which
    /// with RTTs near the minimum RTO can cause a spurious timeout after
    /// every loss event.
    pub fast_retransmit: bool,
    /// On each partial ACK during fast recovery (the cumulative ACK advances
    /// but stays below the recovery point), let two packets leave whatever
    /// the window, retransmissions first: the "two packets per partial ACK,
    /// so as not to do worse than slow start" of ns-2's SACK agents and of
    /// the ns-2 FAST TCP module (`partial_ack_action`; reference note
    /// `thesis_ch2_ch4_protocols.md` §3.6). Off: recovery is purely
    /// pipe-limited (RFC 6675).
    pub partial_ack_pair: bool,
    /// During fast recovery, count the packets declared lost in the episode,
    /// and retransmissions delivered in it, as still in the pipe, as the
    /// `pipe_` of the ns-2 FAST TCP module does (`maxseq - highest_ack - 3`
    /// on entry, one less per ACK, one more per transmission; reference
    /// note §3.6): with many losses in a window the sender then waits for
    /// ACKs instead of refilling the reduced window at once. As in the
    /// module (`tcp-fast.cc`), only `send_much`'s transmissions add to that
    /// pipe: the fast retransmission (`dupack_action` calls `output`
    /// directly) and the two packets of each partial ACK
    /// (`partial_ack_action`, also `output`) are not counted, and the pair
    /// leaves before the window is looked at. Off: RFC 6675 pipe (packets
    /// in flight, lost ones excluded).
    pub recovery_pipe_counts_lost: bool,
    /// The ns-2 FAST TCP module's retransmission rules in fast recovery
    /// (reference note §3.6, `tcp-fast.cc`): a retransmission is never
    /// declared lost by later deliveries (its scoreboard entry is marked
    /// retransmitted, `MarkRetran`, and `GetNextRetran` skips it), so losing
    /// it is no new congestion event; instead `send_much` sends the oldest
    /// unacknowledged packet again once it has been outstanding more than
    /// two RTTs (`2 * avgRTT_`; SRTT here). Off: a retransmission is lost
    /// once `dupthresh` later transmissions are delivered, and that loss is
    /// a new congestion event (RFC 5681 §4.3).
    pub ns2_lost_retransmission: bool,
    /// The ns-2 FAST TCP module's retransmission timer in fast recovery
    /// (reference note §3.6, `tcp-fast.cc`): restarted by the fast
    /// retransmission (`dupack_action`: `reset_rtx_timer`) and by the first
    /// partial ACK of the episode only (`newtimer` under `firstpartial_`),
    /// so a recovery that needs more than one RTO after its first partial
    /// ACK ends in a timeout. Off: every cumulative advance restarts it
    /// (RFC 6298 (5.3)), and so does every retransmission of the oldest
    /// outstanding packet ([`SenderConfig::rto_restart_on_head_retransmit`]).
    pub ns2_recovery_timer: bool,
    /// Proportional Rate Reduction in fast recovery (RFC 9937, which
    /// obsoletes RFC 6937; Linux's default since 3.2). Instead of holding
    /// every transmission until the pipe (RFC 6675) falls below the
    /// reduced window, which after a large reduction sends nothing for
    /// about half an RTT, the sender spreads the reduction over the
    /// recovery: while the pipe is above the window it sends
    /// `ceil(prr_delivered * ssthresh / RecoverFS) - prr_out` (one packet
    /// per two delivered for a halving), below it catches up towards the
    /// window by at most the data delivered (PRR-CRB), plus one packet
    /// when the cumulative ACK advanced without new loss (PRR-SSRB).
    /// `ssthresh` is the controller's current window, so a controller that
    /// moves its window during recovery is followed. Fast recovery only
    /// (after a timeout the window rules as usual); meant for the RFC 6675
    /// pipe, not for [`SenderConfig::recovery_pipe_counts_lost`]. Off by
    /// default, so that results recorded before it existed do not move.
    pub prr: bool,
    /// A pacer outside the sender paces it (host-wide pacing, seed 001's
    /// "pacing at layer 3": one pacer for every flow of a host): the sender
    /// releases what its window allows and reports its controller's rate and
    /// burst ([`Sender::pacing_request`]) to that pacer. Off by default.
    pub host_paced: bool,
    /// RACK time-based loss detection (RFC 8985 §6) instead of
    /// [`SenderConfig::dupthresh`] counting: a transmission is lost once a
    /// transmission sent after it has been delivered *and* it has been
    /// outstanding longer than the RTT of that later one plus a reordering
    /// window (`min_rtt / 4`, at most SRTT); a timer declares it when the
    /// window runs out without further ACKs. Before any reordering has been
    /// seen the window is 0 in recovery or once `dupthresh` packets are
    /// SACKed (RFC 8985 §6.2 step 4), so loss is found as fast as by
    /// counting; once a packet arrives after one sent later than it
    /// (reordering), the window applies, and reordering within a quarter
    /// of the minimum RTT is not read as loss. Losses the timer declares
    /// reach the controller as a congestion event at once, and in the
    /// next ACK's `newly_lost`. Tail loss probes (RFC 8985 §7) are
    /// [`SenderConfig::tlp`]. Off by default in the simulator, so that the
    /// reproductions keep the loss detection of their papers; on for real
    /// transfers (`dropless send`).
    pub rack: bool,
    /// Tail loss probe (TLP, RFC 8985 §7). Outside recovery, with nothing
    /// SACKed and packets outstanding, a probe timeout (PTO) of 2 SRTT
    /// (plus [`SenderConfig::tlp_max_ack_delay`] when one packet is in
    /// flight, at most until the RTO would fire) runs from the latest
    /// transmission or cumulative advance; when it fires the sender sends
    /// one probe past the window: the next new packet if there is one,
    /// else the highest packet sent again. The probe's ACK lets loss
    /// detection (best with [`SenderConfig::rack`]) find the lost tail and
    /// recover it by fast recovery, about 2 SRTT after the tail left,
    /// instead of waiting for the RTO, which with the 200 ms floor is
    /// several RTTs on short paths. One probe per tail: the RTO is re-armed
    /// after it, and no other probe leaves until it is acknowledged and an
    /// RTT sample has been taken since (RFC 8985 §7.3). When the probe
    /// was a retransmission and its own ACK (the echo names the probe, the
    /// stand-in here for RFC 8985's DSACK test) completes the transfer
    /// so far, the original was lost and the probe repaired it: that loss
    /// is a congestion event (RFC 8985 §7.4.2). Off by default in the
    /// simulator, like `rack`; on for real transfers (`dropless send`,
    /// `--no-tlp` turns it off).
    pub tlp: bool,
    /// [`SenderConfig::tlp`]: added to the PTO when one packet is in flight,
    /// the longest the receiver may delay the ACK of a lone packet (RFC 8985
    /// `TLP.max_ack_delay`). Default 40 ms, the delayed-ACK bound of
    /// [`crate::AckPolicy::DELAYED`].
    pub tlp_max_ack_delay: Time,
    /// [`SenderConfig::tlp`]: added to every PTO. Linux adds 2 ms
    /// (`TCP_TIMEOUT_MIN`, tcp_schedule_loss_probe) so that on a path of
    /// microseconds (loopback, a LAN) a late timer or a receiver's batch of
    /// ACKs is not taken for a lost tail; RFC 8985 is silent. 0 by default
    /// (the simulator's paths are the papers'); `dropless send` uses 2 ms.
    pub tlp_min_extra: Time,
    /// [`SenderConfig::rack`]: added to RACK's reordering timer (RFC 8985
    /// §6.3), not to the test made when an ACK arrives. Linux adds 2 ms
    /// (`TCP_TIMEOUT_MIN`, tcp_rack_mark_lost), as for the loss probe, so
    /// that on a path of microseconds (loopback, a LAN) a receiver that is
    /// descheduled between two ACKs does not make a reordered packet
    /// count as lost; RFC 8985 is silent. 0 by default (the simulator's
    /// paths are the papers'); `dropless send` uses 2 ms.
    pub reo_timer_extra: Time,
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig {
            conn: 0,
            mss: 1460,
            header: 40,
            total_bytes: None,
            dupthresh: 3,
            initial_rto: SECOND,
            min_rto: 200 * MILLISECOND,
            max_rto: 60 * SECOND,
            max_window: 1 << 24,
            ecn: false,
            rto_restart_on_head_retransmit: true,
            fast_retransmit: true,
            partial_ack_pair: false,
            recovery_pipe_counts_lost: false,
            ns2_lost_retransmission: false,
            ns2_recovery_timer: false,
            prr: false,
            host_paced: false,
            rack: false,
            tlp: false,
            tlp_max_ack_delay: 40 * MILLISECOND,
            tlp_min_extra: 0,
            reo_timer_extra: 0,
        }
    }
}

/// Most lost packet numbers an [`EventRecord`] keeps (the count in
/// [`EventRecord::lost`] is always complete).
pub const LOST_SEQS_CAP: usize = 64;

/// The first [`LOST_SEQS_CAP`] packets declared lost in one congestion event,
/// in the order they were declared, each with a flag telling whether that
/// transmission left back to back with the transmission before it (same
/// send time: the second packet of the pair an ACK releases when the window
/// grows past an integer, seed 004 Fig. 4). Fixed size and `Copy`: recording
/// a loss never allocates.
#[derive(Clone, Copy)]
pub struct LostSeqs {
    len: u8,
    back_to_back: u64,
    seqs: [u64; LOST_SEQS_CAP],
}

impl LostSeqs {
    /// An empty list.
    pub const fn new() -> Self {
        LostSeqs {
            len: 0,
            back_to_back: 0,
            seqs: [0; LOST_SEQS_CAP],
        }
    }
    /// Appends a lost packet; returns false (and drops it) when full.
    #[inline]
    pub fn push(&mut self, seq: u64, back_to_back: bool) -> bool {
        let i = self.len as usize;
        if i >= LOST_SEQS_CAP {
            return false;
        }
        self.seqs[i] = seq;
        if back_to_back {
            self.back_to_back |= 1 << i;
        }
        self.len += 1;
        true
    }
    /// Appends the entries of `other` while there is room.
    pub fn extend(&mut self, other: &LostSeqs) {
        for (seq, b2b) in other.iter() {
            if !self.push(seq, b2b) {
                break;
            }
        }
    }
    /// Forgets every entry.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.back_to_back = 0;
    }
    /// Entries kept.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True if no entry is kept.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The packet numbers, in the order they were declared lost.
    pub fn seqs(&self) -> &[u64] {
        &self.seqs[..self.len as usize]
    }
    /// Whether entry `i` left back to back with the transmission before it.
    pub fn back_to_back(&self, i: usize) -> bool {
        i < self.len() && self.back_to_back & (1 << i) != 0
    }
    /// `(seq, back_to_back)` pairs in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, bool)> + '_ {
        (0..self.len()).map(|i| (self.seqs[i], self.back_to_back(i)))
    }
}

impl Default for LostSeqs {
    fn default() -> Self {
        LostSeqs::new()
    }
}

impl PartialEq for LostSeqs {
    fn eq(&self, o: &Self) -> bool {
        self.seqs() == o.seqs() && self.back_to_back == o.back_to_back
    }
}

/// Debug form: the packet numbers, back-to-back ones marked with `*`.
impl std::fmt::Debug for LostSeqs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Entry(u64, bool);
        impl std::fmt::Debug for Entry {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", self.0, if self.1 { "*" } else { "" })
            }
        }
        f.debug_list()
            .entries(self.iter().map(|(s, b)| Entry(s, b)))
            .finish()
    }
}

/// One congestion event as the measurements see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventRecord {
    /// When the event was detected.
    pub time: Time,
    /// Loss or ECN; RTOs are recorded with `rto = true`.
    pub cause: CongestionCause,
    /// Retransmission timeout.
    pub rto: bool,
    /// Congestion window (packets) just before the event.
    pub cwnd: f64,
    /// Packets declared lost during the event (until recovery ended).
    pub lost: u32,
    /// Lowest and highest packet number declared lost in the event.
    pub first_lost: u64,
    /// Highest packet number declared lost in the event.
    pub last_lost: u64,
    /// Earliest send time among the transmissions declared lost in the
    /// event (0 if none): when the first dropped packet left the sender.
    pub first_lost_sent: Time,
    /// The first lost packet numbers of the event, with back-to-back flags.
    pub lost_seqs: LostSeqs,
}

/// Counters kept by the sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Data packets transmitted, including retransmissions.
    pub packets_sent: u64,
    /// Bytes transmitted (payload), including retransmissions.
    pub bytes_sent: u64,
    /// Retransmitted packets.
    pub retransmits: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Packets acknowledged (delivered).
    pub packets_delivered: u64,
    /// Payload bytes cumulatively acknowledged in order.
    pub bytes_acked: u64,
    /// Congestion events (loss recoveries, ECN reactions and RTOs).
    pub congestion_events: u64,
    /// Retransmission timeouts.
    pub rtos: u64,
    /// ACKs that acknowledged packets never sent (ignored): a receiver
    /// that is not this connection's, or a broken one.
    pub invalid_acks: u64,
    /// Fast recoveries run under Proportional Rate Reduction
    /// ([`SenderConfig::prr`], RFC 9937); 0 without it.
    pub prr_recoveries: u64,
    /// Tail loss probes sent ([`SenderConfig::tlp`]); 0 without it.
    pub tlp_probes: u64,
    /// Retransmitted probes whose own ACK showed that they repaired the
    /// lost original (RFC 8985 §7.4.2; each is also a congestion event).
    pub tlp_repairs: u64,
    /// CE marks the receiver has echoed (RFC 3168), whether or not they
    /// started a congestion event.
    pub ce_marks: u64,
    /// Per-event records, oldest first (one per event, not per packet).
    pub events: Vec<EventRecord>,
    /// Sum of all RTT samples, in seconds (for the mean RTT).
    pub rtt_sum_s: f64,
    /// Number of RTT samples.
    pub rtt_samples: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PktState {
    /// Sent and not yet known delivered or lost.
    InFlight,
    /// Acknowledged cumulatively or by SACK.
    Delivered,
    /// Declared lost, waiting for retransmission.
    Lost,
}

#[derive(Clone, Copy, Debug)]
struct SentPkt {
    sent_time: Time,
    tx_index: u64,
    delivered_at_send: u64,
    in_flight_at_send: u32,
    len: u32,
    state: PktState,
    retransmitted: bool,
    /// Left at the same time as the transmission before it.
    back_to_back: bool,
    flags: PacketFlags,
}

/// The sending endpoint of one connection. Sans-IO: feed it ACKs and time,
/// take packets from [`Sender::poll_transmit`] and wake it at
/// [`Sender::poll_timeout`].
pub struct Sender {
    cfg: SenderConfig,
    cc: Box<dyn Controller>,
    ctl: Control,
    /// `cfg.max_window` as `f64`, converted once (the window check runs
    /// about twice per packet).
    window_cap: f64,
    rtt: RttEstimator,
    pacer: Pacer,
    /// Total packets in the transfer, if finite.
    total_pkts: Option<u64>,
    /// Bytes in the last packet of a finite transfer.
    last_len: u32,
    snd_una: u64,
    next_seq: u64,
    /// Scoreboard for packets `[snd_una, next_seq)`.
    pkts: VecDeque<SentPkt>,
    /// For delivery-rate samples, beside `pkts` (only when `rate_samples`):
    /// the sender's `delivered_time` and `first_sent_time` when each
    /// packet's latest transmission left.
    rate_stamps: VecDeque<(Time, Time)>,
    /// Packet number of `rate_stamps[0]`.
    rate_stamps_base: u64,
    /// Packet numbers reported by SACK (above `snd_una`).
    sacked: RangeSet,
    /// Transmissions in the order they left: (tx_index, seq).
    tx_order: VecDeque<(u64, u64)>,
    /// Packets declared lost, waiting for retransmission, ascending-ish.
    lost_queue: VecDeque<u64>,
    tx_counter: u64,
    highest_delivered_tx: u64,
    in_flight: u32,
    delivered: u64,
    /// The controller reads delivery-rate samples
    /// ([`Controller::wants_delivery_rate`]): keep their per-packet state.
    rate_samples: bool,
    /// The ECN codepoint of every data packet: ADPM-capable (01) for a
    /// controller driven by prices ([`Controller::wants_price`]), ECT(0)
    /// with `ecn`, else not ECN-capable.
    ecn: Ecn,
    /// When `delivered` last grew, or the flight restarted from empty
    /// (Linux `delivered_mstamp`, for delivery-rate samples).
    delivered_time: Time,
    /// Send time of the latest transmission known delivered, or of the
    /// first one of a flight started from empty (Linux `first_tx_mstamp`).
    first_sent_time: Time,
    in_recovery: bool,
    /// The current recovery episode was started by a retransmission timeout:
    /// new congestion events are still suppressed until the recovery point,
    /// but the controller is told it is not in fast recovery, so that slow
    /// start proceeds while the lost window is resent (RFC 5681 §3.1).
    recovery_after_rto: bool,
    /// When the current recovery episode started.
    recovery_start: Time,
    recovery_point: u64,
    /// The packet whose ACK last brought new CE marks (the once-per-window
    /// test, [`Sender::ce_in_new_window`]).
    ce_echo_seq: u64,
    recovery_event: Option<usize>,
    rto_deadline: Option<Time>,
    /// The next packet is the second of a pair: send it back to back.
    pair_pending: bool,
    /// Send time of the latest transmission.
    last_tx_time: Option<Time>,
    /// A loss recovery has just started and its first retransmission has not
    /// left yet: it may leave whatever the window (RFC 6675 §5 step (4.3),
    /// RFC 5681 §3.2 fast retransmit).
    fast_rtx: bool,
    /// Transmissions still allowed past the window by the last partial ACK
    /// ([`SenderConfig::partial_ack_pair`]).
    partial_ack_sends: u8,
    /// The ns-2 module's counts in the current fast-recovery episode
    /// ([`SenderConfig::recovery_pipe_counts_lost`],
    /// [`SenderConfig::ns2_recovery_timer`]; `crate::ns2_recovery`).
    ns2: Ns2Episode,
    /// [`SenderConfig::prr`]: RFC 9937's state (`crate::prr`).
    prr: Prr,
    /// [`SenderConfig::rack`]: RFC 8985 §6's state and its reordering
    /// timer (`crate::rack`).
    rack: Rack,
    /// [`SenderConfig::rack`] or [`SenderConfig::tlp`]: the sender has a
    /// loss timer besides the RTO (the reordering timer, the PTO).
    loss_timers: bool,
    /// Packets found lost outside an ACK's loss detection (by RACK's
    /// reordering timer, or a probe's repair, [`SenderConfig::tlp`]),
    /// reported in the next ACK's sample.
    carry_lost: u32,
    /// When the cumulative ACK last advanced (the PTO runs from the later
    /// of this and the latest transmission).
    last_advance: Time,
    /// [`SenderConfig::tlp`]: RFC 8985 §7's probe state (`crate::tlp`).
    tlp: Tlp,
    stats: SenderStats,
    start_time: Time,
}

impl Sender {
    /// Creates a sender. `now` is the connection's start time.
    pub fn new(cfg: SenderConfig, cc: Box<dyn Controller>, now: Time) -> Self {
        let (total_pkts, last_len) = match cfg.total_bytes {
            Some(b) => {
                let n = b.div_ceil(cfg.mss as u64).max(1);
                let last = b - (n - 1) * cfg.mss as u64;
                (Some(n), last as u32)
            }
            None => (None, cfg.mss),
        };
        let ctl = cc.control();
        let rate_samples = cc.wants_delivery_rate();
        let ecn = if cc.wants_price() {
            Ecn::Ect1
        } else if cfg.ecn {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        let mut pacer = Pacer::default();
        pacer.reset(now);
        Sender {
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto),
            window_cap: cfg.max_window as f64,
            cfg,
            cc,
            ctl,
            pacer,
            total_pkts,
            last_len,
            snd_una: 0,
            next_seq: 0,
            pkts: VecDeque::new(),
            rate_stamps: VecDeque::new(),
            rate_stamps_base: 0,
            sacked: RangeSet::new(),
            tx_order: VecDeque::new(),
            lost_queue: VecDeque::new(),
            tx_counter: 0,
            highest_delivered_tx: 0,
            in_flight: 0,
            delivered: 0,
            rate_samples,
            ecn,
            delivered_time: now,
            first_sent_time: now,
            in_recovery: false,
            recovery_after_rto: false,
            recovery_start: 0,
            recovery_point: 0,
            ce_echo_seq: 0,
            recovery_event: None,
            rto_deadline: None,
            pair_pending: false,
            last_tx_time: None,
            fast_rtx: false,
            partial_ack_sends: 0,
            ns2: Ns2Episode::default(),
            prr: Prr::default(),
            rack: Rack::default(),
            loss_timers: cfg.rack || cfg.tlp,
            carry_lost: 0,
            last_advance: now,
            tlp: Tlp::default(),
            stats: SenderStats::default(),
            start_time: now,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }
    /// The controller (for traces).
    pub fn controller(&self) -> &dyn Controller {
        self.cc.as_ref()
    }
    /// The controller's current decision.
    pub fn control(&self) -> Control {
        self.ctl
    }
    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Packets in flight (sent, not delivered, not declared lost).
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }
    /// Lowest unacknowledged packet number.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Next new packet number.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }
    /// True while in loss recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// When the connection started.
    pub fn start_time(&self) -> Time {
        self.start_time
    }
    /// Ends an unlimited stream (`total_bytes: None`) where it stands, as
    /// closing a TCP connection or finishing a QUIC stream does: no new
    /// data is sent after the packets already numbered, and one empty
    /// packet carrying [`PacketFlags::FIN`] follows them, so the stream is
    /// `next_seq() * mss` bytes long. Lost packets are still repaired;
    /// [`Sender::is_done`] turns true once everything, the FIN included, is
    /// acknowledged. Returns false and does nothing if the transfer is
    /// already finite (configured with `total_bytes` or finished before).
    pub fn finish(&mut self) -> bool {
        if self.total_pkts.is_some() {
            return false;
        }
        self.total_pkts = Some(self.next_seq + 1);
        self.last_len = 0;
        true
    }

    /// True when a finite transfer has been fully acknowledged.
    pub fn is_done(&self) -> bool {
        self.total_pkts.is_some_and(|n| self.snd_una >= n)
    }

    #[inline]
    fn pkt_len(&self, seq: u64) -> u32 {
        match self.total_pkts {
            Some(n) if seq + 1 == n => self.last_len,
            _ => self.cfg.mss,
        }
    }

    #[inline]
    fn slot(&mut self, seq: u64) -> &mut SentPkt {
        let i = (seq - self.snd_una) as usize;
        &mut self.pkts[i]
    }

    fn refresh_control(&mut self) {
        self.ctl = self.cc.control();
    }

    /// Window in packets (the controller's cwnd, capped by the receive window).
    fn window(&self) -> f64 {
        let cap = self.window_cap;
        match self.ctl.cwnd {
            Some(w) => w.min(cap),
            None => cap,
        }
    }

    fn has_new_data(&self) -> bool {
        self.total_pkts.is_none_or(|n| self.next_seq < n)
            && self.next_seq - self.snd_una < self.cfg.max_window
    }

    fn next_retransmit(&mut self) -> Option<u64> {
        while let Some(&seq) = self.lost_queue.front() {
            if seq >= self.snd_una
                && self.pkts[(seq - self.snd_una) as usize].state == PktState::Lost
            {
                return Some(seq);
            }
            self.lost_queue.pop_front();
        }
        None
    }

    /// True if window and data allow sending now (ignoring pacing).
    /// Out of line, so that `poll_timeout` stays small enough to inline.
    #[inline(never)]
    fn window_open(&mut self) -> bool {
        // A tail loss probe also sets `fast_rtx`: one branch on the common
        // path for both.
        if self.fast_rtx && self.forced_send() {
            return true;
        }
        self.window_room()
    }

    /// [`Sender::window_open`] for `poll_transmit` at `now`: a tail loss
    /// probe that may leave now is prepared on the forced-send path
    /// ([`Sender::forced_send_at`]), so that the common path of
    /// `poll_transmit` has no test for it.
    #[inline(always)]
    fn window_open_at(&mut self, now: Time) -> bool {
        if self.fast_rtx {
            return self.forced_send_at(now);
        }
        self.window_room()
    }

    /// [`Sender::window_open`] without the forced sends: true if the
    /// window has room and there is something to send.
    #[inline(always)]
    fn window_room(&mut self) -> bool {
        // Outside recovery the pipe is the flight and no partial-ACK sends
        // are pending (they are granted in fast recovery only): one branch
        // keeps the recovery options off the common path.
        let room = if self.in_recovery {
            let limit = if self.cfg.prr && !self.recovery_after_rto {
                self.prr.limit()
            } else {
                self.window()
            };
            (self.pipe() as f64) < limit || self.partial_ack_sends > 0
        } else {
            (self.in_flight as f64) < self.window()
        };
        room && (self.next_retransmit().is_some() || self.has_new_data())
    }

    /// With `fast_rtx` set: true if the fast retransmission (RFC 6675 §5
    /// step (4.3)) or a tail loss probe (RFC 8985 §7.3) is to leave now,
    /// whatever the window; else clears the flag. Out of line, so that the
    /// common path of `window_open` keeps its registers.
    #[cold]
    #[inline(never)]
    fn forced_send(&mut self) -> bool {
        if self.tlp.probe || self.next_retransmit().is_some() {
            return true;
        }
        self.fast_rtx = false;
        false
    }

    /// [`Sender::window_open`] for `poll_transmit` with `fast_rtx` set:
    /// as [`Sender::forced_send`], then the window; a tail loss probe that
    /// pacing lets leave now is prepared here (`tlp_prepare`), so that the
    /// common path of `poll_transmit` has no test for it (with TLP off a
    /// probe never waits).
    #[cold]
    #[inline(never)]
    fn forced_send_at(&mut self, now: Time) -> bool {
        if self.tlp.probe {
            // The pacing test of `poll_transmit`, which follows.
            let paced = self
                .ctl
                .pacing_rate
                .is_some_and(|r| r > 0.0 && r.is_finite());
            if paced && !self.pair_pending && !self.cfg.host_paced && !self.pacer.ready(now) {
                return false;
            }
            self.tlp_prepare(now);
            return true;
        }
        if self.next_retransmit().is_some() {
            return true;
        }
        self.fast_rtx = false;
        self.window_room()
    }

    /// Packets counted against the window: those in flight, plus, with
    /// [`SenderConfig::recovery_pipe_counts_lost`] during fast recovery, the
    /// episode's lost packets and delivered retransmissions.
    fn pipe(&self) -> u32 {
        if self.cfg.recovery_pipe_counts_lost && self.in_recovery && !self.recovery_after_rto {
            self.ns2.pipe(self.in_flight)
        } else {
            self.in_flight
        }
    }

    /// [`SenderConfig::ns2_lost_retransmission`]: in fast recovery, the
    /// oldest outstanding packet is sent again once it has been in flight
    /// more than two SRTTs (module `send_much`: `fasttime() -
    /// sendtime_[oldest_unacked] > 2*avgRTT_`), ahead of other
    /// retransmissions; it stays counted in the module's pipe.
    fn expire_head(&mut self, now: Time) {
        if !self.in_recovery || self.recovery_after_rto || !self.rtt.has_sample() {
            return;
        }
        let limit = 2 * self.rtt.srtt();
        let Some(p) = self.pkts.front_mut() else {
            return;
        };
        if p.state != PktState::InFlight || now.saturating_sub(p.sent_time) <= limit {
            return;
        }
        p.state = PktState::Lost;
        let back_to_back = p.back_to_back;
        self.in_flight -= 1;
        self.lost_queue.push_front(self.snd_una);
        self.ns2.extra += 1;
        self.stats.packets_lost += 1;
        if let Some(ev) = self.recovery_event {
            let rec = &mut self.stats.events[ev];
            rec.lost += 1;
            rec.lost_seqs.push(self.snd_una, back_to_back);
        }
    }

    /// [`SenderConfig::ns2_recovery_timer`], for a cumulative advance in
    /// recovery: true if it is a partial ACK of a fast recovery that must
    /// not restart the timer (only the episode's first one does, as the
    /// module's `newtimer` under `firstpartial_`). Marks the first one seen.
    fn ns2_keeps_timer(&mut self) -> bool {
        !self.recovery_after_rto
            && self.snd_una < self.recovery_point
            && self.ns2.later_partial()
            && self.rto_deadline.is_some()
    }

    /// Recovery bookkeeping for a transmission about to leave: uses up a
    /// partial-ACK send ([`SenderConfig::partial_ack_pair`]) if the window
    /// alone would not have let it leave, and counts the transmissions the
    /// module's pipe leaves out ([`SenderConfig::recovery_pipe_counts_lost`]).
    /// Called in recovery only: outside it no partial-ACK sends are pending
    /// and the module's pipe is off. Also counts the transmission for
    /// [`SenderConfig::prr`] (`prr_out`).
    fn recovery_send_accounting(&mut self) {
        let module_pipe = self.cfg.recovery_pipe_counts_lost && !self.recovery_after_rto;
        // The module's fast retransmission and partial-ACK pairs leave
        // outside its pipe (see `recovery_pipe_counts_lost`).
        let mut uncounted = module_pipe && self.fast_rtx && self.next_retransmit().is_some();
        if self.partial_ack_sends > 0 && (module_pipe || (self.pipe() as f64) >= self.window()) {
            self.partial_ack_sends -= 1;
            uncounted |= module_pipe;
        }
        if uncounted {
            self.ns2.uncounted += 1;
        }
        self.prr.on_send();
    }

    /// [`SenderConfig::prr`]: a fast-recovery episode begins on an ACK that
    /// delivered `delivered` packets (RFC 9937 §4, initialization).
    fn prr_start(&mut self, delivered: u32) {
        self.stats.prr_recoveries += 1;
        // RFC 9937: RecoverFS = snd.nxt - snd.una, less what was SACKed
        // before this ACK (it will never be delivered during recovery),
        // plus what this ACK cumulatively acknowledged; together, the
        // packets outstanding and not delivered before this ACK.
        let sacked: u64 = self.sacked.ranges().iter().map(|&(s, e)| e - s).sum();
        let recover_fs = self.next_seq - self.snd_una - sacked + delivered as u64;
        self.prr.start(recover_fs, self.in_flight);
    }

    /// The next packet to send at `now`, if window, data and pacing allow.
    /// The window test is inlined into the caller: a caller polls until
    /// `None`, and the last poll of each round then costs no call.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: Time) -> Option<DataPacket> {
        // The recovery options act in recovery only: one branch on the
        // common path.
        if self.in_recovery && self.cfg.ns2_lost_retransmission {
            self.expire_head(now);
        }
        if !self.window_open_at(now) {
            return None;
        }
        self.transmit_open(now)
    }

    /// [`Sender::poll_transmit`] once the window is open.
    #[inline(never)]
    fn transmit_open(&mut self, now: Time) -> Option<DataPacket> {
        let pacing = self.ctl.pacing_rate.filter(|r| *r > 0.0 && r.is_finite());
        if pacing.is_some() && !self.pair_pending && !self.cfg.host_paced && !self.pacer.ready(now)
        {
            return None;
        }
        let fast_retransmission = self.fast_rtx;
        if self.in_recovery {
            self.recovery_send_accounting();
        }
        let (seq, retransmit) = match self.next_retransmit() {
            Some(seq) => {
                self.lost_queue.pop_front();
                self.fast_rtx = false;
                (seq, true)
            }
            None => {
                let seq = self.next_seq;
                self.next_seq += 1;
                let len = self.pkt_len(seq);
                self.pkts.push_back(SentPkt {
                    sent_time: now,
                    tx_index: 0,
                    delivered_at_send: 0,
                    in_flight_at_send: 0,
                    len,
                    state: PktState::InFlight,
                    retransmitted: false,
                    back_to_back: false,
                    flags: PacketFlags::NONE,
                });
                (seq, false)
            }
        };
        let mut flags = self.cc.on_send(now, seq, retransmit, self.in_flight);
        if self.pair_pending {
            flags = flags.union(PacketFlags::PAIR_SECOND);
            self.pair_pending = false;
        } else if flags.contains(PacketFlags::PAIR) {
            self.pair_pending = true;
        }
        if self.total_pkts.is_some_and(|n| seq + 1 == n) {
            flags = flags.union(PacketFlags::FIN);
        }
        self.tx_counter += 1;
        let tx_index = self.tx_counter;
        let delivered = self.delivered;
        let in_flight = self.in_flight;
        if self.rate_samples {
            self.rate_stamp(now, seq, in_flight);
        }
        let back_to_back = self.last_tx_time == Some(now);
        self.last_tx_time = Some(now);
        let slot = self.slot(seq);
        slot.sent_time = now;
        slot.back_to_back = back_to_back;
        slot.tx_index = tx_index;
        slot.delivered_at_send = delivered;
        slot.in_flight_at_send = in_flight + 1;
        slot.state = PktState::InFlight;
        slot.retransmitted |= retransmit;
        slot.flags = flags;
        let len = slot.len;
        self.in_flight += 1;
        self.tx_order.push_back((tx_index, seq));
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retransmit {
            self.stats.retransmits += 1;
            // With the module's timer only the fast retransmission restarts
            // it (`dupack_action`); `output` arms it only when idle.
            let restart = if self.cfg.ns2_recovery_timer {
                fast_retransmission
            } else {
                self.cfg.rto_restart_on_head_retransmit && seq == self.snd_una
            };
            if restart {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.refresh_control();
        if let Some(rate) = pacing {
            let burst = self.ctl.max_burst.unwrap_or(1);
            self.pacer.on_send(now, len + self.cfg.header, rate, burst);
        }
        Some(DataPacket {
            conn: self.cfg.conn,
            seq,
            len,
            flags,
            ecn: self.ecn,
            ts: now,
        })
    }

    /// The pacing the controller asks for: rate (bytes/s on the wire) and
    /// burst (packets), `None` when it does not pace. A host-wide pacer
    /// ([`SenderConfig::host_paced`]) paces its flows at the sum of their
    /// rates in bursts of the smallest of their bursts.
    pub fn pacing_request(&self) -> Option<(f64, u32)> {
        self.ctl
            .pacing_rate
            .filter(|r| *r > 0.0 && r.is_finite())
            .map(|r| (r, self.ctl.max_burst.unwrap_or(1).max(1)))
    }

    /// The earliest time the sender needs to be woken, if any.
    pub fn poll_timeout(&mut self) -> Option<Time> {
        let mut t = self.rto_deadline;
        // RACK's reordering timer and the probe timeout: one branch when
        // both are off.
        if self.loss_timers {
            // `Time::MAX` for none: an `Option` returned from the call cost
            // the engine's `reschedule` an instruction per call.
            let d = self.loss_timer_deadline();
            if d != Time::MAX {
                t = Some(t.map_or(d, |x| x.min(d)));
            }
        }
        if let Some(c) = self.cc.timer() {
            t = Some(t.map_or(c, |x| x.min(c)));
        }
        if self.ctl.pacing_rate.is_some() && !self.cfg.host_paced && self.window_open() {
            let p = self.pacer.next_departure();
            t = Some(t.map_or(p, |x| x.min(p)));
        }
        t
    }

    /// [`Sender::poll_timeout`] with [`SenderConfig::rack`] or
    /// [`SenderConfig::tlp`]: the reordering timer's or the PTO's deadline,
    /// whichever is first, `Time::MAX` if neither is armed.
    #[inline(never)]
    fn loss_timer_deadline(&self) -> Time {
        let mut t = self.rack.deadline.unwrap_or(Time::MAX);
        if self.cfg.tlp {
            if let Some(p) = self.pto_deadline() {
                t = t.min(p);
            }
        }
        t
    }

    /// Handles timers that are due at `now` (RTO, controller timer).
    pub fn handle_timeout(&mut self, now: Time) {
        if let Some(c) = self.cc.timer() {
            if c <= now {
                self.cc.on_timer(now);
                self.refresh_control();
            }
        }
        // The probe first: a PTO capped at the RTO's deadline fires in its
        // place and re-arms it (RFC 8985 §7.2-7.3).
        if self.cfg.tlp && self.pto_deadline().is_some_and(|d| d <= now) {
            self.on_pto(now);
        }
        if let Some(d) = self.rto_deadline {
            if d <= now {
                self.on_rto(now);
            }
        }
        if self.rack.deadline.is_some_and(|d| d <= now) {
            // RACK's reordering timer (RFC 8985 §6.3): the window of the
            // oldest passed transmission has run out with no ACK since.
            self.rack.deadline = None;
            let lost = self.detect_losses(now, 0, 0);
            self.carry_lost += lost;
            self.refresh_control();
        }
    }

    /// [`SenderConfig::tlp`]: when the probe timeout fires (RFC 8985 §7.2):
    /// outside recovery, with packets in flight and none SACKed, no probe
    /// outstanding or about to leave, and an RTT sample; 2 SRTT (plus the
    /// receiver's ACK delay for a lone packet) after the latest
    /// transmission or cumulative advance, at most the RTO's deadline.
    /// Out of line: `poll_timeout` runs after every ACK.
    #[inline(never)]
    fn pto_deadline(&self) -> Option<Time> {
        if self.in_recovery
            || self.in_flight == 0
            || self.tlp.busy()
            || !self.sacked.is_empty()
            || !self.rtt.has_sample()
        {
            return None;
        }
        let base = self.last_tx_time.unwrap_or(0).max(self.last_advance);
        let d = self.tlp.pto(
            base,
            self.rtt.srtt(),
            self.cfg.tlp_min_extra,
            self.cfg.tlp_max_ack_delay,
            self.in_flight,
        )?;
        Some(self.rto_deadline.map_or(d, |r| d.min(r)))
    }

    /// [`SenderConfig::tlp`]: the PTO fired (RFC 8985 §7.3). A probe is
    /// sent if none is outstanding and an RTT sample was taken since the
    /// last one; either way the RTO is re-armed, so that it stays the last
    /// resort and the tail gets one probe.
    #[cold]
    #[inline(never)]
    fn on_pto(&mut self, now: Time) {
        self.tlp.fired_base = self.last_tx_time.unwrap_or(0).max(self.last_advance);
        if self.tlp.end.is_none() && self.stats.rtt_samples > self.tlp.samples_at {
            self.tlp.probe = true;
            // Lets the probe past the window (see `window_open`).
            self.fast_rtx = true;
        }
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// [`SenderConfig::tlp`]: the probe is about to leave (RFC 8985 §7.3):
    /// new data if there is any (the normal path sends it), else the
    /// highest packet sent, queued for retransmission without being
    /// declared lost.
    #[cold]
    #[inline(never)]
    fn tlp_prepare(&mut self, now: Time) {
        self.tlp.probe = false;
        self.tlp.samples_at = self.stats.rtt_samples;
        self.stats.tlp_probes += 1;
        if self.has_new_data() {
            self.fast_rtx = false;
            self.tlp.is_retrans = false;
            self.tlp.probe_tx = (self.next_seq, now);
            self.tlp.end = Some(self.next_seq + 1);
            return;
        }
        let seq = self.next_seq - 1;
        let p = self.slot(seq);
        if p.state != PktState::InFlight {
            // Cannot happen outside recovery with nothing SACKed. (Then the
            // normal path sends new data if any, else nothing at all, and
            // the armed RTO stays the last resort.)
            self.stats.tlp_probes -= 1;
            self.fast_rtx = false;
            return;
        }
        // The retransmission path takes lost packets: pass it through that
        // state for this one transmission (not counted as a loss).
        p.state = PktState::Lost;
        let orig = p.sent_time;
        self.in_flight -= 1;
        self.lost_queue.push_front(seq);
        self.tlp.is_retrans = true;
        self.tlp.probe_tx = (seq, now);
        self.tlp.orig_sent = orig;
        self.tlp.end = Some(self.next_seq);
    }

    /// [`SenderConfig::tlp`]: an ACK that advances the cumulative ACK. It
    /// re-arms the PTO and, while a probe is outstanding (RFC 8985 §7.4),
    /// once it covers the probe ends the episode; if the probe was a
    /// retransmission and this ACK echoes the probe itself (not the
    /// original, which would have shown that nothing was lost: RFC 8985
    /// learns that from a DSACK), the original was lost and the probe
    /// repaired it, a loss the controller must answer (§7.4.2), reported
    /// in this ACK's sample (`carry_lost`).
    #[cold]
    #[inline(never)]
    fn tlp_on_advance(&mut self, now: Time, ack: &AckPacket) {
        self.last_advance = now;
        let echo = (ack.echo_seq, ack.ts_echo);
        let Some(end) = self.tlp.end else { return };
        if self.snd_una < end {
            return;
        }
        self.tlp.end = None;
        if !self.tlp.is_retrans || echo != self.tlp.probe_tx {
            return;
        }
        let seq = self.tlp.probe_tx.0;
        self.stats.tlp_repairs += 1;
        self.stats.packets_lost += 1;
        self.stats.congestion_events += 1;
        let mut lost_seqs = LostSeqs::new();
        lost_seqs.push(seq, false);
        self.stats.events.push(EventRecord {
            time: now,
            cause: CongestionCause::Loss,
            rto: false,
            cwnd: self.window(),
            lost: 1,
            first_lost: seq,
            last_lost: seq,
            first_lost_sent: self.tlp.orig_sent,
            lost_seqs,
        });
        let ev = CongestionEvent {
            cause: CongestionCause::Loss,
            lost: 1,
            in_flight: self.in_flight + 1,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        };
        self.cc.on_congestion_event(now, &ev);
        // The repair is already acknowledged: the recovery is over.
        self.cc.on_recovery_end(now);
        // Reported in this ACK's sample.
        self.carry_lost += 1;
    }

    fn on_rto(&mut self, now: Time) {
        self.rto_deadline = None;
        self.tlp.cancel();
        if self.in_flight == 0 && self.next_retransmit().is_none() {
            return;
        }
        let cwnd_before = self.window();
        // RFC 6298 (5.4)-(5.7): back off; everything outstanding is presumed lost.
        self.rtt.back_off();
        let mut lost = 0u32;
        let (mut first, mut last) = (u64::MAX, 0u64);
        let mut first_sent = Time::MAX;
        let mut seqs = LostSeqs::new();
        for i in 0..self.pkts.len() {
            if self.pkts[i].state == PktState::InFlight {
                self.pkts[i].state = PktState::Lost;
                let seq = self.snd_una + i as u64;
                first = first.min(seq);
                last = last.max(seq);
                first_sent = first_sent.min(self.pkts[i].sent_time);
                seqs.push(seq, self.pkts[i].back_to_back);
                lost += 1;
            }
        }
        self.lost_queue.clear();
        for i in 0..self.pkts.len() {
            if self.pkts[i].state == PktState::Lost {
                self.lost_queue.push_back(self.snd_una + i as u64);
            }
        }
        self.tx_order.clear();
        self.rack.deadline = None;
        self.in_flight = 0;
        self.stats.packets_lost += lost as u64;
        self.stats.rtos += 1;
        self.stats.congestion_events += 1;
        self.stats.events.push(EventRecord {
            time: now,
            cause: CongestionCause::Loss,
            rto: true,
            cwnd: cwnd_before,
            lost,
            first_lost: if lost > 0 { first } else { 0 },
            last_lost: last,
            first_lost_sent: if lost > 0 { first_sent } else { 0 },
            lost_seqs: seqs,
        });
        self.in_recovery = true;
        self.recovery_after_rto = true;
        self.recovery_start = now;
        self.recovery_point = self.next_seq;
        self.recovery_event = Some(self.stats.events.len() - 1);
        self.pair_pending = false;
        self.fast_rtx = false;
        self.partial_ack_sends = 0;
        self.ns2.end();
        self.cc.on_rto(now);
        self.refresh_control();
        self.pacer.reset(now);
    }

    /// `echo`: the ACK's `(echo_seq, ts_echo)`, naming the transmission
    /// that triggered it (`ts_echo` is [`NO_ECHO`](crate::NO_ECHO) if the ACK echoes none,
    /// which matches no transmission); `now`: the ACK's arrival.
    #[inline(always)]
    fn mark_delivered(
        &mut self,
        seq: u64,
        echo: (u64, Time),
        now: Time,
        hi_tx: &mut u64,
        acked: &mut u32,
        bytes: &mut u64,
    ) {
        let i = (seq - self.snd_una) as usize;
        let p = &mut self.pkts[i];
        // Which transmission of a retransmitted packet arrived is known only
        // when the ACK echoes it; otherwise it may be the original (after a
        // spurious timeout), and crediting the retransmission's place in the
        // transmission order would declare the retransmissions sent before
        // it lost while they are still in flight. As RFC 8985 §6.2 step 2,
        // the delivery counts for the retransmission when the ACK echoes it
        // or comes at least min_RTT after it was sent (`now - min_RTT`
        // is only computed for retransmitted packets).
        let tx = if !p.retransmitted
            || echo == (seq, p.sent_time)
            || p.sent_time
                <= now.saturating_sub(if self.rtt.has_sample() {
                    self.rtt.min_rtt()
                } else {
                    0
                }) {
            p.tx_index
        } else {
            0
        };
        let was = p.state;
        match p.state {
            PktState::Delivered => {}
            PktState::InFlight => {
                p.state = PktState::Delivered;
                if p.retransmitted && self.in_recovery {
                    self.ns2.extra += 1;
                }
                self.in_flight -= 1;
                *hi_tx = (*hi_tx).max(tx);
                *acked += 1;
                *bytes += p.len as u64;
            }
            PktState::Lost => {
                // Arrived after all (spurious loss or a late original).
                p.state = PktState::Delivered;
                *hi_tx = (*hi_tx).max(tx);
                *acked += 1;
                *bytes += p.len as u64;
            }
        }
        if self.cfg.rack && was != PktState::Delivered {
            self.rack_delivered(i, tx, echo, was == PktState::Lost, now, *hi_tx);
        }
    }

    /// [`SenderConfig::rack`]: packet `i` of the scoreboard, transmission
    /// `tx` (0 if which transmission arrived is unknown), was just
    /// delivered at `now`; `hi_tx` is the newest transmission delivered by
    /// this ACK so far. RFC 8985 §6.2 steps 1-2 (`RACK.xmit_ts`,
    /// `RACK.rtt`) and the reordering test of §6.2 step 3: a packet never
    /// retransmitted that arrives after a transmission sent later than it;
    /// or a retransmitted one whose ACK echoes an earlier transmission of
    /// it (the original arrived after all: the retransmission was
    /// spurious, which RFC 8985 learns from DSACK; the echoed timestamp
    /// says it here). A packet declared lost that arrives as it was first
    /// sent makes the reordering window grow (`RACK.reo_wnd_mult`, at most
    /// once per SRTT).
    #[inline(never)]
    fn rack_delivered(
        &mut self,
        i: usize,
        tx: u64,
        echo: (u64, Time),
        was_lost: bool,
        now: Time,
        hi_tx: u64,
    ) {
        let p = self.pkts[i];
        let seq = self.snd_una + i as u64;
        let late_original = p.retransmitted && echo.0 == seq && echo.1 < p.sent_time;
        let spurious = late_original || (was_lost && !p.retransmitted);
        let reordered = !p.retransmitted && p.tx_index < self.highest_delivered_tx.max(hi_tx);
        self.rack.on_delivered(
            p.sent_time,
            tx != 0,
            reordered,
            spurious,
            now,
            self.rtt.srtt(),
        );
    }

    /// RFC 3168 §6.1.2: at most one reduction per window of data. A CE
    /// echo for a packet (`ce_echo_seq`, the one the ACK echoes) sent before the
    /// last reduction, below its recovery point, belongs to the window
    /// already answered, even on the ACK that completes that window, and
    /// starts no new event (as in Linux, whose receiver stops echoing once
    /// it sees the CWR flag of the first packet sent after the reduction).
    /// Out of line: ACKs without new marks pay nothing for it.
    #[cold]
    #[inline(never)]
    fn ce_in_new_window(&self) -> bool {
        self.ce_echo_seq >= self.recovery_point
    }

    /// The `n` packets the loss detection under way has just declared lost,
    /// in the order it declared them (the first [`LOST_SEQS_CAP`]): the
    /// tail of `lost_queue`, to which it appended them, with their
    /// back-to-back flags from the scoreboard. Read back only when a
    /// congestion event records them, so that a flow carries no list of its
    /// own (528 bytes) and an ACK that declares nothing lost pays nothing.
    #[cold]
    #[inline(never)]
    fn lost_tail(&self, n: u32) -> LostSeqs {
        let mut seqs = LostSeqs::new();
        let start = self.lost_queue.len() - n as usize;
        for &seq in self.lost_queue.range(start..) {
            let back_to_back = self.pkts[(seq - self.snd_una) as usize].back_to_back;
            if !seqs.push(seq, back_to_back) {
                break;
            }
        }
        seqs
    }

    /// Loss detection after an ACK (or RACK's timer): declares lost the
    /// transmissions that later deliveries have passed (by
    /// [`SenderConfig::dupthresh`], or by time under
    /// [`SenderConfig::rack`]), and starts or extends a congestion event
    /// for them or for `new_ce` CE marks (echoed by the ACK of packet
    /// `ce_echo_seq`). `acked`: packets the ACK
    /// delivered (for PRR). Returns the packets declared lost.
    // (Inlined into `handle_ack`: out of line it cost case A of `dropless
    // bench` 1.9 % more instructions.)
    #[inline(always)]
    // (The echoed packet is a field, written only by an ACK with new marks:
    // as a fourth argument it cost case A 0.16 % more instructions.)
    fn detect_losses(&mut self, now: Time, acked: u32, new_ce: u64) -> u32 {
        // Loss detection: a transmission is lost once `dupthresh` later
        // transmissions have been delivered (RFC 6675 DupThresh applied in
        // transmission order, which also catches lost retransmissions).
        let mut newly_lost = 0u32;
        let (mut first_lost, mut last_lost) = (u64::MAX, 0u64);
        let mut first_lost_sent = Time::MAX;
        let mut last_lost_sent = 0;
        // RACK: any later delivery passes a transmission; its time decides.
        let rack = self.cfg.rack;
        let thresh = if rack { 1 } else { self.cfg.dupthresh as u64 };
        let reo_wnd = if rack {
            self.rack.deadline = None;
            let sacked = &self.sacked;
            self.rack.reo_wnd(
                &self.rtt,
                self.in_recovery,
                self.cfg.dupthresh as u64,
                || sacked.ranges().iter().map(|(a, b)| b - a).sum(),
            )
        } else {
            0
        };
        while let Some(&(tx, seq)) = self.tx_order.front() {
            if tx + thresh > self.highest_delivered_tx {
                break;
            }
            if rack && seq >= self.snd_una {
                let p = &self.pkts[(seq - self.snd_una) as usize];
                if p.state == PktState::InFlight && p.tx_index == tx {
                    // RFC 8985 §6.2 step 5: lost once outstanding longer
                    // than RACK.rtt + reo_wnd; else wake up then.
                    let due = self.rack.lost_at(p.sent_time, reo_wnd);
                    if due > now {
                        self.rack.deadline = Some(due + self.cfg.reo_timer_extra);
                        break;
                    }
                }
            }
            self.tx_order.pop_front();
            if seq < self.snd_una {
                continue;
            }
            let i = (seq - self.snd_una) as usize;
            let p = &mut self.pkts[i];
            // The module never declares a retransmission lost (see
            // `ns2_lost_retransmission`; `expire_head` resends it).
            let module_keeps = self.cfg.ns2_lost_retransmission
                && p.retransmitted
                && self.in_recovery
                && !self.recovery_after_rto;
            if p.state == PktState::InFlight && p.tx_index == tx && !module_keeps {
                p.state = PktState::Lost;
                self.in_flight -= 1;
                self.lost_queue.push_back(seq);
                newly_lost += 1;
                first_lost = first_lost.min(seq);
                last_lost = last_lost.max(seq);
                first_lost_sent = first_lost_sent.min(p.sent_time);
                last_lost_sent = last_lost_sent.max(p.sent_time);
            }
        }
        if newly_lost > 0 {
            self.stats.packets_lost += newly_lost as u64;
            if self.in_recovery {
                self.ns2.extra += newly_lost;
            }
        }

        let cause = if newly_lost > 0 {
            Some(CongestionCause::Loss)
        } else if new_ce > 0 && self.ce_in_new_window() {
            Some(CongestionCause::Ecn)
        } else {
            None
        };
        // After a timeout the sender slow-starts while it resends the lost
        // window; losing a packet it sent after the timeout is new
        // congestion and must end slow start, even before the recovery point.
        // The same holds in fast recovery: losing a retransmission, or data
        // sent at the reduced window, is a second indication of congestion
        // and the window MUST be lowered again (RFC 5681 §4.3).
        let lost_in_recovery =
            self.in_recovery && newly_lost > 0 && last_lost_sent >= self.recovery_start;
        let lost_after_rto = lost_in_recovery && self.recovery_after_rto;
        if let Some(cause) = cause {
            if self.in_recovery && !lost_in_recovery {
                if let Some(ev) = self.recovery_event {
                    if newly_lost > 0 {
                        let tail = self.lost_tail(newly_lost);
                        let rec = &mut self.stats.events[ev];
                        if rec.lost == 0 {
                            rec.first_lost = first_lost;
                            rec.first_lost_sent = first_lost_sent;
                        }
                        rec.lost += newly_lost;
                        rec.first_lost = rec.first_lost.min(first_lost);
                        rec.last_lost = rec.last_lost.max(last_lost);
                        rec.first_lost_sent = rec.first_lost_sent.min(first_lost_sent);
                        rec.lost_seqs.extend(&tail);
                    }
                }
            } else {
                self.in_recovery = true;
                // A new event inside a timeout's recovery (see above) cuts
                // the window but stays a timeout recovery: the controller
                // keeps growing its reduced window while the rest of the
                // lost window is resent, as Linux does in its Loss state,
                // instead of freezing it for the many RTTs that takes.
                self.recovery_after_rto = lost_after_rto;
                self.recovery_start = now;
                self.ns2.start(newly_lost);
                self.recovery_point = self.next_seq;
                self.stats.congestion_events += 1;
                self.stats.events.push(EventRecord {
                    time: now,
                    cause,
                    rto: false,
                    // The controller has not seen the event yet.
                    cwnd: self.window(),
                    lost: newly_lost,
                    first_lost: if newly_lost > 0 { first_lost } else { 0 },
                    last_lost,
                    first_lost_sent: if newly_lost > 0 { first_lost_sent } else { 0 },
                    lost_seqs: if newly_lost > 0 {
                        self.lost_tail(newly_lost)
                    } else {
                        LostSeqs::new()
                    },
                });
                self.recovery_event = Some(self.stats.events.len() - 1);
                // RFC 8985 §7.1: recovery ends the probe's episode.
                self.tlp.cancel();
                if self.cfg.rack {
                    self.rack.on_recovery_start();
                }
                if self.cfg.prr && !lost_after_rto {
                    self.prr_start(acked);
                }
                // RFC 6675 §5 (4.3): retransmit the first lost packet now,
                // even though the flight exceeds the reduced window.
                self.fast_rtx = self.cfg.fast_retransmit && newly_lost > 0;
                let ev = CongestionEvent {
                    cause,
                    lost: newly_lost,
                    in_flight: self.in_flight + newly_lost,
                    srtt: self.rtt.srtt(),
                    min_rtt: self.rtt.min_rtt(),
                };
                self.cc.on_congestion_event(now, &ev);
            }
        }
        newly_lost
    }

    /// Records the rate-sample state when packet `seq` leaves (Linux
    /// tcp_rate.c `tcp_rate_skb_sent`); `in_flight` is the flight before it.
    /// Out of line: only controllers that want delivery-rate samples
    /// ([`Controller::wants_delivery_rate`]) pay for them.
    #[inline(never)]
    fn rate_stamp(&mut self, now: Time, seq: u64, in_flight: u32) {
        if in_flight == 0 {
            // A flight starting from empty: the sample's intervals start
            // now, not at the last delivery.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let stamp = (self.delivered_time, self.first_sent_time);
        let i = (seq - self.rate_stamps_base) as usize;
        if i == self.rate_stamps.len() {
            self.rate_stamps.push_back(stamp);
        } else {
            self.rate_stamps[i] = stamp;
        }
    }

    /// The delivery-rate interval of an ACK (Linux tcp_rate.c, as BBR reads
    /// it) that newly delivered `acked` packets: from the transmission that
    /// triggered it (`echo_seq`, sent at `echo_sent`), the packets delivered
    /// since it left over the longer of its send interval and its ACK
    /// interval; none (0) below the minimum RTT (ACK compression). Then
    /// forgets the stamps of packets below `snd_una`.
    #[inline(never)]
    fn rate_sample(
        &mut self,
        now: Time,
        echo_seq: u64,
        echo_sent: Option<Time>,
        acked: u32,
    ) -> Time {
        let mut delivery_interval = 0;
        if acked > 0 {
            let i = echo_seq.wrapping_sub(self.rate_stamps_base) as usize;
            if let (Some(sent), Some(&(delivered_time_at_send, first_sent_at_send))) =
                (echo_sent, self.rate_stamps.get(i))
            {
                let send_elapsed = sent.saturating_sub(first_sent_at_send);
                let ack_elapsed = now.saturating_sub(delivered_time_at_send);
                let interval = send_elapsed.max(ack_elapsed);
                if !self.rtt.has_sample() || interval >= self.rtt.min_rtt() {
                    delivery_interval = interval;
                }
                self.first_sent_time = self.first_sent_time.max(sent);
            }
            self.delivered_time = now;
        }
        let gone = ((self.snd_una - self.rate_stamps_base) as usize).min(self.rate_stamps.len());
        self.rate_stamps.drain(..gone);
        self.rate_stamps_base = self.snd_una;
        delivery_interval
    }

    /// Processes an acknowledgement.
    pub fn handle_ack(&mut self, now: Time, ack: &AckPacket) {
        if ack.cum_ack > self.next_seq {
            // Acknowledges data never sent: ignored and counted (the UDP
            // driver ends the transfer on it).
            self.stats.invalid_acks += 1;
            return;
        }
        // Information about the packet that triggered this ACK, before the
        // scoreboard drops it.
        let echo = if ack.echo_seq >= self.snd_una && ack.echo_seq < self.next_seq {
            let p = self.pkts[(ack.echo_seq - self.snd_una) as usize];
            Some(p)
        } else {
            None
        };
        let echo_tx = (ack.echo_seq, ack.ts_echo);
        let mut hi_tx = 0u64;
        let mut acked = 0u32;
        let mut bytes = 0u64;
        let cum_advanced = ack.cum_ack > self.snd_una;
        // Cumulative part.
        while self.snd_una < ack.cum_ack {
            let seq = self.snd_una;
            self.mark_delivered(seq, echo_tx, now, &mut hi_tx, &mut acked, &mut bytes);
            let p = self
                .pkts
                .pop_front()
                .expect("scoreboard covers snd_una..next_seq");
            self.stats.bytes_acked += p.len as u64;
            self.snd_una += 1;
        }
        if cum_advanced {
            self.sacked.remove_below(self.snd_una);
        }
        // Selective part: only the parts not already known.
        // (Most ACKs carry no block: the scoreboard's ranges are not
        // taken out and put back for them.)
        if ack.n_sack > 0 {
            let (una, nxt) = (self.snd_una, self.next_seq);
            let mut sacked = std::mem::take(&mut self.sacked);
            for &(s, e) in ack.sack_blocks() {
                let (s, e) = (s.max(una), e.min(nxt));
                if s >= e {
                    continue;
                }
                sacked.insert_with(s, e, |a, b| {
                    for seq in a..b {
                        self.mark_delivered(seq, echo_tx, now, &mut hi_tx, &mut acked, &mut bytes);
                    }
                });
            }
            self.sacked = sacked;
        }
        self.delivered += acked as u64;
        self.stats.packets_delivered += acked as u64;
        let delivery_interval = if self.rate_samples {
            self.rate_sample(now, ack.echo_seq, echo.map(|p| p.sent_time), acked)
        } else {
            0
        };
        self.highest_delivered_tx = self.highest_delivered_tx.max(hi_tx);

        // RTT sample from the echoed timestamp (RFC 7323 style: valid for
        // retransmissions too, since the echo names the transmission).
        let mut rtt_sample = None;
        // An ACK that echoes nothing (`NO_ECHO`) gives none; 0 is a real
        // echo (a packet sent at t = 0).
        let echoed = ack.echoed_ts().filter(|&ts| ts <= now);
        if let Some(ts) = echoed.filter(|_| acked > 0 || echo.is_some()) {
            let r = now - ts;
            // The controller's sample leaves out the time the receiver held
            // the ACK (its delayed-ACK timer, up to 40 ms): RFC 9002 §5.3
            // subtracts the reported ACK delay, not below the minimum RTT
            // (RFC 9002 then keeps the whole sample; here the minimum is the
            // floor, so that a hold just over the sample's margin above the
            // minimum is still taken out), and not from the first sample,
            // which has no minimum to check it against. On the emulated
            // 1 Gb/s path a timer-held ACK in PDA's start-up (bursts of
            // four, 40 ms apart) read as a 40-ms queue and ended start-up at
            // 0.4 Mb/s (docs/reports/pda-real.md). The retransmission timer
            // keeps the whole sample (RFC 6298: what the timer waits for).
            let adjusted = if ack.ack_delay > 0 && self.rtt.has_sample() {
                r.saturating_sub(ack.ack_delay)
                    .max(self.rtt.min_rtt().min(r))
            } else {
                r
            };
            self.rtt.sample(r);
            self.stats.rtt_sum_s += dropless_cc::secs(r);
            self.stats.rtt_samples += 1;
            rtt_sample = Some(adjusted);
        }
        if cum_advanced
            && !(self.in_recovery && self.cfg.ns2_recovery_timer && self.ns2_keeps_timer())
        {
            // RFC 6298 (5.3) restart; (5.2) stop when nothing is outstanding.
            self.rtt.reset_backoff();
            self.rto_deadline = if self.in_flight > 0 || !self.lost_queue.is_empty() {
                Some(now + self.rtt.rto())
            } else {
                None
            };
        }
        // Only an ACK that advances can end a probe's episode (the probe's
        // end lies past the cumulative ACK when it leaves).
        // (The ACK by reference: a copy of its echo kept live until here
        // cost case A 3 instructions per ACK in spills.)
        if cum_advanced && self.cfg.tlp {
            self.tlp_on_advance(now, ack);
        }
        if self.in_recovery {
            // Recovery ends once the cumulative ACK passes the recovery point.
            if self.snd_una >= self.recovery_point {
                self.in_recovery = false;
                self.recovery_event = None;
                self.partial_ack_sends = 0;
                self.ns2.end();
                self.cc.on_recovery_end(now);
            } else if self.cfg.partial_ack_pair && cum_advanced && !self.recovery_after_rto {
                // A partial ACK: two packets may leave past the window.
                self.partial_ack_sends = 2;
            }
        }

        let mut new_ce = 0;
        if ack.ce_count > self.stats.ce_marks {
            new_ce = ack.ce_count - self.stats.ce_marks;
            self.stats.ce_marks = ack.ce_count;
            self.ce_echo_seq = ack.echo_seq;
        }
        let newly_lost = self.detect_losses(now, acked, new_ce);

        let was_probe = echo.is_some_and(|p| p.flags.contains(PacketFlags::ACK_REQUEST))
            || ack.echo_flags.contains(PacketFlags::ACK_REQUEST);
        let dispersion = (ack.pair_dispersion > 0).then_some(ack.pair_dispersion);
        if acked > 0 || newly_lost > 0 || was_probe || dispersion.is_some() || new_ce > 0 {
            let sample = AckSample {
                rtt: rtt_sample,
                min_rtt: self.rtt.min_rtt(),
                srtt: self.rtt.srtt(),
                newly_acked: acked,
                newly_acked_bytes: bytes,
                newly_lost: newly_lost + std::mem::take(&mut self.carry_lost),
                delivered: self.delivered,
                delivered_at_send: echo.map_or(0, |p| p.delivered_at_send),
                delivery_interval,
                in_flight_at_send: echo.map_or(self.in_flight, |p| p.in_flight_at_send),
                in_flight: self.in_flight,
                ecn_ce: new_ce as u32,
                was_probe,
                pair_dispersion: dispersion,
                price_code: ack.price,
                pair_bytes: self.cfg.mss + self.cfg.header,
                in_recovery: self.in_recovery && !self.recovery_after_rto,
                app_limited: false,
            };
            self.cc.on_ack(now, &sample);
        }
        self.refresh_control();
        // After the controller has set the reduced window (ssthresh).
        if self.cfg.prr && self.in_recovery && !self.recovery_after_rto {
            let (pipe, ssthresh) = (self.in_flight as f64, self.window());
            self.prr
                .on_ack(acked, cum_advanced && newly_lost == 0, pipe, ssthresh);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dropless_cc::ConnInfo;

    /// A fixed-window controller for exercising the transport alone.
    struct Fixed {
        w: f64,
        rate: Option<f64>,
        burst: Option<u32>,
        events: u32,
        rtos: u32,
    }
    impl Controller for Fixed {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn control(&self) -> Control {
            Control {
                cwnd: Some(self.w),
                pacing_rate: self.rate,
                max_burst: self.burst,
            }
        }
        fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
        fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
            self.events += 1;
        }
        fn on_rto(&mut self, _now: Time) {
            self.rtos += 1;
        }
    }

    fn fixed(w: f64) -> Box<dyn Controller> {
        let _ = ConnInfo::default();
        Box::new(Fixed {
            w,
            rate: None,
            burst: None,
            events: 0,
            rtos: 0,
        })
    }

    pub(super) fn ack(cum: u64, sack: &[(u64, u64)], echo: u64, ts: Time) -> AckPacket {
        let mut a = AckPacket {
            cum_ack: cum,
            echo_seq: echo,
            ts_echo: ts,
            ..Default::default()
        };
        for (i, &b) in sack.iter().enumerate() {
            a.sack[i] = b;
        }
        a.n_sack = sack.len() as u8;
        a
    }

    /// Records the delivery-rate samples it is given.
    struct RateProbe {
        samples: std::sync::Arc<std::sync::Mutex<Vec<(Time, f64)>>>,
    }
    impl Controller for RateProbe {
        fn name(&self) -> &'static str {
            "rate-probe"
        }
        fn control(&self) -> Control {
            Control {
                cwnd: Some(200.0),
                ..Control::default()
            }
        }
        fn on_ack(&mut self, now: Time, ack: &AckSample) {
            if ack.delivery_interval > 0 {
                let pkts = (ack.delivered - ack.delivered_at_send) as f64;
                let rate = pkts / (ack.delivery_interval as f64 * 1e-9);
                self.samples.lock().unwrap().push((now, rate));
            }
        }
        fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {}
        fn on_rto(&mut self, _now: Time) {}
        fn wants_delivery_rate(&self) -> bool {
            true
        }
    }

    /// A window of 200 packets over a bottleneck of 1000 packets/s and a
    /// 100 ms base RTT (a 100-packet pipe): once the queue stands, every
    /// delivery-rate sample is the bottleneck's rate (Linux tcp_rate.c).
    #[test]
    fn delivery_rate_samples_are_the_bottleneck_rate() {
        let samples = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let cc = Box::new(RateProbe {
            samples: samples.clone(),
        });
        let mut s = Sender::new(SenderConfig::default(), cc, 0);
        let ms = MILLISECOND;
        // (ACK arrival, packet) in arrival order; the link serves one
        // packet per ms after 50 ms of propagation, the ACK takes 50 ms.
        let mut acks: std::collections::VecDeque<(Time, u64, Time)> = Default::default();
        let mut link_free = 0;
        let mut now = 0;
        while now < 3_000 * ms {
            while let Some(p) = s.poll_transmit(now) {
                let served = (now + 50 * ms).max(link_free) + ms;
                link_free = served;
                acks.push_back((served + 50 * ms, p.seq, now));
            }
            let (t, seq, sent) = acks.pop_front().unwrap();
            now = t;
            s.handle_ack(now, &ack(seq + 1, &[], seq, sent));
        }
        let samples = samples.lock().unwrap();
        let late: Vec<f64> = samples
            .iter()
            .filter(|&&(t, _)| t > 1_000 * ms)
            .map(|&(_, r)| r)
            .collect();
        assert!(late.len() > 1500, "{} samples", late.len());
        for r in late {
            assert!((r - 1000.0).abs() < 10.0, "sample {r} packets/s");
        }
        // The first flight's samples understate the rate (its intervals
        // run from the flight's start), never overstate it.
        assert!(samples.iter().all(|&(_, r)| r < 1010.0));
    }

    #[test]
    fn window_limits_sending() {
        let mut s = Sender::new(SenderConfig::default(), fixed(4.0), 0);
        let mut n = 0;
        while s.poll_transmit(0).is_some() {
            n += 1;
        }
        assert_eq!(n, 4);
        assert_eq!(s.in_flight(), 4);
        s.handle_ack(10, &ack(2, &[], 1, 1));
        assert_eq!(s.in_flight(), 2);
        assert!(s.poll_transmit(10).is_some());
        assert!(s.poll_transmit(10).is_some());
        assert!(s.poll_transmit(10).is_none());
    }

    #[test]
    fn sack_loss_detection_and_retransmission() {
        let mut s = Sender::new(SenderConfig::default(), fixed(10.0), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        // packet 0 lost; 1, 2 sacked: not yet lost (dupthresh 3)
        s.handle_ack(100, &ack(0, &[(1, 3)], 2, 1));
        assert_eq!(s.stats().packets_lost, 0);
        s.handle_ack(101, &ack(0, &[(1, 4)], 3, 1));
        assert_eq!(s.stats().packets_lost, 1);
        assert_eq!(s.stats().congestion_events, 1);
        assert!(s.in_recovery());
        // the retransmission goes first
        let p = s.poll_transmit(102).unwrap();
        assert_eq!(p.seq, 0);
        // a second loss in the same window belongs to the same event
        s.handle_ack(103, &ack(0, &[(1, 4), (5, 9)], 8, 1));
        assert_eq!(s.stats().packets_lost, 2);
        assert_eq!(s.stats().congestion_events, 1);
        assert_eq!(s.stats().events[0].lost, 2);
        // cumulative ACK past the recovery point ends recovery
        let p = s.poll_transmit(104).unwrap();
        assert_eq!(p.seq, 4);
        s.handle_ack(200, &ack(10, &[], 4, 104));
        assert!(!s.in_recovery());
        assert_eq!(s.in_flight(), 0);
        assert_eq!(s.stats().retransmits, 2);
    }

    /// The same three episodes with and without RACK (RFC 8985), on a
    /// path of 1000 ns RTT with packets 10 ns apart: (A) a packet arrives
    /// after the three sent behind it, and then its original after its
    /// retransmission left; (B) the same reordering again; (C) a real loss
    /// with no ACK after the last SACK. Returns (packets lost, congestion
    /// events) after each episode, and when (C)'s loss was found.
    fn reorder_episodes(rack: bool) -> ([(u64, u64); 3], Time) {
        reorder_episodes_with(rack, 0)
    }

    /// [`reorder_episodes`] with [`SenderConfig::reo_timer_extra`].
    fn reorder_episodes_with(rack: bool, reo_timer_extra: Time) -> ([(u64, u64); 3], Time) {
        let cfg = SenderConfig {
            rack,
            reo_timer_extra,
            ..SenderConfig::default()
        };
        let mut s = Sender::new(cfg, fixed(100.0), 0);
        let mut out = [(0, 0); 3];
        let send = |s: &mut Sender, from: u64, t0: Time| {
            for k in 0..10 {
                let p = s.poll_transmit(t0 + 10 * k).unwrap();
                assert_eq!(p.seq, from + k);
            }
        };
        let lost_events = |s: &Sender| (s.stats().packets_lost, s.stats().congestion_events);
        // (A) 0..9 leave at 0..90; 6 comes after 7, 8, 9.
        send(&mut s, 0, 0);
        for k in 0..6 {
            s.handle_ack(1000 + 10 * k, &ack(k + 1, &[], k, 10 * k));
        }
        for k in 7..10 {
            s.handle_ack(1000 + 10 * k, &ack(6, &[(7, k + 1)], k, 10 * k));
        }
        if let Some(p) = s.poll_transmit(1095) {
            assert_eq!(p.seq, 6, "the (spurious) retransmission");
        }
        // The original arrives: its ACK echoes the original's send time.
        s.handle_ack(1100, &ack(10, &[], 6, 60));
        assert!(!s.in_recovery());
        out[0] = lost_events(&s);
        // (B) 10..19 leave at 2000..2090; 10 comes after 11, 12, 13.
        send(&mut s, 10, 2000);
        for k in 11..14 {
            s.handle_ack(
                1000 + 2000 + 10 * (k - 10),
                &ack(10, &[(11, k + 1)], k, 2000 + 10 * (k - 10)),
            );
        }
        s.handle_ack(3035, &ack(14, &[], 10, 2000));
        for k in 14..20 {
            let t = 2000 + 10 * (k - 10);
            s.handle_ack(t + 1000, &ack(k + 1, &[], k, t));
        }
        out[1] = lost_events(&s);
        // (C) 20..29 leave at 4000..4090; 20 is lost; 21..29 arrive.
        send(&mut s, 20, 4000);
        let mut found = None;
        for k in 21..30 {
            let t = 4000 + 10 * (k - 20);
            s.handle_ack(t + 1000, &ack(20, &[(21, k + 1)], k, t));
            if found.is_none() && s.stats().packets_lost > out[1].0 {
                found = Some(t + 1000);
            }
        }
        if found.is_none() {
            let t = s.poll_timeout().expect("RACK's timer is armed");
            s.handle_timeout(t);
            if s.stats().packets_lost > out[1].0 {
                found = Some(t);
            }
        }
        assert_eq!(s.poll_transmit(found.unwrap()).map(|p| p.seq), Some(20));
        out[2] = lost_events(&s);
        (out, found.unwrap())
    }

    #[test]
    fn rack_takes_reordering_for_what_it_is_and_finds_loss_by_time() {
        // Three duplicate ACKs: every reordering is a loss and an event.
        let (dup, dup_found) = reorder_episodes(false);
        assert_eq!(dup, [(1, 1), (2, 2), (3, 3)]);
        assert_eq!(dup_found, 5030, "at the third SACK after the loss");
        // RACK: the first reordering, before any was seen, is still taken
        // for loss (three SACKed: window 0), but its original's late ACK
        // shows reordering and that the loss was spurious, so the window
        // grows from one quarter of the minimum RTT to two (500 ns); the
        // second reordering falls within it; the real loss is found by the
        // timer, 1000 + 500 ns after it was sent.
        let (rack, rack_found) = reorder_episodes(true);
        assert_eq!(rack, [(1, 1), (1, 1), (2, 2)]);
        assert_eq!(rack_found, 4000 + 1000 + 500);
    }

    #[test]
    fn rack_timer_extra_delays_only_the_timer() {
        // Linux's TCP_TIMEOUT_MIN on RACK's timer: the same episodes, the
        // same losses and events; the loss that only the timer finds is
        // found that much later. (The reordering of episode B, answered
        // by an ACK before its window ran out, is not affected either way.)
        let (plain, plain_found) = reorder_episodes_with(true, 0);
        let (extra, extra_found) = reorder_episodes_with(true, 300);
        assert_eq!(extra, plain);
        assert_eq!(extra_found, plain_found + 300);
        // Without RACK there is no timer to delay.
        assert_eq!(reorder_episodes_with(false, 300), reorder_episodes(false));
    }

    #[test]
    fn events_record_lost_seqs_send_times_and_back_to_back_pairs() {
        let mut s = Sender::new(SenderConfig::default(), fixed(10.0), 0);
        // 0 and 1 leave alone, 2..=9 back to back at time 5.
        s.poll_transmit(1).unwrap();
        s.poll_transmit(3).unwrap();
        for _ in 2..10 {
            s.poll_transmit(5).unwrap();
        }
        // 1 and 6 are lost; 0, 2..=5, 7..=9 arrive.
        s.handle_ack(100, &ack(1, &[(2, 6)], 5, 5));
        s.handle_ack(101, &ack(1, &[(2, 6), (7, 10)], 9, 5));
        let ev = s.stats().events[0];
        assert_eq!(ev.lost, 2);
        assert_eq!((ev.first_lost, ev.last_lost), (1, 6));
        assert_eq!(ev.first_lost_sent, 3);
        assert_eq!(ev.lost_seqs.seqs(), &[1, 6]);
        assert!(!ev.lost_seqs.back_to_back(0));
        assert!(ev.lost_seqs.back_to_back(1));
        assert_eq!(format!("{:?}", ev.lost_seqs), "[1, 6*]");
        // The list is bounded; the count is not.
        let mut l = LostSeqs::new();
        for i in 0..(LOST_SEQS_CAP as u64 + 5) {
            l.push(i, i % 2 == 1);
        }
        assert_eq!(l.len(), LOST_SEQS_CAP);
        assert!(l.back_to_back(LOST_SEQS_CAP - 1) && !l.back_to_back(LOST_SEQS_CAP));
        let mut m = LostSeqs::new();
        m.push(7, false);
        m.extend(&l);
        assert_eq!(m.len(), LOST_SEQS_CAP);
        assert_eq!(m.seqs()[..3], [7, 0, 1]);
        l.clear();
        assert!(l.is_empty());
        assert_eq!(l, LostSeqs::new());
    }

    /// A controller that halves its window on a congestion event.
    struct Halving(f64);
    impl Controller for Halving {
        fn name(&self) -> &'static str {
            "halving"
        }
        fn control(&self) -> Control {
            Control {
                cwnd: Some(self.0),
                ..Control::default()
            }
        }
        fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
        fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
            self.0 /= 2.0;
        }
        fn on_rto(&mut self, _now: Time) {
            self.0 = 1.0;
        }
    }

    /// Sends 20 packets with a halving controller, loses packet 0 and
    /// SACKs 1..=19 one ACK at a time; returns the packets sent in recovery
    /// after each number of deliveries (index = packets delivered).
    fn recovery_sends(prr: bool) -> Vec<u32> {
        let cfg = SenderConfig {
            prr,
            ..SenderConfig::default()
        };
        let mut s = Sender::new(cfg, Box::new(Halving(20.0)), 0);
        for _ in 0..20 {
            s.poll_transmit(1).unwrap();
        }
        let mut sent = vec![0u32; 20];
        let mut total = 0;
        for d in 3..20u64 {
            s.handle_ack(100 + d, &ack(0, &[(1, d + 1)], d, 1));
            assert!(s.in_recovery());
            while s.poll_transmit(100 + d).is_some() {
                total += 1;
            }
            sent[d as usize] = total;
        }
        sent
    }

    #[test]
    fn prr_spreads_the_reduction_over_the_recovery() {
        // RFC 9937 with ssthresh = 10 and RecoverFS = 20: while the pipe
        // (19 - d + sent so far) is above 10, ceil(prr_delivered * 10 / 20)
        // packets in total, one per two delivered (d <= 16). At d = 17 the
        // pipe is exactly 10: PRR-CRB, no room. At 18 and 19 it is 9 and
        // PRR-CRB lets one packet leave each (no SafeACK: the cumulative
        // ACK is stuck at the lost packet).
        let prr = recovery_sends(true);
        for d in 3..=16 {
            assert_eq!(prr[d], d.div_ceil(2) as u32, "PRR, {d} delivered: {prr:?}");
        }
        assert_eq!(prr[17..], [8, 9, 10], "PRR: {prr:?}");
        // RFC 6675 alone: the fast retransmission, then nothing until the
        // pipe (20 - 1 lost - d delivered + 1) falls below 10 at d = 11;
        // from then on one packet per delivery.
        let pipe_limited = recovery_sends(false);
        for d in 3..20 {
            let expect = if d <= 10 { 1 } else { d as u32 - 9 };
            assert_eq!(
                pipe_limited[d], expect,
                "RFC 6675, {d} delivered: {pipe_limited:?}"
            );
        }
        // Both end the recovery with the flight at the reduced window.
        assert_eq!(prr[19], 10);
        assert_eq!(pipe_limited[19], 10);
    }

    #[test]
    fn first_retransmission_leaves_at_once_whatever_the_window() {
        // Off: the retransmission waits for the window.
        let cfg = SenderConfig {
            fast_retransmit: false,
            ..SenderConfig::default()
        };
        let mut s = Sender::new(cfg, Box::new(Halving(10.0)), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        s.handle_ack(100, &ack(0, &[(1, 4)], 3, 1));
        assert!(s.poll_transmit(100).is_none());
        // On by default (RFC 6675 §5 (4.3)).
        let mut s = Sender::new(SenderConfig::default(), Box::new(Halving(10.0)), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        // 0 lost, 1..=3 arrive: loss detected, window 5 < 6 in flight.
        s.handle_ack(100, &ack(0, &[(1, 4)], 3, 1));
        assert_eq!(s.control().cwnd, Some(5.0));
        assert_eq!(s.in_flight(), 6);
        // RFC 6675 (4.3): the retransmission of 0 goes anyway ...
        let p = s.poll_transmit(100).unwrap();
        assert_eq!(p.seq, 0);
        // ... but nothing else until the flight is below the window.
        assert!(s.poll_transmit(100).is_none());
        // 4 arrives: 6 in flight still; a second loss (5, after 6..=8 arrive)
        // in the same recovery leaves only when the window allows.
        s.handle_ack(105, &ack(0, &[(1, 5)], 4, 1));
        assert!(s.poll_transmit(105).is_none());
        s.handle_ack(110, &ack(0, &[(1, 5), (6, 9)], 8, 1));
        assert_eq!(s.stats().events[0].lost, 2);
        assert_eq!(s.in_flight(), 2);
        assert_eq!(s.poll_transmit(110).unwrap().seq, 5);
        assert_eq!(s.poll_transmit(110).unwrap().seq, 10);
        assert_eq!(s.poll_transmit(110).unwrap().seq, 11);
        assert!(s.poll_transmit(110).is_none());
    }

    #[test]
    fn ns2_recovery_keeps_lost_packets_in_the_pipe_and_sends_two_per_partial_ack() {
        let cfg = SenderConfig {
            partial_ack_pair: true,
            recovery_pipe_counts_lost: true,
            ..SenderConfig::default()
        };
        let mut s = Sender::new(cfg, Box::new(Halving(10.0)), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        // 0 lost (1..=4 arrive): window 5, 5 in flight + 1 lost; the
        // retransmission of 0 leaves at once.
        s.handle_ack(100, &ack(0, &[(1, 5)], 4, 1));
        assert_eq!(s.poll_transmit(100).unwrap().seq, 0);
        assert!(s.poll_transmit(100).is_none());
        // 6..=9 arrive, 5 is lost: 1 in flight (the retransmission), 2 lost
        // in the episode, and the fast retransmission is outside the
        // module's pipe (`dupack_action` sends it with `output`): pipe
        // 1 + 2 - 1 = 2 < 5, three packets leave (module: pipe_ = 9 + 1 - 3
        // = 7 at entry, one less for each of the 5 later ACKs; RFC 6675
        // alone would send four).
        s.handle_ack(110, &ack(0, &[(1, 5), (6, 10)], 9, 1));
        assert_eq!(s.in_flight(), 1);
        assert_eq!(s.poll_transmit(110).unwrap().seq, 5);
        assert_eq!(s.poll_transmit(110).unwrap().seq, 10);
        assert_eq!(s.poll_transmit(110).unwrap().seq, 11);
        assert!(s.poll_transmit(110).is_none());
        // Partial ACK (0 retransmitted arrives, cumulative ACK 5 < recovery
        // point 10): pipe 3 in flight + 3 - 1 = 5, the window is full, but
        // two packets leave anyway, outside the pipe (`partial_ack_action`).
        s.handle_ack(120, &ack(5, &[(6, 10)], 0, 100));
        assert!(s.in_recovery());
        assert_eq!(s.poll_transmit(120).unwrap().seq, 12);
        assert_eq!(s.poll_transmit(120).unwrap().seq, 13);
        assert!(s.poll_transmit(120).is_none());
        // The full ACK ends recovery; the plain window rules again.
        s.handle_ack(130, &ack(11, &[], 5, 110));
        assert!(!s.in_recovery());
        assert_eq!(s.in_flight(), 3);
        assert_eq!(s.poll_transmit(130).unwrap().seq, 14);
        assert_eq!(s.poll_transmit(130).unwrap().seq, 15);
        assert!(s.poll_transmit(130).is_none());
        // Default configuration: the same losses refill the reduced window
        // at once (RFC 6675 pipe) and a partial ACK releases nothing extra.
        let mut s = Sender::new(SenderConfig::default(), Box::new(Halving(10.0)), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        s.handle_ack(100, &ack(0, &[(1, 5)], 4, 1));
        assert_eq!(s.poll_transmit(100).unwrap().seq, 0);
        s.handle_ack(110, &ack(0, &[(1, 5), (6, 10)], 9, 1));
        let sent: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(110).map(|p| p.seq)).collect();
        assert_eq!(sent, vec![5, 10, 11, 12]);
        s.handle_ack(120, &ack(5, &[(6, 10)], 0, 100));
        assert_eq!(s.in_flight(), 4);
        assert_eq!(s.poll_transmit(120).unwrap().seq, 13);
        assert!(s.poll_transmit(120).is_none());
    }

    #[test]
    fn ns2_partial_ack_pair_leaves_outside_the_pipe() {
        // Module: `dupack_action` and `partial_ack_action` send with
        // `output`, which does not touch `pipe_`; `send_much` adds one per
        // packet and every ACK in recovery takes one off.
        let cfg = SenderConfig {
            partial_ack_pair: true,
            recovery_pipe_counts_lost: true,
            ..SenderConfig::default()
        };
        let mut s = Sender::new(cfg, fixed(10.0), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        let sent_at = |s: &mut Sender, t| -> Vec<u64> {
            std::iter::from_fn(|| s.poll_transmit(t).map(|p| p.seq)).collect()
        };
        // 0 and 1 lost (2..=9 arrive): pipe 0 in flight + 2 lost; the fast
        // retransmission of 0 is not counted, then 1 and 10..=16 fill it.
        s.handle_ack(100, &ack(0, &[(2, 10)], 9, 1));
        assert_eq!(sent_at(&mut s, 100), vec![0, 1, 10, 11, 12, 13, 14, 15, 16]);
        // Partial ACK (0 arrives): the pair leaves, uncounted, pipe 10.
        s.handle_ack(110, &ack(1, &[(2, 10)], 0, 100));
        assert_eq!(sent_at(&mut s, 110), vec![17, 18]);
        // One more delivery: pipe 9 < 10, one packet (counting the pair in
        // the pipe would leave it at 11 and send nothing).
        s.handle_ack(120, &ack(1, &[(2, 11)], 10, 100));
        assert_eq!(sent_at(&mut s, 120), vec![19]);
    }

    #[test]
    fn ns2_lost_retransmission_is_resent_after_two_rtts_without_a_new_event() {
        let ms = MILLISECOND;
        let cfg = SenderConfig {
            ns2_lost_retransmission: true,
            ..SenderConfig::default()
        };
        let mut s = Sender::new(cfg, Box::new(Halving(20.0)), 0);
        for _ in 0..10 {
            s.poll_transmit(ms).unwrap();
        }
        s.handle_ack(100 * ms, &ack(0, &[(1, 4)], 3, ms));
        assert_eq!(s.poll_transmit(100 * ms).unwrap().seq, 0);
        for _ in 0..3 {
            s.poll_transmit(100 * ms).unwrap();
        }
        // The three packets sent after the retransmission arrive, it does
        // not: the default declares it lost (a second event), the module
        // waits.
        s.handle_ack(200 * ms, &ack(0, &[(1, 13)], 12, 100 * ms));
        assert_eq!(s.stats().packets_lost, 1);
        assert_eq!(s.stats().congestion_events, 1);
        assert_eq!(s.poll_transmit(250 * ms).unwrap().seq, 13);
        // More than 2 SRTT (200 ms) after it left, it goes again, first.
        assert_eq!(s.poll_transmit(301 * ms).unwrap().seq, 0);
        assert_eq!(s.stats().packets_lost, 2);
        assert_eq!(s.stats().congestion_events, 1);
        assert_eq!(s.stats().events[0].lost, 2);
        assert!(s.in_recovery());
    }

    #[test]
    fn ns2_recovery_timer_restarts_at_the_first_partial_ack_only() {
        let ms = MILLISECOND;
        let deadlines = |ns2: bool| {
            let cfg = SenderConfig {
                ns2_recovery_timer: ns2,
                ..SenderConfig::default()
            };
            let mut s = Sender::new(cfg, fixed(20.0), 0);
            for _ in 0..10 {
                s.poll_transmit(ms).unwrap();
            }
            // 0, 1 and 2 lost; all three retransmitted at 100 ms.
            s.handle_ack(100 * ms, &ack(0, &[(3, 6)], 5, ms));
            for _ in 0..3 {
                assert!(s.poll_transmit(100 * ms).unwrap().seq < 3);
            }
            let mut d = vec![s.poll_timeout().unwrap()];
            // Two partial ACKs.
            s.handle_ack(200 * ms, &ack(1, &[(3, 6)], 0, 100 * ms));
            d.push(s.poll_timeout().unwrap());
            s.handle_ack(210 * ms, &ack(2, &[(3, 6)], 1, 100 * ms));
            d.push(s.poll_timeout().unwrap());
            d
        };
        let m = deadlines(true);
        let d = deadlines(false);
        assert!(m[1] > m[0], "the first partial ACK restarts the timer");
        assert_eq!(m[2], m[1], "later partial ACKs do not");
        assert!(d[2] > d[1], "RFC 6298 (5.3): every advance restarts it");
    }

    #[test]
    fn lost_retransmission_detected_by_transmission_order() {
        let mut s = Sender::new(SenderConfig::default(), fixed(20.0), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        s.handle_ack(100, &ack(0, &[(1, 4)], 3, 1));
        let r = s.poll_transmit(101).unwrap();
        assert_eq!(r.seq, 0);
        // new data after the retransmission
        for _ in 0..3 {
            s.poll_transmit(101).unwrap();
        }
        // the three packets sent after the retransmission arrive, it does not
        s.handle_ack(200, &ack(0, &[(1, 13)], 12, 101));
        assert_eq!(
            s.stats().packets_lost,
            2,
            "the retransmission of 0 is lost too"
        );
        assert_eq!(s.poll_transmit(201).unwrap().seq, 0);
    }

    #[test]
    fn lost_retransmission_is_a_second_congestion_event() {
        // RFC 5681 §4.3: the loss of a retransmission is a second indication
        // of congestion; the window must be lowered again.
        let mut s = Sender::new(SenderConfig::default(), Box::new(Halving(20.0)), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        s.handle_ack(100, &ack(0, &[(1, 4)], 3, 1));
        assert_eq!(s.control().cwnd, Some(10.0));
        assert_eq!(s.poll_transmit(101).unwrap().seq, 0);
        // A loss of a packet sent before the event is the same event ...
        s.handle_ack(102, &ack(0, &[(1, 4), (5, 8)], 7, 1));
        assert_eq!(s.stats().congestion_events, 1);
        assert_eq!(s.control().cwnd, Some(10.0));
        for _ in 0..3 {
            s.poll_transmit(103).unwrap();
        }
        // ... the loss of the retransmission of 0 (10..=12 sent after it
        // arrive, it does not) is a new one.
        s.handle_ack(200, &ack(0, &[(1, 4), (5, 13)], 12, 103));
        assert_eq!(s.stats().congestion_events, 2);
        assert_eq!(s.control().cwnd, Some(5.0));
        assert_eq!(s.stats().events[1].lost_seqs.seqs(), &[0]);
    }

    #[test]
    fn late_original_after_a_timeout_does_not_condemn_retransmissions() {
        // A spurious timeout: everything is resent, then the originals' ACKs
        // come back. They echo the originals' send times: the deliveries
        // must not be credited to the retransmissions' places in the
        // transmission order, or the retransmissions sent before them
        // (still in flight) would be declared lost.
        let mut s = Sender::new(SenderConfig::default(), fixed(10.0), 0);
        for _ in 0..10 {
            s.poll_transmit(1).unwrap();
        }
        let t = SECOND + 1;
        s.handle_timeout(t);
        let resent: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(t).map(|p| p.seq)).collect();
        assert_eq!(resent.len(), 10);
        // The originals of 1, 3, 5 and 7 arrive (0, 2, 4, 6 still queued).
        s.handle_ack(t + 10, &ack(0, &[(1, 2)], 1, 1));
        s.handle_ack(t + 11, &ack(0, &[(1, 2), (3, 4)], 3, 1));
        s.handle_ack(t + 12, &ack(0, &[(1, 2), (3, 4), (5, 6)], 5, 1));
        s.handle_ack(t + 13, &ack(0, &[(1, 2), (3, 4), (5, 6), (7, 8)], 7, 1));
        assert_eq!(s.stats().packets_lost, 10, "only the timeout's");
        assert_eq!(s.stats().congestion_events, 1);
        // The retransmission of 8 is echoed: it is known to have arrived,
        // and the retransmissions sent 3 or more before it (of 0, 2 and 4;
        // 1, 3 and 5 have arrived) are lost.
        s.handle_ack(t + 20, &ack(0, &[(1, 2), (3, 4), (5, 6), (7, 9)], 8, t));
        assert_eq!(s.stats().packets_lost, 10 + 3, "0, 2 and 4");
    }

    #[test]
    fn rto_backs_off_and_retransmits_everything() {
        let cfg = SenderConfig {
            initial_rto: SECOND,
            ..Default::default()
        };
        let mut s = Sender::new(cfg, fixed(3.0), 0);
        for _ in 0..3 {
            s.poll_transmit(0).unwrap();
        }
        assert_eq!(s.poll_timeout(), Some(SECOND));
        s.handle_timeout(SECOND);
        assert_eq!(s.stats().rtos, 1);
        assert_eq!(s.in_flight(), 0);
        let seqs: Vec<u64> =
            std::iter::from_fn(|| s.poll_transmit(SECOND).map(|p| p.seq)).collect();
        assert_eq!(seqs, vec![0, 1, 2]);
        // backed-off timer: 2 s after the retransmission
        assert_eq!(s.poll_timeout(), Some(3 * SECOND));
    }

    #[test]
    fn packet_sent_at_time_zero_gives_an_rtt_sample() {
        use dropless_cc::MILLISECOND;
        let mut s = Sender::new(SenderConfig::default(), fixed(4.0), 0);
        let p = s.poll_transmit(0).unwrap();
        assert_eq!((p.seq, p.ts), (0, 0));
        // A real echo of t = 0, through a receiver.
        let mut r = crate::Receiver::new(0, p.len, crate::AckPolicy::EveryPacket);
        r.handle_data(20 * MILLISECOND, &p);
        let a = r.poll_ack(20 * MILLISECOND).unwrap();
        assert_eq!(a.echoed_ts(), Some(0));
        s.handle_ack(40 * MILLISECOND, &a);
        assert_eq!(s.stats().rtt_samples, 1);
        assert!(s.rtt.has_sample());
        assert_eq!(s.rtt.min_rtt(), 40 * MILLISECOND);
    }

    #[test]
    fn sack_only_probe_only_ack_gives_no_rtt_sample() {
        use dropless_cc::MILLISECOND;
        let mut s = Sender::new(SenderConfig::default(), fixed(4.0), 0);
        let p: Vec<DataPacket> = std::iter::from_fn(|| s.poll_transmit(0)).collect();
        assert_eq!(p.len(), 4);
        assert!(p
            .iter()
            .all(|p| p.ts == 0 && !p.flags.contains(PacketFlags::ACK_REQUEST)));
        let mut r = crate::Receiver::new(0, p[0].len, crate::AckPolicy::ProbeOnly);
        // 0 arrives (no ACK requested: none sent), 1 is lost, 2 opens a SACK range.
        r.handle_data(20 * MILLISECOND, &p[0]);
        assert!(r.poll_ack(20 * MILLISECOND).is_none());
        r.handle_data(21 * MILLISECOND, &p[2]);
        let a = r.poll_ack(21 * MILLISECOND).unwrap();
        assert_eq!((a.cum_ack, a.sack_blocks()), (1, &[(2, 3)][..]));
        assert_eq!(a.ts_echo, crate::NO_ECHO);
        s.handle_ack(41 * MILLISECOND, &a);
        // Delivery is credited, but no RTT sample is taken.
        assert_eq!(s.stats().packets_delivered, 2);
        assert_eq!(s.stats().rtt_samples, 0);
        assert!(!s.rtt.has_sample());
        // A default ACK echoes nothing either.
        assert_eq!(AckPacket::default().echoed_ts(), None);
    }

    #[test]
    fn finite_transfer_sets_fin_and_completes() {
        let cfg = SenderConfig {
            mss: 1000,
            total_bytes: Some(2500),
            ..Default::default()
        };
        let mut s = Sender::new(cfg, fixed(10.0), 0);
        let p: Vec<DataPacket> = std::iter::from_fn(|| s.poll_transmit(0)).collect();
        assert_eq!(p.len(), 3);
        assert_eq!(p[2].len, 500);
        assert!(p[2].flags.contains(PacketFlags::FIN));
        assert!(!s.is_done());
        s.handle_ack(5, &ack(3, &[], 2, 0));
        assert!(s.is_done());
        assert_eq!(s.stats().bytes_acked, 2500);
    }

    #[test]
    fn finish_ends_an_unlimited_stream_with_an_empty_fin_and_still_repairs_losses() {
        let cfg = SenderConfig {
            mss: 1000,
            ..Default::default()
        };
        let mut s = Sender::new(cfg, fixed(10.0), 0);
        let first: Vec<DataPacket> = (0..4).map(|_| s.poll_transmit(0).unwrap()).collect();
        assert!(s.finish());
        assert!(!s.finish(), "a second finish is a no-op");
        // Window room for six more, but only the empty FIN leaves.
        let rest: Vec<DataPacket> = std::iter::from_fn(|| s.poll_transmit(0)).collect();
        assert_eq!(rest.len(), 1);
        let fin = rest[0];
        assert_eq!((fin.seq, fin.len), (4, 0));
        assert!(fin.flags.contains(PacketFlags::FIN));
        assert!(first.iter().all(|p| !p.flags.contains(PacketFlags::FIN)));

        // Packet 1 is lost: the real receiver gets 0, 2, 3 and the FIN.
        let mut r = crate::Receiver::new(0, 1000, crate::AckPolicy::EveryPacket);
        let mut t = 10;
        for p in [&first[0], &first[2], &first[3], &fin] {
            r.handle_data(t, p);
            let a = r.poll_ack(t).unwrap();
            s.handle_ack(t + 10, &a);
            t += 1;
        }
        assert!(!r.is_complete() && !s.is_done());
        let rtx = s.poll_transmit(t + 10).expect("the lost packet is resent");
        assert_eq!((rtx.seq, rtx.len), (1, 1000));
        assert!(
            s.poll_transmit(t + 10).is_none(),
            "no new data after finish"
        );
        r.handle_data(t + 20, &rtx);
        s.handle_ack(t + 30, &r.poll_ack(t + 20).unwrap());
        assert!(r.is_complete());
        assert_eq!(r.rcv_nxt(), 5);
        assert!(s.is_done());
        assert_eq!(s.stats().bytes_acked, 4000);

        // A finite transfer cannot be finished early.
        let cfg = SenderConfig {
            total_bytes: Some(5000),
            ..Default::default()
        };
        assert!(!Sender::new(cfg, fixed(10.0), 0).finish());
    }

    #[test]
    fn pacing_spaces_packets() {
        let c = Box::new(Fixed {
            w: 100.0,
            rate: Some(1500.0 * 1000.0), // 1000 packets/s of 1500 wire bytes
            burst: None,
            events: 0,
            rtos: 0,
        });
        let cfg = SenderConfig {
            mss: 1460,
            header: 40,
            ..Default::default()
        };
        let mut s = Sender::new(cfg, c, 0);
        assert!(s.poll_transmit(0).is_some());
        assert!(s.poll_transmit(0).is_none());
        assert_eq!(s.poll_timeout(), Some(MILLISECOND));
        assert!(s.poll_transmit(MILLISECOND).is_some());
    }
}

#[cfg(test)]
mod head_retransmit_rto_tests {
    use super::tests::ack;
    use super::*;

    struct Window(f64);
    impl Controller for Window {
        fn name(&self) -> &'static str {
            "window"
        }
        fn control(&self) -> Control {
            Control {
                cwnd: Some(self.0),
                ..Control::default()
            }
        }
        fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
        fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {}
        fn on_rto(&mut self, _now: Time) {}
    }

    fn sack_ack(cum: u64, s: u64, e: u64, echo: u64, ts: Time) -> AckPacket {
        let mut a = AckPacket {
            cum_ack: cum,
            echo_seq: echo,
            ts_echo: ts,
            ..Default::default()
        };
        a.sack[0] = (s, e);
        a.n_sack = 1;
        a
    }

    /// A sparse-ACK flow: packet 0 is lost, one SACK reports 1..10; the
    /// retransmission of the head restarts the RTO only when asked to.
    #[test]
    fn head_retransmission_restarts_the_rto_when_configured() {
        for restart in [false, true] {
            let cfg = SenderConfig {
                initial_rto: SECOND,
                rto_restart_on_head_retransmit: restart,
                ..Default::default()
            };
            let mut s = Sender::new(cfg, Box::new(Window(100.0)), 0);
            for _ in 0..10 {
                s.poll_transmit(0).unwrap();
            }
            assert_eq!(s.poll_timeout(), Some(SECOND));
            s.handle_ack(500 * MILLISECOND, &sack_ack(0, 1, 10, 9, 1));
            assert_eq!(s.stats().packets_lost, 1);
            let p = s.poll_transmit(600 * MILLISECOND).unwrap();
            assert_eq!(p.seq, 0);
            let rto = s.rtt().rto();
            let expect = if restart {
                600 * MILLISECOND + rto
            } else {
                SECOND
            };
            assert_eq!(s.poll_timeout(), Some(expect), "restart={restart}");
        }
    }

    /// Shares what the controller saw with the test.
    #[derive(Default)]
    struct Seen {
        events: std::sync::atomic::AtomicU32,
        last_in_recovery: std::sync::atomic::AtomicBool,
        /// The last RTT sample the controller was given (0: none).
        last_rtt: std::sync::atomic::AtomicU64,
    }
    struct Recorder(std::sync::Arc<Seen>, f64);
    impl Controller for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn control(&self) -> Control {
            Control {
                cwnd: Some(self.1),
                ..Default::default()
            }
        }
        fn on_ack(&mut self, _now: Time, ack: &AckSample) {
            self.0
                .last_in_recovery
                .store(ack.in_recovery, std::sync::atomic::Ordering::Relaxed);
            if let Some(r) = ack.rtt {
                self.0
                    .last_rtt
                    .store(r, std::sync::atomic::Ordering::Relaxed);
            }
        }
        fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
            self.0
                .events
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        fn on_rto(&mut self, _now: Time) {}
    }

    #[test]
    fn the_controller_sample_leaves_out_the_receivers_ack_delay() {
        // A delayed-ACK receiver (every 2nd packet or 40 ms): an odd packet
        // out is acknowledged by the timer, and its echo's round trip holds
        // the 40-ms wait. The controller gets the round trip without it (RFC
        // 9002 §5.3); the retransmission timer's estimate keeps it.
        use dropless_cc::MILLISECOND;
        use std::sync::atomic::Ordering::Relaxed;
        let seen = std::sync::Arc::new(Seen::default());
        let mut s = Sender::new(
            SenderConfig::default(),
            Box::new(Recorder(seen.clone(), 10.0)),
            0,
        );
        let mut r = crate::Receiver::new(0, 1460, crate::AckPolicy::DELAYED);
        let one_way = 40 * MILLISECOND;
        // Two packets: the second is acknowledged on arrival.
        let p: Vec<DataPacket> = (0..2).map(|_| s.poll_transmit(0).unwrap()).collect();
        for q in &p {
            r.handle_data(one_way, q);
        }
        let a = r.poll_ack(one_way).unwrap();
        assert_eq!(a.ack_delay, 0);
        s.handle_ack(2 * one_way, &a);
        assert_eq!(seen.last_rtt.load(Relaxed), 80 * MILLISECOND);
        // A third alone: the timer sends its ACK 40 ms after it arrived.
        let t0 = 100 * MILLISECOND;
        let q = s.poll_transmit(t0).unwrap();
        r.handle_data(t0 + one_way, &q);
        assert!(r.poll_ack(t0 + one_way).is_none());
        let fire = r.poll_timeout().unwrap();
        assert_eq!(fire, t0 + one_way + 40 * MILLISECOND);
        r.handle_timeout(fire);
        let a = r.poll_ack(fire).unwrap();
        assert_eq!(a.ack_delay, 40 * MILLISECOND);
        s.handle_ack(fire + one_way, &a);
        assert_eq!(seen.last_rtt.load(Relaxed), 80 * MILLISECOND);
        assert_eq!(s.stats().rtt_samples, 2);
        assert!(
            s.rtt.srtt() > 80 * MILLISECOND,
            "the timer's estimate keeps the hold"
        );
        // A reported hold larger than the sample's margin above the minimum
        // leaves the minimum, not less.
        let t1 = 300 * MILLISECOND;
        let q = s.poll_transmit(t1).unwrap();
        r.handle_data(t1 + one_way, &q);
        r.handle_timeout(t1 + one_way + 40 * MILLISECOND);
        let mut a = r.poll_ack(t1 + one_way + 40 * MILLISECOND).unwrap();
        a.ack_delay = 70 * MILLISECOND;
        s.handle_ack(t1 + 2 * one_way + 40 * MILLISECOND, &a);
        assert_eq!(seen.last_rtt.load(Relaxed), 80 * MILLISECOND);
    }

    #[test]
    fn after_a_timeout_slow_start_runs_and_new_losses_are_new_events() {
        use std::sync::atomic::Ordering::Relaxed;
        let seen = std::sync::Arc::new(Seen::default());
        let mut s = Sender::new(
            SenderConfig::default(),
            Box::new(Recorder(seen.clone(), 10.0)),
            0,
        );
        for _ in 0..10 {
            s.poll_transmit(0).unwrap();
        }
        s.handle_timeout(SECOND); // everything presumed lost
        let resent: Vec<u64> =
            std::iter::from_fn(|| s.poll_transmit(SECOND).map(|p| p.seq)).collect();
        assert_eq!(resent.len(), 10);
        // Packet 0 arrives: the controller is not told "in recovery", so a
        // window controller may slow-start while the rest is resent.
        s.handle_ack(SECOND + 100, &ack(1, &[], 0, SECOND));
        assert!(
            s.in_recovery(),
            "events still suppressed below the recovery point"
        );
        assert!(!seen.last_in_recovery.load(Relaxed));
        assert_eq!(seen.events.load(Relaxed), 0, "the timeout itself is on_rto");
        // Packet 1's retransmission (sent after the timeout) is lost: 2..=4
        // arrive. That is new congestion: a congestion event, although the
        // recovery point (10) has not been reached.
        s.handle_ack(SECOND + 200, &ack(1, &[(2, 5)], 4, SECOND));
        assert_eq!(s.stats().packets_lost, 10 + 1);
        assert_eq!(seen.events.load(Relaxed), 1);
        // ... which cuts the window but leaves it free to grow while the rest
        // of the lost window is resent.
        assert!(!seen.last_in_recovery.load(Relaxed));
        // A second loss of a packet sent before that new event is the same
        // congestion: no further event.
        s.handle_ack(SECOND + 300, &ack(1, &[(2, 6)], 5, SECOND));
        assert_eq!(s.stats().packets_lost, 10 + 1, "5 arrived");
        assert_eq!(seen.events.load(Relaxed), 1);
    }
}
