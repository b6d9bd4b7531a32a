//! The in-process interface of the Python package (`python/`): the same
//! loading, checking, running, output writing and sweeping as the command
//! line, returning data instead of printing it.
//!
//! Every error is a [`Failure`] carrying the command line's one-line message.

use std::path::{Path, PathBuf};

use dropless_scenario::Scenario;

use crate::{output, run, sweep, Failure, RunArgs, SeriesFormat, QUICKSTART, QUICKSTART_LABEL};

/// Where a scenario comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The built-in quick start (`scenarios/quickstart.toml`).
    Quickstart,
    /// A scenario file.
    Path(&'a Path),
    /// Scenario text; `label` names it in messages and summary.json.
    Text {
        /// The TOML text.
        text: &'a str,
        /// How messages name it.
        label: &'a str,
    },
}

/// Reads and checks a scenario with `--set` style overrides (`KEY=VALUE`).
pub fn load(src: Source<'_>, sets: &[String]) -> Result<Scenario, Failure> {
    match src {
        Source::Quickstart => run::load(None, sets),
        Source::Path(p) => run::load(Some(p), sets),
        Source::Text { text, label } => dropless_scenario::from_str(text, label, sets)
            .map_err(|e| Failure::Input(e.to_string())),
    }
}

/// Checks a scenario completely, building its simulation (controllers
/// included) without running it, as `dropless check` does.
pub fn check(s: &Scenario) -> Result<(), Failure> {
    s.simulation()
        .map(drop)
        .map_err(|e| Failure::Input(e.to_string()))
}

/// One column of a table.
#[derive(Debug, Clone)]
pub enum Column {
    /// Floating-point values (`NaN` is missing).
    Float(Vec<f64>),
    /// Whole numbers.
    Int(Vec<i64>),
    /// Unsigned whole numbers (seeds).
    UInt(Vec<u64>),
    /// Text.
    Str(Vec<String>),
}

/// A table: named columns of equal length.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column names.
    pub names: Vec<String>,
    /// The columns, in the order of `names`.
    pub columns: Vec<Column>,
}

impl Table {
    fn push(&mut self, name: &str, c: Column) {
        self.names.push(name.to_string());
        self.columns.push(c);
    }
}

fn from_columns(c: &output::Columns) -> Table {
    let mut t = Table::default();
    for ((name, col), int) in c.names.iter().zip(&c.cols).zip(&c.int_cols) {
        let col = if *int {
            Column::Int(col.iter().map(|x| *x as i64).collect())
        } else {
            Column::Float(col.clone())
        };
        t.push(name, col);
    }
    t
}

/// What a run produced.
#[derive(Debug)]
pub struct RunOutput {
    /// summary.json's text.
    pub summary_json: String,
    /// flows.csv as a table: one row per sample and flow.
    pub flows: Table,
    /// links.csv as a table: one row per sample and link.
    pub links: Table,
    /// events.csv as a table: one row per congestion event.
    pub events: Table,
    /// The output directory, when one was written.
    pub out: Option<PathBuf>,
    /// The files written there.
    pub files: Vec<String>,
}

/// How [`run`] writes its output.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Write the output directory here (as `dropless run --out`); none: nothing is written.
    pub out: Option<PathBuf>,
    /// Replace `out` if it holds an earlier run's output.
    pub force: bool,
    /// Draw the PNG/SVG plots into `out`.
    pub plots: bool,
    /// Write report.html into `out`.
    pub html: bool,
}

fn events_table(r: &dropless_sim::SimResult) -> Table {
    let (mut flow, mut t, mut cause, mut rto, mut cwnd, mut lost) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for f in &r.flows {
        for e in &f.events {
            flow.push(f.id as i64);
            t.push(e.time as f64 / 1e9);
            cause.push(
                match e.cause {
                    dropless_cc::CongestionCause::Loss => "loss",
                    dropless_cc::CongestionCause::Ecn => "ecn",
                }
                .to_string(),
            );
            rto.push(i64::from(e.rto));
            cwnd.push(e.cwnd);
            lost.push(e.lost as i64);
        }
    }
    let mut tab = Table::default();
    tab.push("flow", Column::Int(flow));
    tab.push("t_s", Column::Float(t));
    tab.push("cause", Column::Str(cause));
    tab.push("rto", Column::Int(rto));
    tab.push("cwnd_pkts", Column::Float(cwnd));
    tab.push("lost", Column::Int(lost));
    tab
}

/// Runs a scenario in this thread (no progress bar, nothing printed).
pub fn run(s: &Scenario, o: &RunOptions) -> Result<RunOutput, Failure> {
    run_until_stopped(s, o, &crate::interrupt::cancelled)
}

