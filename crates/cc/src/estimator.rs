//! End-host path estimator (TCP-Madison, seed 002 §3.3): from RTT samples,
//! packet pairs and the sending rate it computes what routers would tell
//! XCP or RCP — the bottleneck's backlog, buffer size, utilization, cross
//! traffic and the number of "equivalent flows" sharing it.
//!
//! It is independent of the Madison controller: any controller can own a
//! [`PathEstimator`] and feed it (see [`Estimated`], which wraps any
//! controller, marks probe packets and packet pairs, and exports the
//! estimates through [`Controller::trace_vars`]).
//!
//! Units are the paper's: times in ms, `C` in Mb/s (= kb/ms), rates `S` in
//! packets per ms, backlogs in packets. A packet is `wire_size` bytes on the
//! wire (1500 in the paper), so it occupies the bottleneck for
//! `pkt_kb / C` ms with `pkt_kb = wire_size * 8 / 1000` (= 12, eq. (5)).
//!
//! # Packet-pair capacity estimator
//!
//! Two packets sent back to back leave the bottleneck separated by the time
//! the second one takes to cross it, so `C = bytes * 8 / dispersion`. Cross
//! traffic distorts single samples in two directions:
//!
//! * **expansion** (the common case): cross packets that reach the
//!   bottleneck between the two packets of the pair are served between them,
//!   so the dispersion grows by their service times and the sample
//!   *under*-estimates `C` — by a factor 2, 3, ... for equal-size cross
//!   packets, or by an arbitrary amount for mixed sizes;
//! * **compression**: if the pair queues behind cross traffic at a link
//!   *after* the bottleneck (or in the receiver), the gap shrinks and the
//!   sample *over*-estimates `C`.
//!
//! Both distortions scatter the bad samples over a wide range, while the
//! good samples pile up at the true value. The estimator therefore keeps the
//! last [`CAPACITY_WINDOW`] samples and reports the median of the *shortest
//! interval that holds half of them* (the "shorth", a mode estimator with a
//! 50% breakdown point): as long as fewer than half of the pairs are
//! distorted the result is the true capacity whatever the distorted samples
//! are; and when more than half are (very heavy cross traffic), the densest
//! cluster is still usually the undistorted one, because expanded samples
//! are spread over C/2, C/3, ... rather than concentrated. A plain median
//! would be pulled down by every expanded sample. Under Poisson cross
//! traffic at utilization `u` the chance that a cross packet arrives inside
//! the pair's gap at the bottleneck is about `u * (access service time /
//! bottleneck service time)`, i.e. at most 10% with a 10x faster access
//! link even at `u = 1`.

use crate::{secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Packet-pair samples kept by [`CapacityEstimator`].
pub const CAPACITY_WINDOW: usize = 64;

/// Robust packet-pair bottleneck-capacity estimator (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct CapacityEstimator {
    /// Ring of the latest samples, Mb/s.
    samples: Vec<f64>,
    next: usize,
    count: u64,
    /// Scratch space for sorting (kept to avoid allocating per estimate).
    scratch: Vec<f64>,
    estimate: Option<f64>,
}

impl CapacityEstimator {
    /// An empty estimator.
    pub fn new() -> Self {
        CapacityEstimator {
            samples: Vec::with_capacity(CAPACITY_WINDOW),
            scratch: Vec::with_capacity(CAPACITY_WINDOW),
            ..Default::default()
        }
    }

    /// Adds one pair: `bytes` is the size of the second packet on the wire,
    /// `dispersion` the arrival gap at the receiver.
    pub fn add(&mut self, dispersion: Time, bytes: u32) {
        if dispersion == 0 || bytes == 0 {
            return;
        }
        // bits / ns = Gb/s; ×1000 = Mb/s.
        let c = bytes as f64 * 8.0 / dispersion as f64 * 1e3;
        self.add_mbps(c);
    }

    /// Adds one capacity sample in Mb/s.
    pub fn add_mbps(&mut self, c: f64) {
        if !(c.is_finite() && c > 0.0) {
            return;
        }
        if self.samples.len() < CAPACITY_WINDOW {
            self.samples.push(c);
        } else {
            self.samples[self.next] = c;
        }
        self.next = (self.next + 1) % CAPACITY_WINDOW;
        self.count += 1;
        self.estimate = Some(self.compute());
    }

