//! The ACWAP experiments of seed 004 (Su, Pan, Wang, Wan 2006), shared by
//! the CI tests (`tests/acwap.rs`, shortened runs) and the full-length
//! runner (`examples/acwap_tables.rs`). The TOML files under
//! `experiments/acwap/` describe the same runs.
//!
//! The paper's ns-2 setup ("the same as Pan et al. 2006") does not state
//! the buffer, the packet size, the start times, the single flow's RTT or
//! the beta-sweep topology. Our choices, the same in every run:
//!
//! * packets of 1000 payload bytes plus a 40-byte TCP/IP header (ns-2's
//!   default `packetSize_` of 1000 bytes; 1040 bytes on the wire);
//! * a drop-tail buffer of 1000 packets at the bottleneck. Table 1's
//!   windows at congestion (H1 6653-7219 at 60 ms, H2 1007-1946 at 120 ms,
//!   H3 119-293, R1 112-443) fill a 1 Gb/s link with a queueing delay of
//!   5.6-11 ms, i.e. 670-1320 packets; the single flow's W_c = 8400 at
//!   500 Mb/s is BDP + buffer = 7212 + 1000 = 8212 at 120 ms;
//! * the single flow and the beta-sweep pair have a 120 ms RTT (the middle
//!   RTT of Table 1, also the Reno flow's); the sweep runs at 1 Gb/s;
//! * all flows start together at t = 0; the bottleneck's one-way delay is
//!   5 ms and each flow's access link makes up the rest of its RTT; access
//!   links run at 10 times the bottleneck rate; every packet is ACKed;
//! * a minimum RTO of 1 s (RFC 6298 (2.4)). It was chosen while the
//!   transport delayed the first retransmission of a loss episode until the
//!   flight fell below the reduced window, which with a 200 ms floor made
//!   the 180 ms flows time out spuriously after every loss event. The
//!   transport now retransmits at once and restarts the timer with it
//!   (`SenderConfig::fast_retransmit`, `rto_restart_on_head_retransmit`,
//!   both on by default); the 1 s floor is kept so that the results stay
//!   comparable with the report;
//! * the runs with several flows carry a constant-rate background stream of
//!   500-byte packets at 1 % of the bottleneck rate ([`Background::Constant`]).
//!   Without it the simulator is exactly periodic and drop-tail phase
//!   effects (Floyd and Jacobson 1992) decide who is dropped: lengthening
//!   the RTTs by 1.1, 2.2, 3.3 and 4.4 us changes the 180 ms flow's share of
//!   Table 1 from 0.4 % to 37 %. The stream shifts the departure grid of the queue by
//!   a fraction of a packet every 0.4 ms without adding random load; the
//!   report also shows runs with no background and with Poisson background.
//!   The single-flow runs have no background, as in the paper.
#![allow(dead_code)]

use dropless_cc::highspeed::hstcp_a;
use dropless_cc::{Time, MILLISECOND, SECOND};
use dropless_sim::loss_events::{analyze, window_stats, FlowLoss, FlowWindow, LossAnalysis};
use dropless_sim::{
    Buffer, CrossKind, CrossSpec, FlowSpec, LinkSpec, LossOptions, SimConfig, SimResult,
    Simulation, Topology,
};

/// Payload bytes per packet.
pub const MSS: u32 = 1000;
/// Header bytes per packet.
pub const HEADER: u32 = 40;
/// Bottleneck buffer, packets.
pub const BUFFER_PKTS: u64 = 1000;
/// One-way propagation delay of the bottleneck link.
pub const BOTTLENECK_DELAY: Time = 5 * MILLISECOND;
/// Minimum retransmission timeout.
pub const MIN_RTO: Time = SECOND;
/// Sampling interval of the time series.
pub const SAMPLE: Time = 100 * MILLISECOND;
/// ACWAP's congestion factor in Table 2 and the single-flow run.
pub const BETA: f64 = 0.8;
/// Background rate as a fraction of the bottleneck.
pub const BACKGROUND_SHARE: f64 = 0.01;

/// Background traffic entering the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Background {
    /// None.
    None,
    /// Constant bit rate, 500-byte packets, 1 % of the bottleneck (the
    /// default for runs with several flows).
    Constant,
    /// Poisson arrivals of 100-byte packets, 1 % of the bottleneck.
    Poisson,
}

impl Background {
    /// Short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Background::None => "none",
            Background::Constant => "CBR 1% (500 B)",
            Background::Poisson => "Poisson 1% (100 B)",
        }
    }
}

