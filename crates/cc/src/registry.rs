//! Controllers by name, with their parameters, for scenario files and
//! command lines.
//!
//! ```
//! use dropless_cc::{registry, ConnInfo};
//! let cc = registry::build("fast", &[("alpha".to_string(), 200.0)], &ConnInfo::default()).unwrap();
//! assert_eq!(cc.name(), "fast");
//! assert!(registry::build("fats", &[], &ConnInfo::default()).is_err());
//! ```
//!
//! Every window-based controller accepts the common parameters
//! `initial_cwnd`, `initial_ssthresh`, `rto_cwnd` and `paced` (0/1: wrap in
//! [`crate::paced::Paced`]). Booleans are given as 0 or 1. When a parameter
//! appears more than once, the last value wins.
//!
//! The ACWAP variants (`acwap-highspeed`, `acwap-scalable`, `acwap-bic`,
//! seed 004, [`crate::acwap`]) pace by themselves: their `paced` must stay 0
//! and their own `pacing` switches ACWAP's pacing. Their `beta` is ACWAP's
//! congestion factor (eq. (3)); BIC's decrease is `bic_beta` in `acwap-bic`.

use std::fmt;

use crate::acwap::{Acwap, AcwapConfig, RttSampling};
use crate::bic::{Bic, BicConfig};
use crate::cubic::{Cubic, CubicConfig};
use crate::dctcp::{Dctcp, DctcpConfig};
use crate::estimator::Estimated;
use crate::fast::{Fast, FastConfig};
use crate::fast_start::FourPhaseConfig;
use crate::highspeed::HighSpeed;
use crate::madison::{Madison, MadisonConfig};
use crate::newreno::{NewReno, WindowParams};
use crate::paced::{PaceRtt, Paced};
use crate::scalable::{Scalable, ScalableConfig};
use crate::vegas::{SsExit, Vegas, VegasConfig, VegasForm};
use crate::{ConnInfo, Controller};

/// One tunable parameter of a controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// Name as written in scenario files.
    pub name: &'static str,
    /// Value used when the parameter is not given.
    pub default: f64,
    /// One-line description with units.
    pub help: &'static str,
}

/// A controller known to the registry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcSpec {
    /// Name as written in scenario files.
    pub name: &'static str,
    /// One-line description.
    pub help: &'static str,
    /// Accepted parameters.
    pub params: &'static [ParamSpec],
}

impl CcSpec {
    /// The parameter called `name`, if this controller has one.
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Names of all accepted parameters.
    pub fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|p| p.name).collect()
    }
}

