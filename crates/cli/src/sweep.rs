//! `dropless sweep GRID`: a grid of scenario variants run across all cores,
//! gathered into one table (`results.csv` and `results.parquet`).
//!
//! A grid file names a scenario and, for some `--set` keys, lists of values.
//! The sweep runs the Cartesian product of those lists, each point `repeats`
//! times. Run `i` (numbered with the last key varying fastest, then the
//! repeat) is seeded with `derive_seed(grid seed, i)`, so its result does not
//! depend on `--jobs` or on which thread ran it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use dropless_scenario::Scenario;
use dropless_sim::derive_seed;
use toml::{Table, Value};

use crate::run::{replace_dir, temp_sibling, writable};
use crate::Failure;

/// Help shown after `dropless sweep --help`.
pub const SWEEP_HELP: &str = "\
GRID is a TOML file:
  scenario = \"../scenarios/quickstart.toml\"   # relative to the grid file
  repeats = 2                                  # runs per grid point (default 1)
  seed = 7                                     # grid seed (default: the scenario's)
  [set]                                        # --set key = list of values
  \"flows[*].cc\" = [\"newreno\", \"cubic\"]
  \"topology.bottleneck.buffer\" = [\"0.25bdp\", \"1bdp\"]

Runs the Cartesian product of the [set] lists (keys in sorted order, the last
varying fastest) times `repeats`, on --jobs threads. Run i is seeded with
derive_seed(grid seed, i): results do not depend on --jobs.

Output (in DIR, default out/sweep-NAME where NAME is the grid file's stem):
  results.csv, results.parquet   one row per run per flow: run, repeat, seed,
                                 one column per [set] key, flow results, the
                                 run's bottleneck utilization and Jain index
  grid.toml, scenario.toml       the grid file as given, its scenario path
                                 naming the copy of the scenario beside it:
                                 dropless sweep DIR/grid.toml runs it again
DIR is built in a temporary sibling and renamed into place when every run is
done; an existing DIR is replaced only with --force (or if it is the default
out/sweep-NAME) and only if it holds a results.csv.

--ray runs the sweep on Ray through the Python package (pip install ./python
ray): each run is a Ray task on a local cluster started for the sweep, or on the
cluster at ADDRESS. The results are the same bytes as a local sweep's; a run
whose worker dies is retried (3 times), then reported by run number, and
nothing is written under DIR.

--html also writes report.html (a self-contained page: sortable table, a chart
per swept key; `dropless report DIR` makes it later).

Examples:
  dropless sweep grids/buffers.toml
  dropless sweep grids/buffers.toml --jobs 1 --out out/buffers --force
  dropless sweep grids/buffers.toml --ray                 a local Ray cluster
  dropless sweep grids/buffers.toml --ray ray://head:10001 --html";

/// Arguments of `dropless sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Grid file (TOML)
    #[arg(value_name = "GRID")]
    pub grid: PathBuf,
    /// Output directory [default: out/sweep-NAME]
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Parallel runs [default: all cores]
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub jobs: Option<u32>,
    /// Replace DIR if it exists (only an earlier sweep's output)
    #[arg(short, long)]
    pub force: bool,
    /// Do not print the per-run table
    #[arg(short, long)]
    pub quiet: bool,
    /// Run on Ray through the Python package: a local Ray cluster, or the
    /// one at ADDRESS (e.g. ray://head:10001 or auto)
    #[arg(long, value_name = "ADDRESS", num_args = 0..=1, default_missing_value = "")]
    pub ray: Option<String>,
    /// Also write report.html (a self-contained page) into DIR
    #[arg(long)]
    pub html: bool,
}

/// The results table's own columns: a `[set]` key may not take their names.
const RESERVED: [&str; 17] = [
    "run",
    "repeat",
    "seed",
    "flow",
    "cc",
    "rtt_s",
    "goodput_bps",
    "throughput_bps",
    "loss_per_10k",
    "mean_rtt_s",
    "packets_sent",
    "packets_lost",
    "utilization",
    "jain",
    "run_data_packets",
    "run_events",
    "wall_s",
];

/// Most runs one grid may expand to.
pub const MAX_RUNS: usize = 100_000;

/// A checked grid file, self-contained (it carries the scenario's text), so
/// that a worker on another machine can plan and run any of its runs.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Grid {
    /// The grid file as named on the command line.
    file: String,
    /// The scenario path (resolved against the grid file's directory).
    scenario: PathBuf,
    /// Runs per grid point.
    repeats: usize,
    /// Grid seed, if the grid sets one.
    seed: Option<u64>,
    /// `--set` keys, sorted.
    keys: Vec<String>,
    /// Values of each key.
    values: Vec<Vec<String>>,
    /// The grid text.
    text: String,
    /// The scenario file's text.
    scenario_text: String,
}

