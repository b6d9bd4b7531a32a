//! ACWAP, Adaptive Congestion Window Adjustment plus Pacing (Su, Pan, Wang,
//! Wan, "An algorithm for reducing loss rate of high-speed TCP", J. Zhejiang
//! Univ. SCIENCE A 7 (Suppl. II), 2006; seed 004).
//!
//! Behind a drop-tail queue a HighSpeed TCP flow keeps adding `a(w)` packets
//! per RTT until the queue overflows, and it only learns of the first drop one
//! RTT later; by then about `a(w)` packets have been dropped, one every
//! `w/a(w)` packets (each is the second packet of the back-to-back pair sent
//! when `w` crosses an integer, seed 004 Fig. 4). ACWAP wraps a scalable
//! window controller and
//!
//! * keeps an exponentially smoothed RTT estimate `R_C` and the smallest and
//!   largest values it has taken, `RTT_min` and `RTT_max`;
//! * predicts congestion when (seed 004 eq. (3))
//!   `R_C >= RTT_min + beta (RTT_max - RTT_min)` and then uses an increase of
//!   `a(w) = 1` packet per RTT instead of the protocol's own `a(w)`, so that
//!   about one packet is lost when the queue finally overflows;
//! * applies that rule only after two congestion events (`numofcon >= 2` in
//!   the Fig. 5 pseudo-code): `RTT_max` seen during slow start is not
//!   trustworthy;
//! * resets `R_C` to `RTT_min` on every congestion event (Fig. 5:
//!   `RTT = RTT_min`), so the flow returns to its own fast increase at once;
//! * paces packets at `Interval = R_C / cwnd` (Fig. 5 `output(interval)`),
//!   i.e. `pacing_rate = cwnd * wire_size / R_C`, removing the
//!   back-to-back pairs.
//!
//! The wrapped controller must implement [`IncreaseOverride`]: HighSpeed TCP
//! ([`crate::highspeed::HighSpeed`], "ACWAP-HSTCP"), Scalable TCP
//! ([`crate::scalable::Scalable`]) and BIC ([`crate::bic::Bic`]) do. Its
//! decrease, slow start, recovery and timeout behaviour are unchanged.
//!
//! # Choices where the paper is silent
//!
//! * `R_C` is updated on every RTT sample with gain 1/8 (RFC 6298's SRTT
//!   gain; the paper: "an exponentially smoothed high accuracy RTT estimate
//!   that is supported by standard TCP"). `RTT_min` and `RTT_max` track `R_C`
//!   (the Fig. 5 variable `RTT`), not the raw samples, on every sample,
//!   including slow start ("through slow start phase, a connection can get
//!   `RTT_min`"). How fast `R_C` follows the queue matters: a lagging
//!   estimate (ns-2 times one packet per RTT; here a small `rtt_gain`)
//!   crosses the eq. (3) threshold later, so the flow spends less time at
//!   `a(w) = 1`, has more congestion events and, with a long enough lag,
//!   loses `a(w)` packets again (docs/reports/acwap.md, single-flow table).
//! * [`RttSampling::OncePerRtt`] instead feeds `R_C` as standard TCP and
//!   ns-2's `TcpAgent` feed their smoothed RTT: one timed packet per RTT,
//!   gain 1/8, optionally counted in clock ticks. It is the closer reading
//!   of "an exponentially smoothed ... RTT estimate that is supported by
//!   standard TCP (Stevens, 1994)" in ns-2, where the paper ran Fig. 5;
//!   it is off by default (every ACK) so that the results in the report do
//!   not change. With it, eq. (3) at `beta = 0.9` rarely fires before an
//!   overflow caused by a competing HSTCP flow, which makes the ACWAP flow
//!   lossier at 0.9 than at 0.2 (seed 004 Fig. 7); see the report's
//!   beta-sweep section.
//! * A retransmission timeout counts as a congestion event (`numofcon += 1`,
//!   `R_C = RTT_min`).
//! * Pacing applies outside slow start once an RTT sample exists, with the
//!   current `R_C` and window (Fig. 5 computes the interval on each new ACK
//!   in congestion avoidance; slow start, at the start and after a
//!   timeout, is ACK clocked as in the wrapped protocol). Pacing slow start
//!   at `cwnd/R_C` lets the window overshoot far more before the first
//!   loss is detected (in our 500 Mb/s run: 31 000 packets lost, then two
//!   timeouts).
//!
//! ```
//! use dropless_cc::acwap::{Acwap, AcwapConfig};
//! use dropless_cc::highspeed::HighSpeed;
//! use dropless_cc::Controller;
//! let c = Acwap::new(HighSpeed::default(), AcwapConfig::default(), 1500);
//! assert_eq!(c.name(), "acwap-highspeed");
//! assert_eq!(c.config().beta, 0.8);
//! ```

