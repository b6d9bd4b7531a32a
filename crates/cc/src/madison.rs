//! TCP-Madison (Kola and Vernon, "Target bandwidth sharing using endhost
//! measures", Computer Networks 2007; seed 002), sections 3 and 4.
//!
//! A rate-based controller: from the loss-event rate `p` it computes a
//! target backlog `b_target` (eq. (3)) that is fair to Reno; from RTTs and
//! packet pairs it estimates the bottleneck (eqs. (4)-(11), see
//! [`crate::estimator`]); and it paces at the rate `S_target` that an M/D/1
//! bottleneck predicts will hold `b_target` packets queued (eqs. (12)-(14)).
//!
//! Units are the paper's: times in ms, `C` in Mb/s (= kb/ms), `S` in
//! packets/ms, backlogs in packets; `pkt_kb` = wire bits per packet / 1000
//! (12 for 1500-byte packets, eq. (5)).
//!
//! # Mapping onto the controller interface
//!
//! * **Start-up (§4.2)**: at 15 ms spacing a packet pair, four probes
//!   (ACK-request bit), a pair, four probes. There is no pacing rate yet;
//!   the controller releases each slot from its timer and holds the window at
//!   `in_flight + budget` so that exactly the released packets leave.
//!   Congestion avoidance starts once the first four packets (the first pair
//!   and the first two probes) are acknowledged — or, if 15 ms is under 20
//!   bottleneck packet times (`C < 16 Mb/s` for 1500-byte packets), once all
//!   twelve are.
//! * **Congestion avoidance (§4.3)**: `pacing_rate = S_target`, `cwnd`
//!   unlimited; probe packets are the first packets sent after
//!   exponentially distributed instants with mean
//!   `max(1/S_target, probe spacing)`; a packet pair every `RTT_avg` until
//!   20 have been sent. (With `busy_u` each probe leaves at its instant,
//!   unpaced: the controller returns `pacing_rate = None` until the probe
//!   has been sent, and paces the rest at `S_target - 1/probe spacing`.)
//! * **Coarse ACK clocking**: the receiver ACKs only requested packets
//!   (`AckPolicy::ProbeOnly`). If a requested ACK is late (not back within
//!   `max(1.25 RTT_avg, RTT_avg + 20 ms)` — the paper gives no number) the
//!   controller quiesces (`cwnd = 0`) until the next ACK or a retransmission
//!   timeout.
//!
//! # Where the paper is silent or inconsistent (and what this code does)
//!
//! * `b_target` at `p_init = 1e-4`: the text (§3.1, §4.1) says 4.33, eq. (3)
//!   gives 5.08 (it does give 10.0 at 2.555e-5 and 16 at 1e-5, as the text
//!   says). **This code follows eq. (3)**; `b_target(1e-4) = 5.085`.
//! * `p_min`: Table 2 says 2.55e-5, §4.1 says 2.555e-5 (`b_target` 10.01
//!   vs 10.00); the registry default is Table 2's.
//! * `T = 200 ms` is the minimum time between rate changes. Rule (2d) also
//!   needs the six RTT samples behind `RTT_avg` to describe the current
//!   rate, or a flow with a 260 ms RTT would change its rate again before
//!   any probe sent at the new rate has come back. Rule (2d) therefore only
//!   uses averages whose six probes were all sent after the last rate change
//!   (an interpretation of §4.1's "enough opportunity to observe the new
//!   bottleneck characteristics"). Loss-driven recomputations (2b, 2c) only
//!   wait for `T`.
//! * Back-calculation of `n_D` (§3.4): with `U_prev` the utilization used
//!   for the previous rate change and `x = S 12/C`, eqs. (12) and (14) give
//!   `U_new = U_prev + n_D (x_now - x_before)`; solving with the observed
//!   `U` gives `n_D = (U - U_prev) / (x_now - x_before)`, clamped to
//!   `[1, max(1, n)]`. It is done when rule (2d) finds the backlog more
//!   than 30% off target in case 2.
//! * A loss event is a transport congestion event (one per recovery
//!   episode); "# packets lost" counts every packet declared lost until its
//!   recovery ends. A retransmission timeout is not a loss event (see
//!   [`Controller::on_rto`] below).
//! * `S_target` is floored at one packet per 100 ms (the equations can
//!   give ~0 on a saturated link).
//! * Rule (2d), "two consecutive values of `b` more than 30% off": the two
//!   values are averages over *disjoint* sets of six probes (`disjoint_b`,
//!   default) — consecutive sliding averages share five of six samples and
//!   are not two observations — and the new `S_target` is computed from
//!   the mean `RTT_avg` of both (twelve probes).
//! * The flow's rate in eqs. (4), (9)-(11) and (13)-(14) is the rate at which
//!   its packets enter the bottleneck queue: `S_target`, or the delivery
//!   rate over the six latest probe intervals when lower (Little's result
//!   counts accepted packets; see `Madison::s_eff`).
//!
//! # Precautions (not in the paper; on in `madison`, off in `madison-paper`)
//!
//! `docs/reports/madison.md` reports the protocol as printed and with
//! `paced_u = 1, busy_u = 1, up_gain = 0.5` (its "precautions" variant).
//! The registry's `madison`, a user's default, has them on: it is the form
//! that works best on the reproductions' paths. `madison-paper` is the
//! protocol as printed (all three off), the preset the reproductions
//! select. [`MadisonConfig::default`] is the paper's form.
//!
//! Seed 002 §3.2 expects the M/D/1 formulas to err when traffic is less
//! bursty than Poisson and says "we keep in mind the qualitative direction
//! of the error ... and take suitable precautions". In the simulator, with
//! Poisson cross traffic and a perfectly paced flow, eq. (8) underestimates
//! `U` (by up to 0.3 when the flow carries most of the load), so eqs. (13)
//! and (14) overshoot the available bandwidth. These parameters correct
//! for this:
//!
//! * `paced_u`: estimate `U` with
//!   [`crate::estimator::utilization_paced`], `(2B + U_flow) / (2B + 1)`,
//!   which does not count the flow's own (paced) packets as queueing.
//!   Other Madison flows' paced packets still count as Poisson: with three
//!   Madison flows (Fig. 6) `U` stays 0.05-0.08 low, and the same formula
//!   with all three flows' rates matches the true utilization within 0.001
//!   (`examples/madison_diag.rs fig6`). The paper's measures give no
//!   estimate of the paced share of the cross traffic (`n` of eq. (11)
//!   counts all traffic and §4.3 (2d) sets `n_D = n`).
//! * `busy_u`: measure `U` without a queueing model. Each probe leaves at
//!   its exponentially distributed instant, outside the pacing schedule
//!   (the schedule carries `S_target - 1/probe spacing`, so the average
//!   rate is unchanged), and `U` is the fraction of the latest 256 probes
//!   whose RTT exceeded `RTT_min` (by more than 0.05 packet times): Poisson
//!   probes see time averages (PASTA), whatever the other traffic's arrival
//!   process, so this is the fraction of time the link is busy. The flow's
//!   own rate changes are added at once (the window spans seconds; without
//!   that the lagging `U` made eq. (13) raise the rate again after each
//!   increase). Tried first and rejected: counting busy probes that leave
//!   at pacing slots, which follow the flow's own previous packet by
//!   exactly `1/S` and so do not see the flow as a random observer does
//!   (`U` 0.10 high on Fig. 6, seed 1, with `U_flow` added; 0.09 low
//!   without), and holding a slot's packet for one interval (0.03-0.09
//!   low). Until 32 probes are back `U` is as `paced_u` says. This needs
//!   RTTs accurate to a fraction of a packet time (simulation, or hardware
//!   timestamps); on a host with scheduling jitter, raise the threshold
//!   (`PathEstimator::busy_eps`).
//! * `up_gain`: take only this fraction of each rate *increase* (including
//!   the first rate after start-up, an increase from 0), all of each
//!   decrease. The estimate from a handful of probes is noisy, and an
//!   overshoot of a few percent fills a small buffer within an RTT.

