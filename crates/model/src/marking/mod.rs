//! Congestion signalling by packet marking, thesis chapter 5 (Cui, seed
//! 003; `../shared/reference/thesis_ch5_adpm.md`): the schemes' routers and
//! decoders, the price mappings, and a Monte Carlo study of the estimators
//! alone ([`study`]; `dropless model marking`, [`cli`]).
//!
//! * [`probe`]: IPid to probe type (bit reversal and the byte-order maps),
//!   the probe sequences.
//! * [`adpm`]: Adaptive Deterministic Packet Marking.
//! * [`rem`], [`ram`]: the probabilistic schemes.
//! * [`tpm`], [`rpm`]: the deterministic binary and equality schemes.
//! * [`mapping`]: MaxNet's and RCP's prices in [0, 1].

pub use dropless_cc::adpm;
pub mod cli;
pub use dropless_cc::price_map as mapping;
pub mod probe;
pub mod ram;
pub mod rem;
pub mod rpm;
pub mod study;
pub mod tpm;