use crate::{secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// A window controller whose congestion-avoidance increase `a(w)` (packets
/// per RTT, applied as `w += a/w` per acknowledged packet, seed 004 eq. (1))
/// can be replaced from outside.
pub trait IncreaseOverride: Controller {
    /// Use `a` packets per RTT in congestion avoidance (`None`: the
    /// protocol's own increase).
    fn set_increase_override(&mut self, a: Option<f64>);
    /// The override in force.
    fn increase_override(&self) -> Option<f64>;
    /// The protocol's own increase at the current window, packets per RTT.
    fn natural_increase(&self) -> f64;
    /// True while the window is below the slow-start threshold.
    fn in_slow_start(&self) -> bool;
}

/// ACWAP parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AcwapConfig {
    /// Congestion factor `beta` of eq. (3), in `[0, 1]`; 0.8 in the paper.
    pub beta: f64,
    /// Congestion events before eq. (3) may act (Fig. 5: 2).
    pub warmup_events: u32,
    /// Gain of the smoothed RTT estimate `R_C` per sample (1/8).
    pub rtt_gain: f64,
    /// Pace at `R_C / cwnd` (the "P" of ACWAP); off only for ablations.
    pub pacing: bool,
    /// Increase used while eq. (3) holds, packets per RTT (1).
    pub limited_increase: f64,
    /// Which RTT samples feed `R_C` (every ACK by default).
    pub rtt_sampling: RttSampling,
}

/// The RTT samples that feed `R_C`.
///
/// The paper's ns-2 code (Fig. 5) reads the variable `RTT`, which it resets
/// to `RTT_min` on congestion; ns-2's own smoothed RTT (`TcpAgent::t_srtt_`,
/// plotted in Fig. 3d as "smoothed RTT ... saw-toothed ... caused by coarse
/// timer granularity") is updated from one timed packet per RTT. Which
/// estimate the paper's ACWAP used is not stated, so both are available.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RttSampling {
    /// Every ACK's RTT sample, smoothed with gain `rtt_gain` (our default).
    EveryAck,
    /// ns-2 `TcpAgent` without timestamps: one packet is timed at a time
    /// (`rtt_active_`, `rtt_ts_`); its sample is taken when it is
    /// acknowledged, timing is cancelled on a congestion event or timeout
    /// (Karn, `reset_rtx_timer`), and the next new packet sent is timed.
    /// With `tick = 0` the sample is exact and smoothed with gain
    /// `rtt_gain`; with `tick > 0` it is counted in clock ticks as ns-2's
    /// `rtt_update` does (`t_rtt_ = (tao + sendtime mod tick) / tick`, at
    /// least 1) and smoothed in ns-2's fixed point (`t_srtt_` in eighths of
    /// a tick, `t_srtt_ += t_rtt_ - (t_srtt_ >> 3)`, gain 1/8 whatever
    /// `rtt_gain`; ns-2's per-agent `boot_time_` offset is taken as 0);
    /// ns-2's default `tcpTick_` is 10 ms (`timestamps_` off).
    OncePerRtt {
        /// Clock granularity (ns-2 `tcpTick_`), nanoseconds; 0 = exact.
        tick: Time,
    },
}

impl Default for AcwapConfig {
    fn default() -> Self {
        AcwapConfig {
            beta: 0.8,
            warmup_events: 2,
            rtt_gain: 0.125,
            pacing: true,
            limited_increase: 1.0,
            rtt_sampling: RttSampling::EveryAck,
        }
    }
}

/// Counters for traces and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AcwapStats {
    /// ACKs seen in congestion avoidance (not in recovery, not in slow start).
    pub ca_acks: u64,
    /// Of those, ACKs on which eq. (3) held and `a(w) = 1` was used.
    pub limited_acks: u64,
}

