//! Simulation inputs: topology, flows and cross traffic, in plain structs.
//! The scenario crate builds these from TOML files; tests build them directly.

use dropless_cc::Time;
use dropless_transport::AckPolicy;

/// Buffer limit of an output queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buffer {
    /// At most this many packets waiting.
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Queue discipline of a link's output queue.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum QueueKind {
    /// First in, first out; arrivals to a full buffer are dropped.
    #[default]
    DropTail,
    /// Random Early Detection ([`crate::red`]) in front of the drop-tail
    /// buffer.
    Red(crate::red::RedConfig),
    /// CoDel ([`crate::codel`], RFC 8289) in front of the drop-tail buffer.
    Codel(crate::codel::CodelConfig),
    /// PIE ([`crate::pie`], RFC 8033) in front of the drop-tail buffer.
    Pie(crate::pie::PieConfig),
    /// DCTCP's step marking ([`crate::step_mark`], RFC 8257 §3.1) in
    /// front of the drop-tail buffer.
    Step(crate::step_mark::StepConfig),
    /// REM ([`crate::rem`], thesis §2.3.3) in front of the drop-tail buffer.
    Rem(crate::rem::RemConfig),
}

/// A price the link computes and carries in ADPM marks (thesis chapter 5).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum PriceKind {
    /// No price: the link marks nothing (the default).
    #[default]
    None,
    /// RCP's rate ([`crate::rcp_price`]), carried as ADPM's price.
    Rcp(crate::rcp_price::RcpConfig),
    /// MaxNet's cost ([`crate::maxnet_price`], thesis eq. (5.6)), carried
    /// as ADPM's price.
    Maxnet(crate::maxnet_price::MaxnetConfig),
}

/// A unidirectional link with its output queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Capacity in bits per second.
    pub rate_bps: f64,
    /// One-way propagation delay.
    pub delay: Time,
    /// Buffer of the output queue.
    pub buffer: Buffer,
    /// Queue discipline.
    pub queue: QueueKind,
    /// Probability that an arriving packet is lost at random (before queueing).
    pub loss: f64,
    /// The explicit price the link computes and marks.
    pub price: PriceKind,
    /// Parallel channels (wavelengths), each of `rate_bps`, serving one
    /// shared FIFO buffer (a DWDM trunk with full wavelength conversion,
    /// [`crate::trunk`]); 1 for an ordinary link.
    pub channels: u32,
    /// Record the intervals between packet arrivals at this link from this
    /// time on ([`crate::interarrival`]); `None`: not recorded.
    pub interarrivals_from: Option<Time>,
    /// How an arrival that falls on the very nanosecond a waiting packet's
    /// service starts (a slot of the buffer frees) is ordered ([`crate::ties`]).
    pub ties: Ties,
}

/// The order of an arrival and a departure at the same nanosecond
/// ([`crate::ties`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ties {
    /// The departure first, always: the arrival finds the slot already
    /// free. Deterministic; every link's rule before
    /// 2026-11-26 and still the default of every link but a trunk's.
    #[default]
    DepartureFirst,
    /// A fair coin per tie from the link's own seeded stream: heads the
    /// departure first, tails the arrival first (it finds the packet
    /// whose service starts at that instant still waiting, so that a full
    /// buffer drops it). The default of a trunk's channels.
    Random,
}

impl LinkSpec {
    /// A drop-tail link with no random loss.
    pub fn new(rate_bps: f64, delay: Time, buffer: Buffer) -> Self {
        LinkSpec {
            rate_bps,
            delay,
            buffer,
            queue: QueueKind::DropTail,
            loss: 0.0,
            price: PriceKind::None,
            channels: 1,
            interarrivals_from: None,
            ties: Ties::DepartureFirst,
        }
    }
}

/// Network topology.
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    /// Senders → per-flow access links → one bottleneck → receivers; ACKs
    /// return over an un-queued path. Each flow's access delay makes up its
    /// base RTT.
    Dumbbell {
        /// The bottleneck.
        bottleneck: LinkSpec,
        /// Rate of each sender's access link, bits/s (`None`: 10× the bottleneck).
        access_rate_bps: Option<f64>,
    },
    /// A chain of links (thesis Appendix B2): flow `i` crosses links
    /// `path.0 ..= path.1`.
    ParkingLot {
        /// The links in order.
        links: Vec<LinkSpec>,
        /// Rate of each sender's access link, bits/s (`None`: 10× the fastest link).
        access_rate_bps: Option<f64>,
    },
    /// One output trunk of a core DWDM switch (thesis chapter 3,
    /// [`crate::trunk`]): senders → access links → `inputs` input links →
    /// the trunk → receivers. Flow `i` enters on input link `i % inputs`
    /// and leaves on the trunk group `path.0`.
    Trunk {
        /// The trunk's groups of channels: one group of K channels with
        /// full wavelength conversion; L groups of F channels (one per
        /// wavelength) without, each with its own buffer.
        groups: Vec<LinkSpec>,
        /// Input links (switch input ports) feeding the trunk.
        inputs: u32,
        /// Rate of each input link, bits/s.
        input_rate_bps: f64,
        /// Buffer of each input link (the edge router's output queue).
        input_buffer: Buffer,
        /// Rate of each sender's access link, bits/s (`None`: 10× a channel).
        access_rate_bps: Option<f64>,
        /// Buffer of each sender's access link (`None`: unbounded, as in the
        /// other topologies). Bounded, a flow its access link limits loses
        /// packets there instead of growing its window into the queue.
        access_buffer: Option<Buffer>,
    },
}

