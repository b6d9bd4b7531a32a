//! Congestion controllers for dropless, written as pure state machines.
//!
//! A controller never reads a clock and never touches a socket: the transport
//! endpoint (see `dropless-transport`) hands it time and measurements, and reads
//! back its [`Control`] decision — a congestion window, a pacing rate and a
//! maximum burst, each optional — plus per-packet flag requests and a timer.
//! The same controller object therefore runs unchanged in the packet-level
//! simulator and over real UDP sockets.
//!
//! # How each protocol family maps onto the interface
//!
//! | family | `cwnd` | `pacing_rate` | `max_burst` | other hooks |
//! |---|---|---|---|---|
//! | window, loss-based (NewReno, HighSpeed, Scalable, BIC, CUBIC) | yes | none (ACK clocked) or cwnd/RTT when paced | none | `on_congestion_event` halves / scales |
//! | DCTCP (RFC 8257) | yes | none | none | `ecn_ce` in [`AckSample`] for the marked fraction; a CE event cuts by `alpha/2` |
//! | ACWAP (seed 004) around HighSpeed, Scalable or BIC | the inner window, with `a(w) = 1` near `RTT_max` | cwnd/`R_C` | none | [`acwap::IncreaseOverride`] on the inner controller |
//! | delay-based (Vegas, FAST) | yes | optional | none | RTT samples in [`AckSample`]; FAST's periodic update is driven by ACK arrivals and time |
//! | rate-based (TCP-Madison, seed 002) | a cap (or 0 to quiesce) | the computed `S_target` | 1 | [`PacketFlags::ACK_REQUEST`] probes and [`PacketFlags::PAIR`] pairs from [`Controller::on_send`]; `pair_dispersion` in [`AckSample`]; a timer for probe spacing and quiescing |
//! | open-loop (constant rate) | none | fixed | fixed | none: the stream of seed 001's MBS figures |
//! | model-based (BBR v1) | 2 x BtlBw x RTprop (4 in ProbeRTT) | gain x BtlBw | a TSO burst (1 ms of data, at most 64 KB) | delivery-rate samples ([`AckSample::delivery_interval`]); loss only trims the window |
//! | burst-paced (packet-drop avoidance, seeds 000/001) | a cap | average rate = burst/gap | the MBS | dispersion and RTT trend in [`AckSample`]; loss ignored for rate |
//!
//! Units: windows in packets (the seeds all reason in packets; the transport
//! sends fixed-size segments of `mss` bytes), rates in bytes per second, time in
//! integer nanoseconds ([`Time`]).

#![warn(missing_docs)]

pub mod acwap;
pub mod adpm;
pub mod avail_search;
pub mod bbr;
pub mod bic;
pub mod constant_rate;
pub mod cubic;
pub mod dctcp;
pub mod estimator;
pub mod fast;
pub mod fast_start;
pub mod highspeed;
pub mod hystart;
pub mod hystart_pp;
pub mod madison;
pub mod maxnet;
pub mod newreno;
pub mod paced;
pub mod pda;
pub mod pda_share;
pub mod pda_shuffle;
pub mod price_map;
pub mod price_source;
pub mod rcp;
pub mod registry;
pub mod scalable;
pub mod vegas;

/// Simulated or wall-clock time in nanoseconds since an arbitrary origin.
pub type Time = u64;

/// One second in [`Time`] units.
pub const SECOND: Time = 1_000_000_000;
/// One millisecond in [`Time`] units.
pub const MILLISECOND: Time = 1_000_000;
/// One microsecond in [`Time`] units.
pub const MICROSECOND: Time = 1_000;

/// Converts a duration in nanoseconds to seconds.
#[inline]
pub fn secs(t: Time) -> f64 {
    t as f64 * 1e-9
}

/// Converts seconds to nanoseconds, rounding to the nearest nanosecond.
#[inline]
pub fn from_secs(s: f64) -> Time {
    (s * 1e9).round().max(0.0) as Time
}

/// What a controller wants the transport to do now.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Control {
    /// Congestion window in packets. `None` means "not window limited"
    /// (a pure rate controller); the transport then applies only its
    /// receive-window / buffer cap.
    pub cwnd: Option<f64>,
    /// Pacing rate in bytes per second. `None` means "send as soon as the
    /// window allows" (ACK clocking).
    pub pacing_rate: Option<f64>,
    /// Largest number of packets that may leave back to back when pacing.
    /// Packets leave in trains of this size, separated by gaps so that the
    /// average rate equals `pacing_rate`. `None` means 1.
    pub max_burst: Option<u32>,
}