fn bad(file: &str, field: &str, msg: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{file}: {field}: {msg}"))
}

fn found(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Array(_) => "a list".into(),
        Value::Table(_) => "a table".into(),
        other => other.to_string(),
    }
}

impl Grid {
    pub(crate) fn load(path: &Path) -> Result<Grid, Failure> {
        let file = path.display().to_string();
        let meta = std::fs::metadata(path)
            .map_err(|e| Failure::Input(format!("{file}: cannot read the grid file: {e}")))?;
        if meta.is_dir() || meta.len() > dropless_scenario::MAX_FILE_BYTES {
            return Err(Failure::Input(format!(
                "{file}: cannot read the grid file: expected a .toml file of at most {} bytes",
                dropless_scenario::MAX_FILE_BYTES
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::Input(format!("{file}: cannot read the grid file: {e}")))?;
        Grid::from_text(
            text,
            file,
            path.parent().unwrap_or(Path::new("")),
            "the grid file",
        )
    }

    /// A grid from its text: `file` names it in messages; its scenario path
    /// is relative to `base`, which messages call `base_name` ("the grid
    /// file", or "the current directory" for a grid that has no file).
    pub(crate) fn from_text(
        text: String,
        file: String,
        base: &Path,
        base_name: &str,
    ) -> Result<Grid, Failure> {
        let root: Table = text.parse().map_err(|e: toml::de::Error| {
            Failure::Input(format!(
                "{file}: not valid TOML: {}",
                e.message().trim().replace('\n', "; ")
            ))
        })?;
        const FIELDS: [&str; 4] = ["scenario", "repeats", "seed", "set"];
        for k in root.keys() {
            if !FIELDS.contains(&k.as_str()) {
                return Err(bad(
                    &file,
                    k,
                    format!("unknown field; expected one of {}", FIELDS.join(", ")),
                ));
            }
        }
        let (given, scenario) = match root.get("scenario") {
            Some(Value::String(s)) if !s.trim().is_empty() => (s.clone(), base.join(s)),
            Some(v) => {
                return Err(bad(
                    &file,
                    "scenario",
                    format!("found {}, expected the path of a scenario file", found(v)),
                ))
            }
            None => {
                return Err(bad(
                    &file,
                    "scenario",
                    format!("missing; expected scenario = \"path/to/scenario.toml\" (relative to {base_name})"),
                ))
            }
        };
        if !scenario.is_file() {
            return Err(bad(
                &file,
                "scenario",
                if Path::new(&given) == scenario {
                    format!(
                        "found \"{given}\", which is not a readable file; expected a path relative to {base_name}"
                    )
                } else {
                    format!(
                        "found \"{given}\" (\"{}\"), which is not a readable file; expected a path relative to {base_name}",
                        scenario.display()
                    )
                },
            ));
        }
        // Read (and check) the scenario once: every run parses this text.
        dropless_scenario::load(&scenario, &[])
            .map_err(|e| Failure::Input(format!("{file}: scenario: {e}")))?;
        let scenario_text = std::fs::read_to_string(&scenario).map_err(|e| {
            bad(
                &file,
                "scenario",
                format!("cannot read \"{}\": {e}", scenario.display()),
            )
        })?;
        let repeats = match root.get("repeats") {
            None => 1,
            Some(Value::Integer(n)) if (1..=MAX_RUNS as i64).contains(n) => *n as usize,
            Some(v) => {
                return Err(bad(
                    &file,
                    "repeats",
                    format!(
                        "found {}, expected a whole number from 1 to {MAX_RUNS}",
                        found(v)
                    ),
                ))
            }
        };
        let seed = match root.get("seed") {
            None => None,
            Some(Value::Integer(n)) if *n >= 0 => Some(*n as u64),
            Some(v) => {
                return Err(bad(
                    &file,
                    "seed",
                    format!("found {}, expected a whole number >= 0", found(v)),
                ))
            }
        };
        let mut keys = Vec::new();
        let mut values = Vec::new();
        match root.get("set") {
            None => {}
            Some(Value::Table(t)) => {
                for (k, v) in t {
                    let field = format!("set.\"{k}\"");
                    if k.contains('=') || k.trim().is_empty() {
                        return Err(bad(
                            &file,
                            &field,
                            "expected a --set key like flows[0].cc (without =VALUE)",
                        ));
                    }
                    let list = match v {
                        Value::Array(a) if a.is_empty() => {
                            return Err(bad(
                                &file,
                                &field,
                                "found an empty list, expected at least one value",
                            ))
                        }
                        Value::Array(a) => a,
                        other => {
                            return Err(bad(
                                &file,
                                &field,
                                format!(
                                    "found {}, expected a list of values like [\"a\", \"b\"]",
                                    found(other)
                                ),
                            ))
                        }
                    };
                    let mut vals = Vec::new();
                    for (j, x) in list.iter().enumerate() {
                        let s = match x {
                            Value::String(s) => s.clone(),
                            Value::Integer(i) => i.to_string(),
                            Value::Float(f) => f.to_string(),
                            Value::Boolean(b) => b.to_string(),
                            other => {
                                return Err(bad(
                                    &file,
                                    &format!("{field}[{j}]"),
                                    format!(
                                        "found {}, expected a string or a number",
                                        found(other)
                                    ),
                                ))
                            }
                        };
                        vals.push(s);
                    }
                    if RESERVED.contains(&k.as_str()) {
                        return Err(bad(
                            &file,
                            &field,
                            format!(
                                "\"{k}\" names a column of the results table itself ({}); every run's seed is derive_seed(seed, run): set the grid's seed, or repeats for more seeds",
                                RESERVED.join(", ")
                            ),
                        ));
                    }
                    keys.push(k.clone());
                    values.push(vals);
                }
            }
            Some(v) => {
                return Err(bad(
                    &file,
                    "set",
                    format!(
                        "found {}, expected a table [set] of key = [values]",
                        found(v)
                    ),
                ))
            }
        }
        let points = values
            .iter()
            .try_fold(1usize, |acc, v| acc.checked_mul(v.len()));
        match points.and_then(|p| p.checked_mul(repeats)) {
            Some(n) if n <= MAX_RUNS => {}
            _ => {
                return Err(bad(
                    &file,
                    "set",
                    format!("the grid expands to more than {MAX_RUNS} runs; expected fewer values or repeats"),
                ))
            }
        }
        Ok(Grid {
            file,
            scenario,
            repeats,
            seed,
            keys,
            values,
            text,
            scenario_text,
        })
    }

    /// Number of runs.
    pub(crate) fn runs(&self) -> usize {
        self.values.iter().map(Vec::len).product::<usize>() * self.repeats
    }

    /// Value index of each key and the repeat number of run `i`.
    fn point(&self, i: usize) -> (Vec<usize>, usize) {
        let repeat = i % self.repeats;
        let mut c = i / self.repeats;
        let mut idx = vec![0; self.keys.len()];
        for k in (0..self.keys.len()).rev() {
            let n = self.values[k].len();
            idx[k] = c % n;
            c /= n;
        }
        (idx, repeat)
    }
}

/// One planned run.
pub(crate) struct Plan {
    repeat: usize,
    values: Vec<String>,
    scenario: Scenario,
}

/// Result rows of one run (one per flow). Floats travel as their bits, so
/// a run's rows decode to exactly what it computed (`NaN` included).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct RunRows {
    rows: Vec<FlowRow>,
    #[serde(with = "bits")]
    utilization: f64,
    #[serde(with = "bits")]
    jain: f64,
    data_packets: u64,
    events: u64,
    #[serde(with = "bits")]
    wall_s: f64,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct FlowRow {
    flow: usize,
    cc: String,
    #[serde(with = "bits")]
    rtt_s: f64,
    #[serde(with = "bits")]
    goodput_bps: f64,
    #[serde(with = "bits")]
    throughput_bps: f64,
    packets_sent: u64,
    packets_lost: u64,
    #[serde(with = "bits")]
    loss_per_10k: f64,
    #[serde(with = "bits")]
    mean_rtt_s: f64,
}

/// An `f64` encoded as its IEEE-754 bits (exact, `NaN` and infinities included).
mod bits {
    pub fn serialize<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(x.to_bits())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        <u64 as serde::Deserialize>::deserialize(d).map(f64::from_bits)
    }
}

/// Plans run `i`: the scenario with its `--set` values and derived seed.
fn plan_one(g: &Grid, i: usize) -> Result<Plan, Failure> {
    let (idx, repeat) = g.point(i);
    let values: Vec<String> = idx
        .iter()
        .enumerate()
        .map(|(k, &j)| g.values[k][j].clone())
        .collect();
    let sets: Vec<String> = g
        .keys
        .iter()
        .zip(&values)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let label = g.scenario.display().to_string();
    let mut s = dropless_scenario::from_str(&g.scenario_text, &label, &sets)
        .map_err(|e| Failure::Input(format!("{}: run {i} ({}): {e}", g.file, sets.join(", "))))?;
    let base = g.seed.unwrap_or(s.config.seed);
    s.config.seed = derive_seed(base, i as u64);
    Ok(Plan {
        repeat,
        values,
        scenario: s,
    })
}

/// Plans every run (a bad value stops the sweep before anything runs).
pub(crate) fn plan(g: &Grid) -> Result<Vec<Plan>, Failure> {
    (0..g.runs()).map(|i| plan_one(g, i)).collect()
}

/// Plans and runs run `i` alone (a Ray task): its rows, encoded.
pub(crate) fn run_one(g: &Grid, i: usize) -> Result<Vec<u8>, Failure> {
    if i >= g.runs() {
        return Err(Failure::Input(format!(
            "{}: run {i}: the grid has {} runs (0 to {})",
            g.file,
            g.runs(),
            g.runs().saturating_sub(1)
        )));
    }
    let p = plan_one(g, i)?;
    let r = execute(g, i, &p)?;
    serde_json::to_vec(&r).map_err(|e| Failure::Run(format!("run {i}: cannot encode: {e}")))
}

/// Decodes run `i`'s rows as [`run_one`] encoded them.
fn decode(g: &Grid, i: usize, bytes: &[u8]) -> Result<RunRows, Failure> {
    serde_json::from_slice(bytes).map_err(|e| {
        Failure::Run(format!(
            "{}: run {i}: the result received is not a dropless run result: {e}",
            g.file
        ))
    })
}

fn execute(g: &Grid, i: usize, p: &Plan) -> Result<RunRows, Failure> {
    let sim = p
        .scenario
        .simulation()
        .map_err(|e| Failure::Input(format!("{}: run {i}: {e}", g.file)))?;
    let (r, wall_s) = crate::interrupt::simulate(
        sim,
        p.scenario.config.duration,
        &crate::interrupt::cancelled,
        &mut |_, _, _| {},
    )
    .map_err(|e| Failure::Interrupted(e.message(&format!("{}: run {i}", g.file))))?;
    let rows = r
        .flows
        .iter()
        .map(|f| FlowRow {
            flow: f.id,
            cc: f.cc.clone(),
            rtt_s: f.rtt_s,
            goodput_bps: f.goodput_bps,
            throughput_bps: f.throughput_bps,
            packets_sent: f.packets_sent,
            packets_lost: f.packets_lost,
            loss_per_10k: f.loss_per_10k,
            mean_rtt_s: f.mean_rtt_s,
        })
        .collect();
    Ok(RunRows {
        rows,
        utilization: r.links.iter().map(|l| l.utilization).fold(0.0, f64::max),
        jain: r.jain_fairness,
        data_packets: r.data_packets,
        events: r.events,
        wall_s,
    })
}

/// Runs every plan on `jobs` threads; results in run order.
fn run_all(g: &Grid, plans: &[Plan], jobs: usize) -> Result<Vec<RunRows>, Failure> {
    let n = plans.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<RunRows, Failure>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|sc| {
        for _ in 0..jobs.min(n).max(1) {
            sc.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = execute(g, i, &plans[i]);
                if r.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Ok(rr) = &r {
                    eprintln!("  [{d}/{n}] run {i} done in {:.2} s", rr.wall_s);
                }
                slots.lock().expect("no panic while locked")[i] = Some(r);
            });
        }
    });
    let mut out = Vec::with_capacity(n);
    for r in slots.into_inner().expect("no panic while locked") {
        match r {
            Some(Ok(rr)) => out.push(rr),
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    if out.len() != n {
        return Err(Failure::Run("a run did not finish".into()));
    }
    Ok(out)
}

/// A typed column of the results table.
pub(crate) enum Data {
    Int(Vec<i64>),
    /// Unsigned 64-bit (seeds); Parquet INT64 annotated UINT_64.
    UInt(Vec<u64>),
    /// Floats; NaN or infinite is written as missing.
    Float(Vec<f64>),
    Str(Vec<String>),
}

/// A named column of the results table.
pub(crate) struct Column {
    pub(crate) name: String,
    pub(crate) data: Data,
}

fn table(g: &Grid, plans: &[Plan], res: &[RunRows]) -> Vec<Column> {
    let mut run = Vec::new();
    let mut repeat = Vec::new();
    let mut seed = Vec::new();
    let mut keys: Vec<Vec<String>> = vec![Vec::new(); g.keys.len()];
    let mut flow = Vec::new();
    let mut cc = Vec::new();
    let mut f: Vec<Vec<f64>> = vec![Vec::new(); 6];
    let mut ints: Vec<Vec<i64>> = vec![Vec::new(); 4];
    for (i, (p, r)) in plans.iter().zip(res).enumerate() {
        for row in &r.rows {
            run.push(i as i64);
            repeat.push(p.repeat as i64);
            seed.push(p.scenario.config.seed);
            for (k, v) in p.values.iter().enumerate() {
                keys[k].push(v.clone());
            }
            flow.push(row.flow as i64);
            cc.push(row.cc.clone());
            f[0].push(row.rtt_s);
            f[1].push(row.goodput_bps);
            f[2].push(row.throughput_bps);
            f[3].push(row.loss_per_10k);
            f[4].push(row.mean_rtt_s);
            f[5].push(r.utilization);
            ints[0].push(row.packets_sent as i64);
            ints[1].push(row.packets_lost as i64);
            ints[2].push(r.data_packets as i64);
            ints[3].push(r.events as i64);
            // Jain is per run; pushed below with utilization order kept simple.
        }
    }
    let jain: Vec<f64> = plans
        .iter()
        .zip(res)
        .flat_map(|(_, r)| std::iter::repeat_n(r.jain, r.rows.len()))
        .collect();
    let mut cols = vec![
        Column {
            name: "run".into(),
            data: Data::Int(run),
        },
        Column {
            name: "repeat".into(),
            data: Data::Int(repeat),
        },
        Column {
            name: "seed".into(),
            data: Data::UInt(seed),
        },
    ];
    for (k, v) in g.keys.iter().zip(keys) {
        cols.push(Column {
            name: k.clone(),
            data: Data::Str(v),
        });
    }
    let mut f = f.into_iter();
    let mut ints = ints.into_iter();
    let mut next_f = || Data::Float(f.next().expect("float column"));
    let mut next_i = || Data::Int(ints.next().expect("int column"));
    cols.push(Column {
        name: "flow".into(),
        data: Data::Int(flow),
    });
    cols.push(Column {
        name: "cc".into(),
        data: Data::Str(cc),
    });
    cols.push(Column {
        name: "rtt_s".into(),
        data: next_f(),
    });
    cols.push(Column {
        name: "goodput_bps".into(),
        data: next_f(),
    });
    cols.push(Column {
        name: "throughput_bps".into(),
        data: next_f(),
    });
    cols.push(Column {
        name: "loss_per_10k".into(),
        data: next_f(),
    });
    cols.push(Column {
        name: "mean_rtt_s".into(),
        data: next_f(),
    });
    cols.push(Column {
        name: "packets_sent".into(),
        data: next_i(),
    });
    cols.push(Column {
        name: "packets_lost".into(),
        data: next_i(),
    });
    cols.push(Column {
        name: "utilization".into(),
        data: next_f(),
    });
    cols.push(Column {
        name: "jain".into(),
        data: Data::Float(jain),
    });
    cols.push(Column {
        name: "run_data_packets".into(),
        data: next_i(),
    });
    cols.push(Column {
        name: "run_events".into(),
        data: next_i(),
    });
    cols
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_csv(path: &Path, cols: &[Column]) -> Result<(), String> {
    use std::io::Write;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let f = std::fs::File::create(path).map_err(err)?;
    let mut w = std::io::BufWriter::new(f);
    let names: Vec<String> = cols.iter().map(|c| csv_field(&c.name)).collect();
    writeln!(w, "{}", names.join(",")).map_err(err)?;
    let rows = cols.first().map_or(0, |c| match &c.data {
        Data::Int(v) => v.len(),
        _ => 0,
    });
    let mut line = String::new();
    for r in 0..rows {
        line.clear();
        for (k, c) in cols.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            match &c.data {
                Data::Int(v) => line.push_str(&v[r].to_string()),
                Data::UInt(v) => line.push_str(&v[r].to_string()),
                Data::Float(v) if v[r].is_finite() => line.push_str(&v[r].to_string()),
                Data::Float(_) => {}
                Data::Str(v) => line.push_str(&csv_field(&v[r])),
            }
        }
        line.push('\n');
        w.write_all(line.as_bytes()).map_err(err)?;
    }
    w.flush().map_err(err)
}

fn write_parquet(path: &Path, cols: &[Column]) -> Result<(), String> {
    use parquet::basic::{ConvertedType, Repetition, Type as Physical};
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::types::Type;
    use std::sync::Arc;

    let err = |e: parquet::errors::ParquetError| format!("{}: {e}", path.display());
    let mut fields = Vec::new();
    for c in cols {
        let (phys, conv, rep) = match c.data {
            Data::Int(_) => (Physical::INT64, ConvertedType::NONE, Repetition::REQUIRED),
            Data::UInt(_) => (
                Physical::INT64,
                ConvertedType::UINT_64,
                Repetition::REQUIRED,
            ),
            Data::Float(_) => (Physical::DOUBLE, ConvertedType::NONE, Repetition::OPTIONAL),
            Data::Str(_) => (
                Physical::BYTE_ARRAY,
                ConvertedType::UTF8,
                Repetition::REQUIRED,
            ),
        };
        let t = Type::primitive_type_builder(&c.name, phys)
            .with_converted_type(conv)
            .with_repetition(rep)
            .build()
            .map_err(err)?;
        fields.push(Arc::new(t));
    }
    let schema = Type::group_type_builder("results")
        .with_fields(fields)
        .build()
        .map_err(err)?;
    let props = WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = SerializedFileWriter::new(f, Arc::new(schema), Arc::new(props)).map_err(err)?;
    let mut rg = w.next_row_group().map_err(err)?;
    let mut k = 0;
    while let Some(mut col) = rg.next_column().map_err(err)? {
        match &cols[k].data {
            Data::Int(v) => {
                col.typed::<Int64Type>()
                    .write_batch(v, None, None)
                    .map_err(err)?;
            }
            Data::UInt(v) => {
                let v: Vec<i64> = v.iter().map(|x| *x as i64).collect();
                col.typed::<Int64Type>()
                    .write_batch(&v, None, None)
                    .map_err(err)?;
            }
            Data::Float(v) => {
                let defs: Vec<i16> = v.iter().map(|x| i16::from(x.is_finite())).collect();
                let vals: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
                col.typed::<DoubleType>()
                    .write_batch(&vals, Some(&defs), None)
                    .map_err(err)?;
            }
            Data::Str(v) => {
                let vals: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&vals, None, None)
                    .map_err(err)?;
            }
        }
        col.close().map_err(err)?;
        k += 1;
    }
    rg.close().map_err(err)?;
    w.close().map_err(err)?;
    Ok(())
}

