//! Buffer sizing for TCP over core DWDM switches: the analytic half of the
//! thesis's chapter 3 (Cui, seed 003; reference note
//! `thesis_ch3_buffer_sizing.md`).
//!
//! * [`chain`]: the one-dimensional birth-death chain and the fixed-point
//!   bisection shared by the open-loop models; [`Trunk`] (M, K, B).
//! * [`g1dm`]: the General One-Dimensional Model (§3.6.2).
//! * [`special_cases`]: EBD, EBI, EB and M/M/K/(K+B) (§3.6.4).
//! * [`overload`]: the overload approximations (3.16)-(3.18).
//! * [`detailed`]: the detailed per-port model (§3.6.1): exact for B = 0,
//!   Monte Carlo otherwise.
//! * [`closed_loop`]: Mathis's law meets an open-loop model (§3.7).
//! * [`rules`]: the thesis's rule (3.23)/(3.24), the single-link rule
//!   (3.27), BDP, BDP/sqrt(N) (Appenzeller's erf rule), Enachescu's
//!   O(log W) and the full-utilization condition B > mu max RTT.
//! * [`tables`]: Tables 3.1-3.4 regenerated.
//! * [`extrapolation`]: the least-squares hyperbola of the extrapolation
//!   method (§3.3).
//! * [`cli`]: `dropless model buffer|loss|closed-loop|tables|extrapolate`;
//!   [`extrapolate_cmd`] reads a sweep's results for `extrapolate`.
//!
//! Units: in the models time is measured in mean packet times (mu = 1);
//! link rates in the rules and the closed loop are in packets/s (1040-byte
//! packets, note §1.4), delays in seconds, buffers in packets.

pub mod chain;
pub mod cli;
pub mod closed_loop;
pub mod detailed;
pub mod extrapolate_cmd;
pub mod extrapolation;
pub mod g1dm;
pub mod math;
pub mod overload;
pub mod rules;
pub mod special_cases;
pub mod tables;

pub use chain::Trunk;

/// The five open-loop loss models (thesis §3.6, L3040-3050), in decreasing
/// fidelity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// General One-Dimensional Model (§3.6.2).
    G1dm,
    /// Engset with buffer and discarding ports.
    Ebd,
    /// Engset with buffer and inserting ports.
    Ebi,
    /// Engset with buffer.
    Eb,
    /// M/M/K/(K+B).
    Mmkkb,
}

impl Model {
    /// All five, in the thesis's order.
    pub const ALL: [Model; 5] = [Model::G1dm, Model::Ebd, Model::Ebi, Model::Eb, Model::Mmkkb];

    /// Short name: g1dm, ebd, ebi, eb, mmkkb.
    pub fn name(self) -> &'static str {
        match self {
            Model::G1dm => "g1dm",
            Model::Ebd => "ebd",
            Model::Ebi => "ebi",
            Model::Eb => "eb",
            Model::Mmkkb => "mmkkb",
        }
    }

    /// Parses a short name (case-insensitive; "m/m/k/k+b" too).
    pub fn parse(s: &str) -> Result<Model, String> {
        match s.to_ascii_lowercase().as_str() {
            "g1dm" => Ok(Model::G1dm),
            "ebd" => Ok(Model::Ebd),
            "ebi" => Ok(Model::Ebi),
            "eb" => Ok(Model::Eb),
            "mmkkb" | "m/m/k/k+b" | "m/m/k/(k+b)" => Ok(Model::Mmkkb),
            _ => Err(format!(
                "unknown model \"{s}\" (allowed: g1dm, ebd, ebi, eb, mmkkb)"
            )),
        }
    }

    /// Whether PB enters the model's own arrival rates (a fixed point).
    pub fn is_fixed_point(self) -> bool {
        matches!(self, Model::G1dm | Model::Ebd)
    }

    /// Arrival rate in state i (units of mu) at 1/lambda `inv_lambda` and
    /// loss guess `pb` (ignored by the single-pass models).
    pub fn arrival_rate(self, t: Trunk, inv_lambda: f64, pb: f64, i: usize) -> f64 {
        match self {
            Model::G1dm => g1dm::arrival_rate(t, inv_lambda, pb, i),
            Model::Ebd => special_cases::ebd_rate(t, inv_lambda, pb, i),
            Model::Ebi => special_cases::ebi_rate(t, inv_lambda, i),
            Model::Eb => special_cases::eb_rate(t, inv_lambda, i),
            Model::Mmkkb => special_cases::mmkkb_rate(t, inv_lambda),
        }
    }

    /// One pass of the model's chain.
    pub fn pass(self, t: Trunk, inv_lambda: f64, pb: f64) -> Result<chain::Pass, String> {
        chain::pass(t, |i| self.arrival_rate(t, inv_lambda, pb, i))
    }
}

/// An open-loop result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loss {
    /// The model.
    pub model: Model,
    /// Packet loss probability PB.
    pub pb: f64,
    /// Normalized intended load rho (3.14).
    pub rho: f64,
    /// lambda/mu.
    pub lambda: f64,
    /// rho (1 - PB), the thesis's utilization (L2079, eq. (3.3)).
    pub utilization: f64,
    /// sum_i min(i,K) p_i / K, the carried utilization (note §7 caveat: the
    /// physically meaningful one when arrivals fall short of the intended
    /// load).
    pub carried: f64,
}

impl Loss {
    fn new(model: Model, t: Trunk, inv_lambda: f64, p: chain::Pass) -> Loss {
        let rho = t.rho(inv_lambda);
        Loss {
            model,
            pb: p.pb,
            rho,
            lambda: 1.0 / inv_lambda,
            utilization: rho * (1.0 - p.pb),
            carried: p.carried,
        }
    }
}

/// The loss of `model` for trunk `t` at normalized load `rho`.
pub fn open_loop(model: Model, t: Trunk, rho: f64) -> Result<Loss, String> {
    match model {
        Model::G1dm => g1dm::loss(t, rho),
        Model::Ebd => special_cases::ebd(t, rho),
        Model::Ebi => special_cases::ebi(t, rho),
        Model::Eb => special_cases::eb(t, rho),
        Model::Mmkkb => special_cases::mmkkb(t, rho),
    }
}

#[cfg(test)]
mod tests;
