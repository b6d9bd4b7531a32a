//! The discrete-event engine.
//!
//! Design (after htsim): integer-nanosecond time; a binary heap of small
//! events ordered by (time, insertion number) so ties break
//! deterministically. A link is a FIFO server, so when it accepts a packet
//! the packet's service start, end of transmission and arrival at the far
//! end are already known: the packet goes straight into the link's FIFO
//! "pipe" with its arrival time, and only the pipe's head is scheduled. The
//! queue length needed for drop decisions and statistics is advanced lazily
//! from the recorded service start times. The event queue therefore holds
//! O(links + flows) entries however many packets are in flight, and each
//! data packet costs one event per link plus one for its ACK. ACKs return
//! over an un-queued per-flow delay line, also a FIFO with only its head
//! scheduled. Packets are small `Copy` structs moved between ring buffers
//! that keep their capacity, so the steady state allocates nothing per
//! packet.

use std::collections::VecDeque;

use dropless_cc::{registry, ConnInfo, Time};
use dropless_transport::host_pacer::{HostPacer, PacingSum};
use dropless_transport::{AckPacket, DataPacket, Ecn, Receiver, Sender, SenderConfig};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::codel::Codel;
use crate::config::{Buffer, LinkSpec, QueueKind, SimConfig, Ties, Topology};
use crate::interarrival::Interarrivals;
use crate::link_price::LinkPrice;
use crate::maxnet_price::MaxnetPrice;
use crate::metrics::{self, FlowSeries, LinkSeries, Series, SimResult};
use crate::pie::Pie;
use crate::queue::EventQueue;
use crate::rcp_price::RcpPrice;
use crate::red::{Red, Verdict as RedVerdict};
use crate::rem::Rem;
use crate::step_mark::StepMark;
use crate::ties::TieCoin;
use crate::traffic::CrossSource;
use crate::trunk::Channels;
use dropless_cc::adpm;

/// Most links one flow may cross (access link included).
pub const MAX_HOPS: usize = 16;

/// Why a configuration could not be simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct SimError {
    /// Where the problem is, as a field path (`flows[2].rtt`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SimError {}

