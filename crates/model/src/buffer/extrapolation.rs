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

/// The search range of s = ln(min x - c) in [`fit_hyperbola`].
const S_LO: f64 = -12.0;
const S_HI: f64 = 8.0;

/// Least-squares fit of y = a + b/(x - c) with the pole below the data
/// (c < min x, as in both of the thesis's fits): c = min x - e^s, s scanned
/// on a grid over [-12, 8] and refined by golden section. Needs at least 4
/// points with distinct x (3 parameters and one degree of freedom for the
/// standard error). The fit has not converged, and is refused, when the best
/// pole lies at an end of the range: at the data (the pole touches the
/// smallest x) or e^8 below it (the curve is a straight line over the data,
/// and the hyperbola's a, b, c are not determined).
pub fn fit_hyperbola(xs: &[f64], ys: &[f64]) -> Result<Hyperbola, String> {
    let (h, s) = search(xs, ys)?;
    let step = (S_HI - S_LO) / 2000.0;
    if s < S_LO + step || s > S_HI - step {
        let x0 = xs.iter().copied().fold(f64::INFINITY, f64::min);
        return Err(format!(
            "the hyperbola fit did not converge: the best pole c = {:.6e} lies at the end of its range (c < min x = {x0}, min x - c in [e^{S_LO}, e^{S_HI}]){}",
            h.c,
            if s > 0.0 {
                "; the points lie on a sloped straight line, which does not extrapolate"
            } else {
                "; the pole runs into the data"
            }
        ));
    }
    Ok(h)
}

/// The grid-and-golden-section search of [`fit_hyperbola`]: the best fit
/// and its s = ln(min x - c), without the convergence test.
fn search(xs: &[f64], ys: &[f64]) -> Result<(Hyperbola, f64), String> {
    if xs.len() != ys.len() || xs.len() < 4 {
        return Err("the hyperbola fit needs at least 4 (x, y) points".into());
    }
    if xs.iter().chain(ys).any(|v| !v.is_finite()) {
        return Err("the hyperbola fit needs finite points".into());
    }
    let x0 = xs.iter().copied().fold(f64::INFINITY, f64::min);
    if xs.iter().filter(|&&x| x != x0).count() == 0 {
        return Err("the hyperbola fit needs at least 2 distinct x".into());
    }
    let at = |s: f64| linear(xs, ys, x0 - s.exp());
    let (lo, hi, steps) = (S_LO, S_HI, 2000);
    let h = (hi - lo) / steps as f64;
    let best = (0..=steps)
        .map(|i| lo + h * i as f64)
        .min_by(|&a, &b| at(a).sse.total_cmp(&at(b).sse))
        .unwrap();
    let (mut a, mut b) = ((best - h).max(lo), (best + h).min(hi));
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if at(c).sse < at(d).sse {
            b = d;
        } else {
            a = c;
        }
    }
    let s = 0.5 * (a + b);
    Ok((at(s), s))
}

/// Which curve the extrapolation used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// y = a + b/(x - c).
    Hyperbola,
    /// y = a: the thesis's "straight line" for points that are flat
    /// (Figs 3.6 and 3.8, L2161-2163, L2257-2259).
    Flat,
}

impl Shape {
    /// "hyperbola" or "flat".
    pub fn name(self) -> &'static str {
        match self {
            Shape::Hyperbola => "hyperbola",
            Shape::Flat => "flat",
        }
    }
}

/// How to choose the curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Flat unless the hyperbola fits significantly better (F-test at 5 %).
    Auto,
    /// Always the hyperbola.
    Hyperbola,
    /// Always the flat line.
    Flat,
}

impl Choice {
    /// Parses auto, hyperbola or flat.
    pub fn parse(s: &str) -> Result<Choice, String> {
        match s {
            "auto" => Ok(Choice::Auto),
            "hyperbola" => Ok(Choice::Hyperbola),
            "flat" => Ok(Choice::Flat),
            _ => Err(format!(
                "unknown fit \"{s}\" (allowed: auto, hyperbola, flat)"
            )),
        }
    }
}