    fn compute(&mut self) -> f64 {
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.samples);
        let v = &mut self.scratch;
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        if n <= 2 {
            // One or two samples: take the larger (expansion is the common
            // distortion, so the larger is more likely undistorted).
            return v[n - 1];
        }
        // Shortest window holding h = ceil(n/2)+ samples, measured on a log
        // scale so that the window width is relative.
        let h = n / 2 + 1;
        let mut best = 0;
        let mut best_w = f64::INFINITY;
        for i in 0..=n - h {
            let w = (v[i + h - 1] / v[i]).ln();
            // Ties: prefer the higher window (expansion biases low).
            if w <= best_w {
                best_w = w;
                best = i;
            }
        }
        let win = &v[best..best + h];
        if h % 2 == 1 {
            win[h / 2]
        } else {
            0.5 * (win[h / 2 - 1] + win[h / 2])
        }
    }

    /// Current estimate in Mb/s, if any pair has been measured.
    pub fn estimate(&self) -> Option<f64> {
        self.estimate
    }

    /// Samples added so far.
    pub fn samples(&self) -> u64 {
        self.count
    }
}

/// RTT samples averaged for `RTT_avg` (seed 002 §4.3 (2a): six).
pub const RTT_AVG_SAMPLES: usize = 6;

/// The bottleneck measures of seed 002 Table 1 / eqs. (4)-(11).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathMeasures {
    /// Minimum observed RTT, ms.
    pub rtt_min: f64,
    /// Average of the latest probe RTTs, ms.
    pub rtt_avg: f64,
    /// Average queueing delay `d = RTT_avg - RTT_min`, ms.
    pub d: f64,
    /// Bottleneck capacity, Mb/s.
    pub c: f64,
    /// The flow's average backlog `b = S d`, packets (eq. (4)).
    pub b: f64,
    /// Total average backlog at the bottleneck `B = d C / pkt_kb`, packets (eq. (6)).
    pub big_b: f64,
    /// Buffer size estimate: the largest `B` seen, packets.
    pub b_size: f64,
    /// Bottleneck utilization `2B / (2B + 1)` (eq. (8), M/D/1).
    pub u: f64,
    /// The flow's utilization `S pkt_kb / C` (eq. (9)).
    pub u_flow: f64,
    /// Cross traffic `(U - U_flow) C / pkt_kb`, packets/ms (eq. (10)); 0 if negative.
    pub x_xt: f64,
    /// Equivalent flows `n = B / b = C U / (pkt_kb S)` (eq. (11)).
    pub n: f64,
    /// Packet service time at the bottleneck, ms (eq. (5): 12/C).
    pub service_ms: f64,
}

/// Madison eq. (8): M/D/1 utilization from the total backlog.
#[inline]
pub fn utilization_from_backlog(big_b: f64) -> f64 {
    let b = big_b.max(0.0);
    2.0 * b / (2.0 * b + 1.0)
}

/// Utilization from the total backlog `B` seen by a flow whose own packets
/// are paced (equally spaced) at utilization `u_flow`:
/// `U = (2B + U_flow) / (2B + 1)`.
///
/// Eq. (8) inverts the M/D/1 waiting time `d = U (12/C) / (2 (1 - U))`,
/// which holds when every packet at the bottleneck arrives at random. The
/// paced flow's own packets arrive one `1/S` apart, so they do not queue
/// behind each other: its probes wait only for the queue that the random
/// (cross) traffic builds, which grows with the total load,
/// `d ≈ U_xt (12/C) / (2 (1 - U))` with `U_xt = U - U_flow`. Solving for
/// `U` gives this formula; with `U_flow = 0` it is eq. (8). Seed 002 §3.2
/// expects paced traffic to make eq. (8) err ("packet arrivals in some
/// network paths could be somewhat less bursty than Poisson ... we take
/// suitable precautions"); this is that precaution, not one of the paper's
/// equations.
#[inline]
pub fn utilization_paced(big_b: f64, u_flow: f64) -> f64 {
    let b = big_b.max(0.0);
    let x = u_flow.clamp(0.0, 1.0);
    (2.0 * b + x) / (2.0 * b + 1.0)
}