fn err(field: impl Into<String>, message: impl Into<String>) -> SimError {
    SimError {
        field: field.into(),
        message: message.into(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    PipeArrive = 1,
    FlowWake = 2,
    AckArrive = 3,
    Cross = 4,
    Sample = 5,
    DelayedSend = 6,
    HostWake = 7,
}

/// Bits of an event's index (link, flow or source); the kind takes 3 more
/// bits of the event queue's 24-bit payload.
const ID_BITS: u32 = 21;
/// Most links, flows or cross-traffic sources one simulation may hold.
pub const MAX_OBJECTS: usize = 1 << ID_BITS;

impl Kind {
    #[inline]
    fn from_u8(k: u8) -> Kind {
        match k {
            1 => Kind::PipeArrive,
            2 => Kind::FlowWake,
            3 => Kind::AckArrive,
            4 => Kind::Cross,
            6 => Kind::DelayedSend,
            7 => Kind::HostWake,
            _ => Kind::Sample,
        }
    }
}

/// A packet inside the simulator.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SimPacket {
    pub flow: u32,
    pub hop: u8,
    pub cross: bool,
    pub wire: u32,
    pub data: DataPacket,
}

/// A link's queue discipline, with the sojourn times of the packets it let
/// into the buffer (kept for CoDel, PIE and step marking).
pub(crate) struct AqmState {
    pub kind: Aqm,
    /// Largest packet of the run, bytes (PIE's MTU).
    pub mtu: u32,
    /// Sum of the sojourn times (arrival to service start) of the packets
    /// queued, ns.
    pub sojourn_sum: f64,
    /// Packets queued.
    pub queued: u64,
}

/// The disciplines that decide at arrival from the lazily kept queue.
pub(crate) enum Aqm {
    Red(Red),
    Codel(Codel),
    Pie(Pie),
    Step(StepMark),
    Rem(Rem),
}

impl AqmState {
    /// Early drops and CE marks so far.
    pub fn drops_marks(&self) -> (u64, u64) {
        match &self.kind {
            Aqm::Red(r) => (r.early_drops + r.forced_drops, r.marks),
            Aqm::Codel(c) => (c.drops, c.marks),
            Aqm::Pie(p) => (p.drops, p.marks),
            Aqm::Step(s) => (s.drops, s.marks),
            Aqm::Rem(r) => (r.drops, r.marks),
        }
    }

    /// Mean sojourn of the packets queued, seconds (NaN before any); `None`
    /// for RED.
    pub fn mean_sojourn_s(&self) -> Option<f64> {
        (!matches!(self.kind, Aqm::Red(_))).then(|| self.sojourn_sum / self.queued as f64 / 1e9)
    }

    /// RED's state, if the discipline is RED.
    pub fn red(&self) -> Option<&Red> {
        match &self.kind {
            Aqm::Red(r) => Some(r),
            _ => None,
        }
    }
}

/// One accepted packet's service times, kept until it has been transmitted.
#[derive(Clone, Copy, Debug)]
struct Service {
    start: Time,
    finish: Time,
    bytes: u32,
}

pub(crate) struct Link {
    pub ns_per_byte: f64,
    pub delay: Time,
    pub limit_pkts: u64,
    pub limit_bytes: u64,
    pub loss: f64,
    /// Random loss or a queue discipline: arrivals take the slow path.
    pub slow_in: bool,
    /// The queue discipline (RED, CoDel, PIE, step marking), if the link
    /// runs one (one field for all: a drop-tail link stays as small as it
    /// was, which case A of `dropless bench` measures).
    pub aqm: Option<Box<AqmState>>,
    /// The explicit price the link computes and marks, if any.
    pub price: Option<Box<LinkPrice>>,
    /// The channels of a multi-channel link (a DWDM trunk, [`crate::trunk`]);
    /// `None` for a single channel.
    pub channels: Option<Box<Channels>>,
    /// Intervals between arrivals, if the link records them (opt-in; the
    /// link then takes the slow arrival path).
    pub arrivals: Option<Box<Interarrivals>>,
    /// The coin of the random tie rule, if the link runs it ([`crate::ties`];
    /// the link then takes the slow arrival path). `None`: departure first.
    pub ties: Option<Box<TieCoin>>,
    /// Accepted packets not yet fully transmitted, in FIFO order.
    service: VecDeque<Service>,
    /// Index in `service` of the first packet whose service has not started.
    first_waiting: usize,
    /// End of transmission of the last accepted packet.
    busy_until: Time,
    /// Bytes waiting (service not started).
    pub q_bytes: u64,
    /// Packets propagating or waiting, with their arrival time at the far end.
    pub pipe: VecDeque<(Time, SimPacket)>,
    // statistics
    pub drops: u64,
    pub random_drops: u64,
    pub departed_pkts: u64,
    pub departed_bytes: u64,
    /// Integral of the number of waiting packets over time (packet·ns).
    pub area: f64,
    pub last_change: Time,
    pub max_q: u64,
    /// Open-loop cross-traffic bytes accepted.
    pub cross_bytes: u64,
    /// `cross_bytes` at the previous sample.
    pub cross_mark: u64,
    /// Size of the last packet timed, bytes, and its transmission time:
    /// most packets of a link have one size, and rounding a product costs
    /// a call.
    tx_bytes: u32,
    tx_ns: Time,
}

impl Link {
    fn new(rate_bps: f64, delay: Time, buffer: Buffer, loss: f64) -> Self {
        let (limit_pkts, limit_bytes) = match buffer {
            Buffer::Packets(p) => (p, u64::MAX),
            Buffer::Bytes(b) => (u64::MAX, b),
        };
        Link {
            ns_per_byte: 8e9 / rate_bps,
            delay,
            limit_pkts,
            limit_bytes,
            loss,
            slow_in: loss > 0.0,
            aqm: None,
            price: None,
            channels: None,
            arrivals: None,
            ties: None,
            service: VecDeque::new(),
            first_waiting: 0,
            busy_until: 0,
            q_bytes: 0,
            pipe: VecDeque::new(),
            drops: 0,
            random_drops: 0,
            departed_pkts: 0,
            departed_bytes: 0,
            area: 0.0,
            last_change: 0,
            max_q: 0,
            cross_bytes: 0,
            cross_mark: 0,
            tx_bytes: 0,
            tx_ns: 0,
        }
    }

    #[inline]
    fn tx_time(&mut self, bytes: u32) -> Time {
        if bytes != self.tx_bytes {
            self.tx_bytes = bytes;
            self.tx_ns = (bytes as f64 * self.ns_per_byte).round() as Time;
        }
        self.tx_ns
    }

    /// Packets waiting for service (not counting the one being transmitted).
    #[inline]
    pub fn waiting(&self) -> u64 {
        (self.service.len() - self.first_waiting) as u64
    }

    /// Brings the lazily kept queue state up to `now`: services that have
    /// started leave the waiting count (integrating it over time), and
    /// finished transmissions count as departed.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        self.advance_inline(now);
    }

    /// [`Link::advance`] inlined into the arrival path (a call there cost
    /// case A a prologue and an epilogue per packet and hop).
    #[inline(always)]
    fn advance_inline(&mut self, now: Time) {
        while self.first_waiting < self.service.len() {
            let s = self.service[self.first_waiting];
            if s.start > now {
                break;
            }
            self.add_area(s.start);
            self.first_waiting += 1;
            self.q_bytes -= s.bytes as u64;
        }
        self.add_area(now);
        while self.first_waiting > 0 {
            let s = self.service[0];
            if s.finish > now {
                break;
            }
            self.service.pop_front();
            self.first_waiting -= 1;
            self.departed_pkts += 1;
            self.departed_bytes += s.bytes as u64;
        }
    }

    /// Adds the waiting packets' time up to `t` to [`Link::area`]. Nothing
    /// waits on an idle link, and adding `0.0` to a finite non-negative
    /// sum leaves it unchanged, so skipping that case changes no result.
    /// Both factors go through `i64` (one instruction, where `u64` to `f64`
    /// takes a dozen), which rounds every value below 2^63 as `u64` would.
    #[inline(always)]
    fn add_area(&mut self, t: Time) {
        let w = self.waiting();
        if w != 0 {
            self.area += w as i64 as f64 * (t - self.last_change) as i64 as f64;
        }
        self.last_change = t;
    }

    /// Offers a packet at `now`. Returns its arrival time at the far end, or
    /// `None` if the buffer is full.
    #[inline]
    fn accept(&mut self, now: Time, p: &SimPacket) -> Option<Time> {
        self.accept_at(now, now, p)
    }

    /// [`Link::accept`] with the queue seen as of `view`: `now` normally,
    /// `now - 1` when a tie is ordered arrival first ([`crate::ties`]), so
    /// that a service starting at `now` still waits and a channel freeing
    /// at `now` is still busy.
    #[inline(always)]
    fn accept_at(&mut self, now: Time, view: Time, p: &SimPacket) -> Option<Time> {
        self.advance_inline(view);
        let idle = self.busy_until <= view;
        if !idle
            && (self.waiting() >= self.limit_pkts
                || self.q_bytes + p.wire as u64 > self.limit_bytes)
        {
            self.drops += 1;
            return None;
        }
        let start = if idle { now } else { self.busy_until };
        let finish = start + self.tx_time(p.wire);
        self.busy_until = finish;
        self.service.push_back(Service {
            start,
            finish,
            bytes: p.wire,
        });
        if idle {
            // Straight into service: never waits.
            self.first_waiting += 1;
        } else {
            self.q_bytes += p.wire as u64;
            self.max_q = self.max_q.max(self.waiting());
        }
        Some(finish + self.delay)
    }

    /// [`Link::accept`] for a link of several channels sharing one FIFO
    /// buffer ([`crate::trunk`]): the packet takes the channel that frees
    /// first; it waits only if none is idle, and is dropped if the buffer
    /// is full then.
    /// `view` as in [`Link::accept_at`].
    #[cold]
    #[inline(never)]
    fn accept_channels(&mut self, now: Time, view: Time, p: &SimPacket) -> Option<Time> {
        self.advance(view);
        let (c, free) = self
            .channels
            .as_deref()
            .expect("a multi-channel link")
            .earliest();
        let idle = free <= view;
        // An idle channel means nothing waits: every earlier packet started
        // no later than the least free time, which is now past.
        if !idle
            && (self.waiting() >= self.limit_pkts
                || self.q_bytes + p.wire as u64
                    > self.channels.as_deref().map_or(0, |c| c.limit_bytes))
        {
            self.drops += 1;
            return None;
        }
        let start = free.max(now);
        let tx = (p.wire as f64 * self.ns_per_byte).round() as Time;
        let finish = self
            .channels
            .as_deref_mut()
            .expect("a multi-channel link")
            .book(c, start, tx);
        self.service.push_back(Service {
            start,
            finish,
            bytes: p.wire,
        });
        if idle {
            self.first_waiting += 1;
        } else {
            self.q_bytes += p.wire as u64;
            self.max_q = self.max_q.max(self.waiting());
        }
        Some(finish + self.delay)
    }

    /// Whether an arrival at `now` ties with a departure from the buffer
    /// ([`crate::ties`]): a waiting packet's service starts at `now`, so a
    /// slot frees then. A channel that frees at `now` with nothing waiting
    /// is no tie: an input link's back-to-back packet arriving as its
    /// predecessor leaves the same channel finds it free (an input at the
    /// channel rate cannot overload a channel by itself), and if another
    /// channel frees at that instant too the departure stays first. Leaves
    /// the queue advanced to `now - 1`.
    #[cold]
    #[inline(never)]
    fn tie_at(&mut self, now: Time) -> bool {
        if now == 0 {
            return false;
        }
        self.advance(now - 1);
        let slot_frees = self
            .service
            .get(self.first_waiting)
            .is_some_and(|s| s.start == now);
        slot_frees
            && self
                .channels
                .as_deref()
                .is_none_or(|c| c.earliest().1 != now)
    }

    /// Packets accepted and not yet fully transmitted (waiting or in service).
    pub fn in_system(&self) -> u64 {
        self.service.len() as u64
    }

    /// Number of channels (1 for an ordinary link).
    pub fn channel_count(&self) -> usize {
        self.channels.as_ref().map_or(1, |c| c.len())
    }
}

