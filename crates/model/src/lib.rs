//! Closed-form and numerically solved models that dropless checks its
//! simulations against.
//!
//! * [`fast`]: the equilibria of FAST TCP and of the thesis's "prose" Vegas
//!   (Cui, seed 003, chapter 4 and appendix C): persistent congestion, the
//!   two-flow closed forms, new flows joining N flows that know the true
//!   propagation delay, the four-phase start's drain time, and
//!   alpha-adjusting's recovery law. [`fast::cli`] renders them as tables or
//!   JSON for `dropless model fast ...`.
//!
//! * [`buffer`]: the thesis's chapter 3, buffer sizing for core DWDM
//!   switches: the rule (3.23)/(3.24) and the rules it is compared with,
//!   Tables 3.1-3.4, the open-loop loss models (G1DM, EBD, EBI, EB,
//!   M/M/K/(K+B), the detailed model) and the closed loop with Mathis's
//!   law. [`buffer::cli`] renders them for `dropless model buffer|loss|closed-loop|tables`.
//!
//! Units follow the thesis: windows, alpha and queues in packets, rates and
//! capacities in packets per second, delays in seconds.

#![warn(missing_docs)]

pub mod buffer;
pub mod fast;
pub mod marking;
mod options;
pub mod red_equilibrium;
pub mod results_table;