/// Why [`build`] failed.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// No controller has this name.
    UnknownController {
        /// The name asked for.
        name: String,
        /// All known names.
        known: Vec<&'static str>,
    },
    /// The controller has no parameter of this name.
    UnknownParam {
        /// Controller name.
        controller: &'static str,
        /// The parameter given.
        param: String,
        /// The parameters the controller accepts.
        allowed: Vec<&'static str>,
    },
    /// A parameter value is out of range.
    BadValue {
        /// Controller name.
        controller: &'static str,
        /// Parameter name.
        param: String,
        /// The value given (or defaulted).
        value: f64,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::UnknownController { name, known } => write!(
                f,
                "unknown congestion controller \"{name}\"; known controllers: {}",
                known.join(", ")
            ),
            BuildError::UnknownParam {
                controller,
                param,
                allowed,
            } => write!(
                f,
                "congestion controller \"{controller}\" has no parameter \"{param}\"; allowed parameters: {}",
                allowed.join(", ")
            ),
            BuildError::BadValue {
                controller,
                param,
                value,
                reason,
            } => write!(f, "bad value {value} for parameter \"{param}\" of congestion controller \"{controller}\": {reason}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Parameter lists: the common window parameters, then the controller's own.
macro_rules! params {
    (rto_cwnd = $rto:expr; $($n:literal = $d:expr, $h:literal;)*) => {
        &[
            ParamSpec { name: "initial_cwnd", default: 10.0, help: "initial congestion window, packets (RFC 6928: 10)" },
            ParamSpec { name: "initial_ssthresh", default: f64::INFINITY, help: "initial slow-start threshold, packets (inf: none)" },
            ParamSpec { name: "rto_cwnd", default: $rto, help: "window after a retransmission timeout, packets" },
            ParamSpec { name: "paced", default: 0.0, help: "1: pace the window evenly over an RTT (rate = cwnd * wire_size / srtt); 0: ACK clocked" },
            ParamSpec { name: "pacer", default: 0.0, help: "with paced = 1, the RTT paced over: 0 the transport's srtt; 1 the ns-2 pacing patch's (Wei 2006, pace_packet_ = 1: its own average of one sample per RTT, the minimum RTT in recovery); 2 as 1 with its random_pace_ (each departure moved by U[-0.4, 0.4] gap)" },
            ParamSpec { name: "path_estimator", default: 0.0, help: "1: run the TCP-Madison path estimator alongside (probes, packet pairs) and export its estimates as trace variables" },
            $(ParamSpec { name: $n, default: $d, help: $h },)*
        ]
    };
}

/// TCP-Madison's parameters; the three precautions' defaults differ
/// between the user's default (`madison`) and the paper's form
/// (`madison-paper`).
macro_rules! madison_params {
    (paced_u = $pu:expr, busy_u = $bu:expr, up_gain = $ug:expr) => {
        params!(rto_cwnd = 1.0;
            "d_norm" = 0.0235, "normalized d/RTT_avg of eq. (3) (Table 2)";
            "p_min" = 2.55e-5, "smallest loss rate used for b_target (Table 2)";
            "p_init" = 1e-4, "initial loss-rate estimate (Table 2)";
            "rate_interval" = 0.2, "T, minimum time between rate changes, seconds (Table 2)";
            "t_probe" = 32.0, "tProbe*, minimum mean probe spacing, bottleneck packet times (Table 2)";
            "pairs" = 20.0, "packet pairs sent in all, one per RTT (section 4.3)";
            "quiesce" = 1.0, "1: stop sending while a requested ACK is late (coarse ACK clocking, section 4.3)";
            "gain" = 1.0, "fraction of the step to a new S_target taken per change, in (0,1]; 1 is the paper, below 1 a damped variant";
            "open_loop" = 0.0, "1: compute S_target once after start-up and keep it (the Fig. 2 experiment)";
            "disjoint_b" = 1.0, "1: rule (2d) compares two averages of disjoint sets of six probes; 0: two consecutive sliding averages";
            "paced_u" = $pu, "1: estimate U as (2B + U_flow)/(2B + 1), allowing for the flow's own pacing (a precaution); 0: eq. (8)";
            "busy_u" = $bu, "1: probes leave at random instants (held one pacing interval after their exponential instant) and U is the fraction of the latest 256 probes that found the bottleneck busy (after 32 probes; before, as paced_u says; a precaution); 0: probes at pacing slots, U from the backlog";
            "up_gain" = $ug, "extra factor on gain for rate increases only, in (0,1]; 1 is the paper, 0.5 a precaution";
        )
    };
}

static SPECS: &[CcSpec] = &[
    CcSpec {
        name: "newreno",
        help: "TCP NewReno window rules (RFC 5681 / RFC 6582)",
        params: params!(rto_cwnd = 1.0;),
    },
    CcSpec {
        name: "dctcp",
        help: "DCTCP (RFC 8257): the window cut by alpha/2 once per window of CE echoes, alpha the moving average of the marked fraction; NewReno otherwise (flows need ecn = true)",
        params: params!(rto_cwnd = 1.0;
            "g" = 0.0625, "gain of alpha's moving average, per window of data, in (0,1)";
            "initial_alpha" = 1.0, "alpha before any window has been observed, in [0,1]";
        ),
    },
    CcSpec {
        name: "highspeed",
        help: "HighSpeed TCP (RFC 3649): a(w)/b(w) response above 38 packets",
        params: params!(rto_cwnd = 1.0;),
    },
    CcSpec {
        name: "scalable",
        help: "Scalable TCP (Kelly 2003): +a per ACK, -b*cwnd per event above the legacy window",
        params: params!(rto_cwnd = 1.0;
            "a" = 0.01, "increase per acknowledged packet, packets";
            "b" = 0.125, "multiplicative decrease fraction, in (0,1)";
            "legacy_window" = 16.0, "Reno rules at or below this window, packets";
        ),
    },
    CcSpec {
        name: "bic",
        help: "BIC TCP (Xu et al. 2004): binary search increase and max probing",
        params: params!(rto_cwnd = 1.0;
            "beta" = 0.125, "multiplicative decrease fraction (window becomes (1-beta) cwnd), in (0,1)";
            "s_max" = 32.0, "largest increase per RTT, packets";
            "s_min" = 0.01, "smallest increase per RTT, packets";
            "low_window" = 14.0, "Reno rules at or below this window, packets";
            "fast_convergence" = 1.0, "1: fast convergence on loss below W_max";
        ),
    },
    CcSpec {
        name: "cubic",
        help: "CUBIC (RFC 9438)",
        params: params!(rto_cwnd = 1.0;
            "c" = 0.4, "cubic scaling constant C, packets/s^3";
            "beta" = 0.7, "window multiplier on congestion beta_cubic, in (0,1)";
            "hystart" = 1.0, "1: leave slow start early with HyStart (ACK train, delay increase), as Linux's CUBIC does by default; 2: HyStart++ (RFC 9406: delay increase, then conservative slow start); 0: slow start until the first loss";
            "ack_delay" = 1.0, "1: HyStart's ACK-train threshold includes Linux's slack (hystart_ack_delay(): min(1 ms, 4 x 64 KB / slow-start pacing rate)); 0: without it (dropless's detector before 2026-11-26)";
            "pacing" = 0.0, "1: Linux's internal pacing (2 cwnd/srtt below ssthresh/2, 1.2 cwnd/srtt above, bursts of about 1 ms), as kernel CUBIC runs when its socket asked for pacing (created under bbr, or over fq); HyStart's ACK train then needs a whole minimum RTT; 0: ACK clocked, as a stock Linux CUBIC socket";
            "fast_convergence" = 1.0, "1: fast convergence (RFC 9438 section 4.7)";
            "reno_friendly" = 1.0, "1: Reno-friendly region (RFC 9438 section 4.3)";
            "initial_growth" = 0.05, "least growth per acknowledged packet in congestion avoidance before the first congestion event, packets, in [0, 0.5]: 0.05 is Linux's 5 % per RTT (bictcp_update(): cnt at most 20 while last_max_cwnd is 0), 0 follows RFC 9438 alone";
        ),
    },
    CcSpec {
        name: "vegas",
        help: "TCP Vegas, per-RTT packet form (ns-2 thresholds in packets)",
        params: params!(rto_cwnd = 1.0;
            "alpha" = 1.0, "grow by 1 packet per RTT while diff < alpha, packets";
            "beta" = 3.0, "shrink by 1 packet per RTT while diff > beta, packets (>= alpha)";
            "gamma" = 1.0, "leave slow start once diff >= gamma, packets";
            "slow_start" = 1.0, "1: Vegas slow start (doubling every other RTT)";
        ),
    },
    CcSpec {
        name: "vegas-rate",
        help: "TCP Vegas, the thesis's prose/rate form (thresholds in packets per second)",
        params: params!(rto_cwnd = 1.0;
            "alpha_plus" = 250.0, "grow by 1 packet per RTT while w/d - w/D < alpha_plus, packets/s";
            "beta_plus" = 0.0, "shrink by 1 packet per RTT while w/d - w/D > beta_plus, packets/s (0: alpha_plus + 25)";
            "gamma_plus" = 0.0, "leave slow start once w/d - w/D >= gamma_plus, packets/s (0: alpha_plus)";
            "slow_start" = 1.0, "1: Vegas slow start (doubling every other RTT)";
            "ss_exit_cut" = 1.0, "on leaving slow start: 1 cut to the expected-rate window + 1 (Linux); 0 keep the window; 2 cut by an eighth (ns-2 tcp-vegas.cc)";
        ),
    },
    CcSpec {
        name: "fast",
        help: "FAST TCP, as the ns-2 module of the thesis (Cui and Andrew)",
        params: params!(rto_cwnd = 2.0;
            "alpha" = 100.0, "packets each flow keeps queued";
            "beta" = 0.0, "upper edge of the update dead zone, packets (0: equal to alpha, no dead zone)";
            "gamma" = 0.5, "smoothing gain, in (0,1]";
            "update_period" = 0.01, "minimum time between window updates, seconds";
            "mi_threshold" = 0.00075, "queueing delay below which the window grows by 1 per ACK, seconds (0: pure FAST)";
            "slow_start" = 0.0, "1: slow start until the backlog reaches alpha (the ns-2 module has none)";
            "every_other_rtt" = 1.0, "1: update only every other RTT (module default)";
            "decrease_pacing" = 0.0, "1: thesis Algorithm 1, pace window decreases over an RTT (-dW/W per ACK)";
            "alpha_adjust" = 0.0, "1: thesis alpha-adjusting: halve alpha on loss recovery, recover towards alpha at rate alpha_k";
            "alpha_k" = 0.1, "alpha-adjusting recovery rate k, 1/s (thesis eq. (4.35): 0.1)";
            "alpha_floor" = 0.01, "alpha-adjusting floor, fraction of alpha (thesis: 1/100)";
            "alpha_rto_halve" = 1.0, "1: an RTO also halves alpha (thesis silent)";
            "ns2_recovery" = 0.0, "1: estimation frozen in loss recovery, as the ns-2 module (no fast_est in fast recovery)";
            "four_phase" = 0.0, "1: thesis four-phase queue-draining start (reduction, depletion, refill, stabilisation)";
            "fp_r" = 0.0, "four-phase rate-scaling factor r (0: alpha, the thesis's recommendation)";
            "fp_stable_updates" = 3.0, "four-phase: consecutive stable window updates that start the phases";
            "fp_stable_tol" = 0.01, "four-phase: window stable if |target - cwnd| <= max(1, tol * cwnd)";
            "fp_refill_full" = 0.0, "four-phase refill target: 0 = alpha d/(D - d) (thesis), 1 = alpha D/(D - d)";
        ),
    },
    CcSpec {
        name: "acwap-highspeed",
        help: "ACWAP-HSTCP (seed 004): HighSpeed TCP with a(w) = 1 near RTT_max and pacing at RTT/cwnd",
        params: params!(rto_cwnd = 1.0;
            "beta" = 0.8, "ACWAP congestion factor of eq. (3): a(w) = 1 once R_C >= RTT_min + beta (RTT_max - RTT_min), in [0,1]";
            "warmup" = 2.0, "congestion events before eq. (3) may act (Fig. 5 numofcon >= 2), integer >= 0";
            "rtt_gain" = 0.125, "gain of the smoothed RTT estimate R_C per sample, in (0,1]";
            "pacing" = 1.0, "1: pace at R_C/cwnd (ACWAP's pacing); 0: window rule only";
            "rtt_sampling" = 0.0, "R_C samples: 0 = every ACK; 1 = one timed packet per RTT as ns-2's TcpAgent (ACWAP Fig. 5 on ns-2's srtt)";
            "rtt_tick" = 0.0, "with rtt_sampling = 1: ns-2 clock tick tcpTick_ in seconds (samples in ticks, srtt in eighths of a tick); 0 = exact";
        ),
    },
    CcSpec {
        name: "acwap-scalable",
        help: "ACWAP around Scalable TCP (seed 004): a(w) = 1 near RTT_max and pacing at RTT/cwnd",
        params: params!(rto_cwnd = 1.0;
            "beta" = 0.8, "ACWAP congestion factor of eq. (3), in [0,1]";
            "warmup" = 2.0, "congestion events before eq. (3) may act, integer >= 0";
            "rtt_gain" = 0.125, "gain of the smoothed RTT estimate R_C per sample, in (0,1]";
            "pacing" = 1.0, "1: pace at R_C/cwnd; 0: window rule only";
            "rtt_sampling" = 0.0, "R_C samples: 0 = every ACK; 1 = one timed packet per RTT (ns-2)";
            "rtt_tick" = 0.0, "with rtt_sampling = 1: ns-2 clock tick in seconds; 0 = exact";
            "a" = 0.01, "Scalable increase per acknowledged packet, packets";
            "b" = 0.125, "Scalable multiplicative decrease fraction, in (0,1)";
            "legacy_window" = 16.0, "Reno rules at or below this window, packets";
        ),
    },
    CcSpec {
        name: "acwap-bic",
        help: "ACWAP around BIC TCP (seed 004): a(w) = 1 near RTT_max and pacing at RTT/cwnd",
        params: params!(rto_cwnd = 1.0;
            "beta" = 0.8, "ACWAP congestion factor of eq. (3), in [0,1]";
            "warmup" = 2.0, "congestion events before eq. (3) may act, integer >= 0";
            "rtt_gain" = 0.125, "gain of the smoothed RTT estimate R_C per sample, in (0,1]";
            "pacing" = 1.0, "1: pace at R_C/cwnd; 0: window rule only";
            "rtt_sampling" = 0.0, "R_C samples: 0 = every ACK; 1 = one timed packet per RTT (ns-2)";
            "rtt_tick" = 0.0, "with rtt_sampling = 1: ns-2 clock tick in seconds; 0 = exact";
            "bic_beta" = 0.125, "BIC multiplicative decrease fraction, in (0,1)";
            "s_max" = 32.0, "largest BIC increase per RTT, packets";
            "s_min" = 0.01, "smallest BIC increase per RTT, packets";
            "low_window" = 14.0, "Reno rules at or below this window, packets";
            "fast_convergence" = 1.0, "1: fast convergence on loss below W_max";
        ),
    },
    CcSpec {
        name: "madison",
        help: "TCP-Madison (Kola and Vernon 2007, seed 002) with the documented precautions on (paced_u, busy_u, up_gain 0.5; docs/reports/madison.md): paces at the rate that holds a Reno-fair target backlog, from end-host path measures; use with the probe-only ACK policy",
        params: madison_params!(paced_u = 1.0, busy_u = 1.0, up_gain = 0.5),
    },
    CcSpec {
        name: "madison-paper",
        help: "TCP-Madison exactly as the paper prints it (seed 002; precautions off): the preset the reproductions select",
        params: madison_params!(paced_u = 0.0, busy_u = 0.0, up_gain = 1.0),
    },
    CcSpec {
        name: "pda",
        help: "Packet Drop Avoidance (\"Network Lion\", Jin 2004, seeds 000/001; alias lion): bursts no larger than the measured maximum burst size, the gap set by the available bandwidth estimated from the flow's own bursts; loss without queueing is retransmitted, not punished",
        params: params!(rto_cwnd = 2.0;
            "init_burst" = 4.0, "first burst size, packets";
            "max_burst" = 64.0, "largest burst, packets";
            "startup_gain" = 2.0, "rate multiplier per round in start-up, > 1";
            "startup_jump" = 0.5, "in start-up, at least this fraction of the capacity the bursts measured, in [0, 1]";
            "q_thresh_frac" = 0.05, "queueing delay that counts as potential queuing, fraction of the base RTT";
            "q_thresh_min" = 0.001, "smallest queueing-delay threshold from the base RTT, seconds";
            "buffer_thresh" = 0.5, "once a loss has measured the buffer's depth (the queueing delay at the loss), the queueing-delay threshold is at most this fraction of it, in (0, 1]";
            "buffer_burst" = 0.25, "once a loss has measured the buffer's depth, the MBS is at most this fraction of it in packets at the capacity, in (0, 1]";
            "margin" = 0.02, "fraction below the available bandwidth to pace at, in [0,1)";
            "probe_gain" = 0.05, "rate increase per probe (and per round when balancing against a non-yielding competitor), fraction of the capacity";
            "probe_rounds" = 4.0, "quiet rounds before a probe";
            "max_backoff" = 0.0, "each congestion loss in cruise doubles the quiet rounds before a probe, up to probe_rounds x 2^max_backoff (0: no back-off), in [0, 16]";
            "startup_approach" = 1.0, "in start-up, once the capacity is measured, the rate rises per round by at most this fraction of what is left below it, in (0, 1] (1: no approach)";
            "mbs_grow_rounds" = 8.0, "rounds without a congestion loss before the burst grows by one";
            "cap_window" = 10.0, "rounds the capacity estimate keeps its maximum over";
            "shuffle" = 1.0, "1: yield a step of the rate from the seed's table when new traffic appears";
            "infer_flows" = 0.0, "1: on new traffic, count the flows sharing as the seed assumes (all at this flow's rate, plus the newcomer) and yield at least down to the even share; 0: the table's step only";
            "count_yield" = 0.0, "1: the seed's shuffle: on new traffic yield the table's step, count the streams from the fall in arrivals it makes and pace at the even share (a newcomer that takes the yield is balanced against); 0: the table's step only";
            "cwnd_gain" = 2.0, "flight cap: this many rate x RTT, plus one burst";
            "loss_confirm" = 0.02, "fraction of a round's packets lost (3 or more) that confirms congestion whatever the delay, in (0, 1]";
            "competing_loss" = 0.1, "while balancing against a competitor that does not yield, the fraction of a round's packets lost (3 or more) that still confirms congestion, in (0, 1]";
            "search" = 0.0, "1: after start-up, find the available bandwidth by a binary search over self-loading trains (pathload's method; dropless probe) instead of cruising";
            "pulse" = 1.0, "1: a cruise probe above half the capacity is a pulse whose excess over the pace is at most one MBS, judged by the queueing delay it adds; 0: the probe raises the pace by probe_gain and keeps it";
            "probe_fit" = 0.0, "1: a standing queue within 6 rounds of the flow's own probe step, or with arrivals at most two probe steps above the capacity, is a probe's (the flow's or a peer's): scale the pace so the link's arrivals fit below the margin and let the queue drain, instead of yielding the table's step; 0: yield it as new traffic";
            "startup_load" = 1.0, "1: start-up's increases above startup_jump x the capacity are pulses whose excess over the pace is one MBS, each judged by the queueing delay it adds before the pace moves; 0: the start-up rate is raised for a whole round trip";
            "delay_share" = 0.0, "1: flows whose standing queue outlasts their yields share by delay, each keeping share_alpha of the smaller of its base RTT and the measured buffer queued (FAST's rule), until a loss at the brim of the measured buffer shows a competitor that does not yield; 0: balance towards half the capacity at once";
            "share_alpha" = 0.0625, "fraction of the smaller of the base RTT and the measured buffer that a flow sharing by delay keeps queued, in (0, 1]";
        ),
    },
    CcSpec {
        name: "bbr",
        help: "BBR v1 (Cardwell et al., ACM Queue 2016) as Linux's tcp_bbr runs it: paces at the windowed-maximum delivery rate, window two BDPs, gain cycling, ProbeRTT every 10 s; loss does not cut the model",
        params: params!(rto_cwnd = 1.0;
            "high_gain" = 2.885390081777927, "Startup's pacing and window gain (2/ln 2); Drain paces at its inverse";
            "cwnd_gain" = 2.0, "ProbeBW's window gain, in [1, 100]";
            "bw_rounds" = 10.0, "rounds the bottleneck-bandwidth maximum filter spans";
            "min_rtt_win" = 10.0, "seconds the minimum RTT is kept before ProbeRTT re-measures it";
            "probe_rtt_time" = 0.2, "seconds at 4 packets in ProbeRTT (0: no ProbeRTT)";
            "full_bw_thresh" = 1.25, "growth of the bandwidth estimate per round that keeps Startup going, > 1";
            "full_bw_count" = 3.0, "rounds without that growth that end Startup";
            "pacing_margin" = 0.01, "pace this fraction below the model's rate, in [0, 1)";
            "extra_acked_gain" = 1.0, "gain of the ACK-aggregation window allowance (0: off)";
        ),
    },
    CcSpec {
        name: "rcp",
        help: "an RCP-style rate controller driven by an explicit price (thesis ch. 5-6; Dukkipati et al. 2005): paces at the smallest rate its path's links compute, which the links carry as a price in ADPM marks (queue price = \"rcp\") and the receiver decodes; the window grows as in slow start up to window_gain decoded BDPs",
        params: params!(rto_cwnd = 1.0;
            "window_gain" = 2.0, "the window's cap in bandwidth-delay products of the decoded rate, in [1, 100]";
        ),
    },
    CcSpec {
        name: "maxnet",
        help: "a MaxNet source driven by an explicit price (Wydrowski and Zukerman 2002; thesis ch. 5 eq. (5.6)): paces at its demand W / p at the largest cost p of its path's links, which the links carry in ADPM marks (price = \"maxnet\") and the receiver decodes; the window grows as in slow start up to window_gain BDPs of that rate",
        params: params!(rto_cwnd = 1.0;
            "window_gain" = 2.0, "the window's cap in bandwidth-delay products of the demanded rate, in [1, 100]";
        ),
    },
    CcSpec {
        name: "cbr",
        help: "a constant-rate sender: bursts of `burst` packets at an average of `rate` bits/s (wire bytes), never changed by loss or delay (seed 001's open-loop stream of Figs. 1-4; iperf3 -u -b); lost packets are retransmitted",
        params: params!(rto_cwnd = 1.0;
            "rate" = 100e6, "average rate, bits/s on the wire, in (0, 1e14]";
            "burst" = 1.0, "packets per burst, a whole number in [1, 65536]";
        ),
    },
];

/// Whether `name` is TCP-Madison (the default or the paper's preset):
/// it runs its own path estimator and wants probe-only ACKs.
pub fn is_madison(name: &str) -> bool {
    name == "madison" || name == "madison-paper"
}

/// All controllers the registry can build.
pub fn all() -> &'static [CcSpec] {
    SPECS
}

/// Other names a controller answers to: (alias, name).
pub const ALIASES: &[(&str, &str)] = &[("lion", "pda")];

/// The controller called `name` (or an alias of it).
pub fn find(name: &str) -> Option<&'static CcSpec> {
    let name = ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, n)| *n);
    SPECS.iter().find(|s| s.name == name)
}

