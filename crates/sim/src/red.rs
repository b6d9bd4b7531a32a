//! Random Early Detection (Floyd and Jacobson, "Random Early Detection
//! gateways for congestion avoidance", IEEE/ACM ToN 1993), with the gentle
//! variant (Floyd 2000), ECN marking (RFC 3168) and adaptive RED (Floyd,
//! Gummadi and Shenker, "Adaptive RED", 2001). Packet mode: thresholds and
//! the average are in packets.
//!
//! Per arrival (the 1993 paper's Fig. 2):
//! * the average queue: `avg = (1 - w_q) avg + w_q q` when the queue is
//!   busy; after an idle period, `avg = (1 - w_q)^m avg` with `m` the
//!   idle time over a typical packet's transmission time (§4);
//! * `min_th <= avg < max_th`: `count += 1`,
//!   `p_b = max_p (avg - min_th) / (max_th - min_th)`,
//!   `p_a = p_b / (1 - count p_b)` (so the gaps between drops are uniform
//!   on `1 ..= 1/p_b - 1`); the packet is marked (ECN-capable
//!   packets, when `ecn`) or dropped with probability `p_a`, and `count`
//!   restarts at 0 when it is;
//! * `avg >= max_th`: dropped (`count = 0`); gentle: from `max_th` to
//!   `2 max_th`, `p_b` rises linearly from `max_p` to 1 (then as above);
//! * below `min_th`: accepted, `count = -1`.
//! * fewer than `min_queue` packets waiting (2 by default): accepted,
//!   whatever the average, and `count = -1` (the next arrival with a queue
//!   starts counting afresh). This is ns-2's RED (`red.cc`: signals only
//!   `if (qavg >= th_min && qlen > 1)`, the queue before the arrival,
//!   without the packet in service), which the thesis's experiments ran
//!   and ns-3's `RedQueueDisc` keeps; the 1993 paper's Fig. 2 tests every
//!   arrival (`min_queue = 0`). Without it, the average (a 1-s time
//!   constant at the automatic weight) stays above `min_th` for a few
//!   hundred ms after the queue has emptied, and RED goes on dropping
//!   from an empty queue: with `max_p` 0.1 and 30 NewReno flows
//!   (red-operating-point.toml's load) that took the drops per cycle from
//!   ns-3's 45-50 to 75-80, cut half the flows twice per cycle and left
//!   the link 20 % idle (docs/reports/aqm.md).
//!
//! Adaptive RED: every `interval` (0.5 s), if `avg` is above the target
//! band `[min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]`
//! and `max_p <= 0.5`, `max_p += min(0.01, max_p / 4)`; if below it and
//! `max_p >= 0.01`, `max_p *= 0.9`.
//!
//! Defaults where the user gives none (the adaptive RED paper's automatic
//! settings, §5): `min_th = max(5, C x 2.5 ms)` packets (half a 5-ms target
//! delay), `max_th = 3 min_th`, `w_q = 1 - exp(-1 / (C x 1 s))` with `C` in
//! packets per second, `max_p = 0.1`, gentle on.

use dropless_cc::{Time, SECOND};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// RED's parameters (0 for a threshold or `w_q`: the automatic value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Lower threshold of the average queue, packets (0: automatic).
    pub min_th: f64,
    /// Upper threshold, packets (0: three times `min_th`).
    pub max_th: f64,
    /// Marking probability at `max_th` (0.1).
    pub max_p: f64,
    /// Weight of the average (0: automatic).
    pub w_q: f64,
    /// Gentle RED above `max_th` (true).
    pub gentle: bool,
    /// Adapt `max_p` (adaptive RED; false).
    pub adaptive: bool,
    /// Mark ECN-capable packets instead of dropping them (false).
    pub ecn: bool,
    /// No signal while fewer than this many packets wait (2: ns-2's
    /// `qlen > 1`; 0: every arrival is tested, as the 1993 paper's Fig. 2).
    pub min_queue: u32,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: 0.0,
            max_th: 0.0,
            max_p: 0.1,
            w_q: 0.0,
            gentle: true,
            adaptive: false,
            ecn: false,
            min_queue: 2,
        }
    }
}

impl RedConfig {
    /// The thresholds and weight for a link of `pkts_per_s` full-size
    /// packets per second, the automatic values filled in.
    pub fn resolved(&self, pkts_per_s: f64) -> RedConfig {
        let min_th = if self.min_th > 0.0 {
            self.min_th
        } else {
            (pkts_per_s * 0.0025).max(5.0)
        };
        let max_th = if self.max_th > 0.0 {
            self.max_th
        } else {
            3.0 * min_th
        };
        let w_q = if self.w_q > 0.0 {
            self.w_q
        } else {
            1.0 - (-1.0 / pkts_per_s.max(1.0)).exp()
        };
        RedConfig {
            min_th,
            max_th,
            w_q,
            ..*self
        }
    }
}

