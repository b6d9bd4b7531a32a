//! The detailed model of an output trunk (thesis §3.6.1, L2513-2579; note
//! §6.1), the ground truth the one-dimensional models approximate.
//!
//! Each of the M input ports alternates an idle period ~ Exp(lambda) and a
//! packet whose reception lasts ~ Exp(mu). A packet that arrives while
//! fewer than K outputs are busy is output at once (cut-through); otherwise
//! it takes one of the B buffer spaces if one is free (a virtual FIFO whose
//! space frees when its packet *starts* being output, L2542-2555);
//! otherwise it is discarded. Either way the port is busy until the packet
//! has been received. PB is the fraction of packets discarded.
//!
//! The full Markov chain tracks every port and buffer space and is too large
//! to solve (the thesis's reason for G1DM). Here:
//! * [`exact_bufferless`]: for B = 0 the state is (busy outputs, discarding
//!   ports) and the chain is small; solved exactly.
//! * [`monte_carlo`]: the event-driven simulation the note specifies, with
//!   a 95 % confidence interval (thesis §3.6.5, L3202-3232).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::chain::Trunk;

/// Largest state space [`exact_bufferless`] solves densely.
pub const MAX_EXACT_STATES: usize = 600;

/// The exact loss of the detailed model without buffer (B = 0; the buffer
/// of `t` is ignored) at load `rho`: the chain over (b busy outputs, d
/// discarding ports), b <= K, b + d <= M, with idle -> busy at rate
/// (M-b-d) lambda when b < K, idle -> discarding when b = K, and each
/// busy/discarding port finishing at rate mu.
/// PB = sum_{b=K} (M-K-d) pi / sum (M-b-d) pi.
pub fn exact_bufferless(t: Trunk, rho: f64) -> Result<f64, String> {
    let lam = 1.0 / t.inv_lambda(rho)?;
    let (m, k) = (t.m, t.k);
    let mut index = Vec::new();
    for b in 0..=k {
        for d in 0..=(m - b) {
            index.push((b, d));
        }
    }
    let n = index.len();
    if n > MAX_EXACT_STATES {
        return Err(format!(
            "the exact bufferless detailed model has {n} states here, more than {MAX_EXACT_STATES}: use the Monte Carlo"
        ));
    }
    let pos = |b: usize, d: usize| index.iter().position(|&s| s == (b, d)).unwrap();
    // Generator Q (row = from), then solve pi Q = 0 with sum pi = 1 by
    // replacing one balance equation by the normalization.
    let mut q = vec![vec![0.0; n]; n];
    for (s, &(b, d)) in index.iter().enumerate() {
        let idle = (m - b - d) as f64;
        if idle > 0.0 {
            let to = if b < k { pos(b + 1, d) } else { pos(b, d + 1) };
            q[s][to] += idle * lam;
        }
        if b > 0 {
            q[s][pos(b - 1, d)] += b as f64;
        }
        if d > 0 {
            q[s][pos(b, d - 1)] += d as f64;
        }
        let out: f64 = q[s].iter().sum();
        q[s][s] = -out;
    }
    // A x = rhs with A = Q^T, last row replaced by ones.
    let mut a: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| q[j][i]).collect()).collect();
    let mut rhs = vec![0.0; n];
    a[n - 1] = vec![1.0; n];
    rhs[n - 1] = 1.0;
    let pi = solve_dense(a, rhs)?;
    let (mut lost, mut all) = (0.0, 0.0);
    for (s, &(b, d)) in index.iter().enumerate() {
        let r = (m - b - d) as f64 * pi[s];
        all += r;
        if b == k {
            lost += r;
        }
    }
    Ok(lost / all)
}

fn solve_dense(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Result<Vec<f64>, String> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        if a[p][c].abs() < 1e-300 {
            return Err("singular chain".into());
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            if f != 0.0 {
                let (top, bottom) = a.split_at_mut(r);
                for (x, y) in bottom[0][c..].iter_mut().zip(&top[c][c..]) {
                    *x -= f * y;
                }
                b[r] -= f * b[c];
            }
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|j| a[r][j] * x[j]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Ok(x)
}

/// A Monte Carlo estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Fraction of packets discarded.
    pub pb: f64,
    /// Half-width of the 95 % confidence interval (batch means, 20 batches,
    /// Student t with 19 degrees of freedom).
    pub ci95: f64,
    /// Packets counted (after the warm-up).
    pub arrivals: u64,
    /// Packets discarded among them.
    pub lost: u64,
}

