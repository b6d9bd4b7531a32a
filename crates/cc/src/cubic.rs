//! CUBIC (RFC 9438).
//!
//! * Window curve (RFC 9438 eq. (1)): `W_cubic(t) = C (t - K)^3 + W_max`,
//!   with `t` the time since the start of the current congestion-avoidance
//!   epoch and (eq. (2)) `K = cbrt((W_max - cwnd_epoch) / C)`; after a
//!   reduction `cwnd_epoch = beta_cubic W_max`, so `K = cbrt(W_max (1 -
//!   beta_cubic) / C)`. C = 0.4, beta_cubic = 0.7.
//! * Per ACK in congestion avoidance (§4.2): `target = W_cubic(t + RTT)`
//!   clamped to `[cwnd, 1.5 cwnd]`, `cwnd += (target - cwnd)/cwnd` per
//!   acknowledged packet. RTT is the smoothed RTT of the ACK.
//! * Reno-friendly region (§4.3): `W_est += alpha_cubic * acked / cwnd`
//!   with `alpha_cubic = 3 (1 - beta)/(1 + beta)`, switching to 1 once
//!   `W_est >= cwnd_prior`; if `W_cubic(t) < W_est`, `cwnd = W_est`
//!   (never lowered by this rule).
//! * Congestion event, loss or ECN (§4.6, §4.7): fast convergence
//!   `W_max = cwnd (1 + beta)/2` if `cwnd < W_max`, else `W_max = cwnd`;
//!   `ssthresh = cwnd = max(beta cwnd, 2)`. RFC 9438 §4.6 allows `cwnd` in
//!   place of flight size here; using cwnd keeps `W_max`, `K` and the
//!   reduction consistent.
//! * Before the first congestion event (`W_max` = 0) the window grows at
//!   least `initial_growth` (0.05) packets per acknowledged packet, 5 % per
//!   RTT, as Linux's `bictcp_update()` does (`cnt` at most 20 while
//!   `last_max_cwnd` is 0); RFC 9438 alone (`initial_growth = 0`) starts
//!   the curve flat at the window where HyStart left slow start.
//! * Timeout (§4.8): the same `W_max`/`ssthresh` update (unless the window
//!   was already reduced in this recovery episode), then `cwnd = rto_cwnd`
//!   and slow start.
//!
//! * Slow start ends early with HyStart (`hystart`, on by default as in
//!   Linux; [`crate::hystart`]): `ssthresh = cwnd` once a round's ACK train
//!   outlasts half the minimum RTT or its minimum RTT rises by
//!   `clamp(delay_min/8, 4, 16) ms`. RFC 9438 §4.10 leaves the slow-start
//!   algorithm open; Linux's CUBIC, which users compare with, runs HyStart.
//!   HyStart++ (RFC 9406; [`crate::hystart_pp`]) is the option
//!   `hystart = 2`: a delay increase leads to a conservative slow start and,
//!   after five rounds of it, to congestion avoidance.
//!
//! * Linux's internal pacing (`pacing`, off by default as in a stock
//!   Linux CUBIC socket; [`LinuxPacing`]): Linux paces a CUBIC flow whose
//!   socket asked for pacing (created under BBR, or sending through the fq
//!   qdisc) at `2 cwnd / srtt` while `cwnd < ssthresh / 2` and `1.2 cwnd /
//!   srtt` above (`tcp_update_pacing_rate()`), in bursts of about 1 ms of
//!   that rate (`tcp_tso_autosize()`); HyStart then waits for an ACK train
//!   of a whole minimum RTT.
//!
//! Time `t` comes from the `now` argument: the controller never reads a
//! clock.

use crate::hystart::{HyStart, HyStartConfig};
use crate::hystart_pp::{HyStartPp, HyStartPpConfig, Phase as PpPhase};
use crate::newreno::{WindowCore, WindowParams};
use crate::{secs, AckSample, CongestionEvent, Control, Controller, PacketFlags, Time};

