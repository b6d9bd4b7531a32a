//! The four special cases of G1DM (thesis §3.6.4, L3032-3200; note §6.4), in
//! decreasing fidelity: EBD, EBI, EB and M/M/K/(K+B). Each is the chain of
//! [`super::chain`] with simpler arrival rates.

use super::chain::{self, Trunk};
use super::g1dm::{alpha, lambda_star};
use super::math::ln_sum_exp;
use super::{Loss, Model};

/// EBD (Engset with buffer and discarding ports, L3082-3094): G1DM with
/// lambda-hat(i) = lambda* in every state, A(i) = (M - min(i,K)) lambda*.
/// A fixed point, since PB is inside lambda*.
pub fn ebd_rate(t: Trunk, inv_lambda: f64, pb: f64, i: usize) -> f64 {
    (t.m - i.min(t.k)) as f64 * lambda_star(inv_lambda, pb)
}

/// EBI (Engset with buffer and inserting ports, L3096-3106): G1DM with
/// lambda* = lambda and PB = 0 inside (3.9). Single pass.
pub fn ebi_rate(t: Trunk, inv_lambda: f64, i: usize) -> f64 {
    if i <= t.k {
        (t.m - i) as f64 / inv_lambda
    } else {
        let mi = i.min(t.m);
        (t.m - mi) as f64 / inv_lambda + (mi - t.k) as f64 / (inv_lambda + alpha(t, i))
    }
}

/// EB (Engset with buffer, L3120-3128): lambda* = lambda-hat(i) = lambda,
/// A(i) = (M - min(i,K)) lambda. Single pass.
pub fn eb_rate(t: Trunk, inv_lambda: f64, i: usize) -> f64 {
    (t.m - i.min(t.k)) as f64 / inv_lambda
}

/// M/M/K/(K+B) (L3130-3144): Poisson arrivals of total rate
/// M / (1/lambda + 1/mu), whatever the state.
pub fn mmkkb_rate(t: Trunk, inv_lambda: f64) -> f64 {
    t.m as f64 / (inv_lambda + 1.0)
}

/// EBD's loss at load `rho`: the fixed point of the EBD chain.
pub fn ebd(t: Trunk, rho: f64) -> Result<Loss, String> {
    let a = t.inv_lambda(rho)?;
    let run = |p| chain::pass(t, |i| ebd_rate(t, a, p, i));
    let p = chain::fixed_point("EBD", 0.0, 1.0, |p| Ok(run(p)?.pb))?;
    Ok(Loss::new(Model::Ebd, t, a, run(p)?))
}

/// EBI's loss at load `rho`.
pub fn ebi(t: Trunk, rho: f64) -> Result<Loss, String> {
    let a = t.inv_lambda(rho)?;
    Ok(Loss::new(
        Model::Ebi,
        t,
        a,
        chain::pass(t, |i| ebi_rate(t, a, i))?,
    ))
}

/// EB's loss at load `rho`.
pub fn eb(t: Trunk, rho: f64) -> Result<Loss, String> {
    let a = t.inv_lambda(rho)?;
    Ok(Loss::new(
        Model::Eb,
        t,
        a,
        chain::pass(t, |i| eb_rate(t, a, i))?,
    ))
}

/// M/M/K/(K+B)'s loss at load `rho` (by the chain; see [`mmkkb_closed_form`]).
pub fn mmkkb(t: Trunk, rho: f64) -> Result<Loss, String> {
    let a = t.inv_lambda(rho)?;
    Ok(Loss::new(
        Model::Mmkkb,
        t,
        a,
        chain::pass(t, |_| mmkkb_rate(t, a))?,
    ))
}

/// Thesis eq. (3.15) in log space (note §10 item 6):
/// PB = (K^K rho^(K+B) / K!) / [sum_{i<K} (K rho)^i / i! +
/// sum_{i=K}^{K+B} (K rho)^i / (K! K^(i-K))]. Independent of M.
pub fn mmkkb_closed_form(k: usize, b: usize, rho: f64) -> f64 {
    let kf = k as f64;
    let ln_kr = (kf * rho).ln();
    let mut terms = Vec::with_capacity(k + b + 1);
    let mut ln_fact = 0.0; // ln i!
    for i in 0..k {
        terms.push(i as f64 * ln_kr - ln_fact);
        ln_fact += (i as f64 + 1.0).ln();
    }
    // ln_fact = ln K!
    for i in k..=k + b {
        terms.push(i as f64 * ln_kr - ln_fact - (i - k) as f64 * kf.ln());
    }
    let top = kf * kf.ln() + (kf + b as f64) * rho.ln() - ln_fact;
    (top - ln_sum_exp(&terms)).exp()
}

/// The classical Engset call congestion for B = 0 (note §6.4, EB row):
/// C(M-1,K) a^K / sum_{i<=K} C(M-1,i) a^i with a = lambda/mu.
pub fn engset_call_congestion(m: usize, k: usize, a: f64) -> f64 {
    super::math::ln_engset_time_congestion(m as f64 - 1.0, k, a).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mmkkb_targets() {
        // Note §11 item 8 prints 0.086584; M/M/1/4 is rho^4 (1-rho)/(1-rho^5)
        // = 0.0865818 exactly (the note's §9.3 table prints 0.08658), so the
        // note's sixth digit is a rounding slip: we test the exact value and
        // the note's to 5e-6.
        let exact = 0.7f64.powi(4) * 0.3 / (1.0 - 0.7f64.powi(5));
        assert!((mmkkb_closed_form(1, 3, 0.7) - exact).abs() < 1e-15);
        assert!((mmkkb_closed_form(1, 3, 0.7) - 0.086_584).abs() < 5e-6);
        assert!((mmkkb_closed_form(2, 0, 0.5) - 0.2).abs() < 1e-15);
        for m in [2, 3, 8, 64, 1000] {
            let l = mmkkb(Trunk::new(m, 1, 3).unwrap(), 0.7).unwrap();
            assert!((l.pb - exact).abs() < 1e-14, "{m}");
        }
        // Chain and closed form agree, also at large sizes.
        for (k, b, rho) in [
            (20, 5, 0.9),
            (100, 1000, 0.99),
            (100, 100_000, 1.5),
            (1, 0, 0.3),
        ] {
            let t = Trunk::new(1000, k, b).unwrap();
            let c = mmkkb(t, rho).unwrap().pb;
            let f = mmkkb_closed_form(k, b, rho);
            assert!(
                (c - f).abs() <= 1e-10 * f.max(1e-300),
                "{k} {b} {rho}: {c} {f}"
            );
        }
    }

    #[test]
    fn bufferless_two_ports() {
        // Note §11 item 9.
        let t = Trunk::new(2, 1, 0).unwrap();
        assert!((ebd(t, 0.5).unwrap().pb - (5f64.sqrt() - 2.0)).abs() < 1e-9);
        assert!((eb(t, 0.5).unwrap().pb - 0.25).abs() < 1e-12);
        assert!((ebi(t, 0.5).unwrap().pb - 0.25).abs() < 1e-12);
        assert!((mmkkb(t, 0.5).unwrap().pb - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn eb_without_buffer_is_engset() {
        for (m, k, rho) in [(16, 2, 0.6), (80, 20, 0.9), (5, 4, 0.3)] {
            let t = Trunk::new(m, k, 0).unwrap();
            let a = 1.0 / t.inv_lambda(rho).unwrap();
            let want = engset_call_congestion(m, k, a);
            assert!((eb(t, rho).unwrap().pb - want).abs() < 1e-12 * want);
        }
    }
}