/// A fit chosen and evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The curve used.
    pub shape: Shape,
    /// y = a + b/(x - c); for the flat line b = c = 0 and y = a.
    pub curve: Hyperbola,
    /// Points fitted.
    pub n: usize,
    /// Standard error of the fit, sqrt(SSE / (n - p)) with p = 3 parameters
    /// for the hyperbola and 1 for the flat line (the thesis's "standard
    /// error", L2171).
    pub std_err: f64,
    /// Correlation of the fitted with the measured y (NaN for the flat
    /// line, which has no variation).
    pub r: f64,
    /// F statistic of the hyperbola against the flat line (NaN when not
    /// computed: fewer than 4 points, or points all equal).
    pub f_stat: f64,
    /// Its 5 % critical value, F(2, n - 3).
    pub f_crit: f64,
}

impl Fit {
    /// y at x.
    pub fn eval(&self, x: f64) -> f64 {
        match self.shape {
            Shape::Hyperbola => self.curve.eval(x),
            Shape::Flat => self.curve.a,
        }
    }
}

/// The 5 % critical value of F with (2, d) degrees of freedom: for d1 = 2
/// the tail is P(F > f) = (1 + 2f/d)^(-d/2) exactly, so
/// f = (d/2)(0.05^(-2/d) - 1).
pub fn f_crit_2(d: f64) -> f64 {
    0.5 * d * (0.05f64.powf(-2.0 / d) - 1.0)
}

/// The extrapolation method's fit (thesis §3.3, L2107-2119, L2161-2173;
/// note §3.4 step 3): least squares of y = a + b/(x - c), or a flat line
/// where the points "form a straight line" (B = 2, Figs 3.6/3.8). `Auto`
/// decides as a nested-model F-test: the hyperbola is used only when its two
/// extra parameters lower the residual sum of squares significantly,
/// F = ((SSE_flat - SSE_hyp)/2) / (SSE_hyp/(n - 3)) > F_0.95(2, n - 3);
/// otherwise the points are flat within their scatter and the flat line
/// (their mean) is the fit. At least 3 points; the hyperbola (and `Auto`)
/// needs 4.
pub fn fit(xs: &[f64], ys: &[f64], choice: Choice) -> Result<Fit, String> {
    let n = xs.len();
    if n != ys.len() {
        return Err(format!("{n} x values but {} y values", ys.len()));
    }
    if n < 3 {
        return Err(format!("the fit needs at least 3 points, found {n}"));
    }
    if let Some(v) = xs.iter().chain(ys).find(|v| !v.is_finite()) {
        return Err(format!("the fit needs finite values, found {v}"));
    }
    let mean = ys.iter().sum::<f64>() / n as f64;
    let sse_flat: f64 = ys.iter().map(|y| (y - mean).powi(2)).sum();
    let flat = Fit {
        shape: Shape::Flat,
        curve: Hyperbola {
            a: mean,
            b: 0.0,
            c: 0.0,
            sse: sse_flat,
        },
        n,
        std_err: (sse_flat / (n - 1) as f64).sqrt(),
        r: f64::NAN,
        f_stat: f64::NAN,
        f_crit: f64::NAN,
    };
    if choice == Choice::Flat {
        return Ok(flat);
    }
    if n < 4 {
        return Err(format!(
            "the hyperbola needs at least 4 points (3 parameters and one degree of freedom), found {n}; --fit flat takes 3"
        ));
    }
    let d = (n - 3) as f64;
    let f_crit = f_crit_2(d);
    if sse_flat == 0.0 {
        // All points equal: flat, whatever was asked for the hyperbola.
        if choice == Choice::Auto {
            return Ok(Fit { f_crit, ..flat });
        }
    }
    // The F-test uses the best fit found even when it lies at the end of
    // the pole's range; a fit at the end is used only if the test says flat.
    let (best, _) = search(xs, ys)?;
    let f_stat = if best.sse > 0.0 {
        ((sse_flat - best.sse) / 2.0) / (best.sse / d)
    } else {
        f64::INFINITY
    };
    if choice == Choice::Auto && f_stat <= f_crit {
        return Ok(Fit {
            f_stat,
            f_crit,
            ..flat
        });
    }
    let h = fit_hyperbola(xs, ys)?;
    let fitted: Vec<f64> = xs.iter().map(|&x| h.eval(x)).collect();
    Ok(Fit {
        shape: Shape::Hyperbola,
        curve: h,
        n,
        std_err: (h.sse / d).sqrt(),
        r: correlation(ys, &fitted),
        f_stat,
        f_crit,
    })
}

fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let sab: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let saa: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let sbb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    sab / (saa * sbb).sqrt()
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

    #[test]
    fn auto_recovers_a_known_hyperbola_and_evaluates_it() {
        // Note §11 item 13: noiseless samples of the thesis's B = 10 fit.
        let ys: Vec<f64> = XS.iter().map(|&x| THESIS_U_B10.eval(x)).collect();
        let f = fit(&XS, &ys, Choice::Auto).unwrap();
        assert_eq!(f.shape, Shape::Hyperbola);
        assert!((f.curve.a - 0.7022).abs() < 1e-6, "{f:?}");
        assert!((f.curve.c - 0.125893).abs() < 1e-5, "{f:?}");
        assert!((f.eval(40.0) - 0.7034).abs() < 5e-5);
        assert!(f.std_err < 1e-6 && f.r > 0.999_999);
    }

    #[test]
    fn auto_takes_the_flat_line_for_flat_points() {
        // Scatter of +-0.004 about 0.317 with no trend: flat (Fig 3.6).
        let noise = [
            0.003, -0.004, 0.001, 0.002, -0.003, 0.004, -0.001, -0.002, 0.0,
        ];
        let ys: Vec<f64> = noise.iter().map(|e| 0.317 + e).collect();
        let f = fit(&XS, &ys, Choice::Auto).unwrap();
        assert_eq!(f.shape, Shape::Flat, "{f:?}");
        assert!((f.eval(40.0) - 0.317).abs() < 1e-9);
        assert!(f.f_stat <= f.f_crit);
        // Equal points: flat, with no F statistic.
        let f = fit(&XS, &[0.5; 9], Choice::Auto).unwrap();
        assert_eq!((f.shape, f.eval(40.0)), (Shape::Flat, 0.5));
    }

    #[test]
    fn the_f_critical_value() {
        // F_0.95(2, 6) = 5.143, F_0.95(2, 1) = 199.5; -> -ln 0.05 as d grows.
        assert!((f_crit_2(6.0) - 5.1433).abs() < 1e-3);
        assert!((f_crit_2(1.0) - 199.5).abs() < 1e-9);
        assert!((f_crit_2(1e7) - 0.05f64.ln().abs()).abs() < 1e-5);
    }

    #[test]
    fn refuses_bad_input_and_failed_fits() {
        let e = fit(&[1.0, 2.0], &[1.0, 2.0], Choice::Auto).unwrap_err();
        assert!(e.contains("at least 3 points, found 2"), "{e}");
        let e = fit(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], Choice::Auto).unwrap_err();
        assert!(e.contains("at least 4 points"), "{e}");
        assert!(fit(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], Choice::Flat).is_ok());
        let e = fit(
            &[1.0, 2.0, 3.0, 4.0],
            &[1.0, f64::NAN, 3.0, 4.0],
            Choice::Auto,
        )
        .unwrap_err();
        assert!(e.contains("finite"), "{e}");
        // A sloped straight line: the hyperbola's pole runs off; no number.
        let ys: Vec<f64> = XS.iter().map(|x| 0.5 + 0.01 * x).collect();
        let e = fit(&XS, &ys, Choice::Auto).unwrap_err();
        assert!(e.contains("did not converge"), "{e}");
        assert!(Choice::parse("line")
            .unwrap_err()
            .contains("auto, hyperbola, flat"));
    }
}
