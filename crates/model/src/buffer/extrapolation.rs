//! The extrapolation method's curve fit (thesis §3.3, L2107-2269; note
//! §3.4-3.5): least squares of y = a + b/(x - c) over low bit-rates x,
//! evaluated at the target rate.

/// A fitted hyperbola y = a + b/(x - c).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hyperbola {
    /// a: the limit as x -> inf.
    pub a: f64,
    /// b.
    pub b: f64,
    /// c: the pole.
    pub c: f64,
    /// Sum of squared residuals of the fit.
    pub sse: f64,
}

impl Hyperbola {
    /// y at x.
    pub fn eval(&self, x: f64) -> f64 {
        self.a + self.b / (x - self.c)
    }
}

/// The thesis's fit of U for B = 10 (Fig 3.7, L2169-2173):
/// 0.7022 + 0.048088/(x - 0.125893).
pub const THESIS_U_B10: Hyperbola = Hyperbola {
    a: 0.7022,
    b: 0.048088,
    c: 0.125893,
    sse: f64::NAN,
};

/// The thesis's fit of log10 PB for B = 10 (Fig 3.9, L2263-2269):
/// -3.7116276 - 0.11737622/(x + 0.32710271).
pub const THESIS_LOG_PB_B10: Hyperbola = Hyperbola {
    a: -3.7116276,
    b: -0.11737622,
    c: -0.32710271,
    sse: f64::NAN,
};

/// For a fixed pole c, (a, b) by linear least squares on z = 1/(x - c).
fn linear(xs: &[f64], ys: &[f64], c: f64) -> Hyperbola {
    let n = xs.len() as f64;
    let z: Vec<f64> = xs.iter().map(|x| 1.0 / (x - c)).collect();
    let (mz, my) = (z.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let szz: f64 = z.iter().map(|z| (z - mz).powi(2)).sum();
    let szy: f64 = z.iter().zip(ys).map(|(z, y)| (z - mz) * (y - my)).sum();
    let b = if szz > 0.0 { szy / szz } else { 0.0 };
    let a = my - b * mz;
    let sse = z.iter().zip(ys).map(|(z, y)| (y - a - b * z).powi(2)).sum();
    Hyperbola { a, b, c, sse }
}

/// Least-squares fit of y = a + b/(x - c) with the pole below the data
/// (c < min x, as in both of the thesis's fits): c = min x - e^s, s scanned
/// on a grid over [-12, 8] and refined by golden section. Needs at least 4
/// points with distinct x.
pub fn fit_hyperbola(xs: &[f64], ys: &[f64]) -> Result<Hyperbola, String> {
    if xs.len() != ys.len() || xs.len() < 4 {
        return Err("the hyperbola fit needs at least 4 (x, y) points".into());
    }
    if xs.iter().chain(ys).any(|v| !v.is_finite()) {
        return Err("the hyperbola fit needs finite points".into());
    }
    let x0 = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let at = |s: f64| linear(xs, ys, x0 - s.exp());
    let (lo, hi, steps) = (-12.0, 8.0, 2000);
    let h = (hi - lo) / steps as f64;
    let best = (0..=steps)
        .map(|i| lo + h * i as f64)
        .min_by(|&a, &b| at(a).sse.total_cmp(&at(b).sse))
        .unwrap();
    let (mut a, mut b) = (best - h, best + h);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if at(c).sse < at(d).sse {
            b = d;
        } else {
            a = c;
        }
    }
    Ok(at(0.5 * (a + b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const XS: [f64; 9] = [0.8, 1.2, 1.6, 2.0, 2.4, 4.0, 6.0, 8.0, 10.0];

    #[test]
    fn thesis_fits_at_40_gbps() {
        // Note §11 item 13.
        assert!((THESIS_U_B10.eval(40.0) - 0.7034).abs() < 5e-5);
        assert!((THESIS_LOG_PB_B10.eval(40.0) + 3.7145382).abs() < 1e-7);
    }

    #[test]
    fn recovers_the_thesis_fit_from_noiseless_points() {
        for f in [THESIS_U_B10, THESIS_LOG_PB_B10] {
            let ys: Vec<f64> = XS.iter().map(|&x| f.eval(x)).collect();
            let h = fit_hyperbola(&XS, &ys).unwrap();
            assert!((h.a - f.a).abs() < 1e-6, "{h:?}");
            assert!((h.b / f.b - 1.0).abs() < 1e-5, "{h:?}");
            assert!((h.c - f.c).abs() < 1e-5, "{h:?}");
        }
    }
}