use std::collections::VecDeque;

use crate::estimator::{exp_sample, LossRate, PathEstimator, PathMeasures};
use crate::{
    secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time, MILLISECOND,
};

/// TCP-Madison parameters (Table 2 and §4.2-4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MadisonConfig {
    /// Normalized `d / RTT_avg` (Table 2: 0.0235).
    pub d_norm: f64,
    /// Minimum loss rate used for `b_target` (Table 2: 2.55e-5).
    pub p_min: f64,
    /// Initial loss-rate estimate (Table 2: 1e-4).
    pub p_init: f64,
    /// `T`, minimum time between rate changes (Table 2: 200 ms).
    pub rate_interval: Time,
    /// `tProbe*`, desired minimum mean probe spacing in bottleneck packet
    /// service times (Table 2: 32).
    pub t_probe: f64,
    /// Start-up slot spacing and smallest mean probe spacing (§4.2: 15 ms).
    pub min_probe_spacing: Time,
    /// Largest mean probe spacing (§4.2: 100 ms).
    pub max_probe_spacing: Time,
    /// Packet pairs sent in all, one per RTT (§4.2: 20).
    pub pairs: u32,
    /// `b` within this fraction of `b_target` counts as reached (§4.3: 20%).
    pub within: f64,
    /// Two consecutive `b` off by more than this fraction trigger a new
    /// `S_target` (§4.3: 30%).
    pub off: f64,
    /// Quiesce when a requested ACK is late (§4.3).
    pub quiesce: bool,
    /// Fraction of the step toward a new `S_target` taken at each rate
    /// change: 1 is the paper (jump to `S_target`); below 1 is a damped
    /// variant, `S += gain (S_target - S)` (not in the paper; see the
    /// module docs).
    pub gain: f64,
    /// Open loop (Fig. 2): compute `S_target` once after start-up and keep it.
    pub open_loop: bool,
    /// Rule (2d)'s "two consecutive values of b" are averages over disjoint
    /// sets of six probes (true) or consecutive sliding averages that share
    /// five of their six probes (false).
    pub disjoint_b: bool,
    /// Estimate `U` with [`crate::estimator::utilization_paced`] (the
    /// flow's own packets are paced) instead of eq. (8).
    pub paced_u: bool,
    /// Random-instant probes and a busy-fraction `U` (a precaution, not in
    /// the paper; see the module docs): each probe leaves one `1/S` after
    /// its exponentially distributed instant (the window is closed in
    /// between), not at the next pacing slot, and `U` is the fraction of
    /// the latest 256 probes that found the bottleneck busy
    /// ([`crate::estimator::PathEstimator::busy_fraction`]) once 32 have
    /// come back (before that, as `paced_u` says).
    pub busy_u: bool,
    /// Fraction of each rate increase taken (times `gain`), including the
    /// first rate after start-up: 1 is the paper (a precaution below 1; see
    /// the module docs).
    pub up_gain: f64,
}

