//! Controllers by name, with their parameters, for scenario files and
//! command lines.
//!
//! ```
//! use dropless_cc::{registry, ConnInfo};
//! let cc = registry::build("fast", &[("alpha".to_string(), 200.0)], &ConnInfo::default()).unwrap();
//! assert_eq!(cc.name(), "fast");
//! assert!(registry::build("fats", &[], &ConnInfo::default()).is_err());
//! ```
//!
//! Every window-based controller accepts the common parameters
//! `initial_cwnd`, `initial_ssthresh`, `rto_cwnd` and `paced` (0/1: wrap in
//! [`crate::paced::Paced`]). Booleans are given as 0 or 1. When a parameter
//! appears more than once, the last value wins.

use std::fmt;

use crate::bic::{Bic, BicConfig};
use crate::cubic::{Cubic, CubicConfig};
use crate::fast::{Fast, FastConfig};
use crate::highspeed::HighSpeed;
use crate::newreno::{NewReno, WindowParams};
use crate::paced::Paced;
use crate::scalable::{Scalable, ScalableConfig};
use crate::vegas::{Vegas, VegasConfig, VegasForm};
use crate::{ConnInfo, Controller};

/// One tunable parameter of a controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// Name as written in scenario files.
    pub name: &'static str,
    /// Value used when the parameter is not given.
    pub default: f64,
    /// One-line description with units.
    pub help: &'static str,
}

/// A controller known to the registry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcSpec {
    /// Name as written in scenario files.
    pub name: &'static str,
    /// One-line description.
    pub help: &'static str,
    /// Accepted parameters.
    pub params: &'static [ParamSpec],
}

impl CcSpec {
    /// The parameter called `name`, if this controller has one.
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Names of all accepted parameters.
    pub fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|p| p.name).collect()
    }
}