/// Probe RTTs kept for the busy-fraction utilization estimate.
pub const BUSY_WINDOW: usize = 256;
/// Probe RTTs needed before the busy-fraction estimate replaces the
/// backlog-based one.
pub const BUSY_MIN_SAMPLES: usize = 32;

/// The end-host path estimator (seed 002 §3.3).
#[derive(Clone, Debug)]
pub struct PathEstimator {
    /// Use [`utilization_paced`] (the flow paces its packets) instead of
    /// eq. (8) for `U`.
    pub paced_u: bool,
    /// Estimate `U` as the fraction of the latest [`BUSY_WINDOW`] probes
    /// that found the bottleneck busy (not a seed equation; see
    /// [`PathEstimator::busy_fraction`]: the probes must leave at random
    /// instants). Until [`BUSY_MIN_SAMPLES`] probes have come back, `U` is
    /// computed as `paced_u` says.
    pub busy_u: bool,
    /// A probe found the bottleneck busy when its RTT exceeds `RTT_min` by
    /// more than this fraction of a bottleneck packet time.
    pub busy_eps: f64,
    /// Ring of the latest probe RTTs (ms) for `busy_u`, with the flow's
    /// utilization `S pkt_kb / C` when each came back (NaN if not given).
    busy_rtts: [(f64, f64); BUSY_WINDOW],
    n_busy: usize,
    next_busy: usize,
    pkt_kb: f64,
    rtt_min: f64,
    /// Ring of the latest probe RTTs (ms) with their send times.
    rtts: [(f64, Time); RTT_AVG_SAMPLES],
    n_rtts: usize,
    next_rtt: usize,
    probe_samples: u64,
    capacity: CapacityEstimator,
    b_size: f64,
}

impl PathEstimator {
    /// An estimator for packets of `wire_size` bytes.
    pub fn new(wire_size: u32) -> Self {
        PathEstimator {
            paced_u: false,
            busy_u: false,
            busy_eps: 0.05,
            busy_rtts: [(0.0, f64::NAN); BUSY_WINDOW],
            n_busy: 0,
            next_busy: 0,
            pkt_kb: wire_size as f64 * 8.0 / 1000.0,
            rtt_min: f64::INFINITY,
            rtts: [(0.0, 0); RTT_AVG_SAMPLES],
            n_rtts: 0,
            next_rtt: 0,
            probe_samples: 0,
            capacity: CapacityEstimator::new(),
            b_size: 0.0,
        }
    }

    /// Kilobits per packet (12 for 1500-byte packets).
    pub fn pkt_kb(&self) -> f64 {
        self.pkt_kb
    }

    /// Any RTT sample (updates `RTT_min` only).
    pub fn on_rtt_min(&mut self, rtt: Time) {
        let r = secs(rtt) * 1e3;
        if r > 0.0 && r < self.rtt_min {
            self.rtt_min = r;
        }
    }

    /// A probe RTT sample (randomly timed, eq. (6)): updates `RTT_min` and
    /// the six-sample `RTT_avg`; `sent` is when the probe left.
    pub fn on_probe_rtt(&mut self, rtt: Time, sent: Time) {
        self.on_probe_rtt_at(rtt, sent, f64::NAN);
    }