impl Default for MadisonConfig {
    fn default() -> Self {
        MadisonConfig {
            d_norm: 0.0235,
            p_min: 2.55e-5,
            p_init: 1e-4,
            rate_interval: 200 * MILLISECOND,
            t_probe: 32.0,
            min_probe_spacing: 15 * MILLISECOND,
            max_probe_spacing: 100 * MILLISECOND,
            pairs: 20,
            within: 0.2,
            off: 0.3,
            quiesce: true,
            gain: 1.0,
            open_loop: false,
            disjoint_b: true,
            paced_u: false,
            busy_u: false,
            up_gain: 1.0,
        }
    }
}

/// Madison eq. (3): target backlog (packets) for loss-event rate `p`,
/// with `p` floored at `p_min`:
/// `b_target = (2/7) d_norm (9 + sqrt(25 + 56/p))`.
pub fn b_target(p: f64, d_norm: f64, p_min: f64) -> f64 {
    let p = p.max(p_min);
    2.0 / 7.0 * d_norm * (9.0 + (25.0 + 56.0 / p).sqrt())
}

/// Madison eqs. (12)+(13), case 1 (before the flow first comes within 20%
/// of its target): `U_new = max(0, U - S k/C) + S_target k/C`, so
/// `S_target k/C = 2 b_t (1 - U0) / (1 + 2 b_t)`. Returns packets/ms.
pub fn s_target_case1(bt: f64, u: f64, s: f64, c: f64, pkt_kb: f64) -> f64 {
    let u0 = (u - s * pkt_kb / c).max(0.0);
    let x = 2.0 * bt * (1.0 - u0).max(0.0) / (1.0 + 2.0 * bt);
    x * c / pkt_kb
}

/// Madison eqs. (12)+(14), case 2: `U_new = [max(0, X_xt - (n_D - 1) S) +
/// n_D S_target] k/C`, so `S_target k/C = 2 b_t (1 - A) / (1 + 2 b_t n_D)`
/// with `A = max(0, X_xt - (n_D - 1) S) k/C`. `x_xt` and `s` in packets/ms.
pub fn s_target_case2(bt: f64, x_xt: f64, s: f64, n_d: f64, c: f64, pkt_kb: f64) -> f64 {
    let a = (x_xt - (n_d - 1.0) * s).max(0.0) * pkt_kb / c;
    let x = 2.0 * bt * (1.0 - a).max(0.0) / (1.0 + 2.0 * bt * n_d);
    x * c / pkt_kb
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Startup,
    Avoidance,
}

/// Start-up slots (§4.2): pair, 4 probes, pair, 4 probes.
const STARTUP_SLOTS: u32 = 10;
/// Packets sent in start-up.
const STARTUP_PACKETS: u64 = 12;

/// The TCP-Madison controller.
#[derive(Clone, Debug)]
pub struct Madison {
    /// Registry name (`madison` or the paper's preset `madison-paper`).
    name: &'static str,
    cfg: MadisonConfig,
    wire: u32,
    est: PathEstimator,
    loss: LossRate,
    rng: u64,
    phase: Phase,
    // --- start-up ---
    t0: Option<Time>,
    /// Next start-up slot to release.
    slot: u32,
    budget: u32,
    pending_pairs: u32,
    pending_probes: u32,
    pair_second_next: bool,
    last_in_flight: u32,
    // --- congestion avoidance ---
    /// Current `S_target`, packets/ms.
    s: f64,
    bt: f64,
    reached: bool,
    n_d: f64,
    last_change: Time,
    pending: bool,
    pending_backcalc: bool,
    last_b: [f64; 2],
    /// The `RTT_avg` behind each of `last_b`.
    last_avg: [f64; 2],
    n_last_b: usize,
    /// Rule (2d) fired: `RTT_avg` to use for the new `S_target` (the mean of
    /// the two averages that were off target).
    pending_avg: Option<f64>,
    /// Probe RTTs since the last stored `b` (rule (2d), `disjoint_b`).
    probes_since_b: usize,
    /// (U used, x before) at the last rate change, for the n_D back-calculation.
    prev_change: Option<(f64, f64)>,
    probe_spacing_ms: f64,
    next_probe: Time,
    next_pair: Time,
    pairs_sent: u32,
    /// (time, packets delivered) at the latest probe ACKs, oldest first:
    /// the flow's delivery rate over the span of the `RTT_avg` probes.
    deliveries: VecDeque<(Time, u64)>,
    /// Send times of packets whose ACK was requested (probes, pair seconds).
    outstanding: VecDeque<Time>,
    quiesced: bool,
    /// `busy_u`: a probe instant has come: one packet leaves now, outside
    /// the pacing schedule, as the probe.
    probe_armed: bool,
    rate_changes: u64,
    quiesce_count: u64,
}