fn cannot_write(dir: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Run(format!(
        "cannot write output directory \"{}\": {e}",
        dir.display()
    ))
}

/// Checks before running that `dir` may be created or replaced.
fn preflight(dir: &Path, force: bool) -> Result<(), Failure> {
    if dir.as_os_str().is_empty() || dir.file_name().is_none() {
        return Err(Failure::Input(format!(
            "output directory \"{}\": expected a directory path like out/sweep1",
            dir.display()
        )));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(m) if !m.is_dir() => Err(Failure::Input(format!(
            "output directory \"{}\" exists and is not a directory; choose another --out",
            dir.display()
        ))),
        Ok(_) if !force => Err(Failure::Input(format!(
            "output directory \"{}\" already exists; use --force to replace it or --out to choose another",
            dir.display()
        ))),
        Ok(_) => {
            let empty = std::fs::read_dir(dir)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false);
            if !empty && !dir.join("results.csv").is_file() {
                return Err(Failure::Input(format!(
                    "output directory \"{}\" exists and holds no results.csv, so it is not an earlier sweep's output; refusing to replace it, even with --force",
                    dir.display()
                )));
            }
            writable(dir)
        }
        Err(_) => writable(dir),
    }
}

/// The default output directory of a grid file: out/sweep-STEM.
pub(crate) fn default_dir(grid: &Path) -> PathBuf {
    let stem = grid
        .file_stem()
        .map_or("grid".into(), |s| s.to_string_lossy().into_owned());
    Path::new("out").join(format!("sweep-{stem}"))
}

