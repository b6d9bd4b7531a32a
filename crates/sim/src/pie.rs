//! PIE, Proportional Integral controller Enhanced (RFC 8033): a queue that
//! drops (or marks CE) arriving packets with a probability a PI controller
//! updates every `t_update` from the queueing delay, to hold that delay
//! near `target`.
//!
//! Every `t_update` (RFC 8033 §4.2, `calculate_drop_prob`):
//! * `p = alpha (qdelay - target) + beta (qdelay - qdelay_old)`, with
//!   `alpha` and `beta` in Hz and the delays in seconds;
//! * while the probability is small the step is scaled down (§4.2): by 2
//!   below 10 %, 8 below 1 %, 32 below 0.1 %, 128 below 0.01 %, 512 below
//!   0.001 %, 2048 below 0.0001 %; above 10 % a step is at most 2 %;
//! * a delay above 250 ms adds 2 % (as Linux's
//!   `pie_calculate_probability()` does);
//! * two updates in a row with no delay decay the probability by 2 %
//!   (§4.2's exponential decay; Linux takes 1/64 off);
//! * the burst allowance (150 ms) shrinks by `t_update`, and is restored
//!   once the probability is 0 and both delays are under half the target.
//!
//! Per arrival (§4.1 with §5.1's derandomisation, as Linux's
//! `pie_drop_early()`): no early drop while burst allowance remains, while
//! the last delay is under half the target and the probability under
//! 20 %, or while fewer than two full packets wait; otherwise the
//! probability accumulates in `accu_prob` and a packet is dropped when a
//! uniform draw falls below the probability, never before `accu_prob`
//! reaches 0.85 and always once it reaches 8.5. With `ecn`, an
//! ECN-capable packet is marked CE instead while the probability is at
//! most 10 % (§5.1).
//!
//! **The queueing delay.** RFC 8033 estimates it from the departure rate
//! (Little's law) or from timestamps (Linux's default). The simulator knows
//! its link exactly: the delay at time `t` is the time until a packet
//! arriving at `t` would start its service, `max(0, busy_until - t)` where
//! `busy_until` is the end of the transmissions accepted so far. The
//! periodic update is run lazily at each arrival for every update instant
//! passed since the previous arrival, with that exact delay (no packet
//! arrived in between, so `busy_until` is that of the previous arrival).

use dropless_cc::{Time, MILLISECOND, SECOND};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::red::Verdict;

/// PIE's parameters (RFC 8033 §4-5 defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieConfig {
    /// Target queueing delay, `QDELAY_REF` (15 ms).
    pub target: Time,
    /// Period of the probability update, `T_UPDATE` (15 ms).
    pub t_update: Time,
    /// Gain on the delay's distance from the target, Hz (0.125).
    pub alpha: f64,
    /// Gain on the delay's change, Hz (1.25).
    pub beta: f64,
    /// Burst allowance, `MAX_BURST` (150 ms).
    pub max_burst: Time,
    /// Mark ECN-capable packets instead of dropping them while the
    /// probability is at most 10 % (false).
    pub ecn: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: 15 * MILLISECOND,
            t_update: 15 * MILLISECOND,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 150 * MILLISECOND,
            ecn: false,
        }
    }
}

impl PieConfig {
    /// Checks the parameters: `Err((key, allowed))` names the scenario key
    /// and its allowed values.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.target == 0 || self.target > 10 * SECOND {
            return Err(("pie_target", "a time from 1ns to 10s".into()));
        }
        if self.t_update == 0 || self.t_update > 10 * SECOND {
            return Err(("pie_t_update", "a time from 1ns to 10s".into()));
        }
        if !(self.alpha > 0.0 && self.alpha <= 2.0) {
            return Err(("pie_alpha", "a gain in (0, 2] Hz".into()));
        }
        if !(self.beta > 0.0 && self.beta <= 2.0) {
            return Err(("pie_beta", "a gain in (0, 2] Hz".into()));
        }
        if self.max_burst > 10 * SECOND {
            return Err(("pie_max_burst", "a time from 0 to 10s".into()));
        }
        Ok(())
    }
}