/// Flags a controller may ask for on an outgoing data packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PacketFlags(pub u8);

impl PacketFlags {
    /// No flags.
    pub const NONE: PacketFlags = PacketFlags(0);
    /// Ask the receiver to acknowledge this packet (TCP-Madison's probe bit).
    pub const ACK_REQUEST: PacketFlags = PacketFlags(1);
    /// This packet and the next one leave back to back (a packet pair); the
    /// receiver reports their arrival dispersion.
    pub const PAIR: PacketFlags = PacketFlags(2);
    /// Set by the transport on the second packet of a pair.
    pub const PAIR_SECOND: PacketFlags = PacketFlags(4);
    /// Set by the transport on the last packet of a finite transfer.
    pub const FIN: PacketFlags = PacketFlags(8);

    /// True if every flag in `other` is set.
    #[inline]
    pub fn contains(self, other: PacketFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// Union of two flag sets.
    #[inline]
    pub fn union(self, other: PacketFlags) -> PacketFlags {
        PacketFlags(self.0 | other.0)
    }
}

impl std::ops::BitOr for PacketFlags {
    type Output = PacketFlags;
    fn bitor(self, rhs: PacketFlags) -> PacketFlags {
        self.union(rhs)
    }
}

/// What the transport tells a controller about each acknowledgement that
/// carried new information.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// Round-trip time measured from the echoed send timestamp of the packet
    /// that triggered this ACK (`None` if the ACK carried no usable echo).
    pub rtt: Option<Time>,
    /// Smallest RTT the transport has seen on this connection.
    pub min_rtt: Time,
    /// Smoothed RTT (RFC 6298 SRTT).
    pub srtt: Time,
    /// Packets newly acknowledged (cumulatively or selectively) by this ACK.
    pub newly_acked: u32,
    /// Bytes newly acknowledged by this ACK.
    pub newly_acked_bytes: u64,
    /// Packets newly declared lost while processing this ACK.
    pub newly_lost: u32,
    /// Total packets delivered on this connection so far.
    pub delivered: u64,
    /// Total packets the connection had delivered when the acknowledged
    /// packet was sent (for delivery-rate samples).
    pub delivered_at_send: u64,
    /// Delivery-rate interval of this ACK (Linux tcp_rate.c): the longer of
    /// the acknowledged transmission's send interval and ACK interval, so
    /// that `(delivered - delivered_at_send) / delivery_interval` is the
    /// delivery rate in packets per nanosecond. 0 when the ACK gives no
    /// sample (nothing newly delivered, no echo, or an interval below the
    /// minimum RTT), and always 0 for a controller whose
    /// [`Controller::wants_delivery_rate`] is false.
    pub delivery_interval: Time,
    /// Packets in flight when the acknowledged packet was sent (FAST's
    /// "window one RTT ago", ns-2 `avg_cwnd_last_RTT_`).
    pub in_flight_at_send: u32,
    /// Packets in flight after processing this ACK.
    pub in_flight: u32,
    /// Newly echoed ECN congestion-experienced marks.
    pub ecn_ce: u32,
    /// The acknowledged packet carried [`PacketFlags::ACK_REQUEST`].
    pub was_probe: bool,
    /// Arrival dispersion of a packet pair measured at the receiver.
    pub pair_dispersion: Option<Time>,
    /// The path's explicit price, decoded by the receiver from the
    /// network's marks ([`adpm`]) and echoed in the ACK, as ADPM's 16-bit
    /// code ([`adpm::NO_PRICE`] when the receiver reports none: it does for
    /// a controller that asks, [`Controller::wants_price`]).
    /// [`AckSample::price`] reads it as a number in [0, 1). A code, not a
    /// float, so that the transport only copies it (case A of `dropless
    /// bench`, docs/performance.md).
    pub price_code: u16,
    /// Size in bytes of the packets of the pair (for capacity = size/dispersion).
    pub pair_bytes: u32,
    /// The connection is in loss recovery.
    pub in_recovery: bool,
    /// The sender had nothing to send when the acknowledged packet left
    /// (rate samples from it understate the path).
    pub app_limited: bool,
}

impl Default for AckSample {
    /// All zero, no price.
    fn default() -> Self {
        AckSample {
            rtt: None,
            min_rtt: 0,
            srtt: 0,
            newly_acked: 0,
            newly_acked_bytes: 0,
            newly_lost: 0,
            delivered: 0,
            delivered_at_send: 0,
            delivery_interval: 0,
            in_flight_at_send: 0,
            in_flight: 0,
            ecn_ce: 0,
            was_probe: false,
            pair_dispersion: None,
            price_code: adpm::NO_PRICE,
            pair_bytes: 0,
            in_recovery: false,
            app_limited: false,
        }
    }
}