/// What RED does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue it.
    Enqueue,
    /// Queue it with the CE codepoint set.
    Mark,
    /// Drop it.
    Drop,
}

impl Verdict {
    /// A queue discipline's congestion signal (RFC 3168 §5): a CE mark when
    /// `mark` (marking is on and the packet is ECN-capable), a drop
    /// otherwise, counted in `marks` or `drops`. Shared by RED, REM, PIE and
    /// the step queue.
    #[inline]
    pub fn signal(mark: bool, marks: &mut u64, drops: &mut u64) -> Verdict {
        if mark {
            *marks += 1;
            Verdict::Mark
        } else {
            *drops += 1;
            Verdict::Drop
        }
    }
}

/// The RED state of one queue.
#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    avg: f64,
    count: i64,
    max_p: f64,
    /// Transmission time of a full-size packet, ns (the idle decay's unit).
    pkt_time: f64,
    rng: Pcg64Mcg,
    next_adapt: Time,
    /// Packets marked, dropped early (probabilistically) and dropped
    /// because the average was above the thresholds.
    pub marks: u64,
    /// See `marks`.
    pub early_drops: u64,
    /// See `marks`.
    pub forced_drops: u64,
}

/// Adaptive RED's adaptation interval.
const ADAPT_INTERVAL: Time = SECOND / 2;

impl Red {
    /// RED for a link of `pkts_per_s` full-size packets per second, drawing
    /// from a generator seeded with `seed`.
    pub fn new(cfg: RedConfig, pkts_per_s: f64, seed: u64) -> Self {
        let cfg = cfg.resolved(pkts_per_s);
        Red {
            cfg,
            avg: 0.0,
            count: -1,
            max_p: cfg.max_p,
            pkt_time: 1e9 / pkts_per_s.max(1e-9),
            rng: Pcg64Mcg::seed_from_u64(seed),
            next_adapt: ADAPT_INTERVAL,
            marks: 0,
            early_drops: 0,
            forced_drops: 0,
        }
    }