    /// [`PathEstimator::on_probe_rtt`] for a flow sending `s` packets/ms:
    /// the busy-fraction `U` then follows the flow's own rate changes at
    /// once (see [`PathEstimator::busy_fraction`]).
    pub fn on_probe_rtt_at(&mut self, rtt: Time, sent: Time, s: f64) {
        self.on_rtt_min(rtt);
        self.rtts[self.next_rtt] = (secs(rtt) * 1e3, sent);
        self.next_rtt = (self.next_rtt + 1) % RTT_AVG_SAMPLES;
        self.n_rtts = (self.n_rtts + 1).min(RTT_AVG_SAMPLES);
        self.probe_samples += 1;
        let u_flow = match self.capacity.estimate() {
            Some(c) if s.is_finite() => s * self.pkt_kb / c,
            _ => f64::NAN,
        };
        self.busy_rtts[self.next_busy] = (secs(rtt) * 1e3, u_flow);
        self.next_busy = (self.next_busy + 1) % BUSY_WINDOW;
        self.n_busy = (self.n_busy + 1).min(BUSY_WINDOW);
        if self.n_rtts == RTT_AVG_SAMPLES {
            if let (Some(avg), Some(c)) = (self.rtt_avg(), self.capacity.estimate()) {
                // B_size: the largest average total backlog seen (§3.3).
                let big_b = (avg - self.rtt_min).max(0.0) * c / self.pkt_kb;
                self.b_size = self.b_size.max(big_b);
            }
        }
    }

    /// A packet-pair dispersion sample.
    pub fn on_pair(&mut self, dispersion: Time, bytes: u32) {
        self.capacity.add(dispersion, bytes);
    }

    /// The capacity estimator.
    pub fn capacity(&self) -> &CapacityEstimator {
        &self.capacity
    }

    /// Minimum RTT, ms.
    pub fn rtt_min(&self) -> Option<f64> {
        self.rtt_min.is_finite().then_some(self.rtt_min)
    }

    /// Mean of the latest (up to six) probe RTTs, ms.
    pub fn rtt_avg(&self) -> Option<f64> {
        (self.n_rtts > 0)
            .then(|| self.rtts[..self.n_rtts].iter().map(|x| x.0).sum::<f64>() / self.n_rtts as f64)
    }

    /// Probe samples in the average (at most six).
    pub fn avg_samples(&self) -> usize {
        self.n_rtts
    }

    /// Send time of the oldest probe in the current average.
    pub fn oldest_avg_sample_sent(&self) -> Option<Time> {
        self.rtts[..self.n_rtts].iter().map(|x| x.1).min()
    }

    /// Total probe samples seen.
    pub fn probe_samples(&self) -> u64 {
        self.probe_samples
    }

    /// Fraction of the latest (up to [`BUSY_WINDOW`]) probes that found the
    /// bottleneck busy, i.e. whose RTT exceeded `RTT_min` by more than
    /// `busy_eps` packet times of a link of capacity `c` Mb/s; `None` before
    /// [`BUSY_MIN_SAMPLES`] probes. Not one of seed 002's equations.
    ///
    /// Probes that leave at instants independent of the traffic, including
    /// the flow's own (Poisson instants, not the flow's pacing slots; see
    /// `MadisonConfig::busy_u`), see the link as a random observer does
    /// (PASTA), whatever the arrival process of the other traffic: the
    /// fraction that wait is the fraction of time the link is busy, `U`.
    /// Eq. (8) instead infers `U` from the mean wait through the M/D/1
    /// formula, which counts paced traffic (the flow's own and other Madison
    /// flows') as if it arrived at random and so underestimates `U`
    /// (`docs/reports/madison.md`). The threshold must exceed the RTT noise
    /// that is not bottleneck queueing; a probe that arrives in the last
    /// `busy_eps` of a lone packet's service counts as idle, a bias of at
    /// most `busy_eps` times the probability of that state.
    pub fn busy_fraction(&self, c: f64) -> Option<f64> {
        if self.n_busy < BUSY_MIN_SAMPLES || !self.rtt_min.is_finite() || c <= 0.0 {
            return None;
        }
        let limit = self.rtt_min + self.busy_eps * self.pkt_kb / c;
        let busy = self.busy_rtts[..self.n_busy]
            .iter()
            .filter(|r| r.0 > limit)
            .count();
        Some(busy as f64 / self.n_busy as f64)
    }

