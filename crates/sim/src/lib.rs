//! dropless's packet-level discrete-event simulator.
//!
//! The senders and receivers are the real sans-IO endpoints of
//! `dropless-transport` driven by the same controllers that run over UDP;
//! this crate adds only links, queues, topologies, traffic and measurement.
//! Runs are seeded and bit-for-bit deterministic.

#![warn(missing_docs)]

pub mod codel;
pub mod config;
pub mod engine;
pub mod interarrival;
pub mod link_price;
pub mod loss_events;
pub mod maxnet_price;
pub mod metrics;
pub mod path_report;
pub mod pie;
pub mod price_interval;
mod queue;
pub mod rcp_price;
pub mod red;
pub mod rem;
pub mod step_mark;
pub mod ties;
mod traffic;
pub mod trunk;

pub use config::{
    Buffer, CrossKind, CrossSpec, FlowSpec, LinkSpec, QueueKind, SimConfig, Ties, Topology,
};
pub use engine::{derive_seed, SimError, Simulation};
pub use interarrival::InterarrivalResult;
pub use loss_events::{analyze as analyze_losses, window_stats, LossAnalysis, LossOptions};
pub use metrics::{jain, FlowResult, FlowSeries, LinkResult, LinkSeries, Series, SimResult};
pub use path_report::{path_report, path_reports, path_series, PathReport, PathSeries};
