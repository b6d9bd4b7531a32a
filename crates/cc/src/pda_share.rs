//! PDA's delay-based share among flows that yield (`delay_share`).
//!
//! Seed 001 §IV has the streams count themselves from what they yielded
//! and pace at the even share. Among PDA flows that count is not read
//! reliably (docs/reports/pda.md, "Where the shuffle's losses occur"):
//! when a standing queue outlasts the yields, the flows take each other
//! for a competitor that does not yield and balance towards half the
//! capacity each, with the buffer full, which is where 58-100 % of the
//! shuffle's drops fell. The seeds are silent on how flows that all yield
//! should hold a share without a count; this module is the choice made
//! here, and it is documented as such.
//!
//! **The rule.** A flow that shares keeps `alpha` of its own bytes in the
//! bottleneck queue, as FAST TCP does (thesis 003 ch. 4, eqs. (4.1)-(4.2)),
//! with its window `w` (bytes) updated once per round from the round's
//! standing queueing delay `q = RTT - baseRTT`:
//!
//! ```text
//! w <- (1 - gamma) w + gamma ((baseRTT / (baseRTT + q)) w + alpha)
//! ```
//!
//! and its pace set from the window on every RTT sample, `x = w / RTT`
//! ([`pace`]). The window, not the rate, is what the rule updates: a pace
//! updated once a round by the same formula oscillated (two flows at
//! 20 ms swung between 380 and 570 Mb/s each, utilization 0.93), because
//! the queue integrates the excess for a round before the update sees it;
//! a pace that follows `w / RTT` sample by sample slows as soon as the
//! queue grows, as a window-clocked sender does.
//!
//! At equilibrium `w q / RTT = alpha` (eq. (4.3)), i.e. `x q = alpha`:
//! every sharing flow paces at `alpha / q`, so flows with the same
//! `alpha` (the same base RTT, [`Share::alpha`]) pace alike (Jain 1) and
//! the link is full with a queue of `n alpha` bytes for `n` flows, far
//! below a one-BDP buffer: no count of the flows is needed, and none is
//! lost to overflow.
//!
//! **Not against TCP.** A loss-based sender fills any buffer until it
//! drops; a delay-based flow beside it would yield until it starves. So
//! a round that loses packets with the queue at the brim of the measured
//! buffer (at least [`BRIM`] of it) says the competitor does not yield:
//! [`Share::on_round`] answers [`ShareVerdict::Balance`], and PDA
//! balances as it did without this module ("Linux TCP sped up after
//! seeing more bandwidth yielded from Lion. This sent a signal to Lion
//! that there is no way to detect the number of streams", seed 001 §IV).
//! Sharing flows keep the queue near `n alpha`, so among themselves they
//! never reach the brim unless `n alpha` is comparable to the buffer;
//! `alpha` is therefore a fraction (PDA's `share_alpha`, 1/16) of the
//! smaller of the base RTT and the measured buffer, in bytes at the
//! capacity.
//!
//! Random loss in a short queue is retransmitted only, as everywhere in
//! PDA.

/// Fraction of the measured buffer's depth that counts as its brim.
pub const BRIM: f64 = 0.75;

/// Fraction of the way to the target window per round (FAST's `gamma`,
/// thesis 003 eq. (4.2)). At 0.25 the queue of four flows at 80 ms held
/// within 2 % of `4 alpha` where 0.5 swung by a factor of three, but the
/// shares converged more slowly (shuffle.toml: 20 of 24 cases met both
/// bars against 22).
pub const SHARE_GAMMA: f64 = 0.5;

/// One round of a sharing flow, as the controller measured it.
#[derive(Clone, Copy, Debug)]
pub struct ShareRound {
    /// The window, bytes.
    pub window: f64,
    /// The capacity estimate, bytes/s.
    pub capacity: f64,
    /// Base RTT, seconds.
    pub base_rtt: f64,
    /// The round's smallest queueing delay, seconds: the standing queue
    /// (the flow's own bursts come and go within the round).
    pub q_min: f64,
    /// The round's largest queueing delay, seconds.
    pub q_max: f64,
    /// The measured buffer's depth, seconds (None before a loss measured it).
    pub buffer: Option<f64>,
    /// The buffer's depth as measured before this round: a round whose
    /// loss first measured the buffer, or found it deeper, is not a sign
    /// of a competitor that does not yield (the sharing flows' own queue,
    /// with `alpha` not yet capped by the buffer, may have overflowed it).
    pub buffer_before: Option<f64>,
    /// Packets lost in the round.
    pub lost: u64,
    /// Bytes of one packet on the wire.
    pub wire: f64,
}