/// What travels back to a sender over its un-queued return path.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Returning {
    /// An acknowledgement, arriving at the sender at the entry's time.
    Ack(AckPacket),
    /// A data packet that reaches the receiver at the given time; the
    /// receiver processes it lazily (see [`Flow::lazy_rx`]) and its ACK, if
    /// any, reaches the sender at the entry's time.
    Data(Time, DataPacket),
    /// A data packet already processed whose arrival produced no ACK.
    Nothing,
}

pub(crate) struct Flow {
    pub sender: Sender,
    pub receiver: Receiver,
    pub route: [u32; MAX_HOPS],
    pub route_len: u8,
    pub ack_delay: Time,
    pub ack_pipe: VecDeque<(Time, Returning)>,
    /// The receiver has no timers (every-packet or probe-only ACKs), so its
    /// state depends only on this flow's own data, which reaches it in FIFO
    /// order over a fixed last hop. Its processing can then be deferred to
    /// the moment the ACK reaches the sender, with the true arrival time as
    /// `now`: one event per packet instead of two, and bit-identical results.
    pub lazy_rx: bool,
    /// Leading `ack_pipe` entries whose receiver side is already processed.
    pub rx_done: usize,
    pub wake_at: Time,
    pub start: Time,
    pub stop: Time,
    pub started: bool,
    pub stopped: bool,
    pub finish: Option<Time>,
    pub base_rtt: Time,
    pub last_bytes: u64,
    /// Wire bytes of this flow accepted by the last link of its path.
    pub last_hop_bytes: u64,
    /// `last_hop_bytes` at the previous sample.
    pub last_hop_mark: u64,
    /// Buffer-overflow drops of this flow's packets.
    pub drops: u64,
    /// Shared links crossed: `path.0 ..= path.1`.
    pub path: (usize, usize),
    /// [`crate::FlowSpec::send_jitter`] (0: off).
    pub send_jitter: Time,
    /// A delayed send is scheduled ([`crate::FlowSpec::send_jitter`]).
    pub send_pending: bool,
    /// Draws the send delays; its own stream of the run's seed.
    pub jitter_rng: Pcg64Mcg,
    /// [`crate::FlowSpec::ack_jitter`] (0: off).
    pub ack_jitter: Time,
    /// Draws the return-path delays; its own stream of the run's seed.
    pub ack_jitter_rng: Pcg64Mcg,
    /// The host whose pacer paces this flow ([`NO_HOST`]: its own).
    pub host: u32,
    /// A send jitter or a host pacer: sends take [`Simulation::send_slow`].
    pub slow_send: bool,
}

/// [`Flow::host`] of a flow that paces itself.
pub(crate) const NO_HOST: u32 = u32::MAX;

/// The most packets a flow may have in flight when the scenario does not
/// say (`max_window`): eight times what its path can hold (the slowest
/// link's rate times the RTT, plus every shared buffer on the way), and at
/// least a million; the transport's default (2^24) is the ceiling. A window
/// beyond what the path holds only queues at the flow's own access link,
/// whose buffer is unbounded: a controller parameter such as
/// `initial_cwnd = 1e300` had the sender keep 16 million packets
/// (gigabytes) in flight. The floor keeps every experiment's result as it
/// was (an open-loop stream into a lossy path keeps many lost packets in
/// flight until they are detected).
fn path_window_cap(path: &[LinkSpec], rtt: Time, wire: u32) -> u64 {
    let wire = wire.max(1) as f64;
    let rate = path
        .iter()
        .map(|l| l.rate_bps / 8.0)
        .fold(f64::INFINITY, f64::min);
    let bdp = if rate.is_finite() {
        rate * rtt as f64 * 1e-9 / wire
    } else {
        0.0
    };
    let buffers: f64 = path
        .iter()
        .map(|l| match l.buffer {
            Buffer::Packets(n) => n as f64,
            Buffer::Bytes(b) => b as f64 / wire,
        })
        .sum();
    let cap = (8.0 * (bdp + buffers)).max(1e6);
    let ceiling = SenderConfig::default().max_window;
    if cap.is_finite() && cap < ceiling as f64 {
        cap as u64
    } else {
        ceiling
    }
}

/// One host's shared pacer ([`crate::FlowSpec::host`]).
pub(crate) struct Host {
    /// Its flows, taken in turn.
    pub members: Vec<u32>,
    /// Its pacer, which also takes the members in turn.
    pub pacer: HostPacer,
    /// Time of the pending wake-up (`Time::MAX`: none).
    pub wake_at: Time,
}

impl Flow {
    /// Puts every ACK the receiver owes at `now` on the return path;
    /// returns the arrival time of the first one if the path was empty (the
    /// caller schedules it; otherwise an arrival is already scheduled).
    fn queue_acks(&mut self, now: Time) -> Option<Time> {
        let mut first = None;
        while let Some(a) = self.receiver.poll_ack(now) {
            let t = self.return_time(now + self.ack_delay);
            if self.ack_pipe.is_empty() && first.is_none() {
                first = Some(t);
            }
            self.ack_pipe.push_back((t, Returning::Ack(a)));
        }
        first
    }

    /// When something that starts back at `base` (`now + ack_delay`)
    /// reaches the sender: with [`crate::FlowSpec::ack_jitter`], after a
    /// uniform extra delay, but never before what is ahead of it (the
    /// return path stays first in, first out).
    #[inline]
    fn return_time(&mut self, base: Time) -> Time {
        if self.ack_jitter == 0 {
            return base;
        }
        let t = base + self.ack_jitter_rng.gen_range(0..self.ack_jitter);
        self.ack_pipe.back().map_or(t, |b| t.max(b.0))
    }
}