/// Linux's internal TCP pacing (net/ipv4/tcp_input.c
/// `tcp_update_pacing_rate()`, net/ipv4/tcp_output.c `tcp_tso_autosize()`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinuxPacing {
    /// Bytes a full-size packet occupies on the wire.
    pub wire_size: u32,
    /// Rate over `cwnd / srtt` while `cwnd < ssthresh / 2`
    /// (`tcp_pacing_ss_ratio`, 200 %).
    pub ss_ratio: f64,
    /// Rate over `cwnd / srtt` above (`tcp_pacing_ca_ratio`, 120 %).
    pub ca_ratio: f64,
    /// Packets leave in bursts of this much time at the pacing rate
    /// (`sk_pacing_shift` 10: about 1 ms).
    pub burst_time: Time,
    /// Largest burst, packets (one 64 KB GSO packet: 45 of 1448 bytes).
    pub max_burst: u32,
}

impl LinuxPacing {
    /// Linux's ratios (200 %, 120 %), 1-ms bursts of at most 45 packets.
    pub fn new(wire_size: u32) -> Self {
        LinuxPacing {
            wire_size,
            ss_ratio: 2.0,
            ca_ratio: 1.2,
            burst_time: crate::MILLISECOND,
            max_burst: 45,
        }
    }
}

/// CUBIC parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    /// Shared window parameters.
    pub window: WindowParams,
    /// Scaling constant `C` (packets / s^3), 0.4.
    pub c: f64,
    /// Multiplicative decrease factor `beta_cubic`, 0.7.
    pub beta: f64,
    /// Fast convergence (§4.7).
    pub fast_convergence: bool,
    /// Reno-friendly region (§4.3).
    pub reno_friendly: bool,
    /// Least growth per acknowledged packet in congestion avoidance while
    /// `W_max` is 0 (before the first congestion event), packets: Linux's
    /// `bictcp_update()` caps `cnt` at 20 while `last_max_cwnd` is 0, so
    /// the window grows at least 5 % per RTT after HyStart ends slow start
    /// without a loss (0.05). RFC 9438 has no such floor (0): its curve
    /// starts flat at the exit window (`K` = 0), far slower than Linux.
    pub initial_growth: f64,
    /// HyStart slow-start exit (Linux's default); `None`: slow start until
    /// the first congestion event.
    pub hystart: Option<HyStartConfig>,
    /// HyStart++ (RFC 9406) instead; with it `hystart` is ignored.
    pub hystart_pp: Option<HyStartPpConfig>,
    /// Linux's internal pacing; `None`: ACK clocked, as a stock Linux
    /// CUBIC socket.
    pub pacing: Option<LinuxPacing>,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            window: WindowParams::default(),
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            initial_growth: 0.05,
            hystart: Some(HyStartConfig::default()),
            hystart_pp: None,
            pacing: None,
        }
    }
}

/// RFC 9438 eq. (2): `K = cbrt((W_max - cwnd_epoch) / C)` in seconds
/// (0 when `cwnd_epoch >= W_max`).
pub fn cubic_k(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch).max(0.0) / c).cbrt()
}

/// RFC 9438 eq. (1): `W_cubic(t) = C (t - K)^3 + W_max`, `t` in seconds.
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// CUBIC controller.
#[derive(Clone, Debug)]
pub struct Cubic {
    core: WindowCore,
    cfg: CubicConfig,
    /// W_max, 0 before the first congestion event.
    w_max: f64,
    /// cwnd just before the last reduction (`cwnd_prior`, §4.3).
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Time>,
    /// Origin of the cubic curve for this epoch (`max(W_max, cwnd_epoch)`).
    origin: f64,
    /// K for this epoch, seconds.
    k: f64,
    /// Reno-friendly estimate `W_est`.
    w_est: f64,
    /// Current `alpha_cubic`.
    alpha: f64,
    /// HyStart's detector, if on.
    hystart: Option<HyStart>,
    /// HyStart++'s state, if on.
    hystart_pp: Option<HyStartPp>,
    /// Latest smoothed RTT (for Linux's pacing rate), 0 before a sample.
    srtt: Time,
}

