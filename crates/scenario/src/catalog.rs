//! What a scenario file may contain: every key of every table with its
//! default, and the kinds of topology, queue and traffic. Error messages list
//! allowed keys from here, and `dropless list` prints it.

/// One key of a scenario table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeyDoc {
    /// Key as written in the file.
    pub name: &'static str,
    /// Default when absent (`"required"` for required keys).
    pub default: &'static str,
    /// One-line description with units.
    pub help: &'static str,
}

impl KeyDoc {
    /// The key must be present.
    pub fn required(&self) -> bool {
        self.default == "required"
    }
}

const fn k(name: &'static str, default: &'static str, help: &'static str) -> KeyDoc {
    KeyDoc {
        name,
        default,
        help,
    }
}

/// Top-level keys.
pub const TOP_KEYS: &[KeyDoc] = &[
    k(
        "name",
        "required",
        "scenario name, used for the default output directory out/NAME",
    ),
    k("description", "none", "free text, copied into summary.json"),
    k("duration", "required", "simulated time, e.g. \"20s\""),
    k(
        "seed",
        "1",
        "seed of every random stream; same seed, same results",
    ),
    k(
        "sample",
        "duration/1000, at least 1ms",
        "time-series sampling interval",
    ),
    k(
        "flow_series",
        "true up to 64 flows",
        "record per-flow time series (false for huge flow counts)",
    ),
    k("topology", "required", "the network: [topology]"),
    k("flows", "required", "one or more [[flows]] entries"),
    k(
        "cross_traffic",
        "none",
        "open-loop [[cross_traffic]] sources",
    ),
    k(
        "verify",
        "none",
        "self-check: title and set-up of the experiment (dropless verify; docs/verify.md)",
    ),
    k(
        "vars",
        "none",
        "self-check: constants for expressions (docs/verify.md)",
    ),
    k(
        "measures",
        "none",
        "self-check: named per-run measures (docs/verify.md)",
    ),
    k(
        "aggregates",
        "none",
        "self-check: named measures over the grid (docs/verify.md)",
    ),
    k(
        "grid",
        "none",
        "self-check: [[grid]] axes of runs (docs/verify.md)",
    ),
    k(
        "ensemble",
        "none",
        "self-check: seeds and settings of the ensemble runs (docs/verify.md)",
    ),
    k(
        "variant",
        "none",
        "self-check: [[variant]] the experiment again with other settings, reported beside it (docs/verify.md)",
    ),
    k(
        "expect",
        "none",
        "self-check: [[expect]] expectations with their sources (docs/verify.md)",
    ),
    k(
        "table",
        "none",
        "self-check: [[table]] tables for the report (docs/verify.md)",
    ),
    k(
        "plot",
        "none",
        "self-check: [[plot]] figures for the report (docs/verify.md)",
    ),
];

/// Keys of `[topology]`.
pub const TOPOLOGY_KEYS: &[KeyDoc] = &[
    k("kind", "required", "\"dumbbell\", \"parking-lot\" or \"trunk\""),
    k(
        "bottleneck",
        "required for dumbbell",
        "the one shared link: [topology.bottleneck]",
    ),
    k(
        "links",
        "required for parking-lot",
        "the chain of shared links: [[topology.links]]",
    ),
    k(
        "trunk",
        "required for trunk",
        "the output trunk of a DWDM switch: [topology.trunk] (a link's keys plus channels, conversion, fibres, inputs, input_rate)",
    ),
    k(
        "access_rate",
        "10x the fastest shared link",
        "rate of each sender's own access link",
    ),
    k(
        "bdp_rtt",
        "largest base RTT of the flows crossing the link",
        "reference RTT for buffers written in bdp",
    ),
];

/// Keys of a link (`[topology.bottleneck]`, `[[topology.links]]`).
pub const LINK_KEYS: &[KeyDoc] = &[
    k("rate", "required", "capacity, e.g. \"100Mbps\""),
    k(
        "delay",
        "required",
        "one-way propagation delay, e.g. \"10ms\"",
    ),
    k(
        "buffer",
        "required",
        "queue limit: \"1000pkt\", \"1500000B\", \"1MB\" or \"0.5bdp\"",
    ),
    k("queue", "\"droptail\"", "queue discipline"),
    k(
        "price",
        "\"none\"",
        "an explicit price the link computes and carries in ADPM marks (see `dropless list queues`)",
    ),
    k(
        "loss",
        "0",
        "probability in [0, 1) that an arriving packet is lost at random",
    ),
    k(
        "interarrivals",
        "off",
        "record the intervals between packet arrivals (offered packets, dropped or not) from this time on, e.g. \"10s\": summary.json links[i].interarrival (intervals, mean_s, std_s, cv)",
    ),
];