    /// The parameters in use (automatic values filled in).
    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }

    /// The average queue, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The current `max_p` (moves with adaptive RED).
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// A packet arrives at `now` to a queue of `q` waiting packets; the
    /// link has been idle since `idle_since` if it is idle. `ect`: the
    /// packet is ECN-capable.
    pub fn on_arrival(
        &mut self,
        now: Time,
        q: u64,
        idle_since: Option<Time>,
        ect: bool,
    ) -> Verdict {
        let c = &self.cfg;
        match idle_since {
            Some(t) if q == 0 => {
                let m = now.saturating_sub(t) as f64 / self.pkt_time;
                self.avg *= (1.0 - c.w_q).powf(m);
            }
            _ => self.avg = (1.0 - c.w_q) * self.avg + c.w_q * q as f64,
        }
        if c.adaptive {
            while now >= self.next_adapt {
                self.next_adapt += ADAPT_INTERVAL;
                let band = c.max_th - c.min_th;
                if self.avg > c.min_th + 0.6 * band && self.max_p <= 0.5 {
                    self.max_p += (self.max_p / 4.0).min(0.01);
                } else if self.avg < c.min_th + 0.4 * band && self.max_p >= 0.01 {
                    self.max_p *= 0.9;
                }
            }
        }
        let avg = self.avg;
        let p_b = if avg < c.min_th || q < u64::from(c.min_queue) {
            // ns-2's `qlen > 1` (module doc): no signal from an (almost)
            // empty queue, and counting restarts.
            self.count = -1;
            return Verdict::Enqueue;
        } else if avg < c.max_th {
            self.max_p * (avg - c.min_th) / (c.max_th - c.min_th)
        } else if c.gentle && avg < 2.0 * c.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - c.max_th) / c.max_th
        } else {
            self.count = 0;
            self.forced_drops += 1;
            return Verdict::Drop;
        };
        self.count += 1;
        let denom = 1.0 - self.count as f64 * p_b;
        let p_a = if denom > 0.0 { p_b / denom } else { 1.0 };
        if self.rng.gen::<f64>() < p_a {
            self.count = 0;
            Verdict::signal(c.ecn && ect, &mut self.marks, &mut self.early_drops)
        } else {
            Verdict::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(cfg: RedConfig) -> Red {
        // 1000 packets per second: 1 ms per packet.
        Red::new(cfg, 1000.0, 7)
    }

    #[test]
    fn automatic_settings() {
        let c = RedConfig::default().resolved(83_333.0); // 1 Gb/s of 1500 B
        assert!((c.min_th - 208.3325).abs() < 1e-3);
        assert!((c.max_th - 3.0 * c.min_th).abs() < 1e-9);
        assert!((c.w_q - (1.0 - (-1.0f64 / 83_333.0).exp())).abs() < 1e-15);
        assert_eq!(RedConfig::default().resolved(100.0).min_th, 5.0);
    }

    #[test]
    fn below_min_th_nothing_above_max_th_everything() {
        let cfg = RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            w_q: 1.0,
            gentle: false,
            ..RedConfig::default()
        };
        let mut r = red(cfg);
        for _ in 0..100 {
            assert_eq!(r.on_arrival(0, 4, None, false), Verdict::Enqueue);
        }
        for _ in 0..100 {
            assert_eq!(r.on_arrival(0, 15, None, false), Verdict::Drop);
        }
        assert_eq!(r.forced_drops, 100);
        // Gentle: at 1.5 max_th the probability is max_p + (1 - max_p)/2,
        // not 1.
        let mut g = red(RedConfig {
            gentle: true,
            ..cfg
        });
        let dropped = (0..10_000)
            .filter(|_| g.on_arrival(0, 22, None, false) == Verdict::Drop)
            .count();
        assert!(dropped < 10_000 && dropped > 5_000, "{dropped}");
    }

    /// With a fixed average between the thresholds the gaps between drops
    /// are uniform (the count correction). With `count` incremented before
    /// `p_a` is computed, as the 1993 paper's Fig. 2 writes it, the n-th
    /// packet after a drop has `p_a = p_b / (1 - n p_b)`, and the gaps are
    /// uniform on `1 ..= 1/p_b - 1`: a drop rate of `2 p_b`. (The paper's
    /// §7 derivation counts from 0 and gets `1 ..= 1/p_b`; the two differ
    /// by one packet per gap.)
    #[test]
    fn the_drop_rate_between_the_thresholds() {
        let cfg = RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 1.0,
            ..RedConfig::default()
        };
        let mut r = red(cfg);
        let n = 200_000;
        let drops = (0..n)
            .filter(|_| r.on_arrival(0, 10, None, false) == Verdict::Drop)
            .count() as f64;
        let p_b = 0.05;
        let expected = 2.0 * p_b;
        assert!(
            (drops / n as f64 / expected - 1.0).abs() < 0.03,
            "{}",
            drops / n as f64
        );
        assert_eq!(r.early_drops as f64, drops);
    }

    #[test]
    fn ecn_capable_packets_are_marked_and_the_average_decays_when_idle() {
        let cfg = RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.5,
            w_q: 0.5,
            ecn: true,
            ..RedConfig::default()
        };
        let mut r = red(cfg);
        let mut marks = 0;
        for _ in 0..1000 {
            match r.on_arrival(0, 12, None, true) {
                Verdict::Mark => marks += 1,
                Verdict::Drop => panic!("an ECN-capable packet dropped below max_th"),
                Verdict::Enqueue => {}
            }
        }
        assert!(marks > 0);
        assert_eq!(r.marks, marks);
        // 10 ms idle at 1 ms per packet: avg shrinks by (1 - 0.5)^10.
        let before = r.avg();
        r.on_arrival(10_000_000, 0, Some(0), false);
        assert!((r.avg() - before / 1024.0).abs() < 1e-9);
    }

    /// ns-2's `qlen > 1`: with the average far above `max_th` (every
    /// arrival with a queue is dropped) an arrival finding 0 or 1 packets
    /// waiting is let in; with `min_queue = 0` it is dropped, as the 1993
    /// paper's Fig. 2 has it.
    #[test]
    fn no_signal_from_an_empty_queue_by_default() {
        let cfg = RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            w_q: 0.001,
            gentle: false,
            ..RedConfig::default()
        };
        let mut r = red(cfg);
        // Raise the average to about 40 packets (avg > max_th).
        for _ in 0..5_000 {
            r.on_arrival(0, 40, None, false);
        }
        assert!(r.avg() > 30.0, "{}", r.avg());
        let forced = r.forced_drops;
        for q in [0, 1, 0, 1] {
            assert_eq!(r.on_arrival(0, q, None, false), Verdict::Enqueue, "q = {q}");
        }
        assert_eq!(r.forced_drops, forced);
        assert_eq!(r.on_arrival(0, 2, None, false), Verdict::Drop);
        let mut paper = red(RedConfig {
            min_queue: 0,
            ..cfg
        });
        for _ in 0..5_000 {
            paper.on_arrival(0, 40, None, false);
        }
        assert_eq!(paper.on_arrival(0, 0, None, false), Verdict::Drop);
        assert_eq!(paper.on_arrival(0, 1, None, false), Verdict::Drop);
    }

    #[test]
    fn adaptive_red_raises_max_p_while_the_average_is_high() {
        let cfg = RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.02,
            w_q: 1.0,
            adaptive: true,
            ..RedConfig::default()
        };
        let mut r = red(cfg);
        for k in 0..10u64 {
            r.on_arrival(k * ADAPT_INTERVAL, 14, None, false);
        }
        assert!(r.max_p() > 0.06, "{}", r.max_p());
        for k in 10..40u64 {
            r.on_arrival(k * ADAPT_INTERVAL, 6, None, false);
        }
        assert!(r.max_p() < 0.06, "{}", r.max_p());
    }
}
