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
//! Units follow the thesis: windows, alpha and queues in packets, rates and
//! capacities in packets per second, delays in seconds.

#![warn(missing_docs)]

pub mod buffer;
pub mod fast;
pub mod marking;
pub mod red_equilibrium;