impl Madison {
    /// The same controller under another registry name (the presets).
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// A Madison controller for packets of `wire_size` bytes; `seed` drives
    /// the exponential probe spacing.
    pub fn new(cfg: MadisonConfig, wire_size: u32, seed: u64) -> Self {
        Madison {
            name: "madison",
            cfg,
            wire: wire_size,
            est: {
                let mut e = PathEstimator::new(wire_size);
                e.paced_u = cfg.paced_u;
                e.busy_u = cfg.busy_u;
                e
            },
            loss: LossRate::new(cfg.p_init),
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            phase: Phase::Startup,
            t0: None,
            slot: 1,
            budget: 2,
            pending_pairs: 1,
            pending_probes: 0,
            pair_second_next: false,
            last_in_flight: 0,
            s: 0.0,
            bt: b_target(cfg.p_init, cfg.d_norm, cfg.p_min),
            reached: false,
            n_d: 1.0,
            last_change: 0,
            pending: false,
            pending_backcalc: false,
            last_b: [0.0; 2],
            last_avg: [0.0; 2],
            n_last_b: 0,
            pending_avg: None,
            probes_since_b: 0,
            prev_change: None,
            probe_spacing_ms: secs(cfg.min_probe_spacing) * 1e3,
            next_probe: 0,
            next_pair: 0,
            pairs_sent: 0,
            deliveries: VecDeque::with_capacity(crate::estimator::RTT_AVG_SAMPLES + 1),
            outstanding: VecDeque::with_capacity(64),
            quiesced: false,
            probe_armed: false,
            rate_changes: 0,
            quiesce_count: 0,
        }
    }

    /// The path estimator.
    pub fn estimator(&self) -> &PathEstimator {
        &self.est
    }

    /// Current path measures at the current rate.
    pub fn measures(&self) -> Option<PathMeasures> {
        self.est.measures(self.s_eff())
    }

    /// The flow's rate into the bottleneck queue, packets/ms: `S_target`,
    /// or the delivery rate over the last six probe intervals if lower.
    ///
    /// Eqs. (4), (9) and (13) take the flow's utilization and backlog "by
    /// Little's result" from the rate `S` it has been sending at. Little's
    /// result counts the packets that enter the queue: when the flow sends
    /// faster than the link can take (after start-up from crude estimates,
    /// or after a jump in `b_target`), the excess is dropped, and `S 12/C`
    /// overstates the flow's share of `U`. Eq. (13) then reads the cross
    /// traffic as `U - S 12/C`, near 0, and cuts the rate by only ~10% per
    /// change: on the Fig. 8(b) path (seed 4, `paced_u`) a start-up rate of 455 Mb/s
    /// (150 Mb/s available) took 1.4 s and 6,325 lost packets to come down.
    /// With the delivery rate (about 275 Mb/s: the overloaded flow crowds
    /// out cross traffic too, so it still overstates its share) the cuts
    /// are larger: 1.0 s and 3,424 lost packets.
    fn s_eff(&self) -> f64 {
        match (self.deliveries.front(), self.deliveries.back()) {
            (Some(&(t0, d0)), Some(&(t1, d1)))
                if self.deliveries.len() > crate::estimator::RTT_AVG_SAMPLES && t1 > t0 =>
            {
                let rate = (d1 - d0) as f64 / ((t1 - t0) as f64 * 1e-6);
                self.s.min(rate)
            }
            _ => self.s,
        }
    }

    /// Current `S_target`, packets/ms (0 during start-up).
    pub fn s_target(&self) -> f64 {
        self.s
    }

    /// The pacing rate, packets/ms: `S_target`, less the probes' rate
    /// `1/probe spacing` when `busy_u` sends the probes outside the pacing
    /// schedule (the probe spacing is then at least `2/S_target`, so the
    /// schedule keeps at least half the rate).
    fn paced_rate(&self) -> f64 {
        if self.cfg.busy_u && self.probe_spacing_ms > 0.0 {
            (self.s - 1.0 / self.probe_spacing_ms).max(0.5 * self.s)
        } else {
            self.s
        }
    }

    /// Current `b_target`, packets.
    pub fn b_target(&self) -> f64 {
        self.bt
    }

    /// Current loss-rate estimate.
    pub fn p(&self) -> f64 {
        self.loss.p
    }

    /// True once in congestion avoidance.
    pub fn in_avoidance(&self) -> bool {
        self.phase == Phase::Avoidance
    }

    fn pkt_kb(&self) -> f64 {
        self.est.pkt_kb()
    }

    fn late_threshold(&self) -> Option<Time> {
        let avg = self.est.rtt_avg()?;
        let ms = (1.25 * avg).max(avg + 20.0);
        Some((ms * 1e6) as Time)
    }

    fn slot_time(&self, k: u32) -> Time {
        self.t0.unwrap_or(0) + k as Time * self.cfg.min_probe_spacing
    }

    /// Releases start-up slot `k` (pair at 0 and 5, probes otherwise).
    fn release_slot(&mut self, k: u32) {
        if k == 0 || k == 5 {
            self.pending_pairs += 1;
            self.budget += 2;
        } else {
            self.pending_probes += 1;
            self.budget += 1;
        }
    }

    fn restart_startup(&mut self, now: Time) {
        self.phase = Phase::Startup;
        self.t0 = Some(now);
        self.slot = 1;
        self.budget = 0;
        self.pending_pairs = 0;
        self.pending_probes = 0;
        self.pair_second_next = false;
        self.release_slot(0);
    }

    /// Start-up has released all its slots, everything sent is
    /// acknowledged and congestion avoidance still cannot begin (no pair
    /// dispersion was measured, e.g. a receiver whose arrival times are
    /// not the datagrams' own, as with coalesced reads on loopback): the
    /// window would stay at zero with no timer, so nothing would ever be
    /// sent again. Another start-up round is sent instead (the paper is
    /// silent; issue 34's loopback stall after 16,800 bytes).
    fn restart_if_exhausted(&mut self, now: Time, in_flight: u32) {
        if self.phase == Phase::Startup && self.slot >= STARTUP_SLOTS && in_flight == 0 {
            self.restart_startup(now);
        }
    }

