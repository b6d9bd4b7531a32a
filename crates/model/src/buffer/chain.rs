//! The one-dimensional birth-death chain shared by G1DM and its special
//! cases (thesis §3.6.2, eqs. (3.6), (3.7), (3.11), (3.12)), solved in log
//! space, and the bisection that finds their fixed points.

/// Largest buffer the models accept (the chain has K + B + 1 states).
pub const MAX_B: usize = 1_000_000;
/// Largest number of input links.
pub const MAX_M: usize = 1_000_000;
/// Largest number of output links.
pub const MAX_K: usize = 100_000;

/// One output trunk: M input links, K output links, B shared buffer slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trunk {
    /// M: input links (ports) feeding the trunk.
    pub m: usize,
    /// K: output links (wavelength channels).
    pub k: usize,
    /// B: shared FIFO buffer slots, packets.
    pub b: usize,
}

impl Trunk {
    /// Checks K >= 1, M >= K and the size limits; the error names the
    /// parameter and its allowed values.
    pub fn new(m: usize, k: usize, b: usize) -> Result<Trunk, String> {
        if k == 0 || k > MAX_K {
            return Err(format!(
                "channels K must be a whole number in 1..={MAX_K}, found {k}"
            ));
        }
        if m < k || m > MAX_M {
            return Err(format!(
                "inputs M must be a whole number in K..={MAX_M} (K = {k}; fewer inputs than channels never contend), found {m}"
            ));
        }
        if b > MAX_B {
            return Err(format!(
                "buffer B must be a whole number in 0..={MAX_B}, found {b}"
            ));
        }
        Ok(Trunk { m, k, b })
    }

    /// 1/lambda in units of the mean packet time 1/mu for a normalized load
    /// rho = M lambda / (K (lambda + mu)) (thesis eq. (3.14)):
    /// lambda/mu = rho K / (M - rho K). Needs 0 < rho < M/K.
    pub fn inv_lambda(&self, rho: f64) -> Result<f64, String> {
        let (m, k) = (self.m as f64, self.k as f64);
        if !(rho > 0.0 && rho < m / k) {
            return Err(format!(
                "load rho must be in (0, M/K) = (0, {}) (rho = M lambda / (K (lambda + mu)), eq. (3.14)), found {rho}",
                m / k
            ));
        }
        Ok((m - rho * k) / (rho * k))
    }

    /// rho from 1/lambda (eq. (3.14), mu = 1).
    pub fn rho(&self, inv_lambda: f64) -> f64 {
        self.m as f64 / (self.k as f64 * (1.0 + inv_lambda))
    }
}

/// One pass of the chain: the stationary distribution for given arrival
/// rates, and what follows from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pass {
    /// The loss probability (3.12): A(K+B) p_{K+B} / Lambda.
    pub pb: f64,
    /// Carried utilization sum_i min(i,K) p_i / K (note §7 caveat).
    pub carried: f64,
    /// Mean arrival rate Lambda (3.11), in packets per mean packet time.
    pub arrivals: f64,
}

/// Solves the chain whose total arrival rate in state i is `rate(i)` (in
/// units of mu; the service rate in state i is min(i, K)):
/// p_{i+1}/p_i = rate(i) / min(i+1, K) (3.6), normalized (3.7).
/// Log space throughout: with K + B ~ 1e5 states the unnormalized p_i
/// over- or underflow otherwise.
pub fn pass(t: Trunk, rate: impl Fn(usize) -> f64) -> Result<Pass, String> {
    let top = t.k + t.b;
    let mut lp = Vec::with_capacity(top + 1);
    let mut rates = Vec::with_capacity(top + 1);
    let mut l = 0.0_f64;
    for i in 0..=top {
        let a = rate(i);
        if a.is_nan() || a < 0.0 || a.is_infinite() {
            return Err(format!(
                "arrival rate in state {i} is {a}: the load is out of range"
            ));
        }
        lp.push(l);
        rates.push(a);
        l += a.ln() - ((i + 1).min(t.k) as f64).ln();
    }
    let mx = lp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (mut z, mut lam, mut busy) = (0.0, 0.0, 0.0);
    for i in 0..=top {
        let w = (lp[i] - mx).exp();
        z += w;
        lam += rates[i] * w;
        busy += i.min(t.k) as f64 * w;
    }
    let w_top = (lp[top] - mx).exp();
    let pb = if lam > 0.0 {
        rates[top] * w_top / lam
    } else {
        0.0
    };
    let out = Pass {
        pb,
        carried: busy / (t.k as f64 * z),
        arrivals: lam / z,
    };
    if !(out.pb.is_finite() && out.carried.is_finite()) {
        return Err("the chain did not give a finite loss probability".into());
    }
    Ok(out)
}

