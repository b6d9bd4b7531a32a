//! dropless's packet-level discrete-event simulator.
//!
//! The senders and receivers are the real sans-IO endpoints of
//! `dropless-transport` driven by the same controllers that run over UDP;
//! this crate adds only links, queues, topologies, traffic and measurement.
//! Runs are seeded and bit-for-bit deterministic.

#![warn(missing_docs)]

pub mod config;
pub mod engine;
pub mod metrics;
mod queue;
mod traffic;

pub use config::{
    Buffer, CrossKind, CrossSpec, FlowSpec, LinkSpec, QueueKind, SimConfig, Topology,
};
pub use engine::{derive_seed, SimError, Simulation};
pub use metrics::{jain, FlowResult, FlowSeries, LinkResult, LinkSeries, Series, SimResult};