/// Keys of a trunk (`[topology.trunk]`) besides a link's.
pub const TRUNK_KEYS: &[KeyDoc] = &[
    k(
        "channels",
        "required",
        "K wavelength channels, each of `rate` (1 to 100000)",
    ),
    k(
        "conversion",
        "\"full\"",
        "\"full\": a packet leaves on any channel, all share `buffer`; \"none\": a packet keeps its input's wavelength (K = fibres x wavelengths; each wavelength a trunk of `fibres` channels with its own `buffer`)",
    ),
    k(
        "fibres",
        "1",
        "with conversion = \"none\": channels per wavelength (must divide channels)",
    ),
    k(
        "inputs",
        "required",
        "M input links (switch input ports) feeding the trunk; flow i enters on input i mod M",
    ),
    k("input_rate", "the channel rate", "rate of each input link"),
    k(
        "input_buffer",
        "1bdp (of an input link)",
        "buffer of each input link: the edge router's queue in front of the switch",
    ),
    k(
        "access_buffer",
        "unbounded",
        "buffer of each sender's access link (packets, bytes or Xbdp of an access link at bdp_rtt); bounded, a flow the access link limits loses there instead of queueing without end",
    ),
    k(
        "ties",
        "\"random\"",
        "an arrival on the nanosecond a slot frees: \"random\" (a seeded fair coin per tie orders it before or after the departure) or \"departure-first\" (always after: deterministic, and an input feeding the trunk back to back at its rate can lock the others out)",
    ),
];

/// Keys of a `[[flows]]` entry.
pub const FLOW_KEYS: &[KeyDoc] = &[
    k(
        "cc",
        "required",
        "congestion controller name (see `dropless list`)",
    ),
    k(
        "params",
        "controller defaults",
        "controller parameters, e.g. params = { alpha = 200 }",
    ),
    k(
        "rtt",
        "twice the one-way delay of its path",
        "base (propagation) round-trip time",
    ),
    k(
        "count",
        "1",
        "number of identical flows this entry stands for",
    ),
    k("start", "0s", "when the (first) flow starts"),
    k(
        "stagger",
        "0s",
        "with count > 1: copy i starts at start + i * stagger",
    ),
    k(
        "stop",
        "the end of the run",
        "when the flow stops sending new data",
    ),
    k(
        "size",
        "unlimited",
        "bytes to transfer (\"10MB\", \"1000pkt\"); the flow ends when done",
    ),
    k(
        "path",
        "all links",
        "parking-lot: first and last link crossed, e.g. [0, 2] or 1",
    ),
    k("mss", "\"1460B\"", "payload bytes per packet"),
    k("header", "\"40B\"", "header bytes per packet on the wire"),
    k(
        "ack",
        "\"every\"",
        "receiver ACK policy: \"every\", \"delayed\" (every 2nd, 40 ms) or \"probe-only\"",
    ),
    k(
        "min_rto",
        "\"200ms\"",
        "floor of the retransmission timeout",
    ),
    k(
        "initial_rto",
        "\"1s\"",
        "retransmission timeout before the first RTT sample (ns-2: 6 s)",
    ),
    k(
        "max_rto",
        "\"60s\"",
        "ceiling of the retransmission timeout (ns-2: 100000 s)",
    ),
    k(
        "max_window",
        "16777216 packets",
        "receive-window cap: \"1000pkt\" or bytes of payload (\"172KB\")",
    ),
    k(
        "ns2_recovery",
        "false",
        "true: the ns-2 FAST module's loss recovery in the transport (first retransmission at once, two packets per partial ACK, lost packets kept in the recovery pipe, fast retransmission and partial-ACK pairs outside it, a lost retransmission resent after 2 RTTs without a new congestion event, timer restarted only by the fast retransmission and the first partial ACK); pair with the FAST parameter ns2_recovery = 1",
    ),
    k(
        "prr",
        "false",
        "true: Proportional Rate Reduction (RFC 9937) in fast recovery: the flight falls to the reduced window in proportion to the data delivered (one packet sent per two delivered for a halving) instead of nothing being sent until the pipe is below it (RFC 6675); cannot be combined with ns2_recovery",
    ),
    k(
        "rack",
        "false",
        "true: RACK time-based loss detection (RFC 8985) instead of three duplicate ACKs: a packet is lost once a packet sent after it was delivered and its reordering window (min RTT / 4, after reordering was first seen) ran out, so reordering within that window is not loss; the default for real transfers (dropless send), off here so that reproductions keep their papers' loss detection",
    ),
    k(
        "tlp",
        "false",
        "true: tail loss probes (RFC 8985 §7): when no ACK has come for 2 SRTT (plus the delayed-ACK bound for a lone packet) outside recovery, one probe leaves (new data, or the highest packet again), so that a lost tail is found by its ACK and repaired by fast recovery instead of waiting for the retransmission timeout; best with rack = true; the default for real transfers (dropless send), off here so that reproductions keep their papers' loss recovery",
    ),
    k(
        "ecn",
        "false",
        "true: send ECN-capable packets (ECT(0)); a CE mark (RED with red_ecn) is a congestion event like a loss, one per recovery episode",
    ),
    k(
        "send_jitter",
        "\"0s\"",
        "random host delay before each send, uniform in [0, send_jitter) (ns-2's overhead_): breaks drop-tail phase effects; drawn from the run's seed",
    ),
    k(
        "ack_jitter",
        "\"0s\"",
        "random extra delay on the return path, uniform in [0, ack_jitter), never reordering ACKs: the host noise real RTT samples carry; drawn from the run's seed",
    ),
    k(
        "label",
        "\"CC #ID\"",
        "name of the flow in plots and tables",
    ),
    k(
        "host",
        "none",
        "host name: flows with the same host share one pacer (seed 001's pacing at layer 3), which paces them together at the sum of their rates in bursts no larger than the smallest of theirs, taking them in turn; not with send_jitter",
    ),
];

