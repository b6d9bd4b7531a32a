//! Overload approximations (thesis L3331-3570; note §6.5), rho > 1.

use super::chain::Trunk;

/// True overload, thesis eq. (3.16): PB ~ (rho - 1)/rho (0 for rho <= 1).
/// M/M/K/(K+B) obeys it as B grows.
pub fn true_overload(rho: f64) -> f64 {
    ((rho - 1.0) / rho).max(0.0)
}

/// EB's overload limit, thesis eq. (3.17):
/// PB ~ (M lambda - K(mu + lambda)) / ((M - K) lambda) = (3.16) M/(M-K).
/// Valid when x^B << 1, x = K mu/((M-K) lambda).
pub fn eb_overload(t: Trunk, rho: f64) -> Result<f64, String> {
    let lam = 1.0 / t.inv_lambda(rho)?;
    let (m, k) = (t.m as f64, t.k as f64);
    Ok(((m * lam - k * (1.0 + lam)) / ((m - k) * lam)).max(0.0))
}

/// EBD's overload limit, thesis eq. (3.18), solved with its own lambda*
/// (3.5): P = (M lambda* - K(mu + lambda*)) / ((M - K) lambda*) with
/// 1/lambda* = 1/lambda + P. The thesis states without derivation that the
/// substitution gives (3.16); solving the linear equation
/// P (M - K) = M - K - K/lambda - K P gives P = 1 - K (1 + 1/lambda)/M =
/// (rho - 1)/rho, which the test checks.
pub fn ebd_overload(t: Trunk, rho: f64) -> Result<f64, String> {
    let a = t.inv_lambda(rho)?;
    let (m, k) = (t.m as f64, t.k as f64);
    Ok((1.0 - k * (1.0 + a) / m).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::super::{open_loop, Model};
    use super::*;

    #[test]
    fn ebd_limit_is_true_overload() {
        for (m, k, rho) in [(16, 2, 1.5), (1000, 1, 2.0), (80, 20, 1.2)] {
            let t = Trunk::new(m, k, 10).unwrap();
            let p = ebd_overload(t, rho).unwrap();
            assert!((p - true_overload(rho)).abs() < 1e-14);
            // And it satisfies (3.18) with its own lambda*.
            let ls = 1.0 / (t.inv_lambda(rho).unwrap() + p);
            let (mf, kf) = (m as f64, k as f64);
            let rhs = (mf * ls - kf * (1.0 + ls)) / ((mf - kf) * ls);
            assert!((p - rhs).abs() < 1e-14);
        }
    }

    #[test]
    fn note_item_10_overload_limits() {
        // (M=1000, K=1, B=1000): G1DM ~ EBD ~ M/M/K/K+B ~ (rho-1)/rho, ±0.5 %.
        let t = Trunk::new(1000, 1, 1000).unwrap();
        for rho in [1.5, 2.0] {
            let want = true_overload(rho);
            for model in [Model::G1dm, Model::Ebd, Model::Mmkkb] {
                let p = open_loop(model, t, rho).unwrap().pb;
                assert!((p / want - 1.0).abs() < 0.005, "{model:?} {rho}: {p}");
            }
        }
        // (M=16, K=2, B=1000), rho = 2: EB ~ 0.5 * 16/14 = 0.5714 (±0.5 %).
        let t = Trunk::new(16, 2, 1000).unwrap();
        let p = open_loop(Model::Eb, t, 2.0).unwrap().pb;
        assert!((p / (0.5 * 16.0 / 14.0) - 1.0).abs() < 0.005, "{p}");
        assert!((eb_overload(t, 2.0).unwrap() - 0.5 * 16.0 / 14.0).abs() < 1e-12);
    }
}