impl Cubic {
    /// A CUBIC controller.
    pub fn new(cfg: CubicConfig) -> Self {
        Cubic {
            core: WindowCore::new(cfg.window),
            cfg,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            origin: 0.0,
            k: 0.0,
            w_est: 0.0,
            alpha: Self::alpha_aimd(cfg.beta),
            hystart: if cfg.hystart_pp.is_some() {
                None
            } else {
                cfg.hystart.map(HyStart::new)
            },
            hystart_pp: cfg.hystart_pp.map(HyStartPp::new),
            srtt: 0,
        }
    }

    /// RFC 9438 §4.3: `alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic)`.
    pub fn alpha_aimd(beta: f64) -> f64 {
        3.0 * (1.0 - beta) / (1.0 + beta)
    }

    /// `W_max` (0 before the first congestion event).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current epoch in seconds (0 outside an epoch).
    pub fn k(&self) -> f64 {
        self.k
    }

    /// RFC 9438 §4.6, §4.7: update W_max, cwnd_prior, ssthresh.
    fn reduce(&mut self) {
        let w = self.core.cwnd;
        self.epoch_start = None;
        self.cwnd_prior = w;
        // §4.7 fast convergence: W_max = cwnd (1 + beta)/2 if cwnd < W_max.
        self.w_max = if self.cfg.fast_convergence && w < self.w_max {
            w * (1.0 + self.cfg.beta) / 2.0
        } else {
            w
        };
        // §4.6: ssthresh = beta_cubic * cwnd (at least 2).
        self.core.ssthresh = (self.cfg.beta * w).max(2.0);
        self.core.in_episode = true;
        self.alpha = Self::alpha_aimd(self.cfg.beta);
    }

    fn congestion_avoidance(&mut self, now: Time, ack: &AckSample, acked: f64) {
        let c = self.cfg.c;
        let epoch = match self.epoch_start {
            Some(t) => t,
            None => {
                // Start of a new epoch (§4.2): cwnd_epoch = cwnd, W_est = cwnd.
                self.epoch_start = Some(now);
                let cwnd_epoch = self.core.cwnd;
                self.origin = self.w_max.max(cwnd_epoch);
                self.k = cubic_k(self.origin, cwnd_epoch, c);
                self.w_est = cwnd_epoch;
                now
            }
        };
        let t = secs(now.saturating_sub(epoch));
        let rtt = if ack.srtt > 0 {
            secs(ack.srtt)
        } else {
            ack.rtt.map(secs).unwrap_or(0.0)
        };
        let w = self.core.cwnd;

        // §4.3 Reno-friendly estimate.
        self.w_est += self.alpha * acked / w;
        if self.w_est >= self.cwnd_prior {
            self.alpha = 1.0;
        }

        if self.cfg.reno_friendly && w_cubic(t, self.k, self.origin, c) < self.w_est {
            // §4.3: in the Reno-friendly region cwnd = W_est.
            self.core.cwnd = w.max(self.w_est);
        } else {
            // §4.2: target = W_cubic(t + RTT) in [cwnd, 1.5 cwnd];
            // cwnd += (target - cwnd)/cwnd per acknowledged packet.
            let target = w_cubic(t + rtt, self.k, self.origin, c).clamp(w, 1.5 * w);
            self.core.cwnd = w + (target - w) / w * acked;
        }
        if self.w_max == 0.0 {
            // Linux bictcp_update(): `if (last_max_cwnd == 0 && cnt > 20)
            // cnt = 20`, before the Reno-friendly `max_cnt` (which can only
            // lower cnt further): at least 1/20 packet per acknowledged
            // packet, in either region.
            self.core.cwnd = self.core.cwnd.max(w + self.cfg.initial_growth * acked);
        }
    }
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic::new(CubicConfig::default())
    }
}