/// The file name of the scenario's copy saved beside a sweep's results.
pub(crate) const SAVED_SCENARIO: &str = "scenario.toml";

impl Grid {
    /// The grid as saved beside its results (DIR/grid.toml): the text as
    /// given, comments kept, with `scenario` naming the scenario's copy
    /// saved beside it ([`SAVED_SCENARIO`]), so that `dropless sweep
    /// DIR/grid.toml` runs the same sweep again from any directory.
    fn saved_text(&self) -> String {
        let Ok(mut doc) = self.text.parse::<toml_edit::DocumentMut>() else {
            return self.text.clone(); // not reached: from_text parsed it
        };
        if let Some(v) = doc.get_mut("scenario").and_then(|i| i.as_value_mut()) {
            let decor = v.decor().clone();
            *v = SAVED_SCENARIO.into();
            *v.decor_mut() = decor;
        }
        doc.to_string()
    }
}

/// Writes results.csv, results.parquet, grid.toml and scenario.toml (see
/// [`Grid::saved_text`]) into `dir`: built in a
/// temporary sibling and renamed into place, so a failure leaves nothing
/// under the final name. Returns the results table.
pub(crate) fn write_results(
    g: &Grid,
    plans: &[Plan],
    res: &[RunRows],
    dir: &Path,
) -> Result<Vec<Column>, Failure> {
    let cols = table(g, plans, res);
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| cannot_write(dir, e))?;
    }
    let tmp = temp_sibling(dir, "tmp");
    std::fs::create_dir(&tmp).map_err(|e| cannot_write(dir, e))?;
    let written = write_csv(&tmp.join("results.csv"), &cols)
        .and_then(|()| write_parquet(&tmp.join("results.parquet"), &cols))
        .and_then(|()| {
            std::fs::write(tmp.join("grid.toml"), g.saved_text())
                .map_err(|e| format!("grid.toml: {e}"))
        })
        .and_then(|()| {
            std::fs::write(tmp.join(SAVED_SCENARIO), &g.scenario_text)
                .map_err(|e| format!("{SAVED_SCENARIO}: {e}"))
        });
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(cannot_write(dir, e));
    }
    if let Err(e) = replace_dir(&tmp, dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(cannot_write(dir, e));
    }
    Ok(cols)
}