/// ACWAP wrapped around a window controller `C`.
#[derive(Clone, Debug)]
pub struct Acwap<C> {
    inner: C,
    cfg: AcwapConfig,
    wire_size: u32,
    name: &'static str,
    /// `R_C`, nanoseconds (`None` before the first sample).
    rtt_est: Option<f64>,
    /// Smallest `R_C` seen, nanoseconds (Fig. 5 initialises it to 10 s).
    rtt_min: f64,
    /// Largest `R_C` seen, nanoseconds.
    rtt_max: f64,
    /// Congestion events so far (Fig. 5 `numofcon`).
    congestions: u32,
    /// Eq. (3) held at the last ACK.
    limiting: bool,
    /// [`RttSampling::OncePerRtt`]: send time of the timed packet.
    timed: Option<Time>,
    stats: AcwapStats,
}

impl<C: IncreaseOverride> Acwap<C> {
    /// Wraps `inner`; `wire_size` is the bytes a full-size packet occupies
    /// on the wire ([`crate::ConnInfo::wire_size`]), used for the pacing rate.
    pub fn new(inner: C, cfg: AcwapConfig, wire_size: u32) -> Self {
        let name = match inner.name() {
            "highspeed" => "acwap-highspeed",
            "scalable" => "acwap-scalable",
            "bic" => "acwap-bic",
            _ => "acwap",
        };
        Acwap {
            inner,
            cfg,
            wire_size,
            name,
            rtt_est: None,
            rtt_min: f64::INFINITY,
            rtt_max: 0.0,
            congestions: 0,
            limiting: false,
            timed: None,
            stats: AcwapStats::default(),
        }
    }

    /// The parameters.
    pub fn config(&self) -> &AcwapConfig {
        &self.cfg
    }
    /// The wrapped controller.
    pub fn inner(&self) -> &C {
        &self.inner
    }
    /// `R_C` in nanoseconds, once a sample has been seen.
    pub fn rtt_estimate(&self) -> Option<Time> {
        self.rtt_est.map(|r| r.round() as Time)
    }
    /// `RTT_min` in nanoseconds (`None` before the first sample).
    pub fn rtt_min(&self) -> Option<Time> {
        self.rtt_min
            .is_finite()
            .then(|| self.rtt_min.round() as Time)
    }
    /// `RTT_max` in nanoseconds (`None` before the first sample).
    pub fn rtt_max(&self) -> Option<Time> {
        (self.rtt_max > 0.0).then(|| self.rtt_max.round() as Time)
    }
    /// Congestion events seen (`numofcon`).
    pub fn congestions(&self) -> u32 {
        self.congestions
    }
    /// True if eq. (3) held at the last ACK (the increase is limited).
    pub fn limiting(&self) -> bool {
        self.limiting
    }
    /// Counters.
    pub fn stats(&self) -> AcwapStats {
        self.stats
    }

    /// The eq. (3) threshold `RTT_min + beta (RTT_max - RTT_min)` in
    /// nanoseconds, once a sample has been seen.
    pub fn threshold(&self) -> Option<f64> {
        self.rtt_est?;
        // ACWAP eq. (3): R_C >= RTT_min + beta (RTT_max - RTT_min).
        Some(self.rtt_min + self.cfg.beta * (self.rtt_max - self.rtt_min))
    }

    /// Fig. 5: `(RTT >= RTT_min + beta*diff) && numofcon >= 2`, and
    /// (our addition) `diff > 0`. Taken literally, Fig. 5 sets a(w) = 1
    /// whenever `diff = RTT_max - RTT_min` is 0, i.e. when the estimate has
    /// never seen a queue: `RTT >= RTT_min` always holds. That happens when
    /// no smoothed sample rose above the base RTT before the two warm-up
    /// congestion events (measured: one timed packet per RTT without
    /// pacing, 500 Mb/s, 120 ms: both slow-start losses came before any
    /// queued sample, and the flow then stayed at a(w) = 1 with a window of
    /// a third of the BDP for the whole run, since at one packet per RTT
    /// and below the BDP it never builds a queue to widen `diff`). Eq. (3)
    /// is meant to detect the RTT "approaching its maximum", which is
    /// undefined until a maximum above the minimum has been seen.
    fn rule(&self) -> bool {
        match (self.rtt_est, self.threshold()) {
            (Some(rc), Some(th)) => {
                self.congestions >= self.cfg.warmup_events
                    && self.rtt_max > self.rtt_min
                    && rc >= th
            }
            _ => false,
        }
    }