/// What a sharing round decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShareVerdict {
    /// The new window, bytes.
    Window(f64),
    /// The competitor does not yield: balance against it.
    Balance,
}

/// The delay-based share's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Share {
    /// Fraction of the smaller of the base RTT and the measured buffer
    /// that the flow keeps queued ([`Share::alpha`]).
    pub alpha_frac: f64,
    /// Fraction of the way to the target window per round.
    pub gamma: f64,
}

/// The pace (bytes/s) of window `w` (bytes) at round-trip time `rtt`
/// (seconds).
pub fn pace(w: f64, rtt: f64) -> f64 {
    w / rtt.max(1e-6)
}

impl Share {
    /// The bytes a flow keeps queued: `alpha_frac` of the smaller of the
    /// base RTT and the measured buffer's depth, in bytes at the capacity
    /// (at least one packet). Flows on one bottleneck see one capacity and
    /// one buffer, so they keep the same `alpha` whether or not a loss has
    /// measured the buffer for them when the buffer is at least their base
    /// RTT (a one-BDP buffer or deeper); a newcomer that has not measured
    /// a shallower one keeps more until it does. Flows of different base
    /// RTTs keep `alpha` in proportion to it, and so paces in proportion
    /// to it (see the module doc).
    pub fn alpha(&self, r: &ShareRound) -> f64 {
        let t = match r.buffer {
            Some(b) => b.min(r.base_rtt),
            None => r.base_rtt,
        };
        (self.alpha_frac * t * r.capacity).max(r.wire)
    }