    /// `U` from the busy fraction for a flow now at utilization `u_flow`:
    /// the window spans seconds, so the flow's own share in it is the mean
    /// of its utilization when the probes came back; the difference to
    /// `u_flow` is added, so that `U` (and the cross traffic `U - U_flow`
    /// of eqs. (10), (13)) follows the flow's own rate changes at once.
    /// Without that, after a rate increase `U` lags, the cross traffic
    /// reads low and eqs. (13)/(14) raise the rate again (a run-away: Fig.
    /// 2(c) path, seed 1, queue 288 packets for a target of 5-16).
    fn busy_utilization(&self, c: f64, u_flow: f64) -> Option<f64> {
        let busy = self.busy_fraction(c)?;
        let seen = &self.busy_rtts[..self.n_busy];
        let own = if seen.iter().all(|r| r.1.is_finite()) {
            seen.iter().map(|r| r.1).sum::<f64>() / seen.len() as f64
        } else {
            u_flow
        };
        Some((busy + u_flow - own).clamp(0.0, 1.0))
    }

    /// All measures for a flow sending `s` packets/ms, once RTTs and a
    /// capacity sample exist.
    pub fn measures(&self, s: f64) -> Option<PathMeasures> {
        self.measures_with(s, self.rtt_avg()?)
    }

    /// All measures for a flow sending `s` packets/ms, with `rtt_avg` (ms)
    /// in place of the six-probe average.
    pub fn measures_with(&self, s: f64, rtt_avg: f64) -> Option<PathMeasures> {
        let rtt_min = self.rtt_min()?;
        let c = self.capacity.estimate()?;
        let k = self.pkt_kb;
        let d = (rtt_avg - rtt_min).max(0.0);
        let b = s * d; // eq. (4)
        let big_b = d * c / k; // eq. (6)
        let u_flow = s * k / c; // eq. (9)
        let busy = if self.busy_u {
            self.busy_utilization(c, u_flow)
        } else {
            None
        };
        let u = if let Some(u) = busy {
            u
        } else if self.paced_u {
            utilization_paced(big_b, u_flow)
        } else {
            utilization_from_backlog(big_b) // eq. (8)
        };
        let x_xt = ((u - u_flow) * c / k).max(0.0); // eq. (10)
        let n = if b > 0.0 { big_b / b } else { 0.0 }; // eq. (11)
        Some(PathMeasures {
            rtt_min,
            rtt_avg,
            d,
            c,
            b,
            big_b,
            b_size: self.b_size.max(big_b),
            u,
            u_flow,
            x_xt,
            n,
            service_ms: k / c,
        })
    }

    /// Writes the estimates under the names of the path report
    /// (`est_rtt_min_ms`, `est_rtt_avg_ms`, `est_c_mbps`, `est_B_pkts`,
    /// `est_b_size_pkts`, `est_u`, `est_x_xt_mbps`, `est_n`).
    pub fn trace(&self, s: f64, out: &mut Vec<(&'static str, f64)>) {
        let m = self.measures(s);
        let g = |f: fn(&PathMeasures) -> f64| m.as_ref().map_or(f64::NAN, f);
        out.push(("est_rtt_min_ms", self.rtt_min().unwrap_or(f64::NAN)));
        out.push(("est_rtt_avg_ms", self.rtt_avg().unwrap_or(f64::NAN)));
        out.push(("est_c_mbps", self.capacity.estimate().unwrap_or(f64::NAN)));
        out.push(("est_B_pkts", g(|m| m.big_b)));
        out.push(("est_b_size_pkts", g(|m| m.b_size)));
        out.push(("est_u", g(|m| m.u)));
        let k = self.pkt_kb;
        out.push(("est_x_xt_mbps", m.as_ref().map_or(f64::NAN, |m| m.x_xt * k)));
        out.push(("est_n", g(|m| m.n)));
    }
}

/// Packet-loss (event) rate estimator of seed 002 §4.3 (2b)-(2c).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossRate {
    /// Current estimate.
    pub p: f64,
    /// Packets sent since the last loss event (`q`).
    pub sent_since_loss: u64,
    /// The open loss event (until its recovery ends): `q` and `p` before it
    /// and the packets lost in it so far, so that packets declared lost later
    /// in the same event still count in "# packets lost" (§4.3 (2b)).
    event: Option<(u64, f64, u32)>,
    /// The next `add_to_event` carries the losses that opened the event.
    fresh: bool,
}