impl Topology {
    /// The shared links (bottleneck candidates), in order.
    pub fn links(&self) -> &[LinkSpec] {
        match self {
            Topology::Dumbbell { bottleneck, .. } => std::slice::from_ref(bottleneck),
            Topology::ParkingLot { links, .. } => links,
            Topology::Trunk { groups, .. } => groups,
        }
    }
    /// Access link rate in bits/s.
    pub fn access_rate_bps(&self) -> f64 {
        match self {
            Topology::Dumbbell {
                bottleneck,
                access_rate_bps,
            } => access_rate_bps.unwrap_or(10.0 * bottleneck.rate_bps),
            Topology::ParkingLot {
                links,
                access_rate_bps,
            } => access_rate_bps
                .unwrap_or(10.0 * links.iter().map(|l| l.rate_bps).fold(0.0, f64::max)),
            Topology::Trunk {
                groups,
                access_rate_bps,
                ..
            } => access_rate_bps
                .unwrap_or(10.0 * groups.iter().map(|l| l.rate_bps).fold(0.0, f64::max)),
        }
    }
}

/// One long-lived or finite flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// Controller name in the registry (`"newreno"`, `"fast"`, ...).
    pub cc: String,
    /// Controller parameters.
    pub params: Vec<(String, f64)>,
    /// Base (propagation) round-trip time. `None`: twice the path's link delays.
    pub rtt: Option<Time>,
    /// Start time.
    pub start: Time,
    /// Stop sending new data at this time (`None`: run to the end).
    pub stop: Option<Time>,
    /// Bytes to transfer (`None`: unlimited bulk flow).
    pub size: Option<u64>,
    /// Payload bytes per packet.
    pub mss: u32,
    /// Header bytes per packet on the wire.
    pub header: u32,
    /// Receiver ACK policy.
    pub ack_policy: AckPolicy,
    /// First and last shared link crossed (parking lot); `(0, 0)` in a dumbbell.
    pub path: (usize, usize),
    /// Send ECN-capable packets.
    pub ecn: bool,
    /// RTO floor.
    pub min_rto: Time,
    /// RTO before the first RTT sample (default 1 s, RFC 6298; ns-2's
    /// `rtxcur_init_` is 6 s).
    pub initial_rto: Time,
    /// RTO ceiling (default 60 s; ns-2's `maxrto_` is 100000 s). Paths
    /// whose RTT reaches minutes (thesis Table 4.1, item 9) need more.
    pub max_rto: Time,
    /// Receive-window / send-buffer cap in packets (Reno's `W_max` in the
    /// TCP-Madison comparisons, seed 002 §5.1). `None`: the transport default.
    pub max_window: Option<u64>,
    /// Loss recovery of the ns-2 FAST TCP module (Cui and Andrew's
    /// `tcp-fast.cc`, reference note `thesis_ch2_ch4_protocols.md` §3.6):
    /// as in the transport's default, the first retransmission leaves as
    /// soon as loss is detected
    /// ([`dropless_transport::SenderConfig::fast_retransmit`]); every
    /// partial ACK releases two packets past the window
    /// ([`dropless_transport::SenderConfig::partial_ack_pair`]), lost
    /// packets stay counted in the recovery pipe while the fast
    /// retransmission and the partial-ACK pairs are not
    /// ([`dropless_transport::SenderConfig::recovery_pipe_counts_lost`]), a
    /// lost retransmission is sent again after two RTTs without a new
    /// congestion event
    /// ([`dropless_transport::SenderConfig::ns2_lost_retransmission`]), and
    /// only the fast retransmission and the first partial ACK restart the
    /// retransmission timer
    /// ([`dropless_transport::SenderConfig::ns2_recovery_timer`]).
    /// Off: the transport's default RFC 6675 recovery. The controller-side
    /// half (frozen estimation) is FAST's `ns2_recovery` parameter.
    pub ns2_recovery: bool,
    /// Proportional Rate Reduction in fast recovery
    /// ([`dropless_transport::SenderConfig::prr`], RFC 9937). Off: the
    /// transport's default RFC 6675 pipe-limited recovery. Not with
    /// [`FlowSpec::ns2_recovery`].
    pub prr: bool,
    /// RACK time-based loss detection
    /// ([`dropless_transport::SenderConfig::rack`], RFC 8985). Off: three
    /// later deliveries declare a loss (RFC 6675 DupThresh).
    pub rack: bool,
    /// Tail loss probes ([`dropless_transport::SenderConfig::tlp`], RFC 8985
    /// §7), with the PTO's ACK delay for a lone packet taken from
    /// `ack_policy`. Off (default): a lost tail waits for the
    /// retransmission timeout, as in the papers reproduced here.
    pub tlp: bool,
    /// Random host delay before each send (ns-2's `Agent/TCP overhead_`):
    /// whenever the sender could transmit and no delayed send is pending,
    /// the send waits a uniform random time in `[0, send_jitter)`, then
    /// releases everything the sender allows at that moment. It breaks
    /// the phase effects of a deterministic drop-tail queue (Floyd and
    /// Jacobson 1992) without adding traffic. Drawn from the run's seed, so
    /// a seeded run stays bit-identical. `0` (default): packets leave the
    /// moment the sender releases them.
    pub send_jitter: Time,
    /// Random extra delay on the return path: each ACK (or packet echoed
    /// back) reaches the sender a uniform random time in `[0, ack_jitter)`
    /// later than the path's delay says, but never before the one ahead of
    /// it (no reordering). It stands for the host and scheduling noise a
    /// real receiver and sender add to every RTT sample, which
    /// `send_jitter` cannot (a delayed send is timed when it leaves).
    /// Drawn from the run's seed; `0` (default): off.
    pub ack_jitter: Time,
    /// Host-wide pacing (seed 001's "pacing at layer 3"): flows with the
    /// same host share one pacer, which paces their packets together at
    /// the sum of their controllers' rates, in bursts no larger than the
    /// smallest of their bursts, taking the flows in turn; each flow's own
    /// pacer is off. `None` (default): the flow paces itself.
    pub host: Option<u32>,
}