/// Why [`build`] failed.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// No controller has this name.
    UnknownController {
        /// The name asked for.
        name: String,
        /// All known names.
        known: Vec<&'static str>,
    },
    /// The controller has no parameter of this name.
    UnknownParam {
        /// Controller name.
        controller: &'static str,
        /// The parameter given.
        param: String,
        /// The parameters the controller accepts.
        allowed: Vec<&'static str>,
    },
    /// A parameter value is out of range.
    BadValue {
        /// Controller name.
        controller: &'static str,
        /// Parameter name.
        param: String,
        /// The value given (or defaulted).
        value: f64,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::UnknownController { name, known } => write!(
                f,
                "unknown congestion controller \"{name}\"; known controllers: {}",
                known.join(", ")
            ),
            BuildError::UnknownParam {
                controller,
                param,
                allowed,
            } => write!(
                f,
                "congestion controller \"{controller}\" has no parameter \"{param}\"; allowed parameters: {}",
                allowed.join(", ")
            ),
            BuildError::BadValue {
                controller,
                param,
                value,
                reason,
            } => write!(f, "bad value {value} for parameter \"{param}\" of congestion controller \"{controller}\": {reason}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Parameter lists: the common window parameters, then the controller's own.
macro_rules! params {
    (rto_cwnd = $rto:expr; $($n:literal = $d:expr, $h:literal;)*) => {
        &[
            ParamSpec { name: "initial_cwnd", default: 10.0, help: "initial congestion window, packets (RFC 6928: 10)" },
            ParamSpec { name: "initial_ssthresh", default: f64::INFINITY, help: "initial slow-start threshold, packets (inf: none)" },
            ParamSpec { name: "rto_cwnd", default: $rto, help: "window after a retransmission timeout, packets" },
            ParamSpec { name: "paced", default: 0.0, help: "1: pace the window evenly over an RTT (rate = cwnd * wire_size / srtt); 0: ACK clocked" },
            $(ParamSpec { name: $n, default: $d, help: $h },)*
        ]
    };
}

static SPECS: &[CcSpec] = &[
    CcSpec {
        name: "newreno",
        help: "TCP NewReno window rules (RFC 5681 / RFC 6582)",
        params: params!(rto_cwnd = 1.0;),
    },
    CcSpec {
        name: "highspeed",
        help: "HighSpeed TCP (RFC 3649): a(w)/b(w) response above 38 packets",
        params: params!(rto_cwnd = 1.0;),
    },
    CcSpec {
        name: "scalable",
        help: "Scalable TCP (Kelly 2003): +a per ACK, -b*cwnd per event above the legacy window",
        params: params!(rto_cwnd = 1.0;
            "a" = 0.01, "increase per acknowledged packet, packets";
            "b" = 0.125, "multiplicative decrease fraction, in (0,1)";
            "legacy_window" = 16.0, "Reno rules at or below this window, packets";
        ),
    },
    CcSpec {
        name: "bic",
        help: "BIC TCP (Xu et al. 2004): binary search increase and max probing",
        params: params!(rto_cwnd = 1.0;
            "beta" = 0.125, "multiplicative decrease fraction (window becomes (1-beta) cwnd), in (0,1)";
            "s_max" = 32.0, "largest increase per RTT, packets";
            "s_min" = 0.01, "smallest increase per RTT, packets";
            "low_window" = 14.0, "Reno rules at or below this window, packets";
            "fast_convergence" = 1.0, "1: fast convergence on loss below W_max";
        ),
    },
    CcSpec {
        name: "cubic",
        help: "CUBIC (RFC 9438)",
        params: params!(rto_cwnd = 1.0;
            "c" = 0.4, "cubic scaling constant C, packets/s^3";
            "beta" = 0.7, "window multiplier on congestion beta_cubic, in (0,1)";
            "fast_convergence" = 1.0, "1: fast convergence (RFC 9438 section 4.7)";
            "reno_friendly" = 1.0, "1: Reno-friendly region (RFC 9438 section 4.3)";
        ),
    },
    CcSpec {
        name: "vegas",
        help: "TCP Vegas, per-RTT packet form (ns-2 thresholds in packets)",
        params: params!(rto_cwnd = 1.0;
            "alpha" = 1.0, "grow by 1 packet per RTT while diff < alpha, packets";
            "beta" = 3.0, "shrink by 1 packet per RTT while diff > beta, packets (>= alpha)";
            "gamma" = 1.0, "leave slow start once diff >= gamma, packets";
            "slow_start" = 1.0, "1: Vegas slow start (doubling every other RTT)";
        ),
    },
    CcSpec {
        name: "vegas-rate",
        help: "TCP Vegas, the thesis's prose/rate form (thresholds in packets per second)",
        params: params!(rto_cwnd = 1.0;
            "alpha_plus" = 250.0, "grow by 1 packet per RTT while w/d - w/D < alpha_plus, packets/s";
            "beta_plus" = 0.0, "shrink by 1 packet per RTT while w/d - w/D > beta_plus, packets/s (0: alpha_plus + 25)";
            "gamma_plus" = 0.0, "leave slow start once w/d - w/D >= gamma_plus, packets/s (0: alpha_plus)";
            "slow_start" = 1.0, "1: Vegas slow start (doubling every other RTT)";
        ),
    },
    CcSpec {
        name: "fast",
        help: "FAST TCP, as the ns-2 module of the thesis (Cui and Andrew)",
        params: params!(rto_cwnd = 2.0;
            "alpha" = 100.0, "packets each flow keeps queued";
            "beta" = 0.0, "upper edge of the update dead zone, packets (0: equal to alpha, no dead zone)";
            "gamma" = 0.5, "smoothing gain, in (0,1]";
            "update_period" = 0.01, "minimum time between window updates, seconds";
            "mi_threshold" = 0.00075, "queueing delay below which the window grows by 1 per ACK, seconds (0: pure FAST)";
            "slow_start" = 0.0, "1: slow start until the backlog reaches alpha (the ns-2 module has none)";
            "every_other_rtt" = 1.0, "1: update only every other RTT (module default)";
        ),
    },
];

/// All controllers the registry can build.
pub fn all() -> &'static [CcSpec] {
    SPECS
}

/// The controller called `name`.
pub fn find(name: &str) -> Option<&'static CcSpec> {
    SPECS.iter().find(|s| s.name == name)
}

