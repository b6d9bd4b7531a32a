//! The General One-Dimensional Model, G1DM (thesis §3.6.2, L2581-2922;
//! note §6.2): a birth-death chain over i = packets buffered or being
//! output, with the loss probability inside the arrival rates, solved as a
//! fixed point.

use super::chain::{self, Trunk};
use super::{Loss, Model};

/// alpha(i), the fraction of "potentially inserting" ports that are
/// inserting, thesis eq. (3.10): 1 - (i - K)/max(K, B) for K+1 <= i <= K+B
/// (an empirical choice of the thesis, approximation 4). max(K, B) keeps it
/// in [0, 1].
pub fn alpha(t: Trunk, i: usize) -> f64 {
    1.0 - (i - t.k) as f64 / t.k.max(t.b) as f64
}

/// lambda* (in units of mu), thesis eq. (3.5): 1/lambda* = 1/lambda + PB/mu.
pub fn lambda_star(inv_lambda: f64, pb: f64) -> f64 {
    1.0 / (inv_lambda + pb)
}

/// Total arrival rate A(i) in state i (units of mu) for loss guess `pb`:
///
/// * i <= K: (M - i) lambda* (eq. (3.6); lambda-hat(K) = lambda*, note §10
///   item 4);
/// * K < i <= K+B: (M - K) lambda-hat(i) with (3.9)'s second form (note §10
///   item 3): (M - min(i,M)) lambda* + (min(i,M) - K) lambda_m(i),
///   1/lambda_m(i) = 1/lambda + (PB + alpha(i))/mu (3.8).
pub fn arrival_rate(t: Trunk, inv_lambda: f64, pb: f64, i: usize) -> f64 {
    let ls = lambda_star(inv_lambda, pb);
    if i <= t.k {
        (t.m - i) as f64 * ls
    } else {
        let mi = i.min(t.m);
        (t.m - mi) as f64 * ls + (mi - t.k) as f64 / (inv_lambda + pb + alpha(t, i))
    }
}

/// One pass of the G1DM chain at loss guess `pb`: the new loss (3.13).
pub fn pass(t: Trunk, inv_lambda: f64, pb: f64) -> Result<chain::Pass, String> {
    chain::pass(t, |i| arrival_rate(t, inv_lambda, pb, i))
}

/// G1DM's loss at normalized load `rho` (3.14): the fixed point
/// P = pass(P).pb. M = K gives 0 (no contention).
pub fn loss(t: Trunk, rho: f64) -> Result<Loss, String> {
    let a = t.inv_lambda(rho)?;
    let p = chain::fixed_point("G1DM", 0.0, 1.0, |p| Ok(pass(t, a, p)?.pb))?;
    Ok(Loss::new(Model::G1dm, t, a, pass(t, a, p)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bufferless_two_ports_is_sqrt5_minus_2() {
        // Note §11 item 9: M=2, K=1, B=0, rho=0.5 -> sqrt 5 - 2.
        let l = loss(Trunk::new(2, 1, 0).unwrap(), 0.5).unwrap();
        assert!((l.pb - (5f64.sqrt() - 2.0)).abs() < 1e-9, "{}", l.pb);
    }

    #[test]
    fn alpha_of_3_10() {
        let t = Trunk::new(16, 2, 1).unwrap();
        // B <= K: alpha = 2 - i/K.
        assert_eq!(alpha(t, 3), 2.0 - 3.0 / 2.0);
        let t = Trunk::new(16, 2, 10).unwrap();
        assert_eq!(alpha(t, 12), 0.0);
        assert_eq!(alpha(t, 3), 0.9);
    }

    #[test]
    fn no_contention_no_loss() {
        let l = loss(Trunk::new(4, 4, 3).unwrap(), 0.9).unwrap();
        assert_eq!(l.pb, 0.0);
    }

    #[test]
    fn loss_rises_with_load_and_falls_with_buffer() {
        let mut last = 0.0;
        for rho in [0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 1.5] {
            let p = loss(Trunk::new(16, 2, 5).unwrap(), rho).unwrap().pb;
            assert!(p > last, "{rho}");
            last = p;
        }
        let mut last = 1.0;
        for b in [0, 1, 2, 5, 10, 50] {
            let p = loss(Trunk::new(16, 2, b).unwrap(), 0.8).unwrap().pb;
            assert!(p < last, "{b}");
            last = p;
        }
    }

    #[test]
    fn large_systems_converge() {
        for (m, k, b) in [
            (1000, 100, 100_000),
            (1000, 1, 1000),
            (400, 100, 0),
            (1000, 100, 1),
        ] {
            for rho in [0.3, 0.95, 2.0] {
                let l = loss(Trunk::new(m, k, b).unwrap(), rho).unwrap();
                assert!(l.pb >= 0.0 && l.pb < 1.0, "{m} {k} {b} {rho}: {l:?}");
            }
        }
    }
}
