//! The closed-loop throughput model (thesis §3.7, L3581-3735; note §7):
//! Mathis's law (3.19)/(3.20) sets the load the flows offer for a given loss
//! probability, an open-loop model gives the loss for that load, and the
//! pair is solved as one fixed point.

use super::chain::{self, Trunk};
use super::Model;

/// The closed loop's inputs besides the trunk and the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flows {
    /// mu: rate of one output link, packets/s.
    pub mu: f64,
    /// N: number of long-lived TCP flows.
    pub n: f64,
    /// RTT_H: harmonic-mean round-trip propagation delay, s.
    pub rtt: f64,
}

/// A closed-loop operating point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Operating {
    /// The open-loop model used.
    pub model: Model,
    /// Loss probability PB*.
    pub pb: f64,
    /// lambda/mu at PB* (3.22).
    pub lambda: f64,
    /// Normalized intended load rho = M lambda / (K (lambda + mu)) (3.14).
    pub rho: f64,
    /// rho (1 - PB): the thesis's utilization (eq. (3.3), L2079).
    pub utilization: f64,
    /// sum_i min(i,K) p_i / K: the carried utilization. With G1DM the
    /// actual arrivals fall below the intended load T, and at large B and
    /// load rho (1 - PB) can exceed 1 (note §7 caveat); this one cannot.
    pub carried: f64,
    /// Carried throughput, packets/s: carried K mu.
    pub throughput: f64,
}

/// c = N sqrt(1.5) / (mu RTT_H), so that lambda/mu = c / (M sqrt(PB) - c)
/// (eq. (3.22) in units of mu).
fn c_of(f: &Flows) -> f64 {
    f.n * 1.5f64.sqrt() / (f.mu * f.rtt)
}

/// 1/lambda (units of 1/mu) for loss `pb`, eq. (3.22):
/// lambda = N mu sqrt(1.5) / (M mu RTT_H sqrt(PB) - N sqrt(1.5)).
pub fn inv_lambda(t: Trunk, f: &Flows, pb: f64) -> f64 {
    t.m as f64 * pb.sqrt() / c_of(f) - 1.0
}

/// The smallest loss the flows can live with: at P_min = (N sqrt(1.5) /
/// (M mu RTT_H))^2 the ports are always busy (lambda -> inf).
pub fn min_loss(t: Trunk, f: &Flows) -> f64 {
    (c_of(f) / t.m as f64).powi(2)
}

/// Solves the closed loop: finds PB* with G(PB*) = PB*, where G(P) is one
/// pass of `model` at lambda(P) from (3.22), with the same P inside lambda*
/// for G1DM and EBD (note §7 steps 1-5). G decreases in P; bisection on
/// [P_min, 1]. Errors (never a number) when the inputs are out of range or
/// the bisection does not converge.
pub fn solve(model: Model, t: Trunk, f: &Flows) -> Result<Operating, String> {
    if !(f.mu.is_finite() && f.mu > 0.0) {
        return Err(format!("rate mu must be > 0 packets/s, found {}", f.mu));
    }
    if !(f.n.is_finite() && f.n > 0.0) {
        return Err(format!("flows N must be > 0, found {}", f.n));
    }
    if !(f.rtt.is_finite() && f.rtt > 0.0) {
        return Err(format!("RTT must be > 0 s, found {}", f.rtt));
    }
    let p_min = min_loss(t, f);
    if p_min >= 0.25 {
        return Err(format!(
            "flows N = {} are too many for this trunk: Mathis's law needs a loss above {p_min:.3} even with every input always busy",
            f.n
        ));
    }
    let g = |p: f64| -> Result<f64, String> {
        let a = inv_lambda(t, f, p).max(0.0);
        Ok(model.pass(t, a, p)?.pb)
    };
    let lo = p_min * (1.0 + 1e-9);
    let p = chain::fixed_point(&format!("closed loop ({})", model.name()), lo, 1.0, g)?;
    let a = inv_lambda(t, f, p);
    let pass = model.pass(t, a, p)?;
    let rho = t.rho(a);
    Ok(Operating {
        model,
        pb: pass.pb,
        lambda: 1.0 / a,
        rho,
        utilization: rho * (1.0 - pass.pb),
        carried: pass.carried,
        throughput: pass.carried * t.k as f64 * f.mu,
    })
}

/// Mathis's utilization for a given loss, thesis eq. (3.4):
/// U = sqrt(1.5/PB) (1 - PB) / (RTT_H C_O / N), C_O in packets/s.
pub fn mathis_utilization(pb: f64, n: f64, c_o: f64, rtt: f64) -> f64 {
    (1.5 / pb).sqrt() * (1.0 - pb) / (rtt * c_o / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MU40: f64 = 40e9 / 8320.0;

    fn op(model: Model, m: usize, k: usize, b: usize, n: f64, rtt: f64) -> Operating {
        solve(
            model,
            Trunk::new(m, k, b).unwrap(),
            &Flows { mu: MU40, n, rtt },
        )
        .unwrap()
    }

    #[test]
    fn mathis_consistency_of_the_extrapolated_points() {
        // Note §11 item 14 / §3.5 [CHECK]: 0.309 and 0.672.
        let u = mathis_utilization(10f64.powf(-3.04), 4000.0, MU40, 0.1091);
        assert!((u - 0.309).abs() < 1e-3, "{u}");
        let u = mathis_utilization(10f64.powf(-3.7145382), 4000.0, MU40, 0.1091);
        assert!((u - 0.672).abs() < 1e-3, "{u}");
    }

    #[test]
    fn operating_point_is_consistent_with_mathis() {
        // At the fixed point the intended load equals Mathis's rate (A.1):
        // rho K mu = N sqrt(1.5) / (RTT_H sqrt(PB)).
        let o = op(Model::G1dm, 32, 16, 5, 64_000.0, 0.1);
        let lhs = o.rho * 16.0 * MU40;
        let rhs = 64_000.0 * 1.5f64.sqrt() / (0.1 * o.pb.sqrt());
        assert!((lhs / rhs - 1.0).abs() < 1e-9, "{lhs} {rhs}");
    }
}