/// Parameter values for one build: given ones override defaults.
struct Values<'a> {
    spec: &'static CcSpec,
    given: &'a [(String, f64)],
}

impl Values<'_> {
    fn raw(&self, name: &'static str) -> f64 {
        if let Some((_, v)) = self.given.iter().rev().find(|(k, _)| k == name) {
            return *v;
        }
        self.spec
            .param(name)
            .map(|p| p.default)
            .expect("parameter listed in the spec")
    }

    fn bad(&self, name: &str, value: f64, reason: impl Into<String>) -> BuildError {
        BuildError::BadValue {
            controller: self.spec.name,
            param: name.to_string(),
            value,
            reason: reason.into(),
        }
    }

    /// A finite value satisfying `ok`.
    fn check(
        &self,
        name: &'static str,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, BuildError> {
        let v = self.raw(name);
        if v.is_finite() && ok(v) {
            Ok(v)
        } else {
            Err(self.bad(name, v, format!("must be {what}")))
        }
    }

    fn positive(&self, name: &'static str) -> Result<f64, BuildError> {
        self.check(name, |v| v > 0.0, "a finite number > 0")
    }

    fn non_negative(&self, name: &'static str) -> Result<f64, BuildError> {
        self.check(name, |v| v >= 0.0, "a finite number >= 0")
    }

    fn fraction(&self, name: &'static str) -> Result<f64, BuildError> {
        self.check(name, |v| v > 0.0 && v < 1.0, "strictly between 0 and 1")
    }

    fn boolean(&self, name: &'static str) -> Result<bool, BuildError> {
        let v = self.raw(name);
        if v == 0.0 || v == 1.0 {
            Ok(v == 1.0)
        } else {
            Err(self.bad(name, v, "must be 0 or 1"))
        }
    }

    fn window(&self) -> Result<WindowParams, BuildError> {
        let initial_cwnd = self.check(
            "initial_cwnd",
            |v| v >= 1.0,
            "a finite number >= 1 (packets)",
        )?;
        let ss = self.raw("initial_ssthresh");
        if ss.is_nan() || ss <= 0.0 {
            return Err(self.bad(
                "initial_ssthresh",
                ss,
                "must be > 0 (packets; inf for none)",
            ));
        }
        let rto_cwnd = self.check("rto_cwnd", |v| v >= 1.0, "a finite number >= 1 (packets)")?;
        Ok(WindowParams {
            initial_cwnd,
            initial_ssthresh: ss,
            rto_cwnd,
        })
    }

    /// `value >= floor` where `floor` is another parameter's value.
    fn at_least(
        &self,
        name: &'static str,
        v: f64,
        floor_name: &str,
        floor: f64,
    ) -> Result<f64, BuildError> {
        if v.is_finite() && v >= floor {
            Ok(v)
        } else {
            Err(self.bad(name, v, format!("must be >= {floor_name} ({floor})")))
        }
    }
}