/// One simulation run. Build it with [`Simulation::new`], then
/// [`Simulation::run`] (or [`Simulation::run_until`] in steps).
pub struct Simulation {
    pub(crate) cfg: SimConfig,
    pub(crate) now: Time,
    events: EventQueue,
    pub(crate) links: Vec<Link>,
    pub(crate) n_shared: usize,
    pub(crate) flows: Vec<Flow>,
    cross: Vec<CrossSource>,
    loss_rng: Pcg64Mcg,
    pub(crate) series: Series,
    pub(crate) events_processed: u64,
    pub(crate) data_packets: u64,
    pub(crate) cross_packets: u64,
    link_series_marks: Vec<(f64, u64)>,
    /// Scratch buffer for controller trace variables (per sample).
    trace_scratch: Vec<(&'static str, f64)>,
    /// Shared host pacers ([`crate::FlowSpec::host`]).
    hosts: Vec<Host>,
}

/// First [`derive_seed`] stream of the flows' send-jitter generators (one
/// per flow), far from the streams of the cross-traffic sources (`1 + i`)
/// and the controllers (`1000 + i`).
const JITTER_STREAM: u64 = 1 << 40;
/// Seed streams of the return-path delays (`ack_jitter`), one per flow.
const ACK_JITTER_STREAM: u64 = 1 << 41;
/// Seed streams of the links' RED decisions, one per link.
const RED_STREAM: u64 = 1 << 42;
/// Seed streams of the links' tie coins ([`crate::ties`]), one per link.
const TIE_STREAM: u64 = 1 << 43;
/// Seed streams of the links' PIE decisions, one per link.
const PIE_STREAM: u64 = 1 << 44;
/// Seed streams of the links' REM decisions, one per link.
const REM_STREAM: u64 = 1 << 45;

/// SplitMix64: derives independent stream seeds from the run seed.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Simulation {
    /// Validates the configuration and builds the network.
    pub fn new(cfg: SimConfig) -> Result<Self, SimError> {
        if cfg.duration == 0 {
            return Err(err("duration", "must be positive"));
        }
        if cfg.flows.len() * 2 + cfg.topology.links().len() + cfg.cross.len() >= MAX_OBJECTS {
            return Err(err(
                "flows",
                format!(
                    "{} flows: at most about {} flows (plus links and sources) per simulation",
                    cfg.flows.len(),
                    MAX_OBJECTS / 2
                ),
            ));
        }
        let shared = cfg.topology.links();
        if shared.is_empty() {
            return Err(err("topology", "needs at least one link"));
        }
        let mut links = Vec::with_capacity(shared.len() + cfg.flows.len());
        for (i, l) in shared.iter().enumerate() {
            let f = |x: &str| format!("topology.links[{i}].{x}");
            if !(l.rate_bps.is_finite() && l.rate_bps > 0.0) {
                return Err(err(
                    f("rate"),
                    format!("must be positive, found {}", l.rate_bps),
                ));
            }
            if !(0.0..1.0).contains(&l.loss) {
                return Err(err(
                    f("loss"),
                    format!("must be in [0, 1), found {}", l.loss),
                ));
            }
            let mut link = Link::new(l.rate_bps, l.delay, l.buffer, l.loss);
            if let Some(from) = l.interarrivals_from {
                link.arrivals = Some(Box::new(Interarrivals::new(from)));
                // Only the slow path records arrivals.
                link.slow_in = true;
            }
            if l.channels == 0 || l.channels as usize > MAX_OBJECTS {
                return Err(err(
                    f("channels"),
                    format!("must be from 1 to {MAX_OBJECTS}, found {}", l.channels),
                ));
            }
            if l.channels > 1 {
                if l.queue != QueueKind::DropTail || l.price != crate::config::PriceKind::None {
                    return Err(err(
                        f("channels"),
                        "a link of several channels runs drop-tail only (no RED, no price)",
                    ));
                }
                link.channels = Some(Box::new(Channels::new(l.channels, link.limit_bytes)));
                // Every arrival takes the slow path, which queues it.
                link.slow_in = true;
            }
            if l.ties == Ties::Random {
                link.ties = Some(Box::new(TieCoin::new(derive_seed(
                    cfg.seed,
                    TIE_STREAM + i as u64,
                ))));
                // Only the slow path orders ties.
                link.slow_in = true;
            }
            // Full-size packets: the largest of the flows' (1500 B
            // without flows).
            let wire = cfg
                .flows
                .iter()
                .map(|f| f.wire_size())
                .max()
                .unwrap_or(1500);
            let aqm = |kind| {
                Some(Box::new(AqmState {
                    kind,
                    mtu: wire,
                    sojourn_sum: 0.0,
                    queued: 0,
                }))
            };
            let checked = |v: Result<(), (&'static str, String)>| {
                v.map_err(|(key, want)| err(f(key), format!("must be {want}")))
            };
            if !matches!(l.queue, QueueKind::DropTail | QueueKind::Red(_)) && l.ties == Ties::Random
            {
                return Err(err(
                    f("queue"),
                    "CoDel, PIE, REM and step marking run on links with the departure-first tie rule only",
                ));
            }
            match l.queue {
                QueueKind::DropTail => {}
                QueueKind::Codel(c) => {
                    checked(c.validate())?;
                    link.aqm = aqm(Aqm::Codel(Codel::new(c)));
                    link.slow_in = true;
                }
                QueueKind::Pie(c) => {
                    checked(c.validate())?;
                    link.aqm = aqm(Aqm::Pie(Pie::new(
                        c,
                        derive_seed(cfg.seed, PIE_STREAM + i as u64),
                    )));
                    link.slow_in = true;
                }
                QueueKind::Step(c) => {
                    checked(c.validate())?;
                    link.aqm = aqm(Aqm::Step(StepMark::new(c)));
                    link.slow_in = true;
                }
                QueueKind::Rem(c) => {
                    checked(c.validate())?;
                    link.aqm = aqm(Aqm::Rem(Rem::new(
                        c,
                        l.rate_bps,
                        wire,
                        derive_seed(cfg.seed, REM_STREAM + i as u64),
                    )));
                    link.slow_in = true;
                }
                QueueKind::Red(rc) => {
                    let pps = l.rate_bps / (8.0 * wire as f64);
                    link.aqm = aqm(Aqm::Red(Red::new(
                        rc,
                        pps,
                        derive_seed(cfg.seed, RED_STREAM + i as u64),
                    )));
                    link.slow_in = true;
                }
            }
            match l.price {
                crate::config::PriceKind::None => {}
                crate::config::PriceKind::Rcp(rc) => {
                    if !(rc.rtt_s > 0.0 && rc.alpha > 0.0 && rc.beta >= 0.0 && rc.interval > 0) {
                        return Err(err(
                            f("price_rtt"),
                            "RCP needs a positive round trip, alpha and interval and a non-negative beta",
                        ));
                    }
                    link.price = Some(Box::new(LinkPrice::Rcp(RcpPrice::new(rc, l.rate_bps))));
                    link.slow_in = true;
                }
                crate::config::PriceKind::Maxnet(mc) => {
                    if let Err(e) = mc.validate() {
                        // "rtt: ..." names the key price_rtt, and so on.
                        let key = e.split(':').next().unwrap_or("rtt");
                        return Err(err(f(&format!("price_{key}")), e));
                    }
                    link.price = Some(Box::new(LinkPrice::Maxnet(MaxnetPrice::new(
                        mc, l.rate_bps,
                    ))));
                    link.slow_in = true;
                }
            }
            links.push(link);
        }
        let n_shared = links.len();
        // A trunk's input links: shared by the flows that enter on them, but
        // not reported (only the trunk is), so they follow the shared links.
        let inputs = match &cfg.topology {
            Topology::Trunk {
                inputs,
                input_rate_bps,
                input_buffer,
                ..
            } => {
                if *inputs == 0 || *inputs as usize > MAX_OBJECTS / 2 {
                    return Err(err(
                        "topology.inputs",
                        format!("must be from 1 to {}, found {inputs}", MAX_OBJECTS / 2),
                    ));
                }
                if !(input_rate_bps.is_finite() && *input_rate_bps > 0.0) {
                    return Err(err(
                        "topology.input_rate",
                        format!("must be positive, found {input_rate_bps}"),
                    ));
                }
                for _ in 0..*inputs {
                    links.push(Link::new(*input_rate_bps, 0, *input_buffer, 0.0));
                }
                *inputs as usize
            }
            _ => 0,
        };
        let access_rate = cfg.topology.access_rate_bps();
        let access_buffer = match &cfg.topology {
            Topology::Trunk {
                access_buffer: Some(b),
                ..
            } => *b,
            _ => Buffer::Packets(u64::MAX),
        };
        let mut flows = Vec::with_capacity(cfg.flows.len());
        let mut hosts: Vec<Host> = Vec::new();
        for (i, fs) in cfg.flows.iter().enumerate() {
            let f = |x: &str| format!("flows[{i}].{x}");
            let (a, b) = fs.path;
            if a > b || b >= n_shared {
                return Err(err(
                    f("path"),
                    format!("links {a}..={b} do not exist (the topology has {n_shared})"),
                ));
            }
            if matches!(cfg.topology, Topology::Dumbbell { .. }) && (a, b) != (0, 0) {
                return Err(err(f("path"), "a dumbbell has one link: use (0, 0)"));
            }
            if inputs > 0 && a != b {
                return Err(err(
                    f("path"),
                    "a trunk flow leaves on one group of channels: use (g, g)",
                ));
            }
            if b - a + 2 > MAX_HOPS {
                return Err(err(f("path"), format!("at most {} links", MAX_HOPS - 1)));
            }
            if fs.mss == 0 {
                return Err(err(f("mss"), "must be positive"));
            }
            let one_way: Time = shared[a..=b].iter().map(|l| l.delay).sum();
            let rtt = fs.rtt.unwrap_or(2 * one_way);
            if rtt < 2 * one_way {
                return Err(err(
                    f("rtt"),
                    format!(
                        "{} s is shorter than twice the path's propagation delay ({} s)",
                        dropless_cc::secs(rtt),
                        dropless_cc::secs(2 * one_way)
                    ),
                ));
            }
            let extra = rtt - 2 * one_way;
            let access_delay = extra / 2;
            let ack_delay = rtt - access_delay - one_way;
            let access = links.len();
            links.push(Link::new(access_rate, access_delay, access_buffer, 0.0));
            let mut route = [0u32; MAX_HOPS];
            route[0] = access as u32;
            // A trunk flow enters on its input link first (flow i on input i mod M).
            let skip = usize::from(inputs > 0);
            if inputs > 0 {
                route[1] = (n_shared + i % inputs) as u32;
            }
            for (k, l) in (a..=b).enumerate() {
                route[k + 1 + skip] = l as u32;
            }
            let info = ConnInfo {
                mss: fs.mss,
                wire_size: fs.wire_size(),
                seed: derive_seed(cfg.seed, 1000 + i as u64),
            };
            let cc = registry::build(&fs.cc, &fs.params, &info)
                .map_err(|e| err(f("cc"), e.to_string()))?;
            if fs.host.is_some() && fs.send_jitter > 0 {
                return Err(err(
                    f("host"),
                    "cannot be combined with send_jitter (the host's pacer times the sends)",
                ));
            }
            let host = match fs.host {
                None => NO_HOST,
                Some(h) => {
                    let h = h as usize;
                    if h >= MAX_OBJECTS {
                        return Err(err(f("host"), format!("below {MAX_OBJECTS}")));
                    }
                    if hosts.len() <= h {
                        hosts.resize_with(h + 1, || Host {
                            members: Vec::new(),
                            pacer: HostPacer::new(),
                            wake_at: Time::MAX,
                        });
                    }
                    hosts[h].members.push(i as u32);
                    h as u32
                }
            };
            let scfg = SenderConfig {
                conn: i as u32,
                host_paced: fs.host.is_some(),
                mss: fs.mss,
                header: fs.header,
                total_bytes: fs.size,
                ecn: fs.ecn,
                min_rto: fs.min_rto,
                initial_rto: fs.initial_rto,
                max_rto: fs.max_rto,
                max_window: fs
                    .max_window
                    .unwrap_or_else(|| path_window_cap(&shared[a..=b], rtt, fs.wire_size())),
                partial_ack_pair: fs.ns2_recovery,
                recovery_pipe_counts_lost: fs.ns2_recovery,
                ns2_lost_retransmission: fs.ns2_recovery,
                ns2_recovery_timer: fs.ns2_recovery,
                prr: fs.prr,
                rack: fs.rack,
                tlp: fs.tlp,
                tlp_max_ack_delay: match fs.ack_policy {
                    dropless_transport::AckPolicy::Delayed { max_delay, .. } => max_delay,
                    _ => 0,
                },
                ..SenderConfig::default()
            };
            if fs.prr && fs.ns2_recovery {
                return Err(err(
                    f("prr"),
                    "cannot be combined with ns2_recovery (PRR applies to the RFC 6675 recovery)",
                ));
            }
            if fs.stop.is_some_and(|s| s <= fs.start) {
                return Err(err(f("stop"), "must be after start"));
            }
            let wants_price = cc.wants_price();
            let mut receiver = Receiver::new(i as u32, fs.mss, fs.ack_policy);
            if wants_price {
                receiver.decode_prices();
            }
            flows.push(Flow {
                sender: Sender::new(scfg, cc, fs.start),
                receiver,
                route,
                route_len: (b - a + 2 + skip) as u8,
                ack_delay,
                ack_pipe: VecDeque::new(),
                lazy_rx: !matches!(fs.ack_policy, dropless_transport::AckPolicy::Delayed { .. }),
                rx_done: 0,
                wake_at: Time::MAX,
                start: fs.start,
                stop: fs.stop.unwrap_or(Time::MAX),
                started: false,
                stopped: false,
                finish: None,
                base_rtt: rtt,
                last_bytes: 0,
                last_hop_bytes: 0,
                last_hop_mark: 0,
                drops: 0,
                path: fs.path,
                send_jitter: fs.send_jitter,
                send_pending: false,
                jitter_rng: Pcg64Mcg::seed_from_u64(derive_seed(
                    cfg.seed,
                    JITTER_STREAM + i as u64,
                )),
                ack_jitter: fs.ack_jitter,
                ack_jitter_rng: Pcg64Mcg::seed_from_u64(derive_seed(
                    cfg.seed,
                    ACK_JITTER_STREAM + i as u64,
                )),
                host,
                slow_send: fs.send_jitter > 0 || fs.host.is_some(),
            });
        }
        let mut cross = Vec::with_capacity(cfg.cross.len());
        for (i, c) in cfg.cross.iter().enumerate() {
            if c.link >= n_shared {
                return Err(err(
                    format!("cross_traffic[{i}].link"),
                    format!(
                        "link {} does not exist (the topology has {n_shared})",
                        c.link
                    ),
                ));
            }
            cross.push(
                CrossSource::new(c, derive_seed(cfg.seed, 1 + i as u64))
                    .map_err(|m| err(format!("cross_traffic[{i}]"), m))?,
            );
        }
        let series = Series {
            flows: if cfg.flow_series {
                (0..flows.len()).map(|_| FlowSeries::default()).collect()
            } else {
                Vec::new()
            },
            links: (0..n_shared).map(|_| LinkSeries::default()).collect(),
            ..Series::default()
        };
        let mut sim = Simulation {
            loss_rng: Pcg64Mcg::seed_from_u64(derive_seed(cfg.seed, 0)),
            cfg,
            now: 0,
            events: EventQueue::new(flows.len()),
            links,
            n_shared,
            flows,
            cross,
            series,
            events_processed: 0,
            data_packets: 0,
            cross_packets: 0,
            link_series_marks: vec![(0.0, 0); n_shared],
            trace_scratch: Vec::new(),
            hosts,
        };
        for i in 0..sim.flows.len() {
            let t = sim.flows[i].start;
            sim.flows[i].wake_at = t;
            sim.push(t, Kind::FlowWake, i as u32);
        }
        for i in 0..sim.cross.len() {
            let t = sim.cross[i].first_time();
            if t < Time::MAX {
                sim.push(t, Kind::Cross, i as u32);
            }
        }
        if sim.cfg.sample_interval > 0 {
            sim.push(sim.cfg.sample_interval, Kind::Sample, 0);
        }
        Ok(sim)
    }