/// Largest number of arrivals a [`monte_carlo`] call simulates.
pub const MAX_ARRIVALS: u64 = 1_000_000_000;

/// Simulates the detailed model for `arrivals` packets (after a warm-up of
/// arrivals/20), seeded. Time in mean packet times (mu = 1).
pub fn monte_carlo(t: Trunk, rho: f64, arrivals: u64, seed: u64) -> Result<Estimate, String> {
    let lam = 1.0 / t.inv_lambda(rho)?;
    if !(1000..=MAX_ARRIVALS).contains(&arrivals) {
        return Err(format!(
            "arrivals must be in 1000..={MAX_ARRIVALS}, found {arrivals}"
        ));
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut exp = |rate: f64| -(1.0 - rng.gen::<f64>()).ln() / rate;
    const FREE: u32 = u32::MAX;
    let mut events: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    for p in 0..t.m {
        events.push(Reverse((exp(lam).to_bits(), p as u32)));
    }
    let mut busy = 0usize;
    let mut fifo: std::collections::VecDeque<f64> = std::collections::VecDeque::new();
    let warm = arrivals / 20;
    let batches = 20u64;
    let per = arrivals / batches;
    let total = warm + per * batches;
    let mut seen = 0u64;
    let mut lost_in = vec![0u64; batches as usize];
    while seen < total {
        let Reverse((bits, what)) = events.pop().expect("ports always have a next event");
        let now = f64::from_bits(bits);
        if what == FREE {
            if let Some(len) = fifo.pop_front() {
                events.push(Reverse(((now + len).to_bits(), FREE)));
            } else {
                busy -= 1;
            }
            continue;
        }
        let len = exp(1.0);
        let lost = if busy < t.k {
            busy += 1;
            events.push(Reverse(((now + len).to_bits(), FREE)));
            false
        } else if fifo.len() < t.b {
            fifo.push_back(len);
            false
        } else {
            true
        };
        if seen >= warm && lost {
            lost_in[((seen - warm) / per) as usize] += 1;
        }
        seen += 1;
        let next = now + len + exp(lam);
        events.push(Reverse((next.to_bits(), what)));
    }
    let lost: u64 = lost_in.iter().sum();
    let n = (per * batches) as f64;
    let pb = lost as f64 / n;
    let means: Vec<f64> = lost_in.iter().map(|&l| l as f64 / per as f64).collect();
    let var = means.iter().map(|x| (x - pb).powi(2)).sum::<f64>() / (batches - 1) as f64;
    Ok(Estimate {
        pb,
        ci95: 2.093 * (var / batches as f64).sqrt(),
        arrivals: per * batches,
        lost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_two_port_case_is_7_over_32() {
        // Note §6.1 [CHECK] / §11 item 9: 0.21875.
        let p = exact_bufferless(Trunk::new(2, 1, 0).unwrap(), 0.5).unwrap();
        assert!((p - 0.21875).abs() < 1e-12, "{p}");
    }

    #[test]
    fn monte_carlo_agrees_with_the_exact_chain() {
        let t = Trunk::new(2, 1, 0).unwrap();
        let e = monte_carlo(t, 0.5, 400_000, 1).unwrap();
        // Note §11 item 9: within 2 %.
        assert!((e.pb / 0.21875 - 1.0).abs() < 0.02, "{e:?}");
        let t = Trunk::new(16, 2, 0).unwrap();
        let x = exact_bufferless(t, 0.6).unwrap();
        let e = monte_carlo(t, 0.6, 400_000, 2).unwrap();
        assert!(
            (e.pb - x).abs() < 3.0 * e.ci95.max(1e-3 * x),
            "{e:?} vs {x}"
        );
        // Note §9.3 MC (Fig 3.17, rho 0.6): 0.2296.
        assert!((x - 0.2296).abs() < 0.01, "{x}");
    }

    #[test]
    fn one_port_per_channel_never_loses() {
        let e = monte_carlo(Trunk::new(3, 3, 0).unwrap(), 0.9, 10_000, 3).unwrap();
        assert_eq!(e.lost, 0);
    }

    #[test]
    fn buffer_reduces_loss() {
        let a = monte_carlo(Trunk::new(4, 1, 0).unwrap(), 0.7, 100_000, 4).unwrap();
        let b = monte_carlo(Trunk::new(4, 1, 3).unwrap(), 0.7, 100_000, 4).unwrap();
        assert!(b.pb < a.pb / 2.0);
    }
}