impl AckSample {
    /// The decoded path price in [0, 1), if the ACK reported one.
    pub fn price(&self) -> Option<f64> {
        (self.price_code != adpm::NO_PRICE).then(|| f64::from(self.price_code) / adpm::PRICE_SCALE)
    }
}

/// What caused a congestion event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionCause {
    /// One or more packets were declared lost.
    Loss,
    /// The receiver echoed ECN congestion-experienced marks.
    Ecn,
}

/// A congestion event: raised at most once per window of data (one loss
/// recovery episode, RFC 6582 / RFC 3168 "once per RTT").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionEvent {
    /// Loss or ECN.
    pub cause: CongestionCause,
    /// Packets declared lost when the event started (more may follow during
    /// recovery; they arrive as `AckSample::newly_lost`).
    pub lost: u32,
    /// Packets in flight when the event was detected (before removing the lost).
    pub in_flight: u32,
    /// Smoothed RTT at the event.
    pub srtt: Time,
    /// Smallest RTT seen.
    pub min_rtt: Time,
}

/// Fixed facts about the connection a controller is built for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConnInfo {
    /// Payload bytes per full-size packet.
    pub mss: u32,
    /// Bytes a full-size packet occupies on the wire (payload + headers).
    pub wire_size: u32,
    /// Seed for any randomness the controller needs (e.g. Madison's
    /// exponential probe spacing), derived deterministically per flow.
    pub seed: u64,
}

impl Default for ConnInfo {
    fn default() -> Self {
        ConnInfo {
            mss: 1460,
            wire_size: 1500,
            seed: 0,
        }
    }
}

/// A congestion controller: a pure state machine.
///
/// Call order used by the transport for each ACK: [`Controller::on_congestion_event`]
/// (if this ACK starts a new event), then [`Controller::on_ack`]; after any call
/// the transport re-reads [`Controller::control`] and [`Controller::timer`].
pub trait Controller: Send {
    /// Short name, as used in scenario files (`"newreno"`, `"fast"`, ...).
    fn name(&self) -> &'static str;

    /// The current decision.
    fn control(&self) -> Control;

    /// An acknowledgement carried new information.
    fn on_ack(&mut self, now: Time, ack: &AckSample);

    /// A new congestion event started (once per recovery episode).
    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent);

    /// Loss recovery that started with a congestion event has ended
    /// (the cumulative ACK passed the recovery point).
    fn on_recovery_end(&mut self, _now: Time) {}

    /// The retransmission timer expired (RFC 6298); the transport has marked
    /// all unacknowledged packets lost.
    fn on_rto(&mut self, now: Time);

    /// A data packet is about to leave. `seq` is its packet number and
    /// `retransmit` whether it was sent before. Returns the flags to set.
    fn on_send(
        &mut self,
        _now: Time,
        _seq: u64,
        _retransmit: bool,
        _in_flight: u32,
    ) -> PacketFlags {
        PacketFlags::NONE
    }

    /// When the controller next wants [`Controller::on_timer`] called, if ever.
    fn timer(&self) -> Option<Time> {
        None
    }

    /// The controller's timer fired.
    fn on_timer(&mut self, _now: Time) {}

    /// Named internal variables for traces (e.g. `("alpha", 200.0)`), written
    /// into `out`; the default reports nothing.
    fn trace_vars(&self, _out: &mut Vec<(&'static str, f64)>) {}

    /// Whether this controller reads delivery-rate samples
    /// ([`AckSample::delivery_interval`]). The transport keeps the per-packet
    /// state behind them only for controllers that do (false by default), so
    /// that the others pay nothing for it on the hot path.
    fn wants_delivery_rate(&self) -> bool {
        false
    }

    /// Whether this controller is driven by an explicit path price
    /// ([`AckSample::price`]). For one that is, the transport sends its
    /// packets as ADPM-capable (ECN codepoint 01, [`adpm::UNMARKED`]), the
    /// network's price-computing links mark them against the probe type of
    /// their packet number ([`adpm::threshold`]), and the receiver decodes
    /// the marks and echoes its estimate in every ACK (false by default:
    /// the others send as before).
    fn wants_price(&self) -> bool {
        false
    }
}

/// Slow-start threshold helper shared by the loss-based controllers:
/// half the flight, at least 2 packets (RFC 5681 eq. (4)).
#[inline]
pub fn half_flight(in_flight: u32) -> f64 {
    (in_flight as f64 / 2.0).max(2.0)
}