/// A bulk flow with our packet size and RTO floor.
pub fn flow(cc: &str, rtt_ms: u64) -> FlowSpec {
    let mut f = FlowSpec::bulk(cc, rtt_ms * MILLISECOND);
    f.mss = MSS;
    f.header = HEADER;
    f.min_rto = MIN_RTO;
    f
}

/// An ACWAP-HSTCP flow with congestion factor `beta`.
pub fn acwap(rtt_ms: u64, beta: f64) -> FlowSpec {
    flow("acwap-highspeed", rtt_ms).param("beta", beta)
}

/// A dumbbell at `rate_bps` with our buffer, running `secs` seconds.
pub fn dumbbell(rate_bps: f64, flows: Vec<FlowSpec>, secs: u64, bg: Background) -> SimConfig {
    let cross = match bg {
        Background::None => vec![],
        Background::Constant | Background::Poisson => vec![CrossSpec {
            kind: if bg == Background::Constant {
                CrossKind::Constant
            } else {
                CrossKind::Poisson
            },
            rate_bps: BACKGROUND_SHARE * rate_bps,
            packet_size: if bg == Background::Constant { 500 } else { 100 },
            link: 0,
            start: 0,
            stop: None,
        }],
    };
    SimConfig {
        seed: 4,
        duration: secs * SECOND,
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(rate_bps, BOTTLENECK_DELAY, Buffer::Packets(BUFFER_PKTS)),
            access_rate_bps: None,
        },
        flows,
        cross,
        sample_interval: SAMPLE,
        flow_series: true,
    }
}

/// Seed 004 §3.2 / Fig. 3 (HSTCP) and Fig. 6 (ACWAP-HSTCP): one flow alone
/// at 500 Mb/s, no background traffic.
pub fn single(f: FlowSpec, secs: u64) -> SimConfig {
    dumbbell(500e6, vec![f], secs, Background::None)
}

/// Table 1: HSTCP flows at 60, 120 and 180 ms and a Reno flow at 120 ms,
/// 1 Gb/s.
pub fn table1(secs: u64, bg: Background) -> SimConfig {
    dumbbell(
        1e9,
        vec![
            flow("highspeed", 60),
            flow("highspeed", 120),
            flow("highspeed", 180),
            flow("newreno", 120),
        ],
        secs,
        bg,
    )
}

/// Table 2: ACWAP-HSTCP (beta = 0.8) flows at 60, 120 and 180 ms, 1 Gb/s;
/// with `reno`, Table 1's Reno flow at 120 ms runs alongside (the paper's
/// Table 2 lists only the three ACWAP flows).
pub fn table2(secs: u64, reno: bool, bg: Background) -> SimConfig {
    let mut flows = vec![acwap(60, BETA), acwap(120, BETA), acwap(180, BETA)];
    if reno {
        flows.push(flow("newreno", 120));
    }
    dumbbell(1e9, flows, secs, bg)
}

/// Figs. 7-9: one HSTCP flow (flow 0) and one ACWAP-HSTCP flow (flow 1)
/// with congestion factor `beta`, both at 120 ms, 1 Gb/s.
pub fn pair(beta: f64, secs: u64, bg: Background) -> SimConfig {
    dumbbell(
        1e9,
        vec![flow("highspeed", 120), acwap(120, beta)],
        secs,
        bg,
    )
}

/// Adds `us * (i + 1)` microseconds to flow `i`'s RTT: a replica of the same
/// experiment with other packet phases.
pub fn shift_phases(mut cfg: SimConfig, us: f64) -> SimConfig {
    for (i, f) in cfg.flows.iter_mut().enumerate() {
        f.rtt = f
            .rtt
            .map(|r| r + (us * 1000.0 * (i as f64 + 1.0)).round() as Time);
    }
    cfg
}

/// One row of Table 1 / Table 2: a flow over the measurement window.
#[derive(Clone, Debug)]
pub struct Row {
    /// Controller name.
    pub cc: String,
    /// Base RTT, ms.
    pub rtt_ms: f64,
    /// Goodput share of the bottleneck.
    pub util: f64,
    /// Loss rate: lost / (delivered + lost).
    pub loss_rate: f64,
    /// Loss summary (events, drops per event, gaps, windows, timeouts).
    pub loss: FlowLoss,
    /// Window summary.
    pub window: FlowWindow,
}

impl Row {
    /// `a(w)` (RFC 3649) at the smallest and largest window at congestion.
    pub fn a_range(&self) -> (f64, f64) {
        (hstcp_a(self.loss.cwnd_min), hstcp_a(self.loss.cwnd_max))
    }
}

/// A run analysed over `[from_s, to_s]`.
pub struct Measured {
    /// The configuration.
    pub cfg: SimConfig,
    /// The raw result.
    pub result: SimResult,
    /// Loss-event analysis.
    pub losses: LossAnalysis,
    /// One row per flow.
    pub rows: Vec<Row>,
}