/// Decodes the encoded results of every run (run `i` at index `i`) and
/// writes them as [`write_results`] does.
pub(crate) fn write_encoded(
    g: &Grid,
    encoded: &[Vec<u8>],
    dir: &Path,
) -> Result<Vec<Column>, Failure> {
    if encoded.len() != g.runs() {
        return Err(Failure::Run(format!(
            "{}: {} results for {} runs",
            g.file,
            encoded.len(),
            g.runs()
        )));
    }
    let plans = plan(g)?;
    let res = encoded
        .iter()
        .enumerate()
        .map(|(i, b)| decode(g, i, b))
        .collect::<Result<Vec<_>, _>>()?;
    write_results(g, &plans, &res, dir)
}

/// Checks that `dir` may be created or replaced (`force`: an existing
/// earlier sweep output may be replaced).
pub(crate) fn check_dir(dir: &Path, force: bool) -> Result<(), Failure> {
    preflight(dir, force)
}

/// `dropless sweep --ray`: the Python package runs the sweep on Ray.
fn sweep_ray(a: &SweepArgs, address: &str) -> Result<(), Failure> {
    let python = std::env::var_os("DROPLESS_PYTHON").unwrap_or_else(|| "python3".into());
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "dropless.ray_sweep"]).arg(&a.grid);
    if let Some(o) = &a.out {
        cmd.arg("--out").arg(o);
    }
    if !address.is_empty() {
        cmd.args(["--address", address]);
    }
    if a.force {
        cmd.arg("--force");
    }
    if a.html {
        cmd.arg("--html");
    }
    let status = cmd.status().map_err(|e| {
        Failure::Input(format!(
            "--ray: cannot start {}: {e}; --ray needs Python with the dropless package and Ray (pip install ./python ray)",
            python.to_string_lossy()
        ))
    })?;
    match status.code() {
        Some(0) => Ok(()),
        // The Python side printed its one-line error; pass its exit code on.
        Some(c @ (1 | 2)) => std::process::exit(c),
        _ => Err(Failure::Run(format!(
            "the Ray sweep ended with {status}; no results were written under the final name"
        ))),
    }
}