/// Keys of a `[[cross_traffic]]` entry.
pub const CROSS_KEYS: &[KeyDoc] = &[
    k(
        "kind",
        "required",
        "\"poisson\", \"constant\" or \"pareto\"",
    ),
    k("rate", "required", "mean rate, e.g. \"20Mbps\""),
    k("packet_size", "\"1500B\"", "bytes per packet on the wire"),
    k(
        "link",
        "0",
        "index of the shared link it enters (and leaves after)",
    ),
    k("start", "0s", "when it starts"),
    k("stop", "the end of the run", "when it stops"),
    k(
        "shape",
        "1.5",
        "pareto only: Pareto shape of on and off times, > 1",
    ),
    k("mean_on", "\"500ms\"", "pareto only: mean on time"),
    k("mean_off", "\"500ms\"", "pareto only: mean off time"),
];

/// A named kind with a description and its own keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KindDoc {
    /// Name as written in the file.
    pub name: &'static str,
    /// One-line description.
    pub help: &'static str,
    /// Keys only this kind accepts.
    pub params: &'static [KeyDoc],
}

/// Topology kinds.
pub const TOPOLOGY_KINDS: &[KindDoc] = &[
    KindDoc {
        name: "dumbbell",
        help: "senders -> own access links -> one bottleneck -> receivers; ACKs return un-queued",
        params: &[],
    },
    KindDoc {
        name: "parking-lot",
        help: "a chain of shared links (thesis Appendix B2); each flow crosses a contiguous part",
        params: &[],
    },
    KindDoc {
        name: "trunk",
        help: "senders -> access links -> M input links -> one DWDM output trunk of K channels sharing a buffer (thesis ch. 3) -> receivers",
        params: &[],
    },
];