/// [`run`], asking `stop` between chunks of the simulation (about every
/// tenth of a second, [`crate::interrupt`]): when it says so, the run ends
/// with [`Failure::Interrupted`] and writes nothing.
pub fn run_until_stopped(
    s: &Scenario,
    o: &RunOptions,
    stop: &dyn Fn() -> bool,
) -> Result<RunOutput, Failure> {
    run::memory_check(s)?;
    let sim = s.simulation().map_err(|e| Failure::Input(e.to_string()))?;
    if let Some(dir) = &o.out {
        run::preflight(dir, o.force)?;
    }
    let (result, wall) = run::simulate(sim, s.config.duration, false, stop)
        .map_err(|i| Failure::Interrupted(i.message(&format!("the run of {}", s.file))))?;
    let mut files = Vec::new();
    if let Some(dir) = &o.out {
        let args = RunArgs {
            scenario: None,
            out: Some(dir.clone()),
            set: Vec::new(),
            force: o.force,
            series: SeriesFormat::Auto,
            no_plots: !o.plots,
            quiet: true,
            no_progress: true,
            html: o.html,
        };
        let tmp = run::temp_sibling(dir, "tmp");
        std::fs::create_dir(&tmp).map_err(|e| run::cannot_write(dir, e))?;
        match output::write_all(&tmp, s, &result, wall, &args) {
            Ok(f) => files = f,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(run::cannot_write(dir, e));
            }
        }
        if let Err(e) = run::replace_dir(&tmp, dir) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(run::cannot_write(dir, e));
        }
        if o.html {
            crate::report::write_report(dir).map_err(Failure::Run)?;
            files.push("report.html".into());
        }
    }
    let summary = output::summary(s, &result, wall, &files);
    let summary_json =
        serde_json::to_string(&summary).map_err(|e| Failure::Run(format!("summary.json: {e}")))?;
    Ok(RunOutput {
        summary_json,
        flows: from_columns(&output::flow_table(&result)),
        links: from_columns(&output::link_table(&result)),
        events: events_table(&result),
        out: o.out.clone(),
        files,
    })
}

/// A controller of the registry, as `dropless list controllers` shows it.
#[derive(Debug, Clone)]
pub struct ControllerInfo {
    /// Its `cc = "..."` name.
    pub name: String,
    /// One line on what it is.
    pub help: String,
    /// Parameters: name, default, meaning.
    pub params: Vec<(String, f64, String)>,
}

/// Every congestion controller with its parameters and defaults.
pub fn controllers() -> Vec<ControllerInfo> {
    dropless_cc::registry::all()
        .iter()
        .map(|c| ControllerInfo {
            name: c.name.to_string(),
            help: c.help.to_string(),
            params: c
                .params
                .iter()
                .map(|p| (p.name.to_string(), p.default, p.help.to_string()))
                .collect(),
        })
        .collect()
}

/// The built-in quick-start scenario's text.
pub fn quickstart_text() -> (&'static str, &'static str) {
    (QUICKSTART, QUICKSTART_LABEL)
}

/// A checked grid (`dropless sweep GRID`), self-contained: it can be sent to
/// another process or machine as [`Sweep::to_json`] and every run planned
/// and run there.
pub struct Sweep(sweep::Grid);

impl Sweep {
    /// Reads and checks a grid file.
    pub fn load(path: &Path) -> Result<Sweep, Failure> {
        sweep::Grid::load(path).map(Sweep)
    }

    /// A grid given as TOML text (a grid without a file, such as Python's
    /// grid dict): `label` names it in messages, and its scenario path is
    /// relative to `base`, which messages call "the current directory".
    pub fn from_text(text: &str, label: &str, base: &Path) -> Result<Sweep, Failure> {
        sweep::Grid::from_text(
            text.to_string(),
            label.to_string(),
            base,
            "the current directory",
        )
        .map(Sweep)
    }

    /// Number of runs.
    pub fn runs(&self) -> usize {
        self.0.runs()
    }

    /// Plans every run, so that a bad value stops the sweep before anything runs.
    pub fn check(&self) -> Result<(), Failure> {
        sweep::plan(&self.0).map(drop)
    }

    /// The grid as JSON, for [`Sweep::from_json`] in a worker.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).expect("a grid serializes")
    }

    /// A grid sent by [`Sweep::to_json`].
    pub fn from_json(s: &str) -> Result<Sweep, Failure> {
        serde_json::from_str(s)
            .map(Sweep)
            .map_err(|e| Failure::Input(format!("not a dropless sweep grid: {e}")))
    }

    /// The default output directory for a grid file: out/sweep-STEM.
    pub fn default_dir(grid: &Path) -> PathBuf {
        sweep::default_dir(grid)
    }

    /// Checks that `dir` may be written (replaced only with `force`, and
    /// only if it holds an earlier sweep's output).
    pub fn check_dir(dir: &Path, force: bool) -> Result<(), Failure> {
        sweep::check_dir(dir, force)
    }

    /// Plans and runs run `i`; its result rows, encoded exactly.
    pub fn run_one(&self, i: usize) -> Result<Vec<u8>, Failure> {
        sweep::run_one(&self.0, i)
    }

    /// Writes results.csv, results.parquet and grid.toml into `dir` (all or
    /// nothing) from every run's encoded result (run `i` at index `i`), and
    /// returns the results table. The bytes are those `dropless sweep`
    /// writes for the same grid.
    pub fn write(&self, results: &[Vec<u8>], dir: &Path) -> Result<Table, Failure> {
        let cols = sweep::write_encoded(&self.0, results, dir)?;
        let mut t = Table::default();
        for c in cols {
            let col = match c.data {
                sweep::Data::Int(v) => Column::Int(v),
                sweep::Data::UInt(v) => Column::UInt(v),
                sweep::Data::Float(v) => Column::Float(v),
                sweep::Data::Str(v) => Column::Str(v),
            };
            t.push(&c.name, col);
        }
        Ok(t)
    }
}