impl FlowSpec {
    /// A bulk flow with the given controller and base RTT, 1460+40-byte packets.
    pub fn bulk(cc: &str, rtt: Time) -> Self {
        FlowSpec {
            cc: cc.to_string(),
            params: Vec::new(),
            rtt: Some(rtt),
            start: 0,
            stop: None,
            size: None,
            mss: 1460,
            header: 40,
            ack_policy: AckPolicy::EveryPacket,
            path: (0, 0),
            ecn: false,
            min_rto: 200 * dropless_cc::MILLISECOND,
            initial_rto: dropless_transport::SenderConfig::default().initial_rto,
            max_rto: dropless_transport::SenderConfig::default().max_rto,
            max_window: None,
            ns2_recovery: false,
            prr: false,
            rack: false,
            tlp: false,
            send_jitter: 0,
            ack_jitter: 0,
            host: None,
        }
    }
    /// Sets a controller parameter (builder style).
    pub fn param(mut self, k: &str, v: f64) -> Self {
        self.params.push((k.to_string(), v));
        self
    }
    /// Bytes a full packet occupies on the wire.
    pub fn wire_size(&self) -> u32 {
        self.mss + self.header
    }
}

/// Kind of open-loop cross traffic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CrossKind {
    /// Poisson arrivals of fixed-size packets.
    Poisson,
    /// Constant bit rate.
    Constant,
    /// Pareto on/off: during "on" periods packets leave at `peak` rate; on
    /// and off durations are Pareto with the given shape and means.
    ParetoOnOff {
        /// Pareto shape (1 < shape; 1.5 is customary).
        shape: f64,
        /// Mean on duration.
        mean_on: Time,
        /// Mean off duration.
        mean_off: Time,
    },
}

/// An open-loop cross-traffic source entering one shared link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrossSpec {
    /// Kind of arrival process.
    pub kind: CrossKind,
    /// Mean rate in bits/s.
    pub rate_bps: f64,
    /// Packet size in bytes on the wire.
    pub packet_size: u32,
    /// Shared link index it enters.
    pub link: usize,
    /// Start time.
    pub start: Time,
    /// Stop time (`None`: the end).
    pub stop: Option<Time>,
}

/// Everything one run needs.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// Seed of every random stream in the run.
    pub seed: u64,
    /// Simulated duration.
    pub duration: Time,
    /// Topology.
    pub topology: Topology,
    /// Flows.
    pub flows: Vec<FlowSpec>,
    /// Cross traffic.
    pub cross: Vec<CrossSpec>,
    /// Time-series sampling interval (`0`: no time series).
    pub sample_interval: Time,
    /// Record per-flow time series (turn off for thousands of flows).
    pub flow_series: bool,
}

impl SimConfig {
    /// Floyd and Jacobson's (1992) remedy for drop-tail phase effects: sets
    /// every flow's [`FlowSpec::send_jitter`] to the time one of its full
    /// packets takes on the first shared link, and returns the config.
    pub fn with_packet_time_jitter(mut self) -> Self {
        let rate = self.topology.links()[0].rate_bps;
        for f in &mut self.flows {
            f.send_jitter = (f.wire_size() as f64 * 8e9 / rate).round() as Time;
        }
        self
    }
}
