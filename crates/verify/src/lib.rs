//! Self-checking experiment files: `dropless verify`.
//!
//! An experiment file is a scenario (`docs/scenario-format.md`) plus
//! verification tables: what the paper expects, from where, within what
//! tolerance, and how to measure it (`docs/verify.md`). This crate reads
//! them ([`spec`]), runs every experiment ([`run`]) with the simulator,
//! evaluates the expectations in a small expression language ([`expr`])
//! over the runs' measures ([`measure`]) and closed-form models
//! ([`functions`]), and writes the report ([`report`]).

#![warn(missing_docs)]

pub mod expr;
pub mod functions;
pub mod measure;
pub mod records;
pub mod report;
pub mod run;
pub mod spec;

pub use run::{verify, FileResult, Options, Outcome, Verdict};
pub use spec::Scale;