impl Controller for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn control(&self) -> Control {
        let mut c = self.core.control();
        if let (Some(p), Some(w)) = (self.cfg.pacing, c.cwnd) {
            if self.srtt > 0 {
                // Linux tcp_update_pacing_rate(): ss_ratio below ssthresh/2.
                let ratio = if self.core.cwnd < self.core.ssthresh / 2.0 {
                    p.ss_ratio
                } else {
                    p.ca_ratio
                };
                let rate = ratio * w * p.wire_size as f64 / secs(self.srtt);
                c.pacing_rate = Some(rate);
                // Linux tcp_tso_autosize(): about burst_time of the rate,
                // at least 2 packets, at most one GSO packet.
                let burst = (rate * secs(p.burst_time) / p.wire_size as f64) as u32;
                c.max_burst = Some(burst.clamp(2, p.max_burst.max(2)));
            }
        }
        c
    }

    fn on_ack(&mut self, now: Time, ack: &AckSample) {
        if ack.srtt > 0 {
            self.srtt = ack.srtt;
        } else if let Some(r) = ack.rtt.filter(|&r| r > 0) {
            self.srtt = r;
        }
        let Some(mut acked) = self.core.begin_ack(ack) else {
            return;
        };
        if self.core.in_slow_start() {
            match &mut self.hystart_pp {
                Some(h) if h.phase() != PpPhase::Done => {
                    let inc = h.on_ack(ack, acked);
                    if h.phase() == PpPhase::Done {
                        // CSS_ROUNDS of CSS: congestion avoidance.
                        self.core.ssthresh = self.core.cwnd;
                    }
                    acked = self.core.slow_start(inc);
                }
                _ => {
                    if let Some(h) = &mut self.hystart {
                        if h.on_ack(now, ack, self.core.cwnd).is_some() {
                            self.core.ssthresh = self.core.cwnd;
                        }
                    }
                    acked = self.core.slow_start(acked);
                }
            }
        }
        if acked > 0.0 {
            self.congestion_avoidance(now, ack, acked);
        }
    }

    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {
        if let Some(h) = &mut self.hystart_pp {
            h.on_congestion();
        }
        self.reduce();
        self.core.cwnd = self.core.ssthresh;
    }

    fn on_recovery_end(&mut self, _now: Time) {
        self.core.in_episode = false;
    }

    fn on_rto(&mut self, _now: Time) {
        if !self.core.in_episode {
            self.reduce();
        }
        self.epoch_start = None;
        self.core.cwnd = self.core.params.rto_cwnd;
        if let Some(h) = &mut self.hystart {
            h.reset();
        }
        if let Some(h) = &mut self.hystart_pp {
            h.on_congestion();
        }
    }

    fn on_send(&mut self, _now: Time, _seq: u64, _retransmit: bool, in_flight: u32) -> PacketFlags {
        self.core.on_send(in_flight);
        PacketFlags::NONE
    }

    fn trace_vars(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ssthresh", self.core.ssthresh));
        out.push(("w_max", self.w_max));
        out.push(("k", self.k));
        out.push(("w_est", self.w_est));
        if let Some(h) = &self.hystart {
            out.push((
                "hystart_exit",
                match h.found() {
                    None => 0.0,
                    Some(crate::hystart::Exit::AckTrain) => 1.0,
                    Some(crate::hystart::Exit::Delay) => 2.0,
                },
            ));
        }
        if let Some(h) = &self.hystart_pp {
            out.push((
                "hystart_pp_phase",
                match h.phase() {
                    PpPhase::SlowStart => 0.0,
                    PpPhase::Css => 1.0,
                    PpPhase::Done => 2.0,
                },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;
    use crate::{MILLISECOND, SECOND};

    #[test]
    fn k_and_w_of_t() {
        // W_max = 100, beta 0.7: cwnd_epoch = 70, K = cbrt(30/0.4) = cbrt(75).
        let k = cubic_k(100.0, 70.0, 0.4);
        assert!((k - 4.217_163_3).abs() < 1e-6);
        assert!((w_cubic(0.0, k, 100.0, 0.4) - 70.0).abs() < 1e-9);
        assert!((w_cubic(1.0, k, 100.0, 0.4) - 86.680_764).abs() < 1e-5);
        assert!((w_cubic(2.0, k, 100.0, 0.4) - 95.640_336).abs() < 1e-5);
        assert!((w_cubic(k, k, 100.0, 0.4) - 100.0).abs() < 1e-9);
        assert!((w_cubic(6.0, k, 100.0, 0.4) - 102.266_703).abs() < 1e-5);
        assert_eq!(cubic_k(100.0, 120.0, 0.4), 0.0);
        assert!((Cubic::alpha_aimd(0.7) - 0.529_411_76).abs() < 1e-8);
    }

    fn at(w: f64) -> Cubic {
        Cubic::new(CubicConfig {
            window: WindowParams {
                initial_cwnd: w,
                initial_ssthresh: w,
                rto_cwnd: 1.0,
            },
            ..CubicConfig::default()
        })
    }

    #[test]
    fn reduction_and_fast_convergence() {
        let mut c = at(100.0);
        c.on_congestion_event(0, &loss(100));
        assert_eq!(c.w_max(), 100.0);
        assert!((cwnd(&c) - 70.0).abs() < 1e-9);
        // Second loss below W_max: W_max = 70 * 1.7/2 = 59.5, cwnd = 49.
        c.on_congestion_event(1, &loss(70));
        assert!((c.w_max() - 59.5).abs() < 1e-9);
        assert!((cwnd(&c) - 49.0).abs() < 1e-9);
    }

    #[test]
    fn follows_the_cubic_curve() {
        // Long RTT so the Reno-friendly estimate stays below the curve.
        let rtt = 100 * MILLISECOND;
        let mut c = at(100.0);
        let t0 = SECOND;
        c.on_congestion_event(t0, &loss(100));
        let mut f = Fluid::new(t0);
        // The epoch starts at the first ACK, t0 + rtt/70.
        f.round(&mut c, rtt);
        assert!((c.k() - 4.217_163_3).abs() < 1e-6);
        let epoch = t0 + rtt / 70;
        // After each round cwnd is close to W_cubic(t + RTT) evaluated a
        // little earlier: check within 2.5 packets at t = 1 s, 2 s, K, 6 s.
        for (t_check, expect) in [
            (1.0, 86.680_764),
            (2.0, 95.640_336),
            (4.217_163, 100.0),
            (6.0, 102.266_703),
        ] {
            while secs(f.now - epoch) < t_check {
                f.round(&mut c, rtt);
            }
            let w = cwnd(&c);
            assert!(
                (w - expect).abs() < 2.5,
                "t={t_check} w={w} expect={expect}"
            );
        }
    }

    /// Linux bictcp_update(): while last_max_cwnd is 0 (no congestion
    /// event yet, slow start left by HyStart) cnt is at most 20, so the
    /// window grows at least 5 % per RTT. From 100 packets on a 100-ms path
    /// ten rounds give 100 x 1.05^10 = 163 (a little less: one ACK per
    /// whole packet of the window), where RFC 9438's flat curve and its
    /// Reno-friendly estimate (alpha 1 at once: cwnd_prior is 0) give about
    /// 110. After a loss W_max is set and the floor is gone.
    #[test]
    fn grows_five_percent_per_rtt_until_the_first_event() {
        let rtt = 100 * MILLISECOND;
        let run = |initial_growth: f64| {
            let mut c = Cubic::new(CubicConfig {
                initial_growth,
                ..at(100.0).cfg
            });
            let mut f = Fluid::new(SECOND);
            for _ in 0..10 {
                f.round(&mut c, rtt);
            }
            (c, f)
        };
        let (c, _) = run(0.05);
        let w = cwnd(&c);
        assert!(w > 158.0 && w < 163.0, "Linux floor: {w}");
        let (rfc, _) = run(0.0);
        let w0 = cwnd(&rfc);
        assert!(w0 > 108.0 && w0 < 112.0, "RFC 9438 alone: {w0}");
        // After a loss W_max is set and the floor has no effect: the same
        // rounds give the same window with and without it (the first try of
        // this test asserted "under 5 % per RTT" and failed: the curve's
        // concave start after a reduction can itself exceed that).
        let lossy = |initial_growth: f64| {
            let mut c = Cubic::new(CubicConfig {
                initial_growth,
                ..at(100.0).cfg
            });
            c.on_congestion_event(SECOND, &loss(100));
            let mut f = Fluid::new(SECOND);
            for _ in 0..30 {
                f.round(&mut c, rtt);
            }
            cwnd(&c)
        };
        assert_eq!(lossy(0.05), lossy(0.0));
    }

    #[test]
    fn reno_friendly_region_on_short_rtt() {
        // RTT 1 ms: W_est grows 0.53 packets per ms, far faster than the
        // cubic curve near its plateau.
        let rtt = MILLISECOND;
        let mut c = at(100.0);
        c.on_congestion_event(0, &loss(100));
        let mut f = Fluid::new(0);
        for _ in 0..20 {
            f.round(&mut c, rtt);
        }
        // 20 RTTs of Reno-friendly growth: 70 + 20 * 0.529 = 80.6 (the
        // per-RTT increase is slightly less because W_est/cwnd grows).
        let w = cwnd(&c);
        assert!(w > 79.5 && w < 80.7, "{w}");
        // Cubic alone at t = 20 ms would be only 70.3.
        let k = c.k();
        assert!(w_cubic(0.021, k, 100.0, 0.4) < 70.5);
        // Once W_est passes cwnd_prior (100), alpha becomes 1.
        for _ in 0..200 {
            f.round(&mut c, rtt);
        }
        assert_eq!(c.alpha, 1.0);
    }

    #[test]
    fn rto_reduces_once_and_restarts() {
        let mut c = at(100.0);
        c.on_rto(5);
        assert_eq!(c.w_max(), 100.0);
        assert!((c.core.ssthresh - 70.0).abs() < 1e-9);
        assert_eq!(cwnd(&c), 1.0);
        let mut c = at(100.0);
        c.on_congestion_event(1, &loss(100));
        c.on_rto(2);
        assert_eq!(c.w_max(), 100.0);
        assert!((c.core.ssthresh - 70.0).abs() < 1e-9);
        // No growth during recovery.
        let mut a = ack(RTT100, 3);
        a.in_recovery = true;
        c.on_ack(3, &a);
        assert_eq!(cwnd(&c), 1.0);
    }

    /// Linux tcp_update_pacing_rate(): 2 cwnd / srtt while cwnd is below
    /// ssthresh / 2, 1.2 cwnd / srtt above; bursts of about 1 ms of the
    /// rate (tcp_tso_autosize()), 2 to 45 packets. Off: no pacing rate.
    #[test]
    fn linux_pacing_doubles_the_rate_in_slow_start() {
        let cfg = |pacing| CubicConfig {
            window: WindowParams {
                initial_cwnd: 100.0,
                initial_ssthresh: f64::INFINITY,
                rto_cwnd: 1.0,
            },
            pacing,
            ..CubicConfig::default()
        };
        let mut c = Cubic::new(cfg(Some(LinuxPacing::new(1500))));
        // No RTT sample yet: no rate.
        assert_eq!(c.control().pacing_rate, None);
        c.on_ack(MILLISECOND, &ack(RTT100, 1));
        let w = cwnd(&c);
        let rate = c.control().pacing_rate.unwrap();
        assert!((rate - 2.0 * w * 1500.0 / 0.1).abs() < 1e-6, "{rate}");
        // 2 x 101 x 1500 B / 0.1 s = 3.03 MB/s: 3.03 kB per ms, 2 packets.
        assert_eq!(c.control().max_burst, Some(2));
        // After a loss cwnd = ssthresh = 0.7 w: the 1.2 ratio.
        c.on_congestion_event(2 * MILLISECOND, &loss(100));
        let w = cwnd(&c);
        let rate = c.control().pacing_rate.unwrap();
        assert!((rate - 1.2 * w * 1500.0 / 0.1).abs() < 1e-6, "{rate}");
        // A large window: 1 ms of 2 x 20 000 x 1500 B / 0.1 s is 400
        // packets, capped at 45.
        let mut c = Cubic::new(CubicConfig {
            window: WindowParams {
                initial_cwnd: 20_000.0,
                initial_ssthresh: f64::INFINITY,
                rto_cwnd: 1.0,
            },
            ..cfg(Some(LinuxPacing::new(1500)))
        });
        c.on_ack(MILLISECOND, &ack(RTT100, 1));
        assert_eq!(c.control().max_burst, Some(45));
        let mut c = Cubic::new(cfg(None));
        c.on_ack(MILLISECOND, &ack(RTT100, 1));
        assert_eq!(c.control().pacing_rate, None);
    }
}