    /// Fig. 5 "on congestion occurring": `numofcon += 1; RTT = RTT_min`
    /// (the window decrease itself is the inner controller's).
    fn on_congestion(&mut self) {
        self.congestions = self.congestions.saturating_add(1);
        if self.rtt_min.is_finite() {
            self.rtt_est = Some(self.rtt_min);
        }
        self.limiting = false;
        // ns-2 reset_rtx_timer: rtt_active_ = 0 (Karn).
        self.timed = None;
        self.inner.set_increase_override(None);
    }

    /// The RTT sample to smooth into `R_C` from this ACK, if any.
    fn sample(&mut self, now: Time, ack: &AckSample) -> Option<f64> {
        let r = ack.rtt.filter(|&r| r > 0)?;
        match self.cfg.rtt_sampling {
            RttSampling::EveryAck => Some(r as f64),
            RttSampling::OncePerRtt { .. } => {
                // ns-2 newack(): the timed packet is covered once an ACK
                // for a packet sent no earlier than it arrives outside
                // recovery (the cumulative ACK has passed it). The sample
                // is that packet's own RTT: equal to the timed packet's
                // when nothing was lost, and not inflated by our sender's
                // recovery order when the timed packet left during
                // recovery (ns-2 sends it after the retransmissions).
                let ts = self.timed?;
                if ack.in_recovery || now.saturating_sub(r) < ts {
                    return None;
                }
                self.timed = None;
                Some(r as f64)
            }
        }
    }

    /// Smooths the sample `r` (sent at `now - r`) into `R_C`.
    fn smooth(&mut self, now: Time, r: f64) -> f64 {
        match (self.cfg.rtt_sampling, self.rtt_est) {
            (RttSampling::OncePerRtt { tick }, est) if tick > 0 => {
                // ns-2 rtt_update(): the sample in ticks, t_srtt_ in
                // eighths of a tick, gain 1/8 in integer arithmetic.
                let tick_f = tick as f64;
                let sent = now as f64 - r;
                let tickoff = sent.rem_euclid(tick_f);
                let t_rtt = (((r + tickoff) / tick_f).floor() as i64).max(1);
                let srtt = match est {
                    None => t_rtt << 3,
                    Some(x) => {
                        let a = (x * 8.0 / tick_f).round() as i64;
                        (a + t_rtt - (a >> 3)).max(1)
                    }
                };
                srtt as f64 * tick_f / 8.0
            }
            (_, None) => r,
            (_, Some(x)) => x + self.cfg.rtt_gain * (r - x),
        }
    }
}