/// The PIE state of one queue.
#[derive(Clone, Debug)]
pub struct Pie {
    cfg: PieConfig,
    drop_prob: f64,
    qdelay_old: Time,
    burst_allowance: Time,
    accu_prob: f64,
    next_update: Time,
    rng: Pcg64Mcg,
    /// Packets marked CE.
    pub marks: u64,
    /// Packets dropped early.
    pub drops: u64,
}

impl Pie {
    /// PIE with the given (validated) parameters, drawing from a generator
    /// seeded with `seed`.
    pub fn new(cfg: PieConfig, seed: u64) -> Self {
        Pie {
            cfg,
            drop_prob: 0.0,
            qdelay_old: 0,
            burst_allowance: cfg.max_burst,
            accu_prob: 0.0,
            next_update: cfg.t_update,
            rng: Pcg64Mcg::seed_from_u64(seed),
            marks: 0,
            drops: 0,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &PieConfig {
        &self.cfg
    }

    /// The drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The burst allowance left.
    pub fn burst_allowance(&self) -> Time {
        self.burst_allowance
    }

    /// One periodic update with the queueing delay `qdelay` (RFC 8033
    /// §4.2).
    fn update(&mut self, qdelay: Time) {
        let c = &self.cfg;
        let s = |t: Time| t as f64 / SECOND as f64;
        let mut p = c.alpha * (s(qdelay) - s(c.target)) + c.beta * (s(qdelay) - s(self.qdelay_old));
        let prob = self.drop_prob;
        // RFC 8033 §4.2: smaller steps while the probability is small.
        p /= if prob < 0.000_001 {
            2048.0
        } else if prob < 0.000_01 {
            512.0
        } else if prob < 0.000_1 {
            128.0
        } else if prob < 0.001 {
            32.0
        } else if prob < 0.01 {
            8.0
        } else if prob < 0.1 {
            2.0
        } else {
            1.0
        };
        if prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        if qdelay > 250 * MILLISECOND {
            p += 0.02;
        }
        self.drop_prob = (self.drop_prob + p).clamp(0.0, 1.0);
        if qdelay == 0 && self.qdelay_old == 0 {
            self.drop_prob *= 0.98;
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(c.t_update);
        if self.drop_prob == 0.0 && qdelay < c.target / 2 && self.qdelay_old < c.target / 2 {
            self.burst_allowance = c.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    /// A packet of `bytes` bytes arrives at `now`; the link's accepted
    /// transmissions end at `busy_until` and `q_bytes` bytes wait. `mtu`:
    /// the largest packet. `ect`: the packet is ECN-capable.
    pub fn on_arrival(
        &mut self,
        now: Time,
        busy_until: Time,
        q_bytes: u64,
        mtu: u32,
        ect: bool,
    ) -> Verdict {
        while self.next_update <= now {
            let t = self.next_update;
            self.update(busy_until.saturating_sub(t));
            self.next_update += self.cfg.t_update;
        }
        // RFC 8033 §4.1 and §5.1 (drop_early).
        if self.burst_allowance > 0
            || (self.qdelay_old < self.cfg.target / 2 && self.drop_prob < 0.2)
            || q_bytes < 2 * mtu as u64
        {
            return Verdict::Enqueue;
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        self.accu_prob += self.drop_prob;
        let drop = if self.accu_prob < 0.85 {
            false
        } else if self.accu_prob >= 8.5 {
            true
        } else {
            self.rng.gen::<f64>() < self.drop_prob
        };
        if !drop {
            return Verdict::Enqueue;
        }
        self.accu_prob = 0.0;
        // RFC 8033 §5.1: mark only while the drop probability is at most 10 %.
        let mark = self.cfg.ecn && ect && self.drop_prob <= 0.1;
        Verdict::signal(mark, &mut self.marks, &mut self.drops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = MILLISECOND;

    /// Arrivals every 0.1 ms finding a fixed queueing delay `d`; returns
    /// the drops among `n` of them.
    fn run(p: &mut Pie, from: Time, n: u64, d: Time, ect: bool) -> (u64, Time) {
        let mut drops = 0;
        let mut t = from;
        for _ in 0..n {
            t += MS / 10;
            if p.on_arrival(t, t + d, 100_000, 1500, ect) != Verdict::Enqueue {
                drops += 1;
            }
        }
        (drops, t)
    }

    #[test]
    fn a_delay_above_target_raises_the_probability_after_the_burst_allowance() {
        let mut p = Pie::new(PieConfig::default(), 1);
        // 150 ms of burst allowance: no drops in the first 150 ms.
        let (drops, t) = run(&mut p, 0, 1_400, 30 * MS, false);
        assert_eq!(drops, 0);
        assert!(p.drop_prob() > 0.0);
        let (drops, _) = run(&mut p, t, 50_000, 30 * MS, false);
        assert!(drops > 0);
        assert!(p.drop_prob() > 0.01, "{}", p.drop_prob());
        assert_eq!(p.drops, drops);
    }

    #[test]
    fn the_first_update_matches_the_rfc_step() {
        let mut p = Pie::new(PieConfig::default(), 1);
        // One arrival after the first update instant, 30 ms of delay:
        // p = 0.125 (0.030 - 0.015) + 1.25 (0.030 - 0) = 0.039375, scaled
        // by 1/2048 (the probability was 0).
        p.on_arrival(15 * MS, 45 * MS, 100_000, 1500, false);
        assert!((p.drop_prob() - 0.039375 / 2048.0).abs() < 1e-12);
    }

    #[test]
    fn at_target_the_probability_settles_and_an_idle_queue_decays_it() {
        let mut p = Pie::new(PieConfig::default(), 1);
        let (_, t) = run(&mut p, 0, 20_000, 40 * MS, false);
        let high = p.drop_prob();
        // At the target the proportional term vanishes; the integral term
        // holds the probability.
        let (_, t) = run(&mut p, t, 20_000, 15 * MS, false);
        let held = p.drop_prob();
        assert!((held - high).abs() / high < 0.5, "{high} -> {held}");
        // Idle: the probability decays by 2 % per update.
        run(&mut p, t, 20_000, 0, false);
        assert!(p.drop_prob() < held / 10.0, "{}", p.drop_prob());
    }

    #[test]
    fn ecn_marks_below_ten_percent_and_drops_above() {
        let mut p = Pie::new(
            PieConfig {
                ecn: true,
                ..PieConfig::default()
            },
            1,
        );
        let mut marks_low = 0;
        let mut t = 0;
        while p.drop_prob() <= 0.1 {
            t += MS / 10;
            if p.on_arrival(t, t + 40 * MS, 100_000, 1500, true) == Verdict::Drop {
                panic!("an ECN-capable packet dropped below 10 %");
            }
        }
        marks_low += p.marks;
        assert!(marks_low > 0);
        let (_, _) = run(&mut p, t, 20_000, 100 * MS, true);
        assert!(p.drop_prob() > 0.1);
        assert!(p.drops > 0);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |c: PieConfig| c.validate().unwrap_err().0;
        let d = PieConfig::default();
        assert_eq!(bad(PieConfig { target: 0, ..d }), "pie_target");
        assert_eq!(
            bad(PieConfig {
                target: 11 * SECOND,
                ..d
            }),
            "pie_target"
        );
        assert_eq!(bad(PieConfig { t_update: 0, ..d }), "pie_t_update");
        assert_eq!(bad(PieConfig { alpha: 0.0, ..d }), "pie_alpha");
        assert_eq!(bad(PieConfig { beta: 3.0, ..d }), "pie_beta");
        assert!(d.validate().is_ok());
    }
}