impl LossRate {
    /// Starts at `p_init`.
    pub fn new(p_init: f64) -> Self {
        LossRate {
            p: p_init,
            sent_since_loss: 0,
            event: None,
            fresh: false,
        }
    }
    /// A packet was sent.
    #[inline]
    pub fn on_send(&mut self) {
        self.sent_since_loss += 1;
    }
    /// Madison §4.3 (2b): a loss event with `lost` packets:
    /// `p = (lost + 1) / (q + 1/p)`.
    pub fn on_loss_event(&mut self, lost: u32) {
        self.event = Some((self.sent_since_loss, self.p, lost));
        self.fresh = true;
        self.p = (lost as f64 + 1.0) / (self.sent_since_loss as f64 + 1.0 / self.p);
        self.sent_since_loss = 0;
    }
    /// An acknowledgement declared `lost` packets lost (the transport's
    /// `AckSample::newly_lost`; the first call after [`LossRate::on_loss_event`]
    /// carries the packets that opened the event and is not counted again).
    /// More packets of the open loss event were declared lost: `p` becomes
    /// eq. (2b) applied to the whole event,
    /// `(lost_total + 1) / (q + 1/p_before)`. Returns true if `p` changed.
    ///
    /// A drop-tail overflow drops packets of every flow in proportion to its
    /// rate, and the transport reports the first of them when it detects the
    /// event and the rest during recovery; counting only the first would
    /// turn "# packets lost" into a count of events, which is higher per
    /// packet sent for slower flows and so gives them a smaller `b_target`
    /// (the slow flows of Fig. 6 estimated p = 6.7e-3 against the fast
    /// flow's 2.5e-4).
    pub fn add_to_event(&mut self, lost: u32) -> bool {
        if std::mem::take(&mut self.fresh) {
            return true;
        }
        let Some((q, p0, l)) = self.event.as_mut() else {
            return false;
        };
        if lost == 0 {
            return false;
        }
        *l += lost;
        self.p = (*l as f64 + 1.0) / (*q as f64 + 1.0 / *p0);
        true
    }
    /// The loss event is over (its recovery ended).
    pub fn close_event(&mut self) {
        self.event = None;
        self.fresh = false;
    }
    /// Madison §4.3 (2c): if `q > 10/p` then `p = 1/q`. Returns true if `p` changed.
    pub fn decay(&mut self) -> bool {
        let q = self.sent_since_loss as f64;
        if q > 10.0 / self.p {
            self.p = 1.0 / q;
            true
        } else {
            false
        }
    }
}

/// Wraps any controller with a [`PathEstimator`]: marks probe packets
/// (ACK-request bit) at exponentially distributed times with mean
/// `probe_spacing`, sends a packet pair every RTT until
/// `pairs` have been sent (one per smoothed RTT), and exports the path estimates (plus `est_p`,
/// the §4.3 loss-rate estimate) through [`Controller::trace_vars`]. The
/// wrapped controller's decisions are untouched. Used to report the path
/// measures for BIC, as the paper does for `B_size` (§3.3).
pub struct Estimated<C: Controller> {
    inner: C,
    est: PathEstimator,
    loss: LossRate,
    rng: u64,
    probe_spacing: Time,
    next_probe: Time,
    srtt: Time,
    next_pair: Time,
    pairs_left: u32,
    /// Delivered-packet rate estimate (packets/ms) for `b`, `n` and `X_xt`.
    rate: f64,
    last_delivered: (Time, u64),
}

impl<C: Controller> Estimated<C> {
    /// Wraps `inner`; probes every `probe_spacing` on average, `pairs` pairs
    /// one smoothed RTT apart.
    pub fn new(inner: C, wire_size: u32, seed: u64, probe_spacing: Time, pairs: u32) -> Self {
        Estimated {
            inner,
            est: PathEstimator::new(wire_size),
            loss: LossRate::new(1e-4),
            rng: seed | 1,
            probe_spacing,
            next_probe: 0,
            srtt: 0,
            next_pair: 0,
            pairs_left: pairs,
            rate: 0.0,
            last_delivered: (0, 0),
        }
    }