    /// The round's verdict.
    pub fn on_round(&self, r: &ShareRound) -> ShareVerdict {
        if let (Some(b), Some(before)) = (r.buffer, r.buffer_before) {
            if r.lost > 0 && b > 0.0 && before >= b && r.q_max >= BRIM * b {
                return ShareVerdict::Balance;
            }
        }
        let alpha = self.alpha(r);
        let base = r.base_rtt.max(1e-6);
        let q = r.q_min.max(0.0);
        // Thesis 003 eq. (4.2): (1 - gamma) w + gamma (w baseRTT / RTT + alpha).
        let target = r.window * base / (base + q) + alpha;
        ShareVerdict::Window(r.window + self.gamma * (target - r.window))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(window: f64, q: f64) -> ShareRound {
        ShareRound {
            window,
            capacity: 125e6,
            base_rtt: 0.08,
            q_min: q,
            q_max: q,
            buffer: None,
            buffer_before: None,
            lost: 0,
            wire: 1500.0,
        }
    }

    const SHARE: Share = Share {
        alpha_frac: 1.0 / 16.0,
        gamma: 0.5,
    };

    #[test]
    fn the_window_that_keeps_alpha_queued_is_a_fixed_point() {
        let q = 0.004;
        // A sixteenth of the 80-ms base RTT at 1 Gb/s: 625 kB.
        let alpha = SHARE.alpha(&round(1.0, q));
        assert!((alpha - 625_000.0).abs() < 1e-6, "{alpha}");
        // x q = alpha with x = w / (base + q).
        let w = alpha / q * (0.08 + q);
        match SHARE.on_round(&round(w, q)) {
            ShareVerdict::Window(n) => assert!((n - w).abs() < 1e-6 * w, "{n} vs {w}"),
            v => panic!("{v:?}"),
        }
    }

    /// Flows with windows `w0` and base RTTs `base` on one 1 Gb/s fluid
    /// queue for `secs`, in steps of 1 ms: each paces at w / RTT, the
    /// queue is what the arrivals above the capacity built up (never below
    /// empty), and each updates its window once per its own RTT from the
    /// smallest queue of that round. Returns the paces and the backlog.
    fn fluid(w0: &[f64], base: &[f64], secs: f64) -> (Vec<f64>, f64) {
        let c = 125e6;
        let n = w0.len();
        let mut w = w0.to_vec();
        let mut next = base.to_vec();
        let mut qmin = vec![f64::INFINITY; n];
        let mut backlog = 0.0_f64;
        let mut x = vec![0.0; n];
        for step in 0..(secs * 1e3) as u64 {
            let t = step as f64 * 1e-3;
            let q = backlog / c;
            for i in 0..n {
                x[i] = pace(w[i], base[i] + q);
                qmin[i] = qmin[i].min(q);
                if t >= next[i] {
                    let r = round_at(w[i], qmin[i], base[i]);
                    if let ShareVerdict::Window(v) = SHARE.on_round(&r) {
                        w[i] = v;
                    }
                    next[i] = t + base[i] + q;
                    qmin[i] = f64::INFINITY;
                }
            }
            let sum: f64 = x.iter().sum();
            backlog = (backlog + (sum - c) * 1e-3).max(0.0);
        }
        (x, backlog)
    }

    fn jain(x: &[f64]) -> f64 {
        let sum: f64 = x.iter().sum();
        sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
    }

    #[test]
    fn flows_sharing_one_queue_converge_to_equal_rates_that_fill_the_link() {
        // Three 200-ms flows, one with nearly the whole link, one with a
        // tenth of it, one with almost nothing: within 10 s (50 rounds).
        let (x, backlog) = fluid(&[2.4e7, 2.5e6, 3e4], &[0.2; 3], 10.0);
        let sum: f64 = x.iter().sum();
        assert!(jain(&x) > 0.95, "jain {}, {x:?}", jain(&x));
        assert!(sum > 0.99 * 125e6 && sum < 1.01 * 125e6, "{sum}");
        // The queue holds the three flows' alpha (a sixteenth of 200 ms each).
        let alpha = 125e6 * 0.2 / 16.0;
        assert!(
            (backlog - 3.0 * alpha).abs() < 0.1 * 3.0 * alpha,
            "{backlog}"
        );
    }

    #[test]
    fn flows_of_different_base_rtts_share_in_proportion_to_them() {
        // The choice documented in the module: alpha in proportion to the
        // base RTT, so the paces are too (20 and 80 ms: 1 to 4).
        let (x, _) = fluid(&[1e6, 1e6], &[0.02, 0.08], 60.0);
        let ratio = x[1] / x[0];
        assert!((ratio - 4.0).abs() < 0.2, "{ratio} {x:?}");
    }

    fn round_at(w: f64, q: f64, base: f64) -> ShareRound {
        let mut r = round(w, q);
        r.base_rtt = base;
        r
    }

    #[test]
    fn a_loss_at_the_brim_of_the_measured_buffer_means_a_competitor_that_does_not_yield() {
        let mut r = round(50e6, 0.075);
        r.buffer = Some(0.08);
        r.q_max = 0.079;
        r.lost = 1;
        // The round that first measured the buffer: maybe the sharing
        // flows' own overflow.
        assert!(matches!(SHARE.on_round(&r), ShareVerdict::Window(_)));
        r.buffer_before = Some(0.07);
        assert!(matches!(SHARE.on_round(&r), ShareVerdict::Window(_)));
        r.buffer_before = Some(0.08);
        assert_eq!(SHARE.on_round(&r), ShareVerdict::Balance);
        // A loss in a short queue is random: still sharing.
        r.q_min = 0.002;
        r.q_max = 0.003;
        assert!(matches!(SHARE.on_round(&r), ShareVerdict::Window(_)));
        // The brim without a loss: still sharing (a TCP is known by its drops).
        r.q_max = 0.079;
        r.lost = 0;
        assert!(matches!(SHARE.on_round(&r), ShareVerdict::Window(_)));
    }

    #[test]
    fn alpha_is_a_sixteenth_of_the_base_rtt_or_of_a_shallower_measured_buffer() {
        let mut r = round(1.0, 0.0);
        assert!((SHARE.alpha(&r) - 625_000.0).abs() < 1e-6);
        // A 2-ms buffer at 1 Gb/s holds 250 kB: alpha 15.6 kB.
        r.buffer = Some(0.002);
        assert!((SHARE.alpha(&r) - 250_000.0 / 16.0).abs() < 1e-6);
        // A buffer deeper than the base RTT changes nothing.
        r.buffer = Some(0.16);
        assert!((SHARE.alpha(&r) - 625_000.0).abs() < 1e-6);
    }
}