    #[inline]
    fn push(&mut self, time: Time, kind: Kind, id: u32) {
        self.events
            .push(time, ((kind as u64) << ID_BITS) | id as u64);
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events in the queue (stays O(links + flows)).
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Data packets the senders have transmitted so far.
    pub fn data_packets(&self) -> u64 {
        self.data_packets
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }

    /// The sender and receiver of flow `i`, with every arrival up to now
    /// processed (diagnostics: receiver duplicates count spurious
    /// retransmissions).
    pub fn endpoints(&mut self, i: usize) -> (&Sender, &Receiver) {
        let now = self.now;
        let f = &mut self.flows[i];
        Self::materialize(f, now);
        (&f.sender, &f.receiver)
    }

    /// Runs until `t` (capped at the configured duration).
    pub fn run_until(&mut self, t: Time) {
        let t = t.min(self.cfg.duration);
        while let Some((time, payload)) = self.events.pop_until(t) {
            self.now = time;
            self.events_processed += 1;
            let id = (payload & ((1 << ID_BITS) - 1)) as usize;
            match Kind::from_u8((payload >> ID_BITS) as u8) {
                Kind::PipeArrive => self.pipe_arrive(id),
                Kind::FlowWake => self.flow_wake(id, time),
                Kind::AckArrive => self.ack_arrive(id),
                Kind::Cross => self.cross_event(id),
                Kind::Sample => self.sample(),
                Kind::DelayedSend => self.delayed_send(id),
                Kind::HostWake => self.host_wake(id, time),
            }
        }
        self.now = t;
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> SimResult {
        self.run_until(self.cfg.duration);
        self.finish()
    }

    /// Collects results at the current time.
    pub fn finish(mut self) -> SimResult {
        let now = self.now;
        for l in &mut self.links {
            l.advance(now);
        }
        for f in &mut self.flows {
            Self::materialize(f, now);
        }
        metrics::collect(&self)
    }

    fn pipe_arrive(&mut self, l: usize) {
        let now = self.now;
        while let Some(&(t, p)) = self.links[l].pipe.front() {
            if t > now {
                self.push(t, Kind::PipeArrive, l as u32);
                return;
            }
            self.links[l].pipe.pop_front();
            self.forward(p);
        }
    }

    fn forward(&mut self, mut p: SimPacket) {
        if p.cross {
            return; // cross traffic leaves at its sink
        }
        p.hop += 1;
        let f = p.flow as usize;
        let flow = &self.flows[f];
        if (p.hop as usize) < flow.route_len as usize {
            let next = flow.route[p.hop as usize] as usize;
            self.enqueue(next, p);
        } else {
            self.deliver(f, p);
        }
    }

    /// A queue discipline's verdict on arriving packet `p`: a mark sets CE,
    /// a drop is counted against its flow; false when it is dropped.
    fn aqm_admits(&mut self, p: &mut SimPacket, v: RedVerdict) -> bool {
        match v {
            RedVerdict::Enqueue => true,
            RedVerdict::Mark => {
                p.data.ecn = Ecn::Ce;
                true
            }
            RedVerdict::Drop => {
                if !p.cross {
                    self.flows[p.flow as usize].drops += 1;
                }
                false
            }
        }
    }

    /// An arrival at a link with random loss, a queue discipline, a price,
    /// several channels or recorded interarrival times: false when the
    /// packet is dropped (or, on several channels, queued) here. Out of
    /// line, so that the drop-tail links' arrivals pay nothing for it.
    #[cold]
    #[inline(never)]
    fn arrive_slow(&mut self, l: usize, p: &mut SimPacket) -> bool {
        let now = self.now;
        let link = &mut self.links[l];
        if let Some(a) = link.arrivals.as_deref_mut() {
            // Every packet offered to the link, dropped or not.
            a.record(now);
        }
        if link.loss > 0.0 && self.loss_rng.gen::<f64>() < link.loss {
            link.random_drops += 1;
            return false;
        }
        if let Some(pr) = link.price.as_deref_mut() {
            // Every arrival counts towards the link's input rate; an
            // ADPM-capable packet (ECN 01) is marked 10 when the price
            // exceeds its probe type (thesis L6649-6651, L7004-7008).
            let price = pr.on_arrival(now, p.wire, link.q_bytes);
            if !p.cross
                && p.data.ecn == Ecn::Ect1
                && adpm::marks(price, adpm::threshold(p.data.seq as u16))
            {
                p.data.ecn = Ecn::Ect0;
            }
        }
        if let Some(Aqm::Red(_)) = link.aqm.as_deref().map(|a| &a.kind) {
            link.advance(now);
            let idle = (link.busy_until <= now).then_some(link.busy_until);
            let q = link.waiting();
            let ect = matches!(p.data.ecn, Ecn::Ect0 | Ecn::Ect1);
            let Some(Aqm::Red(red)) = link.aqm.as_deref_mut().map(|a| &mut a.kind) else {
                unreachable!("checked")
            };
            let v = red.on_arrival(now, q, idle, ect);
            if !self.aqm_admits(p, v) {
                return false;
            }
        }
        let link = &mut self.links[l];
        if link
            .aqm
            .as_deref()
            .is_some_and(|a| !matches!(a.kind, Aqm::Red(_)))
        {
            link.advance(now);
            let idle = link.busy_until <= now;
            let waiting = link.waiting();
            if !idle
                && (waiting >= link.limit_pkts || link.q_bytes + p.wire as u64 > link.limit_bytes)
            {
                // The buffer is full: Link::accept drops and counts it.
                return true;
            }
            let (busy_until, q_bytes) = (link.busy_until, link.q_bytes);
            let start = if idle { now } else { busy_until };
            let ect = matches!(p.data.ecn, Ecn::Ect0 | Ecn::Ect1);
            let a = link.aqm.as_deref_mut().expect("checked");
            let verdict = match &mut a.kind {
                Aqm::Codel(c) => c.on_dequeue(now, start, q_bytes, p.wire, ect),
                Aqm::Pie(pie) => pie.on_arrival(now, busy_until, q_bytes, a.mtu, ect),
                Aqm::Step(s) => s.on_arrival(waiting, ect),
                Aqm::Rem(r) => r.on_arrival(now, waiting, p.wire, ect, p.data.ecn == Ecn::Ce),
                Aqm::Red(_) => unreachable!("RED decided above"),
            };
            if !self.aqm_admits(p, verdict) {
                return false;
            }
            let a = self.links[l].aqm.as_deref_mut().expect("checked");
            a.sojourn_sum += (start - now) as f64;
            a.queued += 1;
        }
        let link = &mut self.links[l];
        if link.ties.is_some()
            && link.tie_at(now)
            && link.ties.as_deref_mut().expect("checked").arrival_first()
        {
            // The arrival before the departure of the same instant
            // (crate::ties): the queue as it was just before `now`.
            let view = now - 1;
            let accepted = if link.channels.is_some() {
                link.accept_channels(now, view, p)
            } else {
                link.accept_at(now, view, p)
            };
            self.enqueue_tail(l, p, accepted);
            return false;
        }
        if self.links[l].channels.is_some() {
            // A multi-channel link queues the packet here, so that the
            // single-channel links' arrivals pay nothing for it.
            let accepted = self.links[l].accept_channels(now, now, p);
            self.enqueue_tail(l, p, accepted);
            return false;
        }
        true
    }

    /// Inlined into its callers (a call per packet and hop cost case A a
    /// prologue and an epilogue each).
    #[inline(always)]
    fn enqueue(&mut self, l: usize, mut p: SimPacket) {
        let now = self.now;
        if self.links[l].slow_in && !self.arrive_slow(l, &mut p) {
            return;
        }
        let accepted = self.links[l].accept(now, &p);
        self.enqueue_tail(l, &p, accepted);
    }

    /// The rest of [`Self::enqueue`] once the buffer has decided: counts,
    /// and the packet onto the link's pipe (or, at its last hop, onto the
    /// flow's return path).
    #[inline(always)]
    fn enqueue_tail(&mut self, l: usize, p: &SimPacket, accepted: Option<Time>) {
        let Some(arrive) = accepted else {
            if !p.cross {
                self.flows[p.flow as usize].drops += 1;
            }
            return;
        };
        if p.cross {
            self.links[l].cross_bytes += p.wire as u64;
        } else {
            let flow = &mut self.flows[p.flow as usize];
            if p.hop as usize + 1 == flow.route_len as usize {
                flow.last_hop_bytes += p.wire as u64;
                if flow.lazy_rx {
                    // Last hop: straight onto the return path (see `lazy_rx`).
                    let t = flow.return_time(arrive + flow.ack_delay);
                    let was_empty = flow.ack_pipe.is_empty();
                    flow.ack_pipe
                        .push_back((t, Returning::Data(arrive, p.data)));
                    if was_empty {
                        self.push(t, Kind::AckArrive, p.flow);
                    }
                    return;
                }
            }
        }
        let link = &mut self.links[l];
        let was_empty = link.pipe.is_empty();
        link.pipe.push_back((arrive, *p));
        if was_empty {
            self.push(arrive, Kind::PipeArrive, l as u32);
        }
    }

    fn deliver(&mut self, f: usize, p: SimPacket) {
        let now = self.now;
        let flow = &mut self.flows[f];
        flow.receiver.handle_data(now, &p.data);
        if let Some(t) = flow.queue_acks(now) {
            self.push(t, Kind::AckArrive, f as u32);
        }
        self.reschedule(f);
    }

    fn ack_arrive(&mut self, f: usize) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[f];
            let Some((t, r)) = flow.ack_pipe.front() else {
                break;
            };
            let t = *t;
            if t > now {
                self.push(t, Kind::AckArrive, f as u32);
                break;
            }
            // Entries are read in place (an entry is as large as an ACK, and
            // a copy of it cost a `memcpy` per packet).
            flow.rx_done = flow.rx_done.saturating_sub(1);
            match r {
                Returning::Ack(a) => flow.sender.handle_ack(now, a),
                &Returning::Data(t_rx, ref d) => {
                    flow.receiver.handle_data(t_rx, d);
                    if let Some(a) = flow.receiver.poll_ack(t_rx) {
                        flow.sender.handle_ack(now, &a);
                    }
                }
                Returning::Nothing => {}
            }
            flow.ack_pipe.pop_front();
        }
        let flow = &mut self.flows[f];
        if flow.finish.is_none() && flow.sender.is_done() {
            flow.finish = Some(now);
        }
        self.send(f);
        self.reschedule(f);
    }