/// Parameter values for one build: given ones override defaults.
struct Values<'a> {
    spec: &'static CcSpec,
    given: &'a [(String, f64)],
}

impl Values<'_> {
    fn raw(&self, name: &'static str) -> f64 {
        if let Some((_, v)) = self.given.iter().rev().find(|(k, _)| k == name) {
            return *v;
        }
        self.spec
            .param(name)
            .map(|p| p.default)
            .expect("parameter listed in the spec")
    }

    fn bad(&self, name: &str, value: f64, reason: impl Into<String>) -> BuildError {
        BuildError::BadValue {
            controller: self.spec.name,
            param: name.to_string(),
            value,
            reason: reason.into(),
        }
    }

    /// A finite value satisfying `ok`.
    fn check(
        &self,
        name: &'static str,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, BuildError> {
        let v = self.raw(name);
        if v.is_finite() && ok(v) {
            Ok(v)
        } else {
            Err(self.bad(name, v, format!("must be {what}")))
        }
    }

    fn positive(&self, name: &'static str) -> Result<f64, BuildError> {
        self.check(name, |v| v > 0.0, "a finite number > 0")
    }

    fn non_negative(&self, name: &'static str) -> Result<f64, BuildError> {
        self.check(name, |v| v >= 0.0, "a finite number >= 0")
    }

    fn fraction(&self, name: &'static str) -> Result<f64, BuildError> {
        self.check(name, |v| v > 0.0 && v < 1.0, "strictly between 0 and 1")
    }

    fn boolean(&self, name: &'static str) -> Result<bool, BuildError> {
        let v = self.raw(name);
        if v == 0.0 || v == 1.0 {
            Ok(v == 1.0)
        } else {
            Err(self.bad(name, v, "must be 0 or 1"))
        }
    }

    /// ACWAP's own parameters (seed 004).
    fn acwap(&self) -> Result<AcwapConfig, BuildError> {
        let warmup = self.check(
            "warmup",
            |v| v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64,
            "a whole number >= 0",
        )?;
        let tick = (self.non_negative("rtt_tick")? * 1e9).round() as crate::Time;
        Ok(AcwapConfig {
            beta: self.check("beta", |v| (0.0..=1.0).contains(&v), "in [0, 1]")?,
            warmup_events: warmup as u32,
            rtt_gain: self.check("rtt_gain", |v| v > 0.0 && v <= 1.0, "in (0, 1]")?,
            pacing: self.boolean("pacing")?,
            rtt_sampling: if self.boolean("rtt_sampling")? {
                RttSampling::OncePerRtt { tick }
            } else {
                RttSampling::EveryAck
            },
            ..AcwapConfig::default()
        })
    }

    fn window(&self) -> Result<WindowParams, BuildError> {
        let initial_cwnd = self.check(
            "initial_cwnd",
            |v| v >= 1.0,
            "a finite number >= 1 (packets)",
        )?;
        let ss = self.raw("initial_ssthresh");
        if ss.is_nan() || ss <= 0.0 {
            return Err(self.bad(
                "initial_ssthresh",
                ss,
                "must be > 0 (packets; inf for none)",
            ));
        }
        let rto_cwnd = self.check("rto_cwnd", |v| v >= 1.0, "a finite number >= 1 (packets)")?;
        Ok(WindowParams {
            initial_cwnd,
            initial_ssthresh: ss,
            rto_cwnd,
        })
    }

    /// `value >= floor` where `floor` is another parameter's value.
    fn at_least(
        &self,
        name: &'static str,
        v: f64,
        floor_name: &str,
        floor: f64,
    ) -> Result<f64, BuildError> {
        if v.is_finite() && v >= floor {
            Ok(v)
        } else {
            Err(self.bad(name, v, format!("must be >= {floor_name} ({floor})")))
        }
    }
}