impl<C: IncreaseOverride> Controller for Acwap<C> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn control(&self) -> Control {
        let mut c = self.inner.control();
        // Fig. 5 computes the interval "on receiving a new ACK in congestion
        // avoidance phase": slow start is not paced.
        if self.cfg.pacing && !self.inner.in_slow_start() {
            if let (Some(w), Some(rc)) = (c.cwnd, self.rtt_est) {
                // Fig. 5: interval = RTT / cwnd, i.e. cwnd packets per R_C.
                c.pacing_rate = Some(w * self.wire_size as f64 / secs(rc.round() as Time));
            }
        }
        c
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if let Some(r) = self.sample(now, ack) {
            // Exponentially smoothed R_C (gain 1/8 as RFC 6298's SRTT).
            let rc = self.smooth(now, r);
            self.rtt_est = Some(rc);
            // Fig. 5: if (RTT < RTT_min) RTT_min = RTT; if (RTT > RTT_max) RTT_max = RTT.
            self.rtt_min = self.rtt_min.min(rc);
            self.rtt_max = self.rtt_max.max(rc);
        }
        // Fig. 5: a(w) = 1 if eq. (3) holds and numofcon >= 2, else increment().
        self.limiting = self.rule();
        if !ack.in_recovery && ack.newly_acked > 0 && !self.inner.in_slow_start() {
            self.stats.ca_acks += 1;
            if self.limiting {
                self.stats.limited_acks += 1;
            }
        }
        self.inner
            .set_increase_override(self.limiting.then_some(self.cfg.limited_increase));
        self.inner.on_ack(now, ack);
    }

    fn on_congestion_event(&mut self, now: Time, ev: &CongestionEvent) {
        // Fig. 5: cwnd = cwnd (1 - b(w)) by the wrapped protocol (eq. (2)).
        self.inner.on_congestion_event(now, ev);
        self.on_congestion();
    }

    fn on_recovery_end(&mut self, now: Time) {
        self.inner.on_recovery_end(now);
    }

    fn on_rto(&mut self, now: Time) {
        self.inner.on_rto(now);
        self.on_congestion();
    }

    fn on_send(&mut self, now: Time, seq: u64, retransmit: bool, in_flight: u32) -> PacketFlags {
        // ns-2 output(): time the next new packet when none is timed.
        if matches!(self.cfg.rtt_sampling, RttSampling::OncePerRtt { .. })
            && !retransmit
            && self.timed.is_none()
        {
            self.timed = Some(now);
        }
        self.inner.on_send(now, seq, retransmit, in_flight)
    }

    fn timer(&self) -> Option<Time> {
        self.inner.timer()
    }

    fn on_timer(&mut self, now: Time) {
        self.inner.on_timer(now);
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace_vars(out);
        out.push(("rtt_est", self.rtt_est.map_or(f64::NAN, |r| r * 1e-9)));
        out.push((
            "rtt_min",
            if self.rtt_min.is_finite() {
                self.rtt_min * 1e-9
            } else {
                f64::NAN
            },
        ));
        out.push(("rtt_max", self.rtt_max * 1e-9));
        out.push(("limiting", if self.limiting { 1.0 } else { 0.0 }));
        out.push(("congestions", self.congestions as f64));
        if let Some(rate) = self.control().pacing_rate {
            out.push(("pacing_rate", rate));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bic::{Bic, BicConfig};
    use crate::highspeed::{hstcp_a, hstcp_b, HighSpeed};
    use crate::newreno::testkit::*;
    use crate::newreno::WindowParams;
    use crate::scalable::{Scalable, ScalableConfig};
    use crate::MILLISECOND;

    const MIN: Time = 100 * MILLISECOND;
    const MAX: Time = 200 * MILLISECOND;

    fn window(w: f64) -> WindowParams {
        WindowParams {
            initial_cwnd: w,
            initial_ssthresh: w,
            rto_cwnd: 1.0,
        }
    }

    fn hs(w: f64, beta: f64) -> Acwap<HighSpeed> {
        Acwap::new(
            HighSpeed::new(window(w)),
            AcwapConfig {
                beta,
                ..AcwapConfig::default()
            },
            1000,
        )
    }

    /// Feeds enough ACKs with RTT `rtt` for R_C to converge to it.
    fn settle<C: IncreaseOverride>(c: &mut Acwap<C>, rtt: Time) {
        let mut now = 0;
        for _ in 0..300 {
            now += 1;
            c.on_ack(now, &ack(rtt, 0));
        }
    }

    /// Window growth from one ACK of one packet with RTT `rtt`.
    fn growth<C: IncreaseOverride>(c: &mut Acwap<C>, rtt: Time) -> f64 {
        let before = cwnd(c);
        c.on_ack(1, &ack(rtt, 1));
        cwnd(c) - before
    }

    /// An ACWAP-HSTCP flow in congestion avoidance at window `w` that has
    /// seen RTTs between MIN and MAX and counts `events` congestion events.
    fn primed(w: f64, beta: f64, events: u32) -> Acwap<HighSpeed> {
        let mut c = hs(w, beta);
        settle(&mut c, MIN);
        settle(&mut c, MAX);
        // Exactly the limits (the EWMA only approaches them).
        c.rtt_min = MIN as f64;
        c.rtt_max = MAX as f64;
        c.rtt_est = Some(MAX as f64);
        c.congestions = events;
        c
    }

    #[test]
    fn rtt_min_and_max_track_the_smoothed_estimate() {
        let mut c = hs(5000.0, 0.8);
        assert_eq!(c.rtt_estimate(), None);
        assert_eq!(c.threshold(), None);
        c.on_ack(1, &ack(MIN, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN));
        // One sample of 200 ms moves R_C by 1/8 of the difference only.
        c.on_ack(2, &ack(MAX, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN + (MAX - MIN) / 8));
        assert_eq!(c.rtt_max(), Some(MIN + (MAX - MIN) / 8));
        settle(&mut c, MAX);
        assert!(c.rtt_max().unwrap().abs_diff(MAX) < 1000);
        assert_eq!(c.rtt_min(), Some(MIN));
    }

    #[test]
    fn eq3_sets_a_to_one_only_after_two_congestion_events() {
        let w = 5000.0;
        let a = hstcp_a(w);
        assert!(a > 15.0, "a({w}) = {a}");
        for events in 0..=2 {
            let mut c = primed(w, 0.8, events);
            // R_C = 200 ms = RTT_max: eq. (3) holds.
            let g = growth(&mut c, MAX);
            if events < 2 {
                // Warm-up (Fig. 5 numofcon >= 2): plain HSTCP, w += a(w)/w.
                assert!(!c.limiting());
                assert!((g - a / w).abs() < 1e-9, "{events}: {g}");
            } else {
                assert!(c.limiting());
                assert!((g - 1.0 / w).abs() < 1e-12, "{events}: {g}");
            }
        }
    }

    #[test]
    fn eq3_needs_a_range_of_rtts() {
        // Only base-RTT samples, two congestion events: Fig. 5 taken
        // literally would limit (R_C >= RTT_min + beta * 0); the rule waits
        // for RTT_max > RTT_min and HSTCP keeps its a(w).
        let w = 5000.0;
        let mut c = hs(w, 0.8);
        settle(&mut c, MIN);
        c.congestions = 2;
        assert_eq!(c.rtt_max(), c.rtt_min());
        let g = growth(&mut c, MIN);
        assert!(!c.limiting());
        assert!((g - hstcp_a(w) / w).abs() < 1e-9, "{g}");
        // Once a queue has been seen, R_C at the maximum limits.
        settle(&mut c, MAX);
        growth(&mut c, MAX);
        assert!(c.limiting());
    }

    #[test]
    fn beta_places_the_threshold() {
        // Threshold at beta = 0.8: 100 + 0.8 * 100 = 180 ms.
        let mut c = primed(5000.0, 0.8, 2);
        c.rtt_est = Some((MIN + 79 * MILLISECOND) as f64);
        assert_eq!(c.threshold(), Some((MIN + 80 * MILLISECOND) as f64));
        // An RTT sample equal to R_C keeps R_C at 179 ms: below.
        let w = cwnd(&c);
        let g = growth(&mut c, MIN + 79 * MILLISECOND);
        assert!(!c.limiting());
        assert!((g - hstcp_a(w) / w).abs() < 1e-9);
        c.rtt_est = Some((MIN + 81 * MILLISECOND) as f64);
        let w = cwnd(&c);
        let g = growth(&mut c, MIN + 81 * MILLISECOND);
        assert!(c.limiting());
        assert!((g - 1.0 / w).abs() < 1e-12);
        // beta = 0.2: threshold 120 ms, 130 ms is above it.
        let mut c = primed(5000.0, 0.2, 2);
        c.rtt_est = Some((MIN + 30 * MILLISECOND) as f64);
        growth(&mut c, MIN + 30 * MILLISECOND);
        assert!(c.limiting());
    }

    #[test]
    fn congestion_decreases_by_b_and_resets_rtt_to_min() {
        let w = 5000.0;
        let mut c = primed(w, 0.8, 2);
        growth(&mut c, MAX);
        assert!(c.limiting());
        let w = cwnd(&c);
        c.on_congestion_event(2, &loss(w as u32));
        // The inner HSTCP decrease, seed 004 eq. (2).
        assert!((cwnd(&c) - (1.0 - hstcp_b(w)) * w).abs() < 1e-9);
        assert_eq!(c.congestions(), 3);
        // Fig. 5: RTT = RTT_min.
        assert_eq!(c.rtt_estimate(), Some(MIN));
        assert!(!c.limiting());
        // One more sample at RTT_max moves R_C only 1/8 of the way: still
        // below the threshold, so the full a(w) applies again.
        let w2 = cwnd(&c);
        let g = growth(&mut c, MAX);
        assert!(!c.limiting());
        assert!((g - hstcp_a(w2) / w2).abs() < 1e-9, "{g}");
        // A timeout counts as a congestion event too.
        c.on_rto(3);
        assert_eq!(c.congestions(), 4);
        assert_eq!(c.rtt_estimate(), Some(MIN));
        assert_eq!(cwnd(&c), 1.0);
    }

    #[test]
    fn slow_start_is_not_paced() {
        let mut c = Acwap::new(HighSpeed::default(), AcwapConfig::default(), 1000);
        c.on_ack(1, &ack(MIN, 1));
        assert_eq!(c.control().pacing_rate, None);
        c.on_congestion_event(2, &loss(11));
        assert!(c.control().pacing_rate.is_some());
    }

    #[test]
    fn paces_cwnd_packets_per_rtt_estimate() {
        let mut c = hs(1000.0, 0.8);
        assert_eq!(c.control().pacing_rate, None);
        c.on_ack(1, &ack(MIN, 1));
        let w = cwnd(&c);
        // interval = R_C / cwnd: rate = cwnd * 1000 B / 0.1 s.
        let rate = c.control().pacing_rate.unwrap();
        assert!((rate - w * 1000.0 / 0.1).abs() < 1e-6, "{rate}");
        settle(&mut c, MAX);
        let rate = c.control().pacing_rate.unwrap();
        assert!((rate - cwnd(&c) * 1000.0 / 0.2).abs() < 1.0, "{rate}");
        // After congestion R_C = RTT_min: the reduced window over 100 ms.
        c.on_congestion_event(2, &loss(1000));
        let rate = c.control().pacing_rate.unwrap();
        assert!((rate - cwnd(&c) * 1000.0 / 0.1).abs() < 1e-6, "{rate}");
        // Ablation: no pacing.
        let mut c = Acwap::new(
            HighSpeed::new(window(1000.0)),
            AcwapConfig {
                pacing: false,
                ..AcwapConfig::default()
            },
            1000,
        );
        c.on_ack(1, &ack(MIN, 1));
        assert_eq!(c.control().pacing_rate, None);
    }

    #[test]
    fn slow_start_and_recovery_are_the_inner_controllers() {
        let mut c = Acwap::new(HighSpeed::default(), AcwapConfig::default(), 1000);
        c.on_ack(1, &ack(MIN, 4));
        assert_eq!(cwnd(&c), 14.0);
        let mut a = ack(MAX, 4);
        a.in_recovery = true;
        c.on_ack(2, &a);
        assert_eq!(cwnd(&c), 14.0);
        assert_eq!(c.stats().ca_acks, 0);
    }

    #[test]
    fn wraps_scalable_and_bic() {
        // Scalable at 2000 packets: 0.01 per ACK, 1/w per ACK when limited.
        let mut c = Acwap::new(
            Scalable::new(ScalableConfig {
                window: window(2000.0),
                ..ScalableConfig::default()
            }),
            AcwapConfig::default(),
            1000,
        );
        assert_eq!(c.name(), "acwap-scalable");
        settle(&mut c, MIN);
        settle(&mut c, MAX);
        assert!((c.inner().natural_increase() - 20.0).abs() < 1e-9);
        let g = growth(&mut c, MAX);
        assert!((g - 0.01).abs() < 1e-12, "warm-up: plain Scalable, {g}");
        c.on_congestion_event(1, &loss(2000));
        c.on_congestion_event(2, &loss(1750));
        settle(&mut c, MAX);
        let w = cwnd(&c);
        let g = growth(&mut c, MAX);
        assert!((g - 1.0 / w).abs() < 1e-12, "{g}");
        assert!(c.stats().limited_acks >= 1);

        // BIC with unknown W_max steps S_max = 32 per RTT; limited: 1.
        let mut c = Acwap::new(
            Bic::new(BicConfig {
                window: window(500.0),
                ..BicConfig::default()
            }),
            AcwapConfig::default(),
            1000,
        );
        assert_eq!(c.name(), "acwap-bic");
        settle(&mut c, MAX);
        settle(&mut c, MIN);
        c.congestions = 2;
        let g = growth(&mut c, MIN);
        assert!(!c.limiting());
        assert!((g - 32.0 / 500.0).abs() < 1e-12, "{g}");
        settle(&mut c, MAX);
        let w = cwnd(&c);
        let g = growth(&mut c, MAX);
        assert!(c.limiting());
        assert!((g - 1.0 / w).abs() < 1e-12, "{g}");
    }

    /// ns-2 sampling: one timed packet at a time, cancelled on congestion,
    /// and ns-2's tick arithmetic.
    #[test]
    fn once_per_rtt_samples_one_timed_packet() {
        let cfg = |tick| AcwapConfig {
            rtt_sampling: RttSampling::OncePerRtt { tick },
            ..AcwapConfig::default()
        };
        let mut c = Acwap::new(HighSpeed::new(window(100.0)), cfg(0), 1000);
        // Packets 0..3 leave at 0, 10, 20, 30 ms; packet 0 is timed.
        for k in 0..4u64 {
            c.on_send(k * 10 * MILLISECOND, k, false, k as u32);
        }
        // Its ACK at 100 ms: first sample, R_C = 100 ms.
        c.on_ack(MIN, &ack(MIN, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN));
        // ACKs of packets 1..3 (sent before anything was timed again) are
        // not samples, whatever their RTT.
        c.on_ack(MIN + 10 * MILLISECOND + MAX, &ack(MAX, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN));
        // The next new packet is timed (a retransmission is not).
        c.on_send(150 * MILLISECOND, 1, true, 3);
        c.on_send(160 * MILLISECOND, 4, false, 3);
        c.on_ack(160 * MILLISECOND + MAX, &ack(MAX, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN + (MAX - MIN) / 8));
        // A congestion event cancels the timing (Karn) and sets R_C to
        // RTT_min; the ACK of the packet timed before it is no sample.
        c.on_send(400 * MILLISECOND, 5, false, 3);
        c.on_congestion_event(410 * MILLISECOND, &loss(5));
        c.on_ack(400 * MILLISECOND + MAX, &ack(MAX, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN));
        // No sample in recovery either.
        c.on_send(700 * MILLISECOND, 6, false, 3);
        let mut a = ack(MAX, 1);
        a.in_recovery = true;
        c.on_ack(700 * MILLISECOND + MAX, &a);
        assert_eq!(c.rtt_estimate(), Some(MIN));
        c.on_ack(720 * MILLISECOND + MAX, &ack(MAX, 1));
        assert_eq!(c.rtt_estimate(), Some(MIN + (MAX - MIN) / 8));

        // Tick 10 ms: a 104 ms RTT sent 7 ms after a tick spans 11 ticks
        // (t_rtt_ = (104 + 7) / 10); t_srtt_ = 88 eighths = 110 ms. Then a
        // 125 ms RTT sent on a tick: t_rtt_ = 12, t_srtt_ = 88 + 12 - 11 = 89.
        let mut c = Acwap::new(HighSpeed::new(window(100.0)), cfg(10 * MILLISECOND), 1000);
        c.on_send(7 * MILLISECOND, 0, false, 0);
        c.on_ack(111 * MILLISECOND, &ack(104 * MILLISECOND, 1));
        assert_eq!(c.rtt_estimate(), Some(110 * MILLISECOND));
        c.on_send(200 * MILLISECOND, 1, false, 0);
        c.on_ack(325 * MILLISECOND, &ack(125 * MILLISECOND, 1));
        assert_eq!(c.rtt_estimate(), Some(89 * 10 * MILLISECOND / 8));
    }

    /// One RTT of ACKs at window w with the queue full: HSTCP adds about
    /// a(w) packets, ACWAP-HSTCP (after warm-up) about one.
    #[test]
    fn one_rtt_near_rtt_max_adds_one_packet_instead_of_a_of_w() {
        let w = 8400.0;
        let mut plain = HighSpeed::new(window(w));
        let mut c = primed(w, 0.8, 2);
        let mut f1 = Fluid::new(0);
        let mut f2 = Fluid::new(0);
        f1.round(&mut plain, MAX);
        f2.round(&mut c, MAX);
        let a = hstcp_a(w);
        assert!((a - 26.46).abs() < 0.05, "a(8400) = {a}");
        assert!((cwnd(&plain) - w - a).abs() < 0.5, "{}", cwnd(&plain));
        assert!((cwnd(&c) - w - 1.0).abs() < 0.01, "{}", cwnd(&c));
    }
}