    /// Processes at the receiver every deferred arrival up to `upto`, so
    /// that receiver counters are exact at that time (see `lazy_rx`).
    fn materialize(flow: &mut Flow, upto: Time) {
        while flow.rx_done < flow.ack_pipe.len() {
            let i = flow.rx_done;
            let Returning::Data(t_rx, d) = flow.ack_pipe[i].1 else {
                flow.rx_done += 1;
                continue;
            };
            if t_rx > upto {
                break;
            }
            flow.receiver.handle_data(t_rx, &d);
            flow.ack_pipe[i].1 = match flow.receiver.poll_ack(t_rx) {
                Some(a) => Returning::Ack(a),
                None => Returning::Nothing,
            };
            flow.rx_done += 1;
        }
    }

    fn flow_wake(&mut self, f: usize, t: Time) {
        let now = self.now;
        let flow = &mut self.flows[f];
        if flow.wake_at != t {
            return; // superseded
        }
        flow.wake_at = Time::MAX;
        if !flow.started && now >= flow.start {
            flow.started = true;
        }
        if !flow.stopped && now >= flow.stop {
            flow.stopped = true;
        }
        flow.sender.handle_timeout(now);
        flow.receiver.handle_timeout(now);
        if let Some(t) = flow.queue_acks(now) {
            self.push(t, Kind::AckArrive, f as u32);
        }
        self.send(f);
        self.reschedule(f);
    }