/// Queue disciplines.
pub const QUEUE_KINDS: &[KindDoc] = &[
    KindDoc {
        name: "droptail",
        help: "first in, first out; arrivals to a full buffer are dropped",
        params: &[],
    },
    KindDoc {
        name: "red",
        help: "Random Early Detection (Floyd and Jacobson 1993; gentle, adaptive and ECN options) in front of the drop-tail buffer",
        params: RED_PARAMS,
    },
    KindDoc {
        name: "codel",
        help: "CoDel (RFC 8289): drops (or marks) at dequeue once the sojourn time has stayed above codel_target for codel_interval, then at a rate rising as the square root of the drops",
        params: CODEL_PARAMS,
    },
    KindDoc {
        name: "pie",
        help: "PIE (RFC 8033): drops (or marks) arrivals with a probability a PI controller updates every pie_t_update to hold the queueing delay near pie_target",
        params: PIE_PARAMS,
    },
    KindDoc {
        name: "step",
        help: "DCTCP's step marking (RFC 8257 §3.1): an arrival finding more than step_k packets waiting is marked CE if ECN-capable, dropped if not",
        params: STEP_PARAMS,
    },
    KindDoc {
        name: "rem",
        help: "REM (thesis §2.3.3, eqs. (2.5)-(2.6)): a price integrates the queue's distance from rem_target and the rate mismatch every rem_interval; arrivals are marked (or dropped) with probability 1 - rem_phi^-price",
        params: REM_PARAMS,
    },
];

/// Keys of a link with `queue = "rem"`.
pub const REM_PARAMS: &[KeyDoc] = &[
    k(
        "rem_gamma",
        "0.001",
        "step size of the price update, in (0, 1]",
    ),
    k(
        "rem_alpha",
        "0.1",
        "weight of the queue's distance from the target, in (0, 100]",
    ),
    k(
        "rem_target",
        "20",
        "target queue b*, packets waiting, from 0 to 1000000",
    ),
    k(
        "rem_phi",
        "1.001",
        "base of the mark probability 1 - phi^-price, above 1 and at most 100",
    ),
    k(
        "rem_interval",
        "\"2ms\"",
        "period of the price update, from 1ns to 10s",
    ),
    k(
        "rem_ecn",
        "false",
        "mark ECN-capable packets instead of dropping them",
    ),
];

/// Keys of a link with `queue = "codel"`.
pub const CODEL_PARAMS: &[KeyDoc] = &[
    k(
        "codel_target",
        "\"5ms\"",
        "acceptable standing sojourn time, above 0 and below codel_interval",
    ),
    k(
        "codel_interval",
        "\"100ms\"",
        "how long the sojourn must stay above target before dropping, and the control law's scale; from 1ns to 10s",
    ),
    k(
        "codel_ecn",
        "false",
        "mark ECN-capable packets (flows with ecn = true) instead of dropping them",
    ),
];

/// Keys of a link with `queue = "pie"`.
pub const PIE_PARAMS: &[KeyDoc] = &[
    k(
        "pie_target",
        "\"15ms\"",
        "target queueing delay (QDELAY_REF), from 1ns to 10s",
    ),
    k(
        "pie_t_update",
        "\"15ms\"",
        "period of the probability update (T_UPDATE), from 1ns to 10s",
    ),
    k(
        "pie_alpha",
        "0.125",
        "gain on the delay's distance from the target, Hz, in (0, 2]",
    ),
    k(
        "pie_beta",
        "1.25",
        "gain on the delay's change, Hz, in (0, 2]",
    ),
    k(
        "pie_max_burst",
        "\"150ms\"",
        "burst allowance (MAX_BURST), from 0 to 10s",
    ),
    k(
        "pie_ecn",
        "false",
        "mark ECN-capable packets instead of dropping them while the probability is at most 10 %",
    ),
];

/// Keys of a link with `queue = "step"`.
pub const STEP_PARAMS: &[KeyDoc] = &[
    k(
        "step_k",
        "20",
        "marking threshold K, packets waiting, from 1 to 1000000",
    ),
    k(
        "step_ecn",
        "true",
        "mark ECN-capable packets; false: drop every arrival above step_k",
    ),
];

/// Prices a link can compute (`price = "..."`), carried in ADPM marks.
pub const PRICE_KINDS: &[KindDoc] = &[
    KindDoc {
        name: "none",
        help: "no price: the link marks nothing",
        params: &[],
    },
    KindDoc {
        name: "rcp",
        help: "RCP's rate (Dukkipati et al. 2005) as the price ln(100G / R) / ln(100G / 1k), marked on ADPM-capable packets (ECN 01 -> 10) whose probe type (their packet number's bit reversal) is below it (thesis ch. 5); for flows with cc = \"rcp\"",
        params: PRICE_PARAMS,
    },
    KindDoc {
        name: "maxnet",
        help: "MaxNet's congestion cost (thesis eq. (5.6); Wydrowski and Zukerman 2002), integrating the input rate's excess over price_target x C, as the price log_q(max(1, p + q)) / m_max (thesis L7178-7192), marked on ADPM-capable packets like rcp's; for flows with cc = \"maxnet\"",
        params: MAXNET_PRICE_PARAMS,
    },
];