impl Measured {
    /// Jain's fairness index over the shares of the flows whose controller
    /// name contains `cc` (e.g. "highspeed" for H1-H3 or f1-f3).
    pub fn fairness(&self, cc: &str) -> f64 {
        let x: Vec<f64> = self
            .rows
            .iter()
            .filter(|r| r.cc.contains(cc))
            .map(|r| r.util)
            .collect();
        dropless_sim::jain(&x)
    }

    /// Bottleneck utilization by all flows (background excluded) over the window.
    pub fn total_util(&self) -> f64 {
        self.rows.iter().map(|r| r.util).sum()
    }
}

/// Runs `cfg` and measures events detected in `[from_s, to_s)` and goodput
/// over `(from_s, to_s]`.
pub fn run(cfg: SimConfig, from_s: f64, to_s: f64) -> Measured {
    let result = Simulation::new(cfg.clone())
        .expect("valid ACWAP scenario")
        .run();
    let losses = analyze(&cfg, &result, &LossOptions::window(from_s, to_s));
    let windows = window_stats(&cfg, &result, from_s, to_s);
    let rows = windows
        .into_iter()
        .zip(&losses.flows)
        .map(|(w, l)| Row {
            cc: result.flows[w.flow].cc.clone(),
            rtt_ms: result.flows[w.flow].rtt_s * 1e3,
            util: w.utilization,
            loss_rate: w.loss_rate,
            loss: l.clone(),
            window: w,
        })
        .collect();
    Measured {
        cfg,
        result,
        losses,
        rows,
    }
}

/// Fraction of the trace samples in `[from_s, to_s]` at which flow `f`'s
/// ACWAP rule (eq. (3)) was in force.
pub fn limiting_fraction(m: &Measured, f: usize, from_s: f64, to_s: f64) -> f64 {
    let s = &m.result.series;
    let Some(col) = s.flows[f].var("limiting") else {
        return 0.0;
    };
    let v: Vec<f64> = col
        .iter()
        .zip(&s.t)
        .filter(|(_, &t)| t >= from_s && t <= to_s)
        .map(|(v, _)| *v)
        .filter(|v| v.is_finite())
        .collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// `cfg` with a drop-tail bottleneck buffer of `pkts` packets instead of
/// [`BUFFER_PKTS`].
pub fn with_buffer(mut cfg: SimConfig, pkts: u64) -> SimConfig {
    if let Topology::Dumbbell { bottleneck, .. } = &mut cfg.topology {
        bottleneck.buffer = Buffer::Packets(pkts);
    }
    cfg
}

/// `cfg` with the controller parameters `params` added to every ACWAP flow
/// (e.g. `("rtt_sampling", 1.0)`).
pub fn with_acwap_params(mut cfg: SimConfig, params: &[(&str, f64)]) -> SimConfig {
    for f in cfg.flows.iter_mut().filter(|f| f.cc.starts_with("acwap")) {
        for &(k, v) in params {
            f.params.push((k.to_string(), v));
        }
    }
    cfg
}

/// Loss measures of the beta-sweep pair (flow 0 HSTCP, flow 1 ACWAP).
#[derive(Clone, Copy, Debug)]
pub struct PairLoss {
    /// Packets lost / packets sent, both flows together.
    pub both_rate: f64,
    /// The ACWAP flow's lost packets per second of the window.
    pub acwap_drops_per_s: f64,
    /// Congestion episodes at the bottleneck.
    pub episodes: usize,
    /// Fraction of the episodes in which the ACWAP flow lost packets.
    pub acwap_hit: f64,
    /// Fraction of the episodes in which the HSTCP flow lost packets.
    pub hstcp_hit: f64,
}

/// [`PairLoss`] of a beta-sweep run measured over `[from_s, to_s]`.
pub fn pair_loss(m: &Measured, from_s: f64, to_s: f64) -> PairLoss {
    let (h, a) = (&m.rows[0].window, &m.rows[1].window);
    let lost = (h.lost_pkts + a.lost_pkts) as f64;
    let ep = &m.losses.episodes;
    let hit = |f: usize| {
        if ep.is_empty() {
            f64::NAN
        } else {
            ep.iter().filter(|e| e.flows.contains(&f)).count() as f64 / ep.len() as f64
        }
    };
    PairLoss {
        both_rate: lost / (h.delivered_pkts + a.delivered_pkts + lost),
        acwap_drops_per_s: a.lost_pkts as f64 / (to_s - from_s),
        episodes: ep.len(),
        acwap_hit: hit(1),
        hstcp_hit: hit(0),
    }
}
