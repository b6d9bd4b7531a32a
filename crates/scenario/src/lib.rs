//! Scenario files for the dropless simulator.
//!
//! A scenario is one small TOML file: a name, a duration, a seed, a
//! `[topology]`, one or more `[[flows]]` and optional `[[cross_traffic]]`.
//! This crate reads it, applies `--set KEY=VALUE` overrides, checks every
//! field (units, ranges, names, sizes that would exhaust memory) and builds
//! the simulator's [`SimConfig`]. Every problem comes back as one
//! [`ScenarioError`] naming the file, the field path, what was found and what
//! is allowed. The format is documented in `docs/scenario-format.md`.
//!
//! ```
//! let text = r#"
//!     name = "demo"
//!     duration = "2s"
//!     [topology]
//!     kind = "dumbbell"
//!     bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "1bdp" }
//!     [[flows]]
//!     cc = "newreno"
//!     count = 2
//! "#;
//! let s = dropless_scenario::from_str(text, "demo.toml", &["duration=1s".to_string()]).unwrap();
//! assert_eq!(s.config.flows.len(), 2);
//! assert_eq!(s.config.duration, 1_000_000_000);
//! let e = dropless_scenario::from_str(text, "demo.toml", &["flows[0].rtt=20 parsecs".to_string()]).unwrap_err();
//! assert!(e.to_string().starts_with("demo.toml: flows[0].rtt: found \"20 parsecs\", expected a time"));
//! ```

#![warn(missing_docs)]
// A scenario error is built at most once per run and carries the whole
// message (file, path, found, expected, hint); boxing it would only make the
// public fields clumsier to use.
#![allow(clippy::result_large_err)]

pub mod catalog;
pub mod error;
pub mod overrides;
mod schema;
pub mod units;

use std::path::Path;

use dropless_cc::Time;
use dropless_sim::{SimConfig, SimError, Simulation};
use toml::Table;

pub use error::{did_you_mean, ScenarioError};
pub use overrides::Override;
pub use schema::{
    AUTO_FLOW_SERIES, MAX_BDP_PKTS, MAX_BUFFER_PKTS, MAX_FLOWS, MAX_RATE_BPS, MAX_SERIES_VALUES,
};

/// Largest scenario file read, bytes.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A checked scenario, ready to simulate.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `name` from the file.
    pub name: String,
    /// `description` from the file.
    pub description: Option<String>,
    /// The file as named on the command line.
    pub file: String,
    /// The simulator's input.
    pub config: SimConfig,
    /// One entry per simulated flow (after `count` expansion).
    pub flows: Vec<FlowInfo>,
    /// One entry per shared link.
    pub links: Vec<LinkInfo>,
    /// The `--set` overrides applied.
    pub overrides: Vec<Override>,
    /// The scenario after overrides, as TOML.
    pub effective_toml: String,
}

/// Where a simulated flow came from.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowInfo {
    /// Index of its `[[flows]]` entry.
    pub entry: usize,
    /// Name in plots and tables.
    pub label: String,
}

/// A shared link as the file described it.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkInfo {
    /// Field path (`topology.bottleneck`, `topology.links[1]`).
    pub path: String,
    /// One-way propagation delay.
    pub delay: Time,
    /// The buffer as written (`"1bdp"`).
    pub buffer_text: String,
    /// Buffer limit in packets, if limited in packets.
    pub buffer_pkts: Option<u64>,
    /// Buffer limit in bytes, if limited in bytes.
    pub buffer_bytes: Option<u64>,
    /// Bandwidth-delay product in packets (rate x `bdp_rtt` / wire size).
    pub bdp_pkts: f64,
    /// The RTT the BDP is computed with.
    pub bdp_rtt: Time,
    /// Packet size (bytes on the wire) the BDP is counted in.
    pub wire_size: u32,
}

/// Reads and checks a scenario file, applying `sets` (`KEY=VALUE`) first.
pub fn load(path: &Path, sets: &[String]) -> Result<Scenario, ScenarioError> {
    let label = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| {
        ScenarioError::file(&label, format!("cannot read the file: {}", io_reason(&e)))
    })?;
    if meta.is_dir() {
        return Err(ScenarioError::file(
            &label,
            "cannot read the file: it is a directory, expected a .toml scenario file",
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ScenarioError::file(
            &label,
            format!(
                "cannot read the file: {} bytes, expected a scenario file of at most {MAX_FILE_BYTES} bytes",
                meta.len()
            ),
        ));
    }
    // The size the file system reports is not a bound (a device such as
    // /dev/zero reports 0 and never ends): read at most one byte more than
    // allowed.
    let mut bytes = Vec::new();
    {
        use std::io::Read;
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| {
                ScenarioError::file(&label, format!("cannot read the file: {}", io_reason(&e)))
            })?;
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ScenarioError::file(
            &label,
            format!(
                "cannot read the file: more than {MAX_FILE_BYTES} bytes, expected a scenario file of at most {MAX_FILE_BYTES} bytes"
            ),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        ScenarioError::file(
            &label,
            format!(
                "cannot read the file: not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    from_str(&text, &label, sets)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// Checks a scenario given as text; `file` names it in errors.
pub fn from_str(text: &str, file: &str, sets: &[String]) -> Result<Scenario, ScenarioError> {
    let mut root: Table = text.parse().map_err(|e: toml::de::Error| {
        let msg = e.message().trim().replace('\n', "; ");
        match e.span() {
            Some(span) => {
                let (line, col) = line_col(text, span.start);
                ScenarioError::file(
                    file,
                    format!("line {line}, column {col}: not valid TOML: {msg}"),
                )
            }
            None => ScenarioError::file(file, format!("not valid TOML: {msg}")),
        }
    })?;
    let applied = overrides::apply(&mut root, sets)?;
    let effective = toml::to_string(&root).unwrap_or_default();
    let ctx = schema::Ctx {
        file,
        overrides: &applied,
    };
    schema::build(&ctx, &root, applied.clone(), effective)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl Scenario {
    /// Builds the simulation (this also builds every controller). Errors name
    /// the scenario's `[[flows]]` entry, not the expanded flow index.
    pub fn simulation(&self) -> Result<Simulation, ScenarioError> {
        Simulation::new(self.config.clone()).map_err(|e| self.map_sim_error(e))
    }

    fn map_sim_error(&self, e: SimError) -> ScenarioError {
        let mut field = e.field.clone();
        if let Some(rest) = field.strip_prefix("flows[") {
            if let Some((idx, tail)) = rest.split_once(']') {
                if let Some(info) = idx.parse::<usize>().ok().and_then(|i| self.flows.get(i)) {
                    field = format!("flows[{}]{tail}", info.entry);
                }
            }
        }
        if let (Some(rest), [one]) = (
            field.strip_prefix("topology.links[0]"),
            self.links.as_slice(),
        ) {
            if one.path == "topology.bottleneck" {
                field = format!("topology.bottleneck{rest}");
            }
        }
        ScenarioError::new(&self.file, field, None, e.message)
    }

    /// Number of `[[flows]]` entries.
    pub fn entries(&self) -> usize {
        self.flows.last().map_or(0, |f| f.entry + 1)
    }
}