    fn send(&mut self, f: usize) {
        let flow = &self.flows[f];
        if !flow.started || flow.stopped {
            return;
        }
        if flow.slow_send {
            self.send_slow(f);
            return;
        }
        self.transmit(f);
    }

    /// [`Self::send`] for a flow with a send jitter or a host pacer (one
    /// branch on the common path for both).
    #[inline(never)]
    fn send_slow(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        if flow.host != NO_HOST {
            let h = flow.host as usize;
            self.host_send(h);
            return;
        }
        // ns-2 `send_much` with `overhead_`: one delayed send at a time,
        // which then releases everything the window allows.
        if !flow.send_pending {
            flow.send_pending = true;
            let d = flow.jitter_rng.gen_range(0..flow.send_jitter);
            self.push(now + d, Kind::DelayedSend, f as u32);
        }
    }

    /// A delayed send ([`crate::FlowSpec::send_jitter`]) is due.
    fn delayed_send(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        flow.send_pending = false;
        if !flow.started || flow.stopped {
            return;
        }
        flow.sender.handle_timeout(self.now);
        self.transmit(f);
        self.reschedule(f);
    }

    /// Hands every packet the sender releases now to the access link.
    fn transmit(&mut self, f: usize) {
        let now = self.now;
        let flow = &self.flows[f];
        let access = flow.route[0] as usize;
        let header = flow.sender.config().header;
        while let Some(d) = self.flows[f].sender.poll_transmit(now) {
            self.data_packets += 1;
            let p = SimPacket {
                flow: f as u32,
                hop: 0,
                cross: false,
                wire: d.len + header,
                data: d,
            };
            self.enqueue(access, p);
        }
    }

    /// A host's pacer is due.
    fn host_wake(&mut self, h: usize, t: Time) {
        if self.hosts[h].wake_at != t {
            return; // superseded
        }
        self.hosts[h].wake_at = Time::MAX;
        self.host_send(h);
    }