/// `dropless sweep`.
pub fn sweep(a: &SweepArgs) -> Result<(), Failure> {
    if let Some(address) = &a.ray {
        if a.jobs.is_some() {
            return Err(Failure::Input(
                "--jobs and --ray: Ray decides where runs go; give one of them".into(),
            ));
        }
        return sweep_ray(a, address);
    }
    let g = Grid::load(&a.grid)?;
    let dir = a.out.clone().unwrap_or_else(|| default_dir(&a.grid));
    preflight(&dir, a.force || a.out.is_none())?;
    let plans = plan(&g)?;
    let jobs = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let n = plans.len();
    eprintln!(
        "sweep {}: {} runs ({} grid points x {} repeats) of {} on {} thread(s)",
        g.file,
        n,
        n / g.repeats,
        g.repeats,
        g.scenario.display(),
        jobs.min(n)
    );
    let t0 = Instant::now();
    crate::interrupt::install_signal_handlers();
    let res = run_all(&g, &plans, jobs);
    if crate::interrupt::cancelled() {
        return Err(Failure::Interrupted(format!(
            "interrupted: sweep {} stopped before its {n} runs were done; nothing was written",
            g.file
        )));
    }
    let res = res?;
    let wall = t0.elapsed().as_secs_f64();
    write_results(&g, &plans, &res, &dir)?;
    if let Some(w) = seed_warning(&g, &res) {
        eprintln!("{w}");
    }

    if !a.quiet {
        print_summary(&g, &plans, &res);
    }
    let busy: f64 = res.iter().map(|r| r.wall_s).sum();
    println!(
        "{n} runs in {wall:.2} s wall on {} thread(s) ({busy:.2} s of simulation, {:.2}x parallel)",
        jobs.min(n),
        if wall > 0.0 { busy / wall } else { 0.0 }
    );
    println!(
        "wrote {}/ (results.csv, results.parquet, grid.toml; {} rows)",
        dir.display(),
        res.iter().map(|r| r.rows.len()).sum::<usize>()
    );
    if a.html {
        let page = crate::report::write_report(&dir).map_err(Failure::Run)?;
        println!("wrote {}", page.display());
    }
    Ok(())
}