/// Keys of a link with `price = "maxnet"`.
pub const MAXNET_PRICE_PARAMS: &[KeyDoc] = &[
    k(
        "price_rtt",
        "\"100ms\"",
        "the flows' mean round trip d in the gain alpha (T / d) p / C",
    ),
    k(
        "price_interval",
        "\"10ms\"",
        "MaxNet's update interval T, at most price_rtt",
    ),
    k("price_alpha", "0.1", "MaxNet's gain alpha, in (0, 2]"),
    k(
        "price_target",
        "1",
        "the target aggregate rate c as a fraction of the capacity, in (0, 1]",
    ),
];

/// Keys of a link with `price = "rcp"`.
pub const PRICE_PARAMS: &[KeyDoc] = &[
    k(
        "price_rtt",
        "\"100ms\"",
        "RCP's d: the flows' mean round trip",
    ),
    k(
        "price_interval",
        "\"10ms\"",
        "RCP's update interval T, at most price_rtt",
    ),
    k(
        "price_alpha",
        "0.1",
        "RCP's gain on spare capacity, in (0, 2]",
    ),
    k("price_beta", "1", "RCP's gain on the queue, in [0, 2]"),
    k(
        "price_queue",
        "\"instant\"",
        "the queue RCP's beta term reads: \"instant\" (at the update) or \"min\" (the interval's smallest)",
    ),
];

/// Keys of a link with `queue = "red"`.
pub const RED_PARAMS: &[KeyDoc] = &[
    k(
        "red_min_th",
        "auto",
        "lower threshold of the average queue, packets (auto: max(5, 2.5 ms of the link))",
    ),
    k(
        "red_max_th",
        "auto",
        "upper threshold, packets (auto: 3 red_min_th)",
    ),
    k(
        "red_max_p",
        "0.1",
        "drop (mark) probability at red_max_th, in (0, 1]",
    ),
    k(
        "red_w_q",
        "auto",
        "weight of the average queue, in (0, 1] (auto: 1 - exp(-1/C), C in packets per second)",
    ),
    k(
        "red_gentle",
        "true",
        "gentle RED (the probability rises to 1 between red_max_th and twice it)",
    ),
    k(
        "red_adaptive",
        "false",
        "adaptive RED (max_p follows the average every 0.5 s)",
    ),
    k(
        "red_ecn",
        "false",
        "mark ECN-capable packets (flows with ecn = true) instead of dropping them",
    ),
    k(
        "red_min_queue",
        "2",
        "no drop or mark while fewer packets wait (2: ns-2's qlen > 1; 0: every arrival tested, the 1993 paper's Fig. 2)",
    ),
];

/// Cross-traffic kinds.
pub const TRAFFIC_KINDS: &[KindDoc] = &[
    KindDoc {
        name: "poisson",
        help: "Poisson arrivals of fixed-size packets at the mean rate",
        params: &[],
    },
    KindDoc {
        name: "constant",
        help: "constant bit rate, evenly spaced packets",
        params: &[],
    },
    KindDoc {
        name: "pareto",
        help: "Pareto on/off: bursts at a peak rate, mean rate as given",
        params: &[
            k("shape", "1.5", "Pareto shape of on and off times, > 1"),
            k("mean_on", "\"500ms\"", "mean on time"),
            k("mean_off", "\"500ms\"", "mean off time"),
        ],
    },
];

/// ACK policies for `ack`.
pub const ACK_POLICIES: &[KindDoc] = &[
    KindDoc {
        name: "every",
        help: "every data packet is acknowledged at once",
        params: &[],
    },
    KindDoc {
        name: "delayed",
        help: "RFC 5681 delayed ACK: every 2nd packet, at most 40 ms later",
        params: &[],
    },
    KindDoc {
        name: "probe-only",
        help: "only packets carrying the ACK-request bit (TCP-Madison) and the FIN",
        params: &[],
    },
];

/// Names of a key list.
pub fn names(keys: &[KeyDoc]) -> Vec<&'static str> {
    keys.iter().map(|k| k.name).collect()
}

/// Names of a kind list.
pub fn kind_names(kinds: &[KindDoc]) -> Vec<&'static str> {
    kinds.iter().map(|k| k.name).collect()
}