    /// The estimator.
    pub fn estimator(&self) -> &PathEstimator {
        &self.est
    }
}

/// Exponential variate with the given mean (xorshift64* uniform).
pub(crate) fn exp_sample(state: &mut u64, mean: f64) -> f64 {
    let mut x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    let u = ((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    -u.ln() * mean
}

impl<C: Controller> Controller for Estimated<C> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn control(&self) -> Control {
        self.inner.control()
    }
    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if let Some(d) = ack.pair_dispersion {
            self.est.on_pair(d, ack.pair_bytes);
        }
        self.srtt = ack.srtt;
        if let Some(r) = ack.rtt {
            if ack.was_probe {
                self.est.on_probe_rtt(r, now.saturating_sub(r));
            } else {
                self.est.on_rtt_min(r);
            }
        }
        let (t0, d0) = self.last_delivered;
        if now >= t0 + 100 * crate::MILLISECOND {
            if t0 > 0 {
                let ms = (now - t0) as f64 * 1e-6;
                self.rate = (ack.delivered - d0) as f64 / ms;
            }
            self.last_delivered = (now, ack.delivered);
        }
        if !self.loss.add_to_event(ack.newly_lost) {
            self.loss.decay();
        }
        self.inner.on_ack(now, ack);
    }
    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent) {
        self.loss.on_loss_event(ev.lost);
        self.inner.on_congestion_event(now, ev);
    }
    fn on_recovery_end(&mut self, now: Time) {
        self.loss.close_event();
        self.inner.on_recovery_end(now);
    }
    fn on_rto(&mut self, now: Time) {
        self.inner.on_rto(now);
    }
    fn on_send(&mut self, now: Time, seq: u64, retransmit: bool, in_flight: u32) -> PacketFlags {
        self.loss.on_send();
        let mut f = self.inner.on_send(now, seq, retransmit, in_flight);
        if self.pairs_left > 0 && now >= self.next_pair {
            self.pairs_left -= 1;
            self.next_pair = now + self.srtt.max(10 * crate::MILLISECOND);
            f = f.union(PacketFlags::PAIR);
        } else if now >= self.next_probe {
            self.next_probe =
                now + crate::from_secs(exp_sample(&mut self.rng, secs(self.probe_spacing)));
            f = f.union(PacketFlags::ACK_REQUEST);
        }
        f
    }
    fn timer(&self) -> Option<Time> {
        self.inner.timer()
    }
    fn on_timer(&mut self, now: Time) {
        self.inner.on_timer(now)
    }
    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace_vars(out);
        self.est.trace(self.rate, out);
        out.push(("est_p", self.loss.p));
    }
    fn wants_delivery_rate(&self) -> bool {
        self.inner.wants_delivery_rate()
    }
    fn wants_price(&self) -> bool {
        self.inner.wants_price()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MILLISECOND;

    #[test]
    fn shorth_ignores_expanded_and_compressed_pairs() {
        let mut c = CapacityEstimator::new();
        // 100 Mb/s: 1500 B in 120 us. 40% of the pairs expanded by one or
        // two cross packets, 10% compressed.
        for i in 0..100 {
            let d = match i % 10 {
                0 | 3 | 6 => 240_000,
                8 => 360_000,
                5 => 80_000,
                _ => 120_000,
            };
            c.add(d, 1500);
        }
        let e = c.estimate().unwrap();
        assert!((e - 100.0).abs() < 0.5, "{e}");
        // A plain median would be fine here too, but not when most samples
        // are expanded by different amounts: 55% distorted, spread out.
        let mut c = CapacityEstimator::new();
        for i in 0..64 {
            let d = match i % 20 {
                0..=8 => 120_000,
                9..=11 => 240_000,
                12..=14 => 360_000,
                15..=17 => 480_000,
                _ => 600_000,
            };
            c.add(d, 1500);
        }
        let e = c.estimate().unwrap();
        assert!((e - 100.0).abs() < 0.5, "{e}");
    }

    #[test]
    fn measures_follow_the_equations() {
        let mut e = PathEstimator::new(1500);
        e.on_pair(120_000, 1500); // 100 Mb/s
        for i in 0..6 {
            e.on_rtt_min(100 * MILLISECOND);
            e.on_probe_rtt(100 * MILLISECOND + 1_200_000, i); // d = 1.2 ms
        }
        // S = 4 packets/ms (48 Mb/s).
        let m = e.measures(4.0).unwrap();
        assert!((m.d - 1.2).abs() < 1e-9);
        assert!((m.big_b - 10.0).abs() < 1e-9); // 1.2 * 100/12
        assert!((m.b - 4.8).abs() < 1e-9);
        assert!((m.u - 20.0 / 21.0).abs() < 1e-12);
        assert!((m.u_flow - 0.48).abs() < 1e-12);
        assert!((m.x_xt - (20.0 / 21.0 - 0.48) * 100.0 / 12.0).abs() < 1e-9);
        assert!((m.n - 10.0 / 4.8).abs() < 1e-9);
        assert!((m.b_size - 10.0).abs() < 1e-9);
    }

    #[test]
    fn busy_fraction_counts_probes_that_waited() {
        let mut e = PathEstimator::new(1500);
        e.busy_u = true;
        e.on_pair(120_000, 1500); // 100 Mb/s: 0.12 ms per packet
        let base = 100 * MILLISECOND;
        // 31 probes: not yet enough; U from the backlog (eq. (8)).
        for i in 0..31 {
            let wait = if i % 4 == 0 { 0 } else { 1_000_000 };
            e.on_probe_rtt_at(base + wait, i, 4.0);
        }
        assert_eq!(e.busy_fraction(100.0), None);
        let m = e.measures(4.0).unwrap();
        assert!((m.u - utilization_from_backlog(m.big_b)).abs() < 1e-12);
        // A wait of 5 us (under 0.05 packet times) counts as idle.
        e.on_probe_rtt_at(base + 5_000, 31, 4.0);
        assert_eq!(e.busy_fraction(100.0), Some(23.0 / 32.0));
        let m = e.measures(4.0).unwrap();
        assert!((m.u - 23.0 / 32.0).abs() < 1e-12);
        // The flow now sends 1 packet/ms more (0.12 of C) than while these
        // probes came back: U follows at once.
        let m = e.measures(5.0).unwrap();
        assert!((m.u - (23.0 / 32.0 + 0.12)).abs() < 1e-12, "{}", m.u);
        // A lower RTT_min reclassifies the stored probes: all waited now.
        e.on_rtt_min(base - 10_000);
        assert_eq!(e.busy_fraction(100.0), Some(1.0));
        // The window keeps the latest 256 probes.
        for i in 0..BUSY_WINDOW as u64 {
            e.on_probe_rtt_at(base - 10_000, 100 + i, 4.0);
        }
        assert_eq!(e.busy_fraction(100.0), Some(0.0));
    }

    #[test]
    fn loss_rate_rules() {
        let mut l = LossRate::new(1e-4);
        for _ in 0..999 {
            l.on_send();
        }
        l.on_loss_event(1);
        // (1 + 1) / (999 + 10000)
        assert!((l.p - 2.0 / 10_999.0).abs() < 1e-15);
        assert!(!l.decay());
        for _ in 0..60_000 {
            l.on_send();
        }
        assert!(l.decay());
        assert!((l.p - 1.0 / 60_000.0).abs() < 1e-15);
    }

    #[test]
    fn losses_declared_during_recovery_count_in_the_event() {
        let mut l = LossRate::new(1e-4);
        for _ in 0..999 {
            l.on_send();
        }
        l.on_loss_event(2);
        // The ACK that opened the event repeats its 2 losses: not recounted.
        assert!(l.add_to_event(2));
        assert!((l.p - 3.0 / 10_999.0).abs() < 1e-15);
        for _ in 0..50 {
            l.on_send();
        }
        // Three more declared lost during the same recovery.
        assert!(l.add_to_event(3));
        assert!((l.p - 6.0 / 10_999.0).abs() < 1e-15);
        l.close_event();
        assert!(!l.add_to_event(1));
        assert_eq!(l.sent_since_loss, 50);
    }
}