/// Finds P with g(P) = P for g non-increasing on [lo, hi], with
/// g(lo) >= lo and g(hi) <= hi, by bisection (geometric while the bracket
/// spans more than a factor of 2, since loss probabilities span 1e-12..1).
///
/// The thesis (3.13) averages successive iterates and calls it "binary
/// search" (note §10 item 5); bisection on g(P) - P has the same fixed point
/// and cannot oscillate. Returns an error, never a number, if the bracket
/// does not close or the residual is not small.
pub fn fixed_point(
    what: &str,
    mut lo: f64,
    mut hi: f64,
    g: impl Fn(f64) -> Result<f64, String>,
) -> Result<f64, String> {
    let glo = g(lo)?;
    if glo <= lo {
        return Ok(lo);
    }
    if g(hi)? >= hi {
        return Ok(hi);
    }
    let mut iters = 0;
    while hi - lo > 1e-13 * hi {
        iters += 1;
        if iters > 400 {
            return Err(format!(
                "{what}: the fixed point did not converge (bracket [{lo:e}, {hi:e}] after 400 bisections)"
            ));
        }
        let mid = if lo > 0.0 && hi > 2.0 * lo {
            (lo * hi).sqrt()
        } else if lo == 0.0 && hi > 1e-300 {
            hi * 1e-3
        } else {
            0.5 * (lo + hi)
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if g(mid)? > mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let p = 0.5 * (lo + hi);
    let r = g(p)?;
    // g is continuous, so at the closed bracket the residual must be small;
    // a jump (non-monotone g) shows here.
    if !(r.is_finite() && (r - p).abs() <= 1e-6 * p.max(1e-300) + 1e-300) {
        return Err(format!(
            "{what}: the fixed point did not converge (P = {p:e}, g(P) = {r:e})"
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mm1k_by_the_chain() {
        // Constant rate 0.5, K = 1, B = 2: M/M/1/3, PB = r^3 (1-r)/(1-r^4).
        let t = Trunk::new(10, 1, 2).unwrap();
        let p = pass(t, |_| 0.5).unwrap();
        let want = 0.125 * 0.5 / (1.0 - 0.0625);
        assert!((p.pb - want).abs() < 1e-15);
    }

    #[test]
    fn huge_chains_do_not_overflow() {
        let t = Trunk::new(1000, 100, 100_000).unwrap();
        for r in [1.0, 99.0, 100.0, 101.0, 1e6] {
            let p = pass(t, |_| r).unwrap();
            assert!(p.pb >= 0.0 && p.pb <= 1.0, "{r}: {p:?}");
        }
        // Far above capacity: PB -> 1 - K/rate.
        let p = pass(t, |_| 200.0).unwrap();
        assert!((p.pb - 0.5).abs() < 1e-9);
    }

    #[test]
    fn fixed_point_of_a_simple_map() {
        let p = fixed_point("t", 0.0, 1.0, |p| Ok(1.0 / (4.0 + p))).unwrap();
        assert!((p - (5f64.sqrt() - 2.0)).abs() < 1e-12);
        // A discontinuous map has no fixed point: an error, not a number.
        let e = fixed_point("jump", 0.0, 1.0, |p| Ok(if p < 0.5 { 0.9 } else { 0.1 }));
        assert!(e.unwrap_err().contains("did not converge"));
    }

    #[test]
    fn trunk_validation() {
        assert!(Trunk::new(4, 0, 0).unwrap_err().contains("channels K"));
        assert!(Trunk::new(1, 2, 0).unwrap_err().contains("inputs M"));
        assert!(Trunk::new(4, 2, MAX_B + 1)
            .unwrap_err()
            .contains("buffer B"));
        let t = Trunk::new(4, 2, 0).unwrap();
        assert!(t.inv_lambda(2.0).unwrap_err().contains("load rho"));
        assert!(t.inv_lambda(0.0).is_err());
        assert!((t.rho(t.inv_lambda(0.7).unwrap()) - 0.7).abs() < 1e-15);
    }
}