    /// Sends what host `h`'s pacer allows now, taking its flows in turn,
    /// and schedules the pacer's next departure if a flow is still waiting.
    /// Out of line: flows that pace themselves pay one branch for it.
    #[cold]
    #[inline(never)]
    fn host_send(&mut self, h: usize) {
        let now = self.now;
        let n = self.hosts[h].members.len();
        loop {
            if !self.hosts[h].pacer.ready(now) {
                let t = self.hosts[h].pacer.next_departure();
                if t < self.hosts[h].wake_at {
                    self.hosts[h].wake_at = t;
                    self.push(t, Kind::HostWake, h as u32);
                }
                return;
            }
            // The flows' pacing together: the sum of their rates, the
            // smallest of their bursts (unpaced if one of them is).
            let mut sum = PacingSum::new();
            for k in 0..n {
                let fl = &self.flows[self.hosts[h].members[k] as usize];
                if fl.started && !fl.stopped {
                    sum.add(fl.sender.pacing_request());
                }
            }
            let pacing = sum.pacing();
            let start = self.hosts[h].pacer.first();
            let mut sent = None;
            for i in 0..n {
                let k = (start + i) % n;
                let fl = &mut self.flows[self.hosts[h].members[k] as usize];
                if !fl.started || fl.stopped {
                    continue;
                }
                if let Some(d) = fl.sender.poll_transmit(now) {
                    sent = Some((k, d));
                    break;
                }
            }
            // Every flow waits for its window: an ACK will call again.
            let Some((k, d)) = sent else { return };
            let m = self.hosts[h].members[k] as usize;
            let wire = d.len + self.flows[m].sender.config().header;
            self.hosts[h].pacer.on_send(now, k, n, wire, pacing);
            self.data_packets += 1;
            let access = self.flows[m].route[0] as usize;
            let p = SimPacket {
                flow: m as u32,
                hop: 0,
                cross: false,
                wire,
                data: d,
            };
            self.enqueue(access, p);
        }
    }

    fn reschedule(&mut self, f: usize) {
        let now = self.now;
        let flow = &mut self.flows[f];
        if flow.stopped && flow.ack_pipe.is_empty() {
            return;
        }
        let mut t = Time::MAX;
        if flow.started && !flow.stopped {
            // While a delayed send is pending, it handles the sender's
            // timers when it fires (a paced sender would otherwise ask to
            // be woken at every nanosecond until then).
            if !flow.send_pending {
                if let Some(x) = flow.sender.poll_timeout() {
                    t = t.min(x);
                }
            }
            t = t.min(flow.stop);
        } else if !flow.started {
            t = t.min(flow.start);
        }
        if let Some(x) = flow.receiver.poll_timeout() {
            t = t.min(x);
        }
        if t == Time::MAX || t >= self.cfg.duration.saturating_add(1) {
            return;
        }
        let t = t.max(now + 1);
        if t < flow.wake_at {
            flow.wake_at = t;
            self.push(t, Kind::FlowWake, f as u32);
        }
    }

    fn cross_event(&mut self, i: usize) {
        let now = self.now;
        let (p, next) = self.cross[i].fire(now, i as u32);
        if let Some(p) = p {
            self.cross_packets += 1;
            let link = self.cross[i].link();
            self.enqueue(link, p);
        }
        if next < Time::MAX {
            self.push(next, Kind::Cross, i as u32);
        }
    }

    fn sample(&mut self) {
        let now = self.now;
        let interval = self.cfg.sample_interval;
        let ts = dropless_cc::secs(now);
        self.series.t.push(ts);
        let dt = dropless_cc::secs(interval);
        if self.cfg.flow_series {
            for (i, flow) in self.flows.iter_mut().enumerate() {
                Self::materialize(flow, now);
                let s = &mut self.series.flows[i];
                let bytes = flow.receiver.stats().bytes_delivered;
                s.goodput_bps
                    .push((bytes - flow.last_bytes) as f64 * 8.0 / dt);
                flow.last_bytes = bytes;
                let c = flow.sender.control();
                s.cwnd.push(c.cwnd.unwrap_or(f64::NAN));
                s.pacing_bps
                    .push(c.pacing_rate.map_or(f64::NAN, |r| r * 8.0));
                let rtt = flow.sender.rtt();
                s.rtt_s.push(if rtt.has_sample() {
                    dropless_cc::secs(rtt.latest())
                } else {
                    f64::NAN
                });
                s.in_flight.push(flow.sender.in_flight() as f64);
                s.link_bps
                    .push((flow.last_hop_bytes - flow.last_hop_mark) as f64 * 8.0 / dt);
                flow.last_hop_mark = flow.last_hop_bytes;
                s.drops.push(flow.drops as f64);
                // Controller trace variables (per sample, not per packet).
                let n = s.in_flight.len();
                self.trace_scratch.clear();
                flow.sender.controller().trace_vars(&mut self.trace_scratch);
                for &(name, v) in &self.trace_scratch {
                    let col = match s.vars.iter().position(|(k, _)| k == name) {
                        Some(c) => c,
                        None => {
                            s.vars.push((name.to_string(), vec![f64::NAN; n - 1]));
                            s.vars.len() - 1
                        }
                    };
                    // A name reported twice in one sample keeps its last
                    // value (the column stays aligned with the samples).
                    let c = &mut s.vars[col].1;
                    if c.len() == n {
                        c[n - 1] = v;
                    } else {
                        c.push(v);
                    }
                }
                for (_, col) in &mut s.vars {
                    if col.len() < n {
                        col.push(f64::NAN);
                    }
                }
            }
        }
        for l in 0..self.n_shared {
            let link = &mut self.links[l];
            link.advance(now);
            let (area0, dep0) = self.link_series_marks[l];
            let s = &mut self.series.links[l];
            s.queue_pkts.push(link.waiting() as f64);
            s.avg_queue_pkts.push((link.area - area0) / interval as f64);
            s.drops.push(link.drops as f64);
            let (aqm, marks, avg) = link.aqm.as_deref().map_or((0, 0, f64::NAN), |a| {
                let (d, m) = a.drops_marks();
                (d, m, a.red().map_or(f64::NAN, |r| r.avg()))
            });
            s.aqm_drops.push(aqm as f64);
            s.marks.push(marks as f64);
            s.departed.push(link.departed_pkts as f64);
            s.red_avg.push(avg);
            let rate_bps = 8e9 / link.ns_per_byte * link.channel_count() as f64;
            s.utilization
                .push((link.departed_bytes - dep0) as f64 * 8.0 / (rate_bps * dt));
            self.link_series_marks[l] = (link.area, link.departed_bytes);
            s.cross_bps
                .push((link.cross_bytes - link.cross_mark) as f64 * 8.0 / dt);
            link.cross_mark = link.cross_bytes;
            let active = self
                .flows
                .iter()
                .filter(|f| {
                    f.path.0 <= l && l <= f.path.1 && f.started && !f.stopped && f.finish.is_none()
                })
                .count();
            s.active_flows.push(active as f64);
        }
        let next = now + interval;
        if next <= self.cfg.duration {
            self.push(next, Kind::Sample, 0);
        }
    }
}