    fn try_enter_avoidance(&mut self, now: Time, delivered: u64) {
        let Some(c) = self.est.capacity().estimate() else {
            return;
        };
        if self.est.rtt_avg().is_none() {
            return;
        }
        // §4.2: the first four packets, or all twelve if 15 ms is under 20
        // bottleneck packet times.
        let slow = secs(self.cfg.min_probe_spacing) * 1e3 < 20.0 * self.pkt_kb() / c;
        let need = if slow { STARTUP_PACKETS } else { 4 };
        if delivered < need {
            return;
        }
        self.phase = Phase::Avoidance;
        self.pairs_sent = self.pairs_sent.max(2);
        self.loss.p = self.cfg.p_init;
        self.bt = b_target(self.loss.p, self.cfg.d_norm, self.cfg.p_min);
        // Desired probe spacing: tProbe* service times, in [15, 100] ms.
        let lo = secs(self.cfg.min_probe_spacing) * 1e3;
        let hi = secs(self.cfg.max_probe_spacing) * 1e3;
        self.probe_spacing_ms = (self.cfg.t_probe * self.pkt_kb() / c).min(hi).max(lo);
        self.next_probe = now;
        self.next_pair = now + (self.est.rtt_avg().unwrap_or(100.0) * 1e6) as Time;
        self.s = 0.0;
        self.recompute(now, false);
    }

    /// Computes a new `S_target` (eq. (12) with (13) or (14)).
    fn recompute(&mut self, now: Time, backcalc: bool) {
        let s_eff = self.s_eff();
        let m = match self.pending_avg.take() {
            Some(avg) if self.cfg.disjoint_b => self.est.measures_with(s_eff, avg),
            _ => self.est.measures(s_eff),
        };
        let Some(m) = m else {
            return;
        };
        let k = self.pkt_kb();
        let x_now = s_eff * k / m.c;
        if self.reached && backcalc {
            // §3.4: back-calculate n_D from the backlog achieved.
            if let Some((u_prev, x_before)) = self.prev_change {
                let dx = x_now - x_before;
                if dx.abs() > 1e-3 {
                    let nd = (m.u - u_prev) / dx;
                    if nd.is_finite() {
                        self.n_d = nd.clamp(1.0, m.n.max(1.0));
                    }
                }
            }
        }
        let s_new = if self.reached {
            s_target_case2(self.bt, m.x_xt, s_eff, self.n_d, m.c, k) // eq. (14)
        } else {
            s_target_case1(self.bt, m.u, s_eff, m.c, k) // eq. (13)
        };
        self.prev_change = Some((m.u, x_now));
        let s_new = if self.s > 0.0 {
            let g = if s_new > self.s {
                self.cfg.gain * self.cfg.up_gain
            } else {
                self.cfg.gain
            };
            self.s + g * (s_new - self.s)
        } else {
            // The first rate after start-up is an increase from 0.
            self.cfg.up_gain * s_new
        };
        self.s = s_new.max(0.01); // floor: 1 packet per 100 ms
        self.last_change = now;
        self.pending = false;
        self.pending_backcalc = false;
        self.n_last_b = 0;
        self.probes_since_b = 0;
        self.rate_changes += 1;
        let hi = secs(self.cfg.max_probe_spacing) * 1e3;
        let lo = secs(self.cfg.min_probe_spacing) * 1e3;
        let c = m.c;
        let desired = (self.cfg.t_probe * k / c).min(hi).max(lo);
        // §4.3 (1): mean probe spacing max(1/S_target, desired); with
        // `busy_u` at least 2/S_target (see `paced_rate`).
        let per = if self.cfg.busy_u { 2.0 } else { 1.0 };
        self.probe_spacing_ms = desired.max(per / self.s);
    }

    fn maybe_recompute(&mut self, now: Time) {
        if self.cfg.open_loop {
            self.pending = false;
            return;
        }
        if self.pending && now >= self.last_change + self.cfg.rate_interval {
            let bc = self.pending_backcalc;
            self.recompute(now, bc);
        }
    }

    /// Rule (2c)/(2d) on a probe ACK in congestion avoidance.
    fn on_probe(&mut self, now: Time) {
        if self.loss.decay() {
            // (2c): no loss for more than 10/p packets: p = 1/q.
            self.bt = b_target(self.loss.p, self.cfg.d_norm, self.cfg.p_min);
            self.pending = true;
        } else if let Some(m) = self.est.measures(self.s_eff()) {
            // (2d) on every probe ACK: within 20% of the target, n_D = n.
            let b = m.b;
            let bt = self.bt;
            self.probes_since_b += 1;
            if (b - bt).abs() <= self.cfg.within * bt {
                self.reached = true;
                self.n_d = m.n.max(1.0);
                self.n_last_b = 0;
            } else if self.est.avg_samples() == crate::estimator::RTT_AVG_SAMPLES
                && self
                    .est
                    .oldest_avg_sample_sent()
                    .is_some_and(|t| t >= self.last_change)
            {
                // Two consecutive averages (of probes sent at the current
                // rate) more than 30% off: a new S_target.
                if self.cfg.disjoint_b && self.probes_since_b < crate::estimator::RTT_AVG_SAMPLES {
                    self.maybe_recompute(now);
                    return;
                }
                self.probes_since_b = 0;
                self.last_b[self.n_last_b % 2] = b;
                self.last_avg[self.n_last_b % 2] = m.rtt_avg;
                self.n_last_b += 1;
                if self.n_last_b >= 2
                    && self
                        .last_b
                        .iter()
                        .all(|&x| (x - bt).abs() > self.cfg.off * bt)
                {
                    self.pending = true;
                    self.pending_backcalc = true;
                    self.pending_avg = Some(0.5 * (self.last_avg[0] + self.last_avg[1]));
                }
            }
        }
        self.maybe_recompute(now);
    }
}