/// Builds the controller `name` with the given parameter overrides for the
/// connection `info`.
pub fn build(
    name: &str,
    params: &[(String, f64)],
    info: &ConnInfo,
) -> Result<Box<dyn Controller>, BuildError> {
    let spec = find(name).ok_or_else(|| BuildError::UnknownController {
        name: name.to_string(),
        known: SPECS.iter().map(|s| s.name).collect(),
    })?;
    for (k, _) in params {
        if spec.param(k).is_none() {
            return Err(BuildError::UnknownParam {
                controller: spec.name,
                param: k.clone(),
                allowed: spec.param_names(),
            });
        }
    }
    let v = Values {
        spec,
        given: params,
    };
    let window = v.window()?;
    let paced = v.boolean("paced")?;
    if paced && spec.name.starts_with("acwap") {
        return Err(v.bad(
            "paced",
            1.0,
            "must be 0: ACWAP paces at R_C/cwnd by itself (parameter \"pacing\")",
        ));
    }

    let cc: Box<dyn Controller> = match spec.name {
        "newreno" => Box::new(NewReno::new(window)),
        "dctcp" => Box::new(Dctcp::new(DctcpConfig {
            window,
            g: v.fraction("g")?,
            initial_alpha: v.check(
                "initial_alpha",
                |x| (0.0..=1.0).contains(&x),
                "a fraction in [0, 1]",
            )?,
        })),
        "highspeed" => Box::new(HighSpeed::new(window)),
        "scalable" => Box::new(Scalable::new(ScalableConfig {
            window,
            a: v.positive("a")?,
            b: v.fraction("b")?,
            legacy_window: v.non_negative("legacy_window")?,
        })),
        "bic" => {
            let s_min = v.positive("s_min")?;
            let s_max = v.positive("s_max")?;
            let s_max = v.at_least("s_max", s_max, "s_min", s_min)?;
            Box::new(Bic::new(BicConfig {
                window,
                beta: v.fraction("beta")?,
                s_max,
                s_min,
                low_window: v.non_negative("low_window")?,
                fast_convergence: v.boolean("fast_convergence")?,
            }))
        }
        "cubic" => {
            let pacing = v.boolean("pacing")?;
            if pacing && paced {
                return Err(v.bad(
                    "pacing",
                    1.0,
                    "must be 0 with paced = 1: choose Linux's pacing (pacing) or one window per RTT (paced)",
                ));
            }
            Box::new(Cubic::new(CubicConfig {
                window,
                c: v.positive("c")?,
                beta: v.fraction("beta")?,
                fast_convergence: v.boolean("fast_convergence")?,
                reno_friendly: v.boolean("reno_friendly")?,
                initial_growth: v.check(
                    "initial_growth",
                    |x| (0.0..=0.5).contains(&x),
                    "a number of packets in [0, 0.5] (0.05: Linux; 0: RFC 9438)",
                )?,
                hystart: (v.check(
                    "hystart",
                    |x| x == 0.0 || x == 1.0 || x == 2.0,
                    "0 (off), 1 (HyStart, as Linux) or 2 (HyStart++, RFC 9406)",
                )? == 1.0)
                    .then_some(crate::hystart::HyStartConfig {
                        paced: paced || pacing,
                        ack_delay_cap: if v.boolean("ack_delay")? {
                            crate::MILLISECOND
                        } else {
                            0
                        },
                        ..Default::default()
                    }),
                hystart_pp: (v.raw("hystart") == 2.0).then_some(
                    crate::hystart_pp::HyStartPpConfig {
                        // RFC 9406 §4.3: a paced sender uses L = infinity.
                        limit: if paced || pacing { f64::INFINITY } else { 8.0 },
                        ..Default::default()
                    },
                ),
                pacing: pacing.then(|| crate::cubic::LinuxPacing::new(info.wire_size)),
            }))
        }
        "vegas" => {
            let alpha = v.positive("alpha")?;
            let beta = v.raw("beta");
            let beta = v.at_least("beta", beta, "alpha", alpha)?;
            Box::new(Vegas::new(VegasConfig {
                window,
                form: VegasForm::Packets,
                alpha,
                beta,
                gamma: v.positive("gamma")?,
                slow_start: v.boolean("slow_start")?,
                ss_exit: SsExit::ExpectedPlusOne,
            }))
        }
        "vegas-rate" => {
            let alpha = v.positive("alpha_plus")?;
            let beta = v.non_negative("beta_plus")?;
            // thesis §4.3.3: beta+ = alpha+ + 25 pkt/s.
            let beta = if beta == 0.0 { alpha + 25.0 } else { beta };
            let beta = v.at_least("beta_plus", beta, "alpha_plus", alpha)?;
            let gamma = v.non_negative("gamma_plus")?;
            Box::new(Vegas::new(VegasConfig {
                window,
                form: VegasForm::Rate,
                alpha,
                beta,
                gamma: if gamma == 0.0 { alpha } else { gamma },
                slow_start: v.boolean("slow_start")?,
                ss_exit: match v.check(
                    "ss_exit_cut",
                    |x| x == 0.0 || x == 1.0 || x == 2.0,
                    "0, 1 or 2",
                )? {
                    0.0 => SsExit::Keep,
                    1.0 => SsExit::ExpectedPlusOne,
                    _ => SsExit::Eighth,
                },
            }))
        }
        "fast" => {
            let alpha = v.positive("alpha")?;
            let beta = v.non_negative("beta")?;
            let beta = if beta == 0.0 { alpha } else { beta };
            let beta = v.at_least("beta", beta, "alpha", alpha)?;
            Box::new(Fast::new(FastConfig {
                window,
                alpha,
                beta,
                gamma: v.check("gamma", |g| g > 0.0 && g <= 1.0, "in (0, 1]")?,
                update_period: v.non_negative("update_period")?,
                mi_threshold: v.non_negative("mi_threshold")?,
                slow_start: v.boolean("slow_start")?,
                every_other_rtt: v.boolean("every_other_rtt")?,
                decrease_pacing: v.boolean("decrease_pacing")?,
                alpha_adjust: v.boolean("alpha_adjust")?,
                alpha_k: v.positive("alpha_k")?,
                alpha_floor: v.fraction("alpha_floor")?,
                alpha_rto_halve: v.boolean("alpha_rto_halve")?,
                ns2_recovery: v.boolean("ns2_recovery")?,
                four_phase: if v.boolean("four_phase")? {
                    Some(FourPhaseConfig {
                        r: v.non_negative("fp_r")?,
                        stable_updates: v.check(
                            "fp_stable_updates",
                            |x| x >= 1.0 && x.fract() == 0.0,
                            "a whole number >= 1",
                        )? as u32,
                        stable_tol: v.non_negative("fp_stable_tol")?,
                        refill_full: v.boolean("fp_refill_full")?,
                    })
                } else {
                    None
                },
            }))
        }
        "acwap-highspeed" => Box::new(Acwap::new(
            HighSpeed::new(window),
            v.acwap()?,
            info.wire_size,
        )),
        "acwap-scalable" => Box::new(Acwap::new(
            Scalable::new(ScalableConfig {
                window,
                a: v.positive("a")?,
                b: v.fraction("b")?,
                legacy_window: v.non_negative("legacy_window")?,
            }),
            v.acwap()?,
            info.wire_size,
        )),
        "acwap-bic" => {
            let s_min = v.positive("s_min")?;
            let s_max = v.positive("s_max")?;
            let s_max = v.at_least("s_max", s_max, "s_min", s_min)?;
            Box::new(Acwap::new(
                Bic::new(BicConfig {
                    window,
                    beta: v.fraction("bic_beta")?,
                    s_max,
                    s_min,
                    low_window: v.non_negative("low_window")?,
                    fast_convergence: v.boolean("fast_convergence")?,
                }),
                v.acwap()?,
                info.wire_size,
            ))
        }
        "rcp" => {
            if paced {
                return Err(v.bad("paced", 1.0, "must be 0: rcp paces by itself"));
            }
            let g = v.check("window_gain", |x| (1.0..=100.0).contains(&x), "in [1, 100]")?;
            Box::new(crate::rcp::Rcp::new(info.wire_size, g))
        }
        "maxnet" => {
            if paced {
                return Err(v.bad("paced", 1.0, "must be 0: maxnet paces by itself"));
            }
            let g = v.check("window_gain", |x| (1.0..=100.0).contains(&x), "in [1, 100]")?;
            Box::new(crate::maxnet::Maxnet::new(info.wire_size, g))
        }
        "cbr" => {
            if paced {
                return Err(v.bad("paced", 1.0, "must be 0: cbr paces by itself"));
            }
            let rate = v.check("rate", |x| x > 0.0 && x <= 1e14, "in (0, 1e14] bits/s")?;
            let burst = v.check(
                "burst",
                |x| (1.0..=65536.0).contains(&x) && x.fract() == 0.0,
                "a whole number in [1, 65536]",
            )?;
            Box::new(crate::constant_rate::ConstantRate::new(rate, burst as u32))
        }
        "bbr" => {
            if paced {
                return Err(v.bad("paced", 1.0, "must be 0: BBR paces by itself"));
            }
            let whole = |name: &'static str, min: f64, max: f64| {
                v.check(
                    name,
                    |x| x >= min && x <= max && x.fract() == 0.0,
                    &format!("a whole number in [{min}, {max}]"),
                )
            };
            let window = v.window()?;
            Box::new(crate::bbr::Bbr::new(
                crate::bbr::BbrConfig {
                    initial_cwnd: window.initial_cwnd,
                    rto_cwnd: window.rto_cwnd,
                    high_gain: v.check("high_gain", |x| x > 1.0 && x <= 16.0, "in (1, 16]")?,
                    cwnd_gain: v.check(
                        "cwnd_gain",
                        |x| (1.0..=100.0).contains(&x),
                        "in [1, 100]",
                    )?,
                    bw_rounds: whole("bw_rounds", 1.0, 1000.0)? as usize,
                    min_rtt_win: crate::from_secs(v.check(
                        "min_rtt_win",
                        |x| x > 0.0 && x <= 3600.0,
                        "in (0, 3600] seconds",
                    )?),
                    probe_rtt_time: crate::from_secs(v.check(
                        "probe_rtt_time",
                        |x| (0.0..=60.0).contains(&x),
                        "in [0, 60] seconds",
                    )?),
                    full_bw_thresh: v.check(
                        "full_bw_thresh",
                        |x| x > 1.0 && x <= 10.0,
                        "in (1, 10]",
                    )?,
                    full_bw_count: whole("full_bw_count", 1.0, 100.0)? as u32,
                    pacing_margin: v.check(
                        "pacing_margin",
                        |x| (0.0..1.0).contains(&x),
                        "in [0, 1)",
                    )?,
                    extra_acked_gain: v.check(
                        "extra_acked_gain",
                        |x| (0.0..=10.0).contains(&x),
                        "in [0, 10]",
                    )?,
                },
                info,
            ))
        }
        "pda" => {
            if paced {
                return Err(v.bad("paced", 1.0, "must be 0: PDA paces its bursts by itself"));
            }
            let whole = |name: &'static str, min: f64| {
                v.check(
                    name,
                    |x| x >= min && x.fract() == 0.0 && x <= 1e6,
                    "a whole number",
                )
            };
            let init_burst = whole("init_burst", 1.0)? as u32;
            let max_burst = whole("max_burst", 1.0)? as u32;
            if max_burst < init_burst {
                return Err(v.bad("max_burst", max_burst as f64, "at least init_burst"));
            }
            Box::new(crate::pda::Pda::new(
                crate::pda::PdaConfig {
                    init_burst,
                    max_burst,
                    startup_gain: v.check(
                        "startup_gain",
                        |x| x > 1.0 && x <= 16.0,
                        "in (1, 16]",
                    )?,
                    startup_jump: v.check(
                        "startup_jump",
                        |x| (0.0..=1.0).contains(&x),
                        "in [0, 1]",
                    )?,
                    q_thresh_frac: v.fraction("q_thresh_frac")?,
                    q_thresh_min: crate::from_secs(v.non_negative("q_thresh_min")?),
                    buffer_thresh: v.check(
                        "buffer_thresh",
                        |x| x > 0.0 && x <= 1.0,
                        "in (0, 1]",
                    )?,
                    buffer_burst: v.check("buffer_burst", |x| x > 0.0 && x <= 1.0, "in (0, 1]")?,
                    margin: v.check("margin", |x| (0.0..1.0).contains(&x), "in [0, 1)")?,
                    probe_gain: v.check("probe_gain", |x| x > 0.0 && x <= 1.0, "in (0, 1]")?,
                    probe_rounds: whole("probe_rounds", 1.0)? as u32,
                    max_backoff: v.check(
                        "max_backoff",
                        |x| (0.0..=16.0).contains(&x) && x.fract() == 0.0,
                        "a whole number in [0, 16]",
                    )? as u32,
                    startup_approach: v.check(
                        "startup_approach",
                        |x| x > 0.0 && x <= 1.0,
                        "in (0, 1]",
                    )?,
                    mbs_grow_rounds: whole("mbs_grow_rounds", 1.0)? as u32,
                    cap_window: whole("cap_window", 1.0)? as usize,
                    shuffle: v.boolean("shuffle")?,
                    infer_flows: v.boolean("infer_flows")?,
                    count_yield: v.boolean("count_yield")?,
                    probe_fit: v.boolean("probe_fit")?,
                    cwnd_gain: v.check(
                        "cwnd_gain",
                        |x| (1.0..=100.0).contains(&x),
                        "in [1, 100]",
                    )?,
                    loss_confirm: v.check("loss_confirm", |x| x > 0.0 && x <= 1.0, "in (0, 1]")?,
                    competing_loss: v.check(
                        "competing_loss",
                        |x| x > 0.0 && x <= 1.0,
                        "in (0, 1]",
                    )?,
                    search: v.boolean("search")?,
                    pulse: v.boolean("pulse")?,
                    startup_load: v.boolean("startup_load")?,
                    delay_share: v.boolean("delay_share")?,
                    share_alpha: v.check("share_alpha", |x| x > 0.0 && x <= 1.0, "in (0, 1]")?,
                },
                info,
            ))
        }
        "madison" | "madison-paper" => {
            if paced {
                return Err(v.bad(
                    "paced",
                    1.0,
                    "must be 0: Madison paces at S_target by itself",
                ));
            }
            let pairs = v.check("pairs", |x| x >= 2.0 && x.fract() == 0.0, "an integer >= 2")?;
            Box::new(
                Madison::new(
                    MadisonConfig {
                        d_norm: v.positive("d_norm")?,
                        p_min: v.fraction("p_min")?,
                        p_init: v.fraction("p_init")?,
                        rate_interval: crate::from_secs(v.non_negative("rate_interval")?),
                        t_probe: v.positive("t_probe")?,
                        pairs: pairs as u32,
                        quiesce: v.boolean("quiesce")?,
                        gain: v.check("gain", |g| g > 0.0 && g <= 1.0, "in (0, 1]")?,
                        open_loop: v.boolean("open_loop")?,
                        disjoint_b: v.boolean("disjoint_b")?,
                        paced_u: v.boolean("paced_u")?,
                        busy_u: v.boolean("busy_u")?,
                        up_gain: v.check("up_gain", |g| g > 0.0 && g <= 1.0, "in (0, 1]")?,
                        ..MadisonConfig::default()
                    },
                    info.wire_size,
                    info.seed,
                )
                .named(spec.name),
            )
        }
        other => unreachable!("registry spec {other} has no constructor"),
    };
    let pacer = v.raw("pacer");
    let pace_rtt = if pacer == 0.0 {
        PaceRtt::Srtt
    } else if pacer == 1.0 {
        PaceRtt::Ns2 { random: false }
    } else if pacer == 2.0 {
        PaceRtt::Ns2 { random: true }
    } else {
        return Err(v.bad(
            "pacer",
            pacer,
            "must be 0 (srtt), 1 (the ns-2 pacing patch) or 2 (the patch with random_pace_)",
        ));
    };
    if pace_rtt != PaceRtt::Srtt && !paced {
        return Err(v.bad("pacer", pacer, "needs paced = 1"));
    }
    let cc: Box<dyn Controller> = if paced {
        // Its own stream of the connection's seed (the controller's may
        // draw from `info.seed` itself).
        let seed = info.seed ^ 0x7061_6365_5f72_7474;
        Box::new(Paced::with_rtt(cc, info.wire_size, pace_rtt, seed))
    } else {
        cc
    };
    // The Madison path estimator alongside any controller (Madison has its own).
    Ok(if v.boolean("path_estimator")? && !is_madison(spec.name) {
        Box::new(Estimated::new(
            cc,
            info.wire_size,
            info.seed,
            15 * crate::MILLISECOND,
            20,
        ))
    } else {
        cc
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;

    fn p(k: &str, v: f64) -> (String, f64) {
        (k.to_string(), v)
    }

    #[test]
    fn every_spec_builds_with_defaults_and_names_match() {
        let names: Vec<_> = all().iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "newreno",
                "dctcp",
                "highspeed",
                "scalable",
                "bic",
                "cubic",
                "vegas",
                "vegas-rate",
                "fast",
                "acwap-highspeed",
                "acwap-scalable",
                "acwap-bic",
                "madison",
                "madison-paper",
                "pda",
                "bbr",
                "rcp",
                "maxnet",
                "cbr"
            ]
        );
        for s in all() {
            let c = build(s.name, &[], &ConnInfo::default()).unwrap();
            assert_eq!(c.name(), s.name);
            if s.name == "cbr" {
                assert_eq!(c.control().cwnd, None);
                assert_eq!(c.control().pacing_rate, Some(100e6 / 8.0));
                continue;
            }
            if s.name == "bbr" {
                // Paced from the start (Linux: high_gain x cwnd per 1 ms).
                assert_eq!(c.control().cwnd, Some(10.0));
                assert!(c.control().pacing_rate.is_some());
                continue;
            }
            if s.name == "pda" {
                // One unpaced burst until the first RTT sample.
                assert_eq!(c.control().cwnd, Some(4.0));
                assert_eq!(c.control().pacing_rate, None);
                continue;
            }
            if is_madison(s.name) {
                // Start-up releases one packet pair, unpaced.
                assert_eq!(c.control().cwnd, Some(2.0));
                assert_eq!(c.control().pacing_rate, None);
                continue;
            }
            assert_eq!(c.control().cwnd, Some(10.0));
            assert_eq!(c.control().pacing_rate, None);
            for common in ["initial_cwnd", "initial_ssthresh", "rto_cwnd", "paced"] {
                assert!(s.param(common).is_some(), "{} lacks {common}", s.name);
            }
        }
        assert!(find("fast").is_some());
        assert!(find("reno").is_none());
    }

    /// The user's default Madison has the documented precautions on; the
    /// paper's preset differs from it in exactly those three defaults.
    #[test]
    fn madison_default_is_the_precautions_and_the_paper_is_a_preset() {
        let (def, paper) = (find("madison").unwrap(), find("madison-paper").unwrap());
        let names: Vec<_> = def.params.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            paper.params.iter().map(|p| p.name).collect::<Vec<_>>()
        );
        let mut differ = Vec::new();
        for (a, b) in def.params.iter().zip(paper.params) {
            if a.default != b.default {
                differ.push((a.name, a.default, b.default));
            }
        }
        assert_eq!(
            differ,
            [
                ("paced_u", 1.0, 0.0),
                ("busy_u", 1.0, 0.0),
                ("up_gain", 0.5, 1.0)
            ]
        );
        for n in ["madison", "madison-paper"] {
            assert_eq!(build(n, &[], &ConnInfo::default()).unwrap().name(), n);
        }
    }

    #[test]
    fn parameters_reach_the_controller() {
        let c = build("newreno", &[p("initial_cwnd", 4.0)], &ConnInfo::default()).unwrap();
        assert_eq!(c.control().cwnd, Some(4.0));
        // Last value wins.
        let c = build(
            "cubic",
            &[p("initial_cwnd", 4.0), p("initial_cwnd", 7.0)],
            &ConnInfo::default(),
        )
        .unwrap();
        assert_eq!(c.control().cwnd, Some(7.0));
        // FAST's RTO window defaults to 2, NewReno's to 1.
        let mut c = build("fast", &[p("alpha", 200.0)], &ConnInfo::default()).unwrap();
        let mut v = Vec::new();
        c.trace_vars(&mut v);
        assert_eq!(v[0], ("alpha", 200.0));
        c.on_rto(1);
        assert_eq!(c.control().cwnd, Some(2.0));
        let mut c = build("newreno", &[], &ConnInfo::default()).unwrap();
        c.on_rto(1);
        assert_eq!(c.control().cwnd, Some(1.0));
        // Scalable's b reaches the decrease.
        let mut c = build(
            "scalable",
            &[p("b", 0.5), p("initial_cwnd", 100.0)],
            &ConnInfo::default(),
        )
        .unwrap();
        c.on_congestion_event(1, &loss(100));
        assert_eq!(c.control().cwnd, Some(50.0));
    }

    #[test]
    fn paced_wraps() {
        let info = ConnInfo {
            wire_size: 1000,
            ..ConnInfo::default()
        };
        let mut c = build("bic", &[p("paced", 1.0)], &info).unwrap();
        assert_eq!(c.name(), "bic");
        c.on_ack(1, &ack(RTT100, 1));
        // cwnd 11 over 0.1 s of 1000-byte packets.
        assert!((c.control().pacing_rate.unwrap() - 110_000.0).abs() < 1e-6);
    }

    #[test]
    fn acwap_variants_reach_their_parameters() {
        let info = ConnInfo {
            wire_size: 1000,
            ..ConnInfo::default()
        };
        // acwap-bic: "beta" is ACWAP's eq. (3) factor, "bic_beta" BIC's decrease.
        let mut c = build(
            "acwap-bic",
            &[p("beta", 0.5), p("bic_beta", 0.5), p("initial_cwnd", 100.0)],
            &info,
        )
        .unwrap();
        assert_eq!(c.name(), "acwap-bic");
        c.on_congestion_event(1, &loss(100));
        assert_eq!(c.control().cwnd, Some(50.0));
        // Pacing at cwnd / R_C once an RTT sample exists (R_C = RTT_min
        // after the congestion event; the first sample sets both).
        c.on_ack(2, &ack(RTT100, 0));
        assert!((c.control().pacing_rate.unwrap() - 50.0 * 1000.0 / 0.1).abs() < 1e-6);
        let c = build("acwap-highspeed", &[p("pacing", 0.0)], &info).unwrap();
        assert_eq!(c.name(), "acwap-highspeed");
        let mut c = build(
            "acwap-scalable",
            &[p("initial_cwnd", 100.0), p("b", 0.5)],
            &info,
        )
        .unwrap();
        c.on_congestion_event(1, &loss(100));
        assert_eq!(c.control().cwnd, Some(50.0));
        // rtt_sampling = 1: R_C only from timed packets (none sent here),
        // so no estimate and no pacing rate yet.
        let mut c = build("acwap-highspeed", &[p("rtt_sampling", 1.0)], &info).unwrap();
        c.on_congestion_event(1, &loss(100));
        c.on_ack(2, &ack(RTT100, 0));
        assert_eq!(c.control().pacing_rate, None);
        assert!(build(
            "acwap-highspeed",
            &[p("rtt_sampling", 1.0), p("rtt_tick", 0.01)],
            &info
        )
        .is_ok());
        assert!(build("acwap-highspeed", &[p("rtt_sampling", 2.0)], &info).is_err());
        assert!(build("acwap-bic", &[p("rtt_tick", -0.01)], &info).is_err());
        // beta = 0 and 1 are the edges of the valid range.
        assert!(build("acwap-highspeed", &[p("beta", 0.0)], &info).is_ok());
        assert!(build(
            "acwap-highspeed",
            &[p("beta", 1.0), p("warmup", 0.0)],
            &info
        )
        .is_ok());
    }

    #[test]
    fn errors_are_specific() {
        let info = ConnInfo::default();
        let e = build("fats", &[], &info).err().unwrap();
        assert!(matches!(e, BuildError::UnknownController { .. }));
        let msg = e.to_string();
        assert!(
            msg.contains("\"fats\"") && msg.contains("newreno") && msg.contains("vegas-rate"),
            "{msg}"
        );

        let e = build("fast", &[p("alhpa", 1.0)], &info).err().unwrap();
        let msg = e.to_string();
        assert!(matches!(
            e,
            BuildError::UnknownParam {
                controller: "fast",
                ..
            }
        ));
        assert!(
            msg.contains("alhpa") && msg.contains("alpha") && msg.contains("mi_threshold"),
            "{msg}"
        );

        for (name, params) in [
            ("fast", vec![p("alpha", 0.0)]),
            ("fast", vec![p("gamma", 1.5)]),
            ("fast", vec![p("gamma", 0.0)]),
            ("fast", vec![p("alpha", 200.0), p("beta", 100.0)]),
            ("fast", vec![p("slow_start", 0.5)]),
            ("newreno", vec![p("paced", 2.0)]),
            ("newreno", vec![p("initial_cwnd", 0.0)]),
            ("newreno", vec![p("initial_ssthresh", f64::NAN)]),
            ("cubic", vec![p("beta", 1.0)]),
            ("cubic", vec![p("hystart", 3.0)]),
            ("cubic", vec![p("hystart", 1.5)]),
            ("cubic", vec![p("pacing", 1.0), p("paced", 1.0)]),
            ("cubic", vec![p("pacing", 0.5)]),
            ("cubic", vec![p("ack_delay", 2.0)]),
            ("cubic", vec![p("initial_growth", 0.6)]),
            ("cubic", vec![p("initial_growth", -0.01)]),
            ("cubic", vec![p("initial_growth", f64::NAN)]),
            ("pda", vec![p("search", 2.0)]),
            ("pda", vec![p("pulse", 0.5)]),
            ("pda", vec![p("startup_load", 0.5)]),
            ("pda", vec![p("infer_flows", 0.5)]),
            ("pda", vec![p("count_yield", 0.5)]),
            ("pda", vec![p("count_yield", f64::NAN)]),
            ("pda", vec![p("probe_fit", 0.5)]),
            ("pda", vec![p("competing_loss", 0.0)]),
            ("pda", vec![p("competing_loss", 1.5)]),
            ("pda", vec![p("delay_share", 2.0)]),
            ("pda", vec![p("share_alpha", 0.0)]),
            ("pda", vec![p("share_alpha", 1.5)]),
            ("pda", vec![p("buffer_thresh", 0.0)]),
            ("pda", vec![p("buffer_thresh", 1.5)]),
            ("pda", vec![p("buffer_burst", 0.0)]),
            ("pda", vec![p("buffer_burst", f64::NAN)]),
            ("pda", vec![p("max_backoff", 17.0)]),
            ("pda", vec![p("max_backoff", 1.5)]),
            ("pda", vec![p("startup_approach", 0.0)]),
            ("bic", vec![p("s_min", 4.0), p("s_max", 2.0)]),
            ("vegas", vec![p("alpha", 5.0)]),
            ("vegas-rate", vec![p("alpha_plus", -1.0)]),
            ("scalable", vec![p("a", f64::INFINITY)]),
        ] {
            let e = build(name, &params, &info).err();
            assert!(
                matches!(e, Some(BuildError::BadValue { .. })),
                "{name} {params:?} -> {e:?}"
            );
        }
        for (name, params) in [
            ("acwap-highspeed", vec![p("beta", 1.5)]),
            ("acwap-highspeed", vec![p("beta", -0.1)]),
            ("acwap-highspeed", vec![p("warmup", 1.5)]),
            ("acwap-highspeed", vec![p("rtt_gain", 0.0)]),
            ("acwap-highspeed", vec![p("pacing", 0.5)]),
            ("acwap-highspeed", vec![p("paced", 1.0)]),
            ("acwap-scalable", vec![p("b", 1.0)]),
            ("acwap-bic", vec![p("bic_beta", 0.0)]),
        ] {
            let e = build(name, &params, &info).err();
            assert!(
                matches!(e, Some(BuildError::BadValue { .. })),
                "{name} {params:?} -> {e:?}"
            );
        }
        let e = build("fast", &[p("gamma", 1.5)], &info).err().unwrap();
        assert_eq!(
            e.to_string(),
            "bad value 1.5 for parameter \"gamma\" of congestion controller \"fast\": must be in (0, 1]"
        );
        let e = build("vegas", &[p("alpha", 5.0)], &info).err().unwrap();
        assert!(e.to_string().contains("must be >= alpha (5)"), "{e}");
        // Valid edge cases.
        assert!(build("fast", &[p("gamma", 1.0), p("mi_threshold", 0.0)], &info).is_ok());
        assert!(build("newreno", &[p("initial_ssthresh", f64::INFINITY)], &info).is_ok());
        assert!(build("vegas-rate", &[p("alpha_plus", 2475.0)], &info).is_ok());
        for x in [0.0, 1.0, 2.0] {
            assert!(build("vegas-rate", &[p("ss_exit_cut", x)], &info).is_ok());
        }
        let e = build("vegas-rate", &[p("ss_exit_cut", 3.0)], &info)
            .err()
            .unwrap();
        assert!(e.to_string().contains("0, 1 or 2"), "{e}");
    }
}