/// The warning for a sweep whose seeds changed nothing: with more than one
/// repeat, every repeat of every grid point gave the same results (the
/// scenario has nothing the seed draws: no send or ACK jitter, random loss,
/// RED, Poisson or Pareto traffic, random probing). `None` when some point's
/// repeats differ, or with one repeat.
pub(crate) fn seed_warning(g: &Grid, res: &[RunRows]) -> Option<String> {
    if g.repeats < 2 || res.is_empty() {
        return None;
    }
    let same = |a: &RunRows, b: &RunRows| {
        a.utilization.to_bits() == b.utilization.to_bits()
            && a.jain.to_bits() == b.jain.to_bits()
            && a.rows.len() == b.rows.len()
            && a.rows.iter().zip(&b.rows).all(|(x, y)| {
                x.goodput_bps.to_bits() == y.goodput_bps.to_bits()
                    && x.packets_sent == y.packets_sent
                    && x.packets_lost == y.packets_lost
                    && x.mean_rtt_s.to_bits() == y.mean_rtt_s.to_bits()
            })
    };
    let all_same = res
        .chunks(g.repeats)
        .all(|point| point.iter().all(|r| same(r, &point[0])));
    all_same.then(|| {
        format!(
            "warning: {}: the {} repeats of each grid point gave identical results: nothing in {} depends on the seed (no send or ACK jitter, random loss, RED, Poisson or Pareto traffic), so the spread over seeds is zero; give the runs the randomness real runs have, e.g. \"flows[*].send_jitter\" = [\"120us\"] in [set]",
            g.file,
            g.repeats,
            g.scenario.display()
        )
    })
}