impl Controller for Madison {
    fn name(&self) -> &'static str {
        self.name
    }

    fn control(&self) -> Control {
        match self.phase {
            Phase::Startup => Control {
                cwnd: Some((self.last_in_flight + self.budget) as f64),
                pacing_rate: None,
                max_burst: Some(1),
            },
            Phase::Avoidance if self.probe_armed && !self.quiesced => Control {
                // `busy_u`: the probe leaves at its random instant,
                // unpaced; the transport takes the control again after each
                // packet, and `on_send` disarms, so exactly one packet
                // leaves outside the schedule.
                cwnd: None,
                pacing_rate: None,
                max_burst: Some(1),
            },
            Phase::Avoidance => Control {
                cwnd: self.quiesced.then_some(0.0),
                pacing_rate: Some(self.paced_rate() * self.wire as f64 * 1e3),
                max_burst: Some(1),
            },
        }
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        self.last_in_flight = ack.in_flight;
        // §4.3 (2b): "# packets lost" counts every packet of the loss event,
        // including those declared lost during its recovery.
        if self.loss.add_to_event(ack.newly_lost) {
            self.bt = b_target(self.loss.p, self.cfg.d_norm, self.cfg.p_min);
        }
        if let Some(d) = ack.pair_dispersion {
            self.est.on_pair(d, ack.pair_bytes);
        }
        let Some(r) = ack.rtt else {
            if self.phase == Phase::Startup {
                self.try_enter_avoidance(now, ack.delivered);
                self.restart_if_exhausted(now, ack.in_flight);
            }
            return;
        };
        let sent = now.saturating_sub(r);
        // Requested ACKs up to this one are answered (or superseded).
        while self.outstanding.front().is_some_and(|&t| t <= sent) {
            self.outstanding.pop_front();
        }
        self.quiesced = false;
        if ack.was_probe {
            let s = self.s_eff();
            self.est.on_probe_rtt_at(r, sent, s);
            if self.deliveries.len() > crate::estimator::RTT_AVG_SAMPLES {
                self.deliveries.pop_front();
            }
            self.deliveries.push_back((now, ack.delivered));
        } else {
            self.est.on_rtt_min(r);
        }
        match self.phase {
            Phase::Startup => {
                self.try_enter_avoidance(now, ack.delivered);
                self.restart_if_exhausted(now, ack.in_flight);
            }
            Phase::Avoidance => {
                if ack.was_probe {
                    self.on_probe(now);
                } else {
                    self.maybe_recompute(now);
                }
            }
        }
    }

    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent) {
        // (2b): p = (lost + 1) / (sent since last loss + 1/p).
        self.loss.on_loss_event(ev.lost);
        self.bt = b_target(self.loss.p, self.cfg.d_norm, self.cfg.p_min);
        if self.phase == Phase::Avoidance {
            self.pending = true;
            self.pending_avg = None;
            self.maybe_recompute(now);
        }
    }

    fn on_recovery_end(&mut self, _now: Time) {
        self.loss.close_event();
    }

    fn on_rto(&mut self, now: Time) {
        self.outstanding.clear();
        self.quiesced = false;
        self.last_in_flight = 0;
        // §4.3: a timeout ends quiescence. It is not a loss event for (2b):
        // the paper detects loss events from selective ACKs, and with
        // probe-only ACKs a slow flow (one packet per 60 ms at 0.2 Mb/s)
        // needs three later deliveries plus an RTT to detect a loss, longer
        // than its RTO, so most of its timeouts are spurious. Counting them
        // ratcheted such a flow's p up (p = 2 / (q + 1/p) with q small) and
        // held it near 0 (Fig. 6: 11 timeouts, 66 of its 125 "lost" packets
        // delivered, p from 9e-3 to 0.11).
        if self.phase == Phase::Startup {
            self.restart_startup(now);
        }
    }

    fn on_send(&mut self, now: Time, _seq: u64, _retransmit: bool, in_flight: u32) -> PacketFlags {
        self.loss.on_send();
        self.last_in_flight = in_flight + 1;
        if self.phase == Phase::Startup {
            if self.t0.is_none() {
                self.t0 = Some(now);
            }
            self.budget = self.budget.saturating_sub(1);
        }
        if self.pair_second_next {
            // The transport marks it PAIR_SECOND; the receiver ACKs it.
            self.pair_second_next = false;
            self.outstanding.push_back(now);
            return PacketFlags::NONE;
        }
        match self.phase {
            Phase::Startup => {
                if self.pending_pairs > 0 {
                    self.pending_pairs -= 1;
                    self.pairs_sent += 1;
                    self.pair_second_next = true;
                    PacketFlags::PAIR
                } else if self.pending_probes > 0 {
                    self.pending_probes -= 1;
                    self.outstanding.push_back(now);
                    PacketFlags::ACK_REQUEST
                } else {
                    PacketFlags::NONE
                }
            }
            Phase::Avoidance => {
                if self.pairs_sent < self.cfg.pairs && now >= self.next_pair {
                    // §4.3: a packet pair every RTT until 20 have been sent.
                    self.pairs_sent += 1;
                    let rtt = self.est.rtt_avg().unwrap_or(100.0);
                    self.next_pair = now + (rtt * 1e6) as Time;
                    self.pair_second_next = true;
                    PacketFlags::PAIR
                } else if self.probe_armed || (!self.cfg.busy_u && now >= self.next_probe) {
                    // (`busy_u`: the armed probe, sent at its instant.)
                    // §4.3 (1): exponentially spaced probes.
                    self.probe_armed = false;
                    let gap = exp_sample(&mut self.rng, self.probe_spacing_ms * 1e6);
                    self.next_probe = now + (gap as Time).max(1);
                    self.outstanding.push_back(now);
                    PacketFlags::ACK_REQUEST
                } else {
                    PacketFlags::NONE
                }
            }
        }
    }

    fn timer(&self) -> Option<Time> {
        match self.phase {
            Phase::Startup => {
                (self.t0.is_some() && self.slot < STARTUP_SLOTS).then(|| self.slot_time(self.slot))
            }
            Phase::Avoidance => {
                // `busy_u`: the next probe instant.
                let probe = (self.cfg.busy_u && !self.probe_armed).then_some(self.next_probe);
                let late = if !self.cfg.quiesce || self.quiesced {
                    None
                } else {
                    self.outstanding
                        .front()
                        .and_then(|&t| Some(t + self.late_threshold()?))
                };
                match (probe, late) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
        }
    }

    fn on_timer(&mut self, now: Time) {
        match self.phase {
            Phase::Startup => {
                while self.slot < STARTUP_SLOTS && self.slot_time(self.slot) <= now {
                    self.release_slot(self.slot);
                    self.slot += 1;
                }
            }
            Phase::Avoidance => {
                if self.cfg.busy_u && self.next_probe <= now {
                    self.probe_armed = true;
                }
                if let (Some(&oldest), Some(late)) =
                    (self.outstanding.front(), self.late_threshold())
                {
                    if self.cfg.quiesce && oldest + late <= now {
                        // §4.3: a requested ACK is late: quiesce until the
                        // next ACK or a timeout.
                        self.quiesced = true;
                        self.quiesce_count += 1;
                    }
                }
            }
        }
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        self.est.trace(self.s_eff(), out);
        let k = self.pkt_kb();
        out.push(("est_p", self.loss.p));
        out.push(("b_target", self.bt));
        out.push((
            "b_flow",
            self.est.measures(self.s_eff()).map_or(f64::NAN, |m| m.b),
        ));
        out.push(("s_target_mbps", self.s * k));
        out.push(("s_eff_mbps", self.s_eff() * k));
        out.push(("n_d", self.n_d));
        out.push(("phase", if self.in_avoidance() { 1.0 } else { 0.0 }));
        out.push(("rate_changes", self.rate_changes as f64));
        out.push(("quiesces", self.quiesce_count as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq3_values_and_the_text_inconsistency() {
        let b = |p| b_target(p, 0.0235, 0.0);
        assert!((b(2.555e-5) - 10.0).abs() < 0.01, "{}", b(2.555e-5));
        assert!((b(1e-5) - 16.0).abs() < 0.1, "{}", b(1e-5));
        // The text says 4.33 at p_init = 1e-4; eq. (3) gives 5.08.
        assert!((b(1e-4) - 5.085).abs() < 0.005, "{}", b(1e-4));
        // Floor at p_min.
        assert_eq!(
            b_target(1e-7, 0.0235, 2.55e-5),
            b_target(2.55e-5, 0.0235, 2.55e-5)
        );
    }

    #[test]
    fn s_target_solves_eq12() {
        let (c, k) = (100.0, 12.0);
        // Case 1: the predicted backlog S (k/C) / (2 (1 - U_new)) equals b_t.
        for (bt, u, s) in [(5.0, 0.3, 0.0), (10.0, 0.9, 2.0), (5.085, 0.5, 4.0)] {
            let st = s_target_case1(bt, u, s, c, k);
            let u_new = (u - s * k / c).max(0.0) + st * k / c;
            let b = st * (k / c) / (2.0 * (1.0 - u_new));
            assert!((b - bt).abs() < 1e-9, "{b} vs {bt}");
        }
        // Case 2.
        for (bt, xxt, s, nd) in [(5.0, 3.0, 1.0, 2.0), (10.0, 1.0, 0.5, 3.5)] {
            let st = s_target_case2(bt, xxt, s, nd, c, k);
            let u_new = ((xxt - (nd - 1.0) * s).max(0.0) + nd * st) * k / c;
            let b = st * (k / c) / (2.0 * (1.0 - u_new));
            assert!((b - bt).abs() < 1e-9, "{b} vs {bt}");
        }
    }

    #[test]
    fn a_timeout_is_not_a_loss_event() {
        let mut m = Madison::new(MadisonConfig::default(), 1500, 7);
        for i in 0..500 {
            m.on_send(1_000 + i, i, false, 0);
        }
        m.on_rto(SECOND_NS);
        assert_eq!(m.p(), 1e-4);
        assert!((m.b_target() - 5.085).abs() < 0.005);
        // A loss event of 3 packets after 500 sent: (3 + 1) / (500 + 1e4).
        m.on_congestion_event(
            2 * SECOND_NS,
            &CongestionEvent {
                cause: crate::CongestionCause::Loss,
                lost: 3,
                in_flight: 10,
                srtt: 0,
                min_rtt: 0,
            },
        );
        assert!((m.p() - 4.0 / 10_500.0).abs() < 1e-15);
    }

    const SECOND_NS: Time = 1_000_000_000;

    #[test]
    fn startup_sends_pairs_and_probes_at_15ms() {
        let mut m = Madison::new(MadisonConfig::default(), 1500, 7);
        let mut sent = Vec::new();
        let mut now = 1_000;
        let mut in_flight = 0u32;
        // Drive: send whatever the window allows, fire the timer.
        for _ in 0..40 {
            while (in_flight as f64) < m.control().cwnd.unwrap() {
                let f = m.on_send(now, sent.len() as u64, false, in_flight);
                in_flight += 1;
                sent.push((now, f));
            }
            match m.timer() {
                Some(t) => {
                    now = t;
                    m.on_timer(now);
                }
                None => break,
            }
        }
        assert_eq!(sent.len(), 12);
        let pairs: Vec<_> = sent
            .iter()
            .filter(|x| x.1.contains(PacketFlags::PAIR))
            .map(|x| x.0)
            .collect();
        assert_eq!(pairs, vec![1_000, 1_000 + 75 * MILLISECOND]);
        let probes = sent
            .iter()
            .filter(|x| x.1.contains(PacketFlags::ACK_REQUEST))
            .count();
        assert_eq!(probes, 8);
        assert_eq!(sent[2].0, 1_000 + 15 * MILLISECOND);
    }

    /// Start-up whose pairs give no dispersion (untimed arrivals): once
    /// all twelve packets are acknowledged the window must not stay at
    /// zero with no timer (the loopback stall of issue 34).
    #[test]
    fn startup_without_pair_samples_does_not_stall() {
        let mut m = Madison::new(MadisonConfig::default(), 1500, 7);
        let mut now = 1_000;
        let mut sent = 0u64;
        while m.phase == Phase::Startup && m.slot < STARTUP_SLOTS {
            while (m.last_in_flight as f64) < m.control().cwnd.unwrap() {
                m.on_send(now, sent, false, m.last_in_flight);
                sent += 1;
            }
            now = m.timer().expect("a start-up slot");
            m.on_timer(now);
        }
        while (m.last_in_flight as f64) < m.control().cwnd.unwrap() {
            m.on_send(now, sent, false, m.last_in_flight);
            sent += 1;
        }
        assert_eq!(sent, STARTUP_PACKETS);
        now += MILLISECOND;
        for d in 1..=sent {
            m.on_ack(
                now,
                &AckSample {
                    rtt: Some(50_000),
                    delivered: d,
                    was_probe: true,
                    in_flight: (sent - d) as u32,
                    ..AckSample::default()
                },
            );
        }
        assert!(!m.in_avoidance(), "no capacity estimate yet");
        let c = m.control().cwnd.unwrap();
        assert!(
            c >= 1.0 || m.timer().is_some(),
            "stalled: window {c}, no timer"
        );
        assert!(c >= 1.0, "another round's pair is released at once: {c}");
    }

    /// Brings a Madison flow into congestion avoidance on a 100 Mb/s,
    /// 100 ms path with no queue; returns the time.
    fn into_avoidance(m: &mut Madison) -> Time {
        let mut now = 1_000;
        let mut sent = 0u64;
        for _ in 0..40 {
            while (m.last_in_flight as f64) < m.control().cwnd.unwrap_or(0.0) {
                m.on_send(now, sent, false, m.last_in_flight);
                sent += 1;
            }
            match m.timer() {
                Some(t) if m.phase == Phase::Startup => {
                    now = t;
                    m.on_timer(now);
                }
                _ => break,
            }
        }
        now += 100 * MILLISECOND;
        for d in 1..=12u64 {
            m.on_ack(
                now,
                &AckSample {
                    rtt: Some(100 * MILLISECOND),
                    delivered: d,
                    was_probe: true,
                    pair_dispersion: (d == 2).then_some(120_000),
                    pair_bytes: 1500,
                    ..AckSample::default()
                },
            );
        }
        assert!(m.in_avoidance());
        now
    }

    #[test]
    fn busy_u_sends_each_probe_at_its_instant_outside_the_schedule() {
        let cfg = MadisonConfig {
            busy_u: true,
            paced_u: true,
            pairs: 2,
            quiesce: false,
            ..MadisonConfig::default()
        };
        let mut m = Madison::new(cfg, 1500, 11);
        let mut now = into_avoidance(&mut m);
        let s = m.s_target();
        assert!(s > 0.0);
        // The schedule carries S less the probes' rate.
        let paced = m.control().pacing_rate.unwrap() / 1500.0 / 1e3;
        let spacing = m.probe_spacing_ms;
        assert!(spacing >= 2.0 / s);
        assert!((paced - (s - 1.0 / spacing)).abs() < 1e-9, "{paced} vs {s}");
        // Between probe instants every packet is paced and none asks for an
        // ACK; at an instant the next packet leaves unpaced, as the probe,
        // and the schedule resumes after it.
        let mut probes = 0;
        for _ in 0..20 {
            let t = m.timer().expect("the next probe instant");
            assert!(t >= now);
            if t > now + MILLISECOND {
                // A paced packet before the instant is not a probe.
                let f = m.on_send(now + MILLISECOND, 100, false, 0);
                assert!(!f.contains(PacketFlags::ACK_REQUEST));
            }
            now = t;
            m.on_timer(now);
            let c = m.control();
            assert_eq!(c.pacing_rate, None, "the probe leaves at its instant");
            assert_eq!(c.cwnd, None);
            let f = m.on_send(now, 100, false, 0);
            assert!(f.contains(PacketFlags::ACK_REQUEST));
            assert!(m.control().pacing_rate.is_some(), "one packet only");
            probes += 1;
        }
        assert_eq!(probes, 20);
    }
}