/// Builds the controller `name` with the given parameter overrides for the
/// connection `info`.
pub fn build(
    name: &str,
    params: &[(String, f64)],
    info: &ConnInfo,
) -> Result<Box<dyn Controller>, BuildError> {
    let spec = find(name).ok_or_else(|| BuildError::UnknownController {
        name: name.to_string(),
        known: SPECS.iter().map(|s| s.name).collect(),
    })?;
    for (k, _) in params {
        if spec.param(k).is_none() {
            return Err(BuildError::UnknownParam {
                controller: spec.name,
                param: k.clone(),
                allowed: spec.param_names(),
            });
        }
    }
    let v = Values {
        spec,
        given: params,
    };
    let window = v.window()?;
    let paced = v.boolean("paced")?;

    let cc: Box<dyn Controller> = match spec.name {
        "newreno" => Box::new(NewReno::new(window)),
        "highspeed" => Box::new(HighSpeed::new(window)),
        "scalable" => Box::new(Scalable::new(ScalableConfig {
            window,
            a: v.positive("a")?,
            b: v.fraction("b")?,
            legacy_window: v.non_negative("legacy_window")?,
        })),
        "bic" => {
            let s_min = v.positive("s_min")?;
            let s_max = v.positive("s_max")?;
            let s_max = v.at_least("s_max", s_max, "s_min", s_min)?;
            Box::new(Bic::new(BicConfig {
                window,
                beta: v.fraction("beta")?,
                s_max,
                s_min,
                low_window: v.non_negative("low_window")?,
                fast_convergence: v.boolean("fast_convergence")?,
            }))
        }
        "cubic" => Box::new(Cubic::new(CubicConfig {
            window,
            c: v.positive("c")?,
            beta: v.fraction("beta")?,
            fast_convergence: v.boolean("fast_convergence")?,
            reno_friendly: v.boolean("reno_friendly")?,
        })),
        "vegas" => {
            let alpha = v.positive("alpha")?;
            let beta = v.raw("beta");
            let beta = v.at_least("beta", beta, "alpha", alpha)?;
            Box::new(Vegas::new(VegasConfig {
                window,
                form: VegasForm::Packets,
                alpha,
                beta,
                gamma: v.positive("gamma")?,
                slow_start: v.boolean("slow_start")?,
            }))
        }
        "vegas-rate" => {
            let alpha = v.positive("alpha_plus")?;
            let beta = v.non_negative("beta_plus")?;
            // thesis §4.3.3: beta+ = alpha+ + 25 pkt/s.
            let beta = if beta == 0.0 { alpha + 25.0 } else { beta };
            let beta = v.at_least("beta_plus", beta, "alpha_plus", alpha)?;
            let gamma = v.non_negative("gamma_plus")?;
            Box::new(Vegas::new(VegasConfig {
                window,
                form: VegasForm::Rate,
                alpha,
                beta,
                gamma: if gamma == 0.0 { alpha } else { gamma },
                slow_start: v.boolean("slow_start")?,
            }))
        }
        "fast" => {
            let alpha = v.positive("alpha")?;
            let beta = v.non_negative("beta")?;
            let beta = if beta == 0.0 { alpha } else { beta };
            let beta = v.at_least("beta", beta, "alpha", alpha)?;
            Box::new(Fast::new(FastConfig {
                window,
                alpha,
                beta,
                gamma: v.check("gamma", |g| g > 0.0 && g <= 1.0, "in (0, 1]")?,
                update_period: v.non_negative("update_period")?,
                mi_threshold: v.non_negative("mi_threshold")?,
                slow_start: v.boolean("slow_start")?,
                every_other_rtt: v.boolean("every_other_rtt")?,
            }))
        }
        other => unreachable!("registry spec {other} has no constructor"),
    };
    Ok(if paced {
        Box::new(Paced::new(cc, info.wire_size))
    } else {
        cc
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newreno::testkit::*;

    fn p(k: &str, v: f64) -> (String, f64) {
        (k.to_string(), v)
    }

    #[test]
    fn every_spec_builds_with_defaults_and_names_match() {
        let names: Vec<_> = all().iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "newreno",
                "highspeed",
                "scalable",
                "bic",
                "cubic",
                "vegas",
                "vegas-rate",
                "fast"
            ]
        );
        for s in all() {
            let c = build(s.name, &[], &ConnInfo::default()).unwrap();
            assert_eq!(c.name(), s.name);
            assert_eq!(c.control().cwnd, Some(10.0));
            assert_eq!(c.control().pacing_rate, None);
            for common in ["initial_cwnd", "initial_ssthresh", "rto_cwnd", "paced"] {
                assert!(s.param(common).is_some(), "{} lacks {common}", s.name);
            }
        }
        assert!(find("fast").is_some());
        assert!(find("reno").is_none());
    }

    #[test]
    fn parameters_reach_the_controller() {
        let c = build("newreno", &[p("initial_cwnd", 4.0)], &ConnInfo::default()).unwrap();
        assert_eq!(c.control().cwnd, Some(4.0));
        // Last value wins.
        let c = build(
            "cubic",
            &[p("initial_cwnd", 4.0), p("initial_cwnd", 7.0)],
            &ConnInfo::default(),
        )
        .unwrap();
        assert_eq!(c.control().cwnd, Some(7.0));
        // FAST's RTO window defaults to 2, NewReno's to 1.
        let mut c = build("fast", &[p("alpha", 200.0)], &ConnInfo::default()).unwrap();
        let mut v = Vec::new();
        c.trace_vars(&mut v);
        assert_eq!(v[0], ("alpha", 200.0));
        c.on_rto(1);
        assert_eq!(c.control().cwnd, Some(2.0));
        let mut c = build("newreno", &[], &ConnInfo::default()).unwrap();
        c.on_rto(1);
        assert_eq!(c.control().cwnd, Some(1.0));
        // Scalable's b reaches the decrease.
        let mut c = build(
            "scalable",
            &[p("b", 0.5), p("initial_cwnd", 100.0)],
            &ConnInfo::default(),
        )
        .unwrap();
        c.on_congestion_event(1, &loss(100));
        assert_eq!(c.control().cwnd, Some(50.0));
    }

    #[test]
    fn paced_wraps() {
        let info = ConnInfo {
            wire_size: 1000,
            ..ConnInfo::default()
        };
        let mut c = build("bic", &[p("paced", 1.0)], &info).unwrap();
        assert_eq!(c.name(), "bic");
        c.on_ack(1, &ack(RTT100, 1));
        // cwnd 11 over 0.1 s of 1000-byte packets.
        assert!((c.control().pacing_rate.unwrap() - 110_000.0).abs() < 1e-6);
    }

    #[test]
    fn errors_are_specific() {
        let info = ConnInfo::default();
        let e = build("fats", &[], &info).err().unwrap();
        assert!(matches!(e, BuildError::UnknownController { .. }));
        let msg = e.to_string();
        assert!(
            msg.contains("\"fats\"") && msg.contains("newreno") && msg.contains("vegas-rate"),
            "{msg}"
        );

        let e = build("fast", &[p("alhpa", 1.0)], &info).err().unwrap();
        let msg = e.to_string();
        assert!(matches!(
            e,
            BuildError::UnknownParam {
                controller: "fast",
                ..
            }
        ));
        assert!(
            msg.contains("alhpa") && msg.contains("alpha") && msg.contains("mi_threshold"),
            "{msg}"
        );

        for (name, params) in [
            ("fast", vec![p("alpha", 0.0)]),
            ("fast", vec![p("gamma", 1.5)]),
            ("fast", vec![p("gamma", 0.0)]),
            ("fast", vec![p("alpha", 200.0), p("beta", 100.0)]),
            ("fast", vec![p("slow_start", 0.5)]),
            ("newreno", vec![p("paced", 2.0)]),
            ("newreno", vec![p("initial_cwnd", 0.0)]),
            ("newreno", vec![p("initial_ssthresh", f64::NAN)]),
            ("cubic", vec![p("beta", 1.0)]),
            ("bic", vec![p("s_min", 4.0), p("s_max", 2.0)]),
            ("vegas", vec![p("alpha", 5.0)]),
            ("vegas-rate", vec![p("alpha_plus", -1.0)]),
            ("scalable", vec![p("a", f64::INFINITY)]),
        ] {
            let e = build(name, &params, &info).err();
            assert!(
                matches!(e, Some(BuildError::BadValue { .. })),
                "{name} {params:?} -> {e:?}"
            );
        }
        let e = build("fast", &[p("gamma", 1.5)], &info).err().unwrap();
        assert_eq!(
            e.to_string(),
            "bad value 1.5 for parameter \"gamma\" of congestion controller \"fast\": must be in (0, 1]"
        );
        let e = build("vegas", &[p("alpha", 5.0)], &info).err().unwrap();
        assert!(e.to_string().contains("must be >= alpha (5)"), "{e}");
        // Valid edge cases.
        assert!(build("fast", &[p("gamma", 1.0), p("mi_threshold", 0.0)], &info).is_ok());
        assert!(build("newreno", &[p("initial_ssthresh", f64::INFINITY)], &info).is_ok());
        assert!(build("vegas-rate", &[p("alpha_plus", 2475.0)], &info).is_ok());
    }
}