fn print_summary(g: &Grid, plans: &[Plan], res: &[RunRows]) {
    let mut head = format!("{:>5} {:>6}", "run", "repeat");
    let widths: Vec<usize> = g
        .keys
        .iter()
        .enumerate()
        .map(|(k, key)| {
            g.values[k]
                .iter()
                .map(|v| v.len())
                .chain([key.len()])
                .max()
                .unwrap_or(1)
        })
        .collect();
    for (k, w) in g.keys.iter().zip(&widths) {
        head.push_str(&format!("  {k:>w$}"));
    }
    head.push_str(&format!(
        "  {:>5} {:>14} {:>12} {:>6} {:>6} {:>7}",
        "flows", "goodput Mb/s", "loss/10k", "util", "jain", "wall s"
    ));
    println!("{head}");
    for (i, (p, r)) in plans.iter().zip(res).enumerate() {
        let mut line = format!("{i:>5} {:>6}", p.repeat);
        for (v, w) in p.values.iter().zip(&widths) {
            line.push_str(&format!("  {v:>w$}"));
        }
        let good: f64 = r.rows.iter().map(|f| f.goodput_bps).sum();
        let sent: u64 = r.rows.iter().map(|f| f.packets_sent).sum();
        let lost: u64 = r.rows.iter().map(|f| f.packets_lost).sum();
        let loss = if sent > 0 {
            lost as f64 * 1e4 / sent as f64
        } else {
            0.0
        };
        line.push_str(&format!(
            "  {:>5} {:>14.2} {:>12.2} {:>6.3} {:>6.3} {:>7.2}",
            r.rows.len(),
            good / 1e6,
            loss,
            r.utilization,
            r.jain,
            r.wall_s
        ));
        println!("{line}");
    }
}
