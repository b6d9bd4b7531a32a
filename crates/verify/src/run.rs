//! Running experiment files and judging their expectations.
//!
//! Every file expands to runs: one per grid point (the deterministic run,
//! `member` 0) plus, with an `[ensemble]`, `seeds` more per point with the
//! ensemble's settings and seeds `derive_seed(seed, member)`. All runs of
//! all files share one pool of threads; results do not depend on how many.
//! Every scenario is built before the first run starts, so a bad file
//! stops everything before any time is spent.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use dropless_scenario::Scenario;
use dropless_sim::{derive_seed, SimResult};

use crate::expr::{eval, fmt_num, Env, Expr, Value};
use crate::functions;
use crate::measure::Run;
use crate::spec::{
    self, interpolation_pieces, Expect, Judge, Kind, Measure, Piece, Scale, Spec, Variant,
};

/// How one expectation came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Holds.
    Pass,
    /// Does not hold, and the file does not say it should not.
    Fail,
    /// Does not hold, as the file declares (`known_miss`).
    KnownMiss,
    /// Holds although the file declares it does not.
    UnexpectedPass,
    /// Does not hold, as declared, but the measurement left the known
    /// miss's recorded value (`record_ci`/`record_full`).
    Moved,
    /// Could not be evaluated, or checks nothing.
    Error,
}

impl Verdict {
    /// Whether this verdict makes `dropless verify` exit non-zero.
    pub fn unexpected(self) -> bool {
        matches!(
            self,
            Verdict::Fail | Verdict::UnexpectedPass | Verdict::Moved | Verdict::Error
        )
    }
    /// Word for tables.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::KnownMiss => "known miss",
            Verdict::UnexpectedPass => "UNEXPECTED PASS",
            Verdict::Moved => "MOVED",
            Verdict::Error => "ERROR",
        }
    }
}

/// One evaluated expectation (at one grid point).
#[derive(Clone, Debug)]
pub struct Check {
    /// Index of the `[[expect]]`.
    pub expect: usize,
    /// What the check is, for messages: `expect[3]`, or the field of a
    /// file-level error (`verify.setup`).
    pub field: String,
    /// Label, interpolated.
    pub what: String,
    /// The grid point (`N=3, case=a`), empty without a grid.
    pub point: String,
    /// Expected, in words (`200 ±5%`).
    pub expected: String,
    /// Source in the paper.
    pub source: String,
    /// Source of the tolerance.
    pub tol_source: Option<String>,
    /// Measured, in words.
    pub measured: String,
    /// The measured number, if it is one.
    pub value: Option<f64>,
    /// Verdict.
    pub verdict: Verdict,
    /// The declared reason (interpolated) for a known miss, or the error.
    pub reason: Option<String>,
    /// Why the check restates a definition (`kind = "identity"`), or
    /// None for a measurement.
    pub identity: Option<String>,
    /// A known miss's record at this scale and point, in words.
    pub recorded: Option<String>,
    /// The measured value, if it could be evaluated.
    pub measured_value: Option<Value>,
}

impl Check {
    /// A check that could not be made: an error at `field`.
    fn error(field: String, expect: usize, what: &str, point: &str, err: String) -> Check {
        Check {
            expect,
            field,
            what: what.to_string(),
            point: point.to_string(),
            expected: String::new(),
            source: String::new(),
            tol_source: None,
            measured: "error".into(),
            value: None,
            verdict: Verdict::Error,
            reason: Some(err),
            identity: None,
            recorded: None,
            measured_value: None,
        }
    }
}

/// An expectation over the ensemble at one grid point.
#[derive(Clone, Debug)]
pub struct EnsembleRow {
    /// Index of the `[[expect]]`.
    pub expect: usize,
    /// Label.
    pub what: String,
    /// Grid point.
    pub point: String,
    /// Expected, in words.
    pub expected: String,
    /// The deterministic run's measured value and verdict.
    pub deterministic: (String, Verdict),
    /// Members where it holds.
    pub held: usize,
    /// Members evaluated.
    pub total: usize,
    /// Measured numbers over the members.
    pub values: Vec<f64>,
    /// Whether the expectation's verdict is this ensemble's
    /// (`ensemble_share`) rather than the deterministic run's.
    pub judged: bool,
}

/// A report table.
#[derive(Clone, Debug)]
pub struct TableOut {
    /// Heading.
    pub title: String,
    /// Column headers.
    pub header: Vec<String>,
    /// Cells.
    pub rows: Vec<Vec<String>>,
}

/// A plot to draw: its lines of `(x, y)` points.
#[derive(Clone, Debug)]
pub struct PlotOut {
    /// Heading.
    pub title: String,
    /// File stem of the image.
    pub file: String,
    /// Axis labels.
    pub x_label: String,
    /// Vertical axis label.
    pub y_label: String,
    /// Labelled lines.
    pub lines: Vec<(String, Vec<(f64, f64)>)>,
    /// Why a line could not be evaluated, if one could not.
    pub error: Option<String>,
}

/// Everything one file produced.
#[derive(Clone, Debug)]
pub struct FileResult {
    /// The file as named.
    pub file: String,
    /// Title.
    pub title: String,
    /// Set-up, interpolated.
    pub setup: String,
    /// Claim, interpolated.
    pub claim: Option<String>,
    /// Note, interpolated.
    pub note: Option<String>,
    /// Every check of the deterministic runs.
    pub checks: Vec<Check>,
    /// Ensemble rows (empty without an ensemble).
    pub ensemble: Vec<EnsembleRow>,
    /// Ensemble size.
    pub seeds: usize,
    /// Tables.
    pub tables: Vec<TableOut>,
    /// Plots.
    pub plots: Vec<PlotOut>,
    /// Runs simulated.
    pub runs: usize,
    /// Simulation wall time, seconds (all runs of the file).
    pub wall_s: f64,
    /// New records of its known misses (`--update-records`).
    pub updates: Vec<crate::records::Update>,
    /// Expectations not judged at this scale (`full_only`): label and
    /// reason.
    pub skipped: Vec<(String, String)>,
    /// `Some` for a variant's result: its name, then its settings in words.
    pub variant: Option<(String, String)>,
    /// The file's `[[variant]]` results, reported beside its own checks and
    /// not judged (only an error in one fails the command).
    pub variants: Vec<FileResult>,
}

impl FileResult {
    /// Whether one of its variants could not be evaluated (a variant's
    /// misses are reported, not judged; its errors fail the command).
    pub fn variant_error(&self) -> bool {
        self.variants
            .iter()
            .any(|v| v.checks.iter().any(|c| c.verdict == Verdict::Error))
    }

    /// Whether a check compares a measurement with the paper (not only
    /// identity checks).
    pub fn measures_something(&self) -> bool {
        self.checks
            .iter()
            .any(|c| c.identity.is_none() && c.field.starts_with("expect["))
    }

    /// The experiment's verdict: the worst of its checks.
    pub fn verdict(&self) -> Verdict {
        let has = |v: Verdict| self.checks.iter().any(|c| c.verdict == v);
        if has(Verdict::Error) {
            Verdict::Error
        } else if has(Verdict::Fail) {
            Verdict::Fail
        } else if has(Verdict::UnexpectedPass) {
            Verdict::UnexpectedPass
        } else if has(Verdict::Moved) {
            Verdict::Moved
        } else if has(Verdict::KnownMiss) {
            Verdict::KnownMiss
        } else {
            Verdict::Pass
        }
    }

    /// Why it did not pass: the declared reasons of its known misses, and
    /// the failures that nobody declared.
    pub fn reason(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for c in &self.checks {
            let line = match c.verdict {
                Verdict::Pass => continue,
                Verdict::KnownMiss => c.reason.clone().unwrap_or_default(),
                Verdict::Fail => format!("unexpected failure: {}", describe(c)),
                Verdict::UnexpectedPass => format!(
                    "declared a known miss but holds now: {} (the declared reason was: {}); remove the known_miss label and its records",
                    describe(c),
                    c.reason.clone().unwrap_or_default()
                ),
                Verdict::Moved => c.reason.clone().unwrap_or_default(),
                Verdict::Error => format!("{}: {}", c.what, c.reason.clone().unwrap_or_default()),
            };
            if !line.is_empty() && !out.contains(&line) {
                out.push(line);
            }
        }
        out.join(" ")
    }
}

/// One check in words.
pub fn describe(c: &Check) -> String {
    format!(
        "{}{}: expected {}, measured {}",
        c.what,
        crate::report::at_point(&c.point),
        c.expected,
        c.measured
    )
}

/// A run to do.
struct Job {
    file: usize,
    point: usize,
    member: usize,
    /// None for a model-only file.
    scenario: Option<Scenario>,
}

/// A finished run.
struct Done {
    /// The run, or None for a model-only file.
    sim: Option<(Scenario, SimResult)>,
    labels: Vec<String>,
    wall_s: f64,
}

/// The grid points of a spec at a scale: (axis values, --set list).
/// A grid point: its axis values and its `--set` overrides.
type Point = (Vec<(String, Value)>, Vec<String>);

fn points(s: &Spec, scale: Scale) -> Vec<Point> {
    let mut out = vec![(Vec::new(), Vec::new())];
    for axis in &s.grid {
        let vals = axis.at(scale);
        let mut next = Vec::new();
        for (p, sets) in &out {
            for v in vals {
                let mut p2: Vec<(String, Value)> = p.clone();
                p2.push((axis.name.clone(), v.clone()));
                let mut s2: Vec<String> = sets.clone();
                let full_idx = axis.values.iter().position(|x| x == v).unwrap_or(0);
                for (key, per) in &axis.sets {
                    let val = match per {
                        Some(list) => list[full_idx].clone(),
                        None => match v {
                            Value::Str(x) => x.clone(),
                            other => other.to_string(),
                        },
                    };
                    s2.push(format!("{key}={val}"));
                }
                next.push((p2, s2));
            }
        }
        out = next;
    }
    out
}

fn point_label(p: &[(String, Value)]) -> String {
    p.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Options of one verification.
#[derive(Clone, Debug)]
pub struct Options {
    /// Files and directories.
    pub paths: Vec<PathBuf>,
    /// Scale.
    pub scale: Scale,
    /// Threads.
    pub jobs: usize,
    /// Progress lines on stderr.
    pub progress: bool,
    /// `--update-records`: the known misses' records are being rewritten
    /// from this run (not judged against the old ones; see
    /// [`FileResult::updates`]).
    pub update_records: bool,
}

/// The outcome of `dropless verify`.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Results of the files named (imports that were not named are left out).
    pub files: Vec<FileResult>,
    /// Scale used.
    pub scale: Scale,
    /// Simulation wall time, seconds, all runs.
    pub wall_s: f64,
}

impl Outcome {
    /// Whether anything came out other than declared.
    pub fn unexpected(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.verdict().unexpected() || f.variant_error())
    }
}

/// Files named by `paths`: directories are searched for `.toml` files.
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), String> {
        if depth > 16 {
            return Err(format!(
                "{}: directories nested more than 16 deep",
                dir.display()
            ));
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: cannot read the directory: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out, depth + 1)?;
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out, 0)?;
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    if out.is_empty() {
        return Err(format!(
            "{}: no .toml experiment files found",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(out)
}

/// Loads, runs and judges every experiment under `opts.paths`. `Err`: bad
/// input (nothing was run, or a run could not be built).
pub fn verify(opts: &Options) -> Result<Outcome, String> {
    let named = collect(&opts.paths)?;
    let mut specs: Vec<Spec> = Vec::new();
    let mut queue: Vec<(PathBuf, bool)> = named.iter().map(|p| (p.clone(), true)).collect();
    let mut reported = Vec::new();
    while let Some((p, is_named)) = queue.pop() {
        let canon = std::fs::canonicalize(&p).unwrap_or(p.clone());
        if let Some(i) = specs
            .iter()
            .position(|s| std::fs::canonicalize(&s.path).unwrap_or(s.path.clone()) == canon)
        {
            if is_named && !reported.contains(&i) {
                reported.push(i);
            }
            continue;
        }
        let s = spec::load(&p, opts.scale)?.ok_or_else(|| {
            format!(
                "{}: no [verify] table and no [[expect]] entries: not a self-checking experiment (docs/verify.md)",
                p.display()
            )
        })?;
        for (_, imp) in &s.imports {
            queue.push((imp.clone(), false));
        }
        if is_named {
            reported.push(specs.len());
        }
        specs.push(s);
    }
    // Keep the order the files were named in.
    let order_of = |s: &Spec| {
        named
            .iter()
            .position(|p| p == &s.path)
            .unwrap_or(usize::MAX)
    };
    reported.sort_by_key(|&i| order_of(&specs[i]));
    // Each [[variant]] is its file again with the variant's settings: a
    // spec of its own, run and judged like the file, reported beside it.
    for i in 0..specs.len() {
        for v in specs[i].variants.clone() {
            let mut c = specs[i].clone();
            c.variants.clear();
            // The file's plots are drawn once, from its own runs.
            c.plots.clear();
            c.variant = Some(v);
            specs.push(c);
        }
    }
    let order = import_order(&specs)?;

    // Build every scenario before running anything.
    let mut jobs = Vec::new();
    let mut file_points = Vec::new();
    for (fi, s) in specs.iter().enumerate() {
        let pts = points(s, opts.scale);
        let mut applies = Vec::with_capacity(pts.len());
        if let Some(v) = &s.variant {
            for (pt, _) in &pts {
                applies.push(variant_applies(s, v, pt)?);
            }
            if !applies.iter().any(|&a| a) {
                return Err(format!(
                    "{}: variant[{}].when: matches no grid point at {} scale: the variant changes nothing",
                    s.file,
                    v.index,
                    opts.scale.name()
                ));
            }
        }
        for (pi, (pt, sets)) in pts.iter().enumerate() {
            for member in 0..=s.seeds {
                let mut all: Vec<String> = Vec::new();
                if opts.scale == Scale::Ci {
                    all.extend(s.ci_sets.iter().cloned());
                }
                all.extend(sets.iter().cloned());
                if let Some(v) = s.variant.as_ref().filter(|_| applies[pi]) {
                    all.extend(v.sets.iter().cloned());
                }
                if member > 0 {
                    all.extend(s.ensemble_sets.iter().cloned());
                }
                if s.model {
                    jobs.push(Job {
                        file: fi,
                        point: pi,
                        member,
                        scenario: None,
                    });
                    continue;
                }
                let mut sc = dropless_scenario::from_str(&s.text, &s.file, &all).map_err(|e| {
                    let mut m = e.to_string();
                    if !pt.is_empty() {
                        m += &format!(" (grid point {})", point_label(pt));
                    }
                    if let Some(v) = &s.variant {
                        m += &format!(" (variant[{}] \"{}\")", v.index, v.name);
                    }
                    m
                })?;
                if member > 0 {
                    sc.config.seed = derive_seed(sc.config.seed, member as u64);
                }
                sc.simulation().map_err(|e| e.to_string())?;
                jobs.push(Job {
                    file: fi,
                    point: pi,
                    member,
                    scenario: Some(sc),
                });
            }
        }
        file_points.push(pts);
    }

    let t0 = Instant::now();
    let done = run_all(jobs, opts.jobs, opts.progress, &specs)?;
    let wall_s = t0.elapsed().as_secs_f64();

    // Judge the files, imports first.
    let mut results: Vec<Option<(FileResult, Value)>> = (0..specs.len()).map(|_| None).collect();
    for &fi in &order {
        let s = &specs[fi];
        let imports: Vec<(String, Value)> = s
            .imports
            .iter()
            .map(|(n, p)| {
                let j = spec_of(&specs, p, s.variant.as_ref().map(|v| v.name.as_str()))
                    .expect("imports were loaded");
                (
                    n.clone(),
                    results[j].as_ref().expect("imports judged first").1.clone(),
                )
            })
            .collect();
        let runs: Vec<&Done> = done
            .iter()
            .filter(|(j, _)| j.0 == fi)
            .map(|(_, d)| d)
            .collect();
        let keys: Vec<(usize, usize)> = done
            .iter()
            .filter(|(j, _)| j.0 == fi)
            .map(|(j, _)| (j.1, j.2))
            .collect();
        results[fi] = Some(judge_file(
            s,
            opts.scale,
            opts.update_records,
            &file_points[fi],
            &runs,
            &keys,
            &imports,
        ));
    }
    let mut files = Vec::new();
    for i in reported {
        let mut f = results[i].take().expect("judged").0;
        for (j, v) in specs.iter().enumerate() {
            if v.variant.is_some() && v.path == specs[i].path {
                f.variants.push(results[j].take().expect("judged").0);
            }
        }
        files.push(f);
    }
    Ok(Outcome {
        files,
        scale: opts.scale,
        wall_s,
    })
}

/// The spec of file `path` in variant `variant`: that variant of the file
/// if it declares one of the name, else the file itself (an importer's
/// variant reads its import's variant of the same name where there is one).
fn spec_of(specs: &[Spec], path: &Path, variant: Option<&str>) -> Option<usize> {
    let canon = std::fs::canonicalize(path).unwrap_or(path.to_path_buf());
    let same = |s: &Spec| std::fs::canonicalize(&s.path).unwrap_or(s.path.clone()) == canon;
    variant
        .and_then(|n| {
            specs
                .iter()
                .position(|s| same(s) && s.variant.as_ref().is_some_and(|v| v.name == n))
        })
        .or_else(|| specs.iter().position(|s| same(s) && s.variant.is_none()))
}

/// Whether variant `v` applies at grid point `pt` (its `when`, evaluated
/// over the point's axis values and the file's `[vars]`).
fn variant_applies(s: &Spec, v: &Variant, pt: &[(String, Value)]) -> Result<bool, String> {
    struct AxisEnv<'a> {
        pt: &'a [(String, Value)],
        vars: &'a [(String, Value)],
    }
    impl Env for AxisEnv<'_> {
        fn name(&self, n: &str) -> Option<Result<Value, String>> {
            self.pt
                .iter()
                .chain(self.vars)
                .find(|(k, _)| k == n)
                .map(|(_, v)| Ok(v.clone()))
        }
        fn call(
            &self,
            _: &str,
            _: &[Value],
            _: &[(String, Value)],
        ) -> Option<Result<Value, String>> {
            None
        }
    }
    let Some((text, w)) = &v.when else {
        return Ok(true);
    };
    eval(w, &AxisEnv { pt, vars: &s.vars })
        .and_then(|x| x.truth())
        .map_err(|e| {
            format!(
                "{}: variant[{}].when: \"{text}\": {e} (it may name the grid's axes and [vars] only)",
                s.file, v.index
            )
        })
}

/// Files in an order where every import comes before its importer.
fn import_order(specs: &[Spec]) -> Result<Vec<usize>, String> {
    let mut state = vec![0u8; specs.len()];
    let mut out = Vec::new();
    fn visit(
        i: usize,
        specs: &[Spec],
        state: &mut [u8],
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        match state[i] {
            2 => return Ok(()),
            1 => {
                return Err(format!(
                    "{}: verify.import: files import each other in a cycle",
                    specs[i].file
                ))
            }
            _ => {}
        }
        state[i] = 1;
        let variant = specs[i].variant.as_ref().map(|v| v.name.as_str());
        for (_, p) in &specs[i].imports {
            if let Some(j) = spec_of(specs, p, variant) {
                visit(j, specs, state, out)?;
            }
        }
        state[i] = 2;
        out.push(i);
        Ok(())
    }
    for i in 0..specs.len() {
        visit(i, specs, &mut state, &mut out)?;
    }
    Ok(out)
}

type DoneList = Vec<((usize, usize, usize), Done)>;

fn run_all(
    jobs: Vec<Job>,
    threads: usize,
    progress: bool,
    specs: &[Spec],
) -> Result<DoneList, String> {
    let n = jobs.len();
    // Longest first (by simulated duration times flows), so that a long
    // run does not start last.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let w = |j: &Job| {
            j.scenario.as_ref().map_or(0.0, |sc| {
                sc.config.duration as f64 * (sc.config.flows.len() as f64).max(1.0)
            })
        };
        w(&jobs[b]).total_cmp(&w(&jobs[a]))
    });
    let next = AtomicUsize::new(0);
    let count = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Done>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|sc| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            sc.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n {
                    break;
                }
                let i = order[k];
                let j = &jobs[i];
                let t0 = Instant::now();
                let sim = j.scenario.as_ref().map(|sc| {
                    let result = sc.simulation().expect("checked before running").run();
                    (sc.clone(), result)
                });
                let wall_s = t0.elapsed().as_secs_f64();
                let d = count.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    eprintln!(
                        "  [{d}/{n}] {}{}{} ({:.1} s)",
                        specs[j.file].file,
                        if j.point > 0 || !specs[j.file].grid.is_empty() {
                            format!(" point {}", j.point)
                        } else {
                            String::new()
                        },
                        if j.member > 0 {
                            format!(" seed {}", j.member)
                        } else {
                            String::new()
                        },
                        wall_s
                    );
                }
                let labels = sim
                    .as_ref()
                    .map(|(sc, _)| sc.flows.iter().map(|f| f.label.clone()).collect())
                    .unwrap_or_default();
                slots.lock().expect("no panic while locked")[i] = Some(Done {
                    sim,
                    labels,
                    wall_s,
                });
            });
        }
    });
    let slots = slots.into_inner().expect("no panic while locked");
    let mut out = Vec::with_capacity(n);
    for (j, d) in jobs.iter().zip(slots) {
        out.push((
            (j.file, j.point, j.member),
            d.ok_or("a run did not finish")?,
        ));
    }
    Ok(out)
}

// ---------------------------------------------------------------------
// Evaluation contexts.

/// A user function's parameters bound over a parent context.
struct Bound<'a> {
    parent: &'a dyn Env,
    binds: Vec<(String, Value)>,
}

impl Env for Bound<'_> {
    fn name(&self, n: &str) -> Option<Result<Value, String>> {
        match self.binds.iter().find(|(k, _)| k == n) {
            Some((_, v)) => Some(Ok(v.clone())),
            None => self.parent.name(n),
        }
    }
    fn call(&self, f: &str, a: &[Value], kw: &[(String, Value)]) -> Option<Result<Value, String>> {
        self.parent.call(f, a, kw)
    }
}

fn call_user(ms: &[Measure], env: &dyn Env, f: &str, a: &[Value]) -> Option<Result<Value, String>> {
    let m = ms.iter().find(|m| m.name == f && !m.params.is_empty())?;
    if a.len() != m.params.len() {
        return Some(Err(format!(
            "takes {} arguments ({}), given {}",
            m.params.len(),
            m.params.join(", "),
            a.len()
        )));
    }
    let b = Bound {
        parent: env,
        binds: m.params.iter().cloned().zip(a.iter().cloned()).collect(),
    };
    Some(eval(&m.body, &b))
}

fn no_kw(f: &str, kw: &[(String, Value)]) -> Result<(), String> {
    match kw.first() {
        Some((k, _)) => Err(format!("{f}() takes no named argument \"{k}\"")),
        None => Ok(()),
    }
}

/// One run: its point, its measures (evaluated once, on first use).
struct RunEnv<'a> {
    spec: &'a Spec,
    /// None in a model-only file.
    run: Option<Run<'a>>,
    point: &'a [(String, Value)],
    imports: &'a [(String, Value)],
    scale: Scale,
    member: usize,
    measures: Lazy<'a>,
}

/// Named measures of one context, each evaluated once, when first used.
struct Lazy<'a> {
    list: &'a [Measure],
    /// "measure" or "aggregate", for errors.
    kind: &'static str,
    cache: RefCell<Vec<Option<Result<Value, String>>>>,
}

impl<'a> Lazy<'a> {
    fn new(list: &'a [Measure], kind: &'static str) -> Self {
        Lazy {
            list,
            kind,
            cache: RefCell::new(vec![None; list.len()]),
        }
    }

    /// The plain (parameterless) measure called `n`.
    fn find(&self, n: &str) -> Option<usize> {
        self.list
            .iter()
            .position(|m| m.name == n && m.params.is_empty())
    }

    fn get(&self, i: usize, env: &dyn Env) -> Result<Value, String> {
        if let Some(v) = &self.cache.borrow()[i] {
            return v.clone();
        }
        let m = &self.list[i];
        let v = eval(&m.body, env).map_err(|e| format!("{} {}: {e}", self.kind, m.name));
        self.cache.borrow_mut()[i] = Some(v.clone());
        v
    }

    /// Every plain measure, as a record (failed ones left out).
    fn record(&self, env: &dyn Env) -> Value {
        Value::Map(
            self.list
                .iter()
                .enumerate()
                .filter(|(_, m)| m.params.is_empty())
                .filter_map(|(i, m)| self.get(i, env).ok().map(|v| (m.name.clone(), v)))
                .collect(),
        )
    }
}

impl<'a> RunEnv<'a> {
    fn new(
        spec: &'a Spec,
        d: &'a Done,
        point: &'a [(String, Value)],
        imports: &'a [(String, Value)],
        scale: Scale,
        member: usize,
    ) -> Self {
        RunEnv {
            spec,
            run: d.sim.as_ref().map(|(sc, res)| Run {
                cfg: &sc.config,
                res,
                labels: &d.labels,
            }),
            point,
            imports,
            scale,
            member,
            measures: Lazy::new(&spec.measures, "measure"),
        }
    }

    fn measure(&self, i: usize) -> Result<Value, String> {
        self.measures.get(i, self)
    }

    fn record(&self) -> Value {
        self.measures.record(self)
    }
}

impl Env for RunEnv<'_> {
    fn name(&self, n: &str) -> Option<Result<Value, String>> {
        if let Some((_, v)) = self.point.iter().find(|(k, _)| k == n) {
            return Some(Ok(v.clone()));
        }
        if let Some((_, v)) = self.spec.vars.iter().find(|(k, _)| k == n) {
            return Some(Ok(v.clone()));
        }
        if let Some((_, v)) = self.imports.iter().find(|(k, _)| k == n) {
            return Some(Ok(v.clone()));
        }
        if let Some(i) = self
            .spec
            .measures
            .iter()
            .position(|m| m.name == n && m.params.is_empty())
        {
            return Some(self.measure(i));
        }
        match n {
            "scale" => return Some(Ok(Value::Str(self.scale.name().into()))),
            "member" => return Some(Ok(Value::Num(self.member as f64))),
            _ => {}
        }
        let run = self.run.as_ref()?;
        let r = run.res;
        Some(Ok(match n {
            "duration" => Value::Num(crate::measure::exact(r.duration_s)),
            "seed" => Value::Num(run.cfg.seed as f64),
            "flows" => Value::Num(r.flows.len() as f64),
            "links" => Value::Num(r.links.len() as f64),
            _ => return None,
        }))
    }
    fn call(&self, f: &str, a: &[Value], kw: &[(String, Value)]) -> Option<Result<Value, String>> {
        if let Some(r) = call_user(&self.spec.measures, self, f, a) {
            return Some(no_kw(f, kw).and(r));
        }
        if let Some(r) = self.run.as_ref().and_then(|run| run.call(f, a)) {
            return Some(no_kw(f, kw).and(r));
        }
        functions::call(f, a).map(|r| no_kw(f, kw).and(r))
    }
}

/// The whole grid of one member: axes as lists, per-run measures through
/// `points`, `where` and `at`.
struct GridEnv<'a> {
    spec: &'a Spec,
    runs: Vec<&'a RunEnv<'a>>,
    imports: &'a [(String, Value)],
    scale: Scale,
    member: usize,
    aggregates: Lazy<'a>,
}

impl GridEnv<'_> {
    fn record(&self) -> Value {
        self.aggregates.record(self)
    }

    fn select(&self, f: &str, a: &[Value], kw: &[(String, Value)]) -> Result<Vec<Value>, String> {
        let name = match a {
            [Value::Str(s)] => s.as_str(),
            _ => {
                return Err(format!(
                    "{f}(\"measure\", axis = value, ...) takes a measure's name as a string"
                ))
            }
        };
        let i = self
            .spec
            .measures
            .iter()
            .position(|m| m.name == name && m.params.is_empty())
            .ok_or_else(|| format!("no measure \"{name}\" in [measures]"))?;
        for (k, _) in kw {
            if !self.spec.grid.iter().any(|x| &x.name == k) {
                return Err(format!("no grid axis \"{k}\""));
            }
        }
        let mut out = Vec::new();
        for r in &self.runs {
            let keep = kw.iter().all(|(k, v)| {
                r.point.iter().any(|(pk, pv)| {
                    pk == k
                        && (pv == v || matches!((pv, v), (Value::Num(x), Value::Num(y)) if x == y))
                })
            });
            if keep {
                out.push(r.measure(i)?);
            }
        }
        Ok(out)
    }
}

impl Env for GridEnv<'_> {
    fn name(&self, n: &str) -> Option<Result<Value, String>> {
        if let Some(a) = self.spec.grid.iter().find(|x| x.name == n) {
            return Some(Ok(Value::List(a.at(self.scale).to_vec())));
        }
        if let Some((_, v)) = self.spec.vars.iter().find(|(k, _)| k == n) {
            return Some(Ok(v.clone()));
        }
        if let Some((_, v)) = self.imports.iter().find(|(k, _)| k == n) {
            return Some(Ok(v.clone()));
        }
        if let Some(i) = self.aggregates.find(n) {
            return Some(self.aggregates.get(i, self));
        }
        Some(Ok(match n {
            "scale" => Value::Str(self.scale.name().into()),
            "points_count" => Value::Num(self.runs.len() as f64),
            "member" => Value::Num(self.member as f64),
            _ => return None,
        }))
    }
    fn call(&self, f: &str, a: &[Value], kw: &[(String, Value)]) -> Option<Result<Value, String>> {
        if let Some(r) = call_user(&self.spec.aggregates, self, f, a) {
            return Some(no_kw(f, kw).and(r));
        }
        match f {
            "points" => Some(no_kw(f, kw).and_then(|_| self.select(f, a, &[]).map(Value::List))),
            "where" => Some(self.select(f, a, kw).map(Value::List)),
            "at" => Some(self.select(f, a, kw).and_then(|v| match v.len() {
                1 => Ok(v.into_iter().next().expect("one")),
                n => Err(format!("{n} grid points match, expected exactly one")),
            })),
            "grid_values" => Some(match a {
                [Value::Str(s)] => self
                    .spec
                    .grid
                    .iter()
                    .find(|x| &x.name == s)
                    .map(|x| Value::List(x.at(self.scale).to_vec()))
                    .ok_or_else(|| format!("no grid axis \"{s}\"")),
                _ => Err("takes an axis name as a string".into()),
            }),
            _ => functions::call(f, a).map(|r| no_kw(f, kw).and(r)),
        }
    }
}

/// Names and functions of `first`, else of `then`.
struct Fallback<'a> {
    first: &'a dyn Env,
    then: &'a dyn Env,
}

impl Env for Fallback<'_> {
    fn name(&self, n: &str) -> Option<Result<Value, String>> {
        self.first.name(n).or_else(|| self.then.name(n))
    }
    fn call(&self, f: &str, a: &[Value], kw: &[(String, Value)]) -> Option<Result<Value, String>> {
        self.first
            .call(f, a, kw)
            .or_else(|| self.then.call(f, a, kw))
    }
}

/// Fills the `{expression}`s of a text; `Err` names the expression that
/// could not be evaluated (a text is never rendered with an error in it).
pub fn interpolate(text: &str, env: &dyn Env) -> Result<String, String> {
    let mut out = String::new();
    for p in interpolation_pieces(text)? {
        match p {
            Piece::Text(t) => out += &t,
            Piece::Expr(src) => match crate::expr::parse(src).and_then(|e| eval(&e, env)) {
                Ok(v) => out += &v.to_string(),
                Err(e) => return Err(format!("{{{src}}}: {e}")),
            },
        }
    }
    Ok(out)
}

/// What a measured value is compared with, to tell whether a known miss
/// moved towards the paper or away from it.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// An expected value.
    Point(f64),
    /// Bounds.
    Bounds(Option<f64>, Option<f64>),
    /// A condition (no distance).
    Holds,
}

impl Target {
    /// How far `m` is from meeting the expectation.
    fn distance(self, m: f64) -> Option<f64> {
        match self {
            Target::Point(e) => Some((m - e).abs()),
            Target::Bounds(lo, hi) => Some(
                lo.map_or(0.0, |l| (l - m).max(0.0))
                    .max(hi.map_or(0.0, |h| (m - h).max(0.0))),
            ),
            Target::Holds => None,
        }
    }
}

/// Judges one expectation in one context: (pass, expected text, measured
/// text, measured number), or an error.
type Judged = (bool, String, String, Option<f64>, Value, Target);

fn judge(e: &Expect, env: &dyn Env) -> Result<Judged, String> {
    let v = eval(&e.value, env)?;
    let kept = v.clone();
    let (pass, exp, meas, num, target) = judge_value(e, env, v)?;
    Ok((pass, exp, meas, num, kept, target))
}

fn judge_value(
    e: &Expect,
    env: &dyn Env,
    v: Value,
) -> Result<(bool, String, String, Option<f64>, Target), String> {
    let number = |x: &Expr| -> Result<f64, String> { eval(x, env)?.num() };
    Ok(match &e.judge {
        Judge::Holds => {
            let b = v.truth()?;
            (
                b,
                "yes".into(),
                if b { "yes" } else { "no" }.into(),
                None,
                Target::Holds,
            )
        }
        Judge::Abs(x, tol) if matches!(v, Value::Str(_) | Value::Bool(_)) && *tol == 0.0 => {
            let want = eval(x, env)?;
            (
                v == want,
                want.to_string(),
                v.to_string(),
                None,
                Target::Holds,
            )
        }
        Judge::Rel(x, tol) => {
            let (m, want) = (v.num()?, number(x)?);
            let pass = m.is_finite() && (m - want).abs() <= tol * want.abs();
            let dev = if want != 0.0 {
                format!(" ({:+.1}%)", (m / want - 1.0) * 100.0)
            } else {
                String::new()
            };
            (
                pass,
                format!("{} ±{}%", fmt_num(want), fmt_num(tol * 100.0)),
                format!("{}{dev}", fmt_num(m)),
                Some(m),
                Target::Point(want),
            )
        }
        Judge::Abs(x, tol) => {
            let (m, want) = (v.num()?, number(x)?);
            let pass = m.is_finite() && (m - want).abs() <= *tol;
            let exp = if *tol == 0.0 {
                fmt_num(want)
            } else {
                format!("{} ±{}", fmt_num(want), fmt_num(*tol))
            };
            (pass, exp, fmt_num(m), Some(m), Target::Point(want))
        }
        Judge::Bounds(lo, hi) => {
            let m = v.num()?;
            let lo = lo.as_ref().map(number).transpose()?;
            let hi = hi.as_ref().map(number).transpose()?;
            let pass = m.is_finite() && lo.is_none_or(|l| m >= l) && hi.is_none_or(|h| m <= h);
            let exp = match (lo, hi) {
                (Some(l), Some(h)) => format!("{} to {}", fmt_num(l), fmt_num(h)),
                (Some(l), None) => format!(">= {}", fmt_num(l)),
                (None, Some(h)) => format!("<= {}", fmt_num(h)),
                (None, None) => unreachable!("a bound is given"),
            };
            (pass, exp, fmt_num(m), Some(m), Target::Bounds(lo, hi))
        }
    })
}

fn check_in(e: &Expect, env: &dyn Env, point: String, scale: Scale, use_records: bool) -> Check {
    let field = format!("expect[{}]", e.index);
    let what = match interpolate(&e.what, env) {
        Ok(w) => w,
        Err(err) => return Check::error(field, e.index, &e.what, &point, format!("what: {err}")),
    };
    let identity = e.kind_reason.clone().filter(|_| e.kind == Kind::Identity);
    let mut c = match judge(e, env) {
        Ok((pass, exp, meas, v, value, target)) => {
            let reason = match e
                .known_miss
                .as_ref()
                .map(|k| interpolate(k, env))
                .transpose()
            {
                Ok(r) => r,
                Err(err) => {
                    return Check::error(
                        field,
                        e.index,
                        &what,
                        &point,
                        format!("known_miss: {err}"),
                    )
                }
            };
            let verdict = match (pass, e.known_miss.is_some()) {
                (true, false) => Verdict::Pass,
                (true, true) => Verdict::UnexpectedPass,
                (false, true) => Verdict::KnownMiss,
                (false, false) => Verdict::Fail,
            };
            let mut c = Check {
                expect: e.index,
                field,
                what,
                point,
                expected: exp,
                source: e.source.clone(),
                tol_source: e.tol_source.clone(),
                measured: meas,
                value: v,
                verdict,
                reason,
                identity,
                recorded: None,
                measured_value: Some(value.clone()),
            };
            if e.known_miss.is_some() && use_records {
                against_record(e, scale, &mut c, &value, target);
            }
            c
        }
        Err(err) => {
            let mut c = Check::error(field, e.index, &what, &point, err);
            c.source = e.source.clone();
            c.tol_source = e.tol_source.clone();
            c.identity = identity;
            c
        }
    };
    if c.verdict == Verdict::UnexpectedPass {
        if let Some(r) = e.record(scale) {
            c.recorded = Some(r.describe(&c.point, scale));
        }
    }
    c
}

/// Judges a known miss's measurement against its record at `scale`.
fn against_record(e: &Expect, scale: Scale, c: &mut Check, value: &Value, target: Target) {
    let key = crate::records::key(scale);
    let Some(rec) = e.record(scale) else {
        if c.verdict == Verdict::KnownMiss {
            c.verdict = Verdict::Error;
            c.reason = Some(format!(
                "known miss without {key}: record what it measures at {} scale (dropless verify ... --scale {} --update-records; docs/verify.md)",
                scale.name(),
                scale.name()
            ));
        }
        return;
    };
    c.recorded = Some(rec.describe(&c.point, scale));
    if c.verdict != Verdict::KnownMiss {
        return;
    }
    match rec.holds(&c.point, value) {
        Ok(true) => {}
        Ok(false) => {
            let was = rec.number_at(&c.point).or(match &rec.recorded {
                crate::records::Recorded::Range { min, max } => c.value.map(|m| {
                    if (m - min).abs() < (m - max).abs() {
                        *min
                    } else {
                        *max
                    }
                }),
                _ => None,
            });
            let direction = match (
                c.value.and_then(|m| target.distance(m)),
                was.and_then(|w| target.distance(w)),
            ) {
                (Some(now), Some(then)) if now > then => {
                    "the miss got worse (further from the paper's expectation than recorded)"
                }
                (Some(_), Some(_)) => {
                    "the miss came closer to the paper's expectation but still misses"
                }
                _ => "the measurement changed",
            };
            c.verdict = Verdict::Moved;
            c.reason = Some(format!(
                "known miss left its record: {}{}: measured {}, recorded {} ({key}); {direction}. Find out why; re-record (--update-records) only for a change whose effect is understood",
                c.what,
                crate::report::at_point(&c.point),
                c.measured,
                rec.describe(&c.point, scale),
            ));
        }
        Err(err) => {
            c.verdict = Verdict::Error;
            c.reason = Some(format!("{key}: {err}"));
        }
    }
}

/// Turns the deterministic run's check `c` of an ensemble-judged
/// expectation (`ensemble_share = bar`) into the ensemble's verdict: it
/// holds when at least `bar` of the ensemble's seeds meet the expectation.
/// The measured value (and a known miss's record) is that share, `held`
/// of `seeds`; a seed that cannot be evaluated (`failed`) is an error. The
/// deterministic run's result stays in the text, as the phase-sensitive
/// case.
fn ensemble_verdict(
    e: &Expect,
    c: &mut Check,
    bar: f64,
    (held, seeds): (usize, usize),
    failed: Option<String>,
    scale: Scale,
    use_records: bool,
) {
    if c.verdict == Verdict::Error {
        return;
    }
    let det_pass = matches!(c.verdict, Verdict::Pass | Verdict::UnexpectedPass);
    let det = format!(
        "deterministic run {} ({})",
        c.measured,
        if det_pass { "meets it" } else { "does not" }
    );
    c.expected = format!(
        "{} in >= {}% of {seeds} seeds",
        c.expected,
        fmt_num(bar * 100.0)
    );
    if let Some(err) = failed {
        c.verdict = Verdict::Error;
        c.measured = "error".into();
        c.value = None;
        c.measured_value = None;
        c.reason = Some(err);
        return;
    }
    let share = held as f64 / seeds as f64;
    let pass = seeds > 0 && share >= bar;
    c.measured = format!("{held} of {seeds} seeds ({}); {det}", fmt_num(share));
    c.value = Some(share);
    c.measured_value = Some(Value::Num(share));
    c.recorded = None;
    c.verdict = match (pass, e.known_miss.is_some()) {
        (true, false) => Verdict::Pass,
        (true, true) => Verdict::UnexpectedPass,
        (false, true) => Verdict::KnownMiss,
        (false, false) => Verdict::Fail,
    };
    if e.known_miss.is_some() && use_records {
        let value = Value::Num(share);
        against_record(e, scale, c, &value, Target::Bounds(Some(bar), None));
    }
    if c.verdict == Verdict::UnexpectedPass {
        if let Some(r) = e.record(scale) {
            c.recorded = Some(r.describe(&c.point, scale));
        }
    }
}

fn when_holds(e: &Expect, env: &dyn Env) -> Result<bool, String> {
    match &e.when {
        None => Ok(true),
        Some(w) => eval(w, env)?.truth().map_err(|m| format!("when: {m}")),
    }
}

/// Judges every expectation of one file from its runs.
fn judge_file(
    s: &Spec,
    scale: Scale,
    update_records: bool,
    pts: &[Point],
    runs: &[&Done],
    keys: &[(usize, usize)],
    imports: &[(String, Value)],
) -> (FileResult, Value) {
    let envs: Vec<RunEnv> = runs
        .iter()
        .zip(keys)
        .map(|(d, (p, m))| RunEnv::new(s, d, &pts[*p].0, imports, scale, *m))
        .collect();
    let members = s.seeds + 1;
    let grid_envs: Vec<GridEnv> = (0..members)
        .map(|m| GridEnv {
            spec: s,
            runs: envs.iter().filter(|e| e.member == m).collect(),
            imports,
            scale,
            member: m,
            aggregates: Lazy::new(&s.aggregates, "aggregate"),
        })
        .collect();
    let main_runs: Vec<&RunEnv> = envs.iter().filter(|e| e.member == 0).collect();
    // A grid file's texts read the grid, then the first point's run (the
    // set-up common to every point: capacity, duration, ...).
    let fallback = Fallback {
        first: &grid_envs[0],
        then: main_runs[0],
    };
    let text_env: &dyn Env = if s.grid.is_empty() {
        main_runs[0]
    } else {
        &fallback
    };

    let mut checks = Vec::new();
    let mut ensemble = Vec::new();
    let mut updates = Vec::new();
    // Texts of the file that cannot be rendered are errors, never text.
    let mut file_errors: Vec<Check> = Vec::new();
    let mut text_of = |t: &str, field: &str, env: &dyn Env| -> String {
        match interpolate(t, env) {
            Ok(x) => x,
            Err(err) => {
                file_errors.push(Check::error(
                    field.to_string(),
                    usize::MAX,
                    field,
                    "",
                    format!("the text does not render: {err}"),
                ));
                t.to_string()
            }
        }
    };
    // A variant's checks are reported beside the file's, not judged: its
    // known misses are not held to the file's records (nor recorded).
    let records = !update_records && s.variant.is_none();
    let mut skipped = Vec::new();
    for e in &s.expects {
        if let (Scale::Ci, Some(why)) = (scale, &e.full_only) {
            skipped.push((e.what.clone(), why.clone()));
            continue;
        }
        // (point label, env) per member.
        let contexts: Vec<Vec<(String, &dyn Env)>> = (0..members)
            .map(|m| {
                if e.over_grid {
                    vec![(String::new(), &grid_envs[m] as &dyn Env)]
                } else {
                    envs.iter()
                        .filter(|r| r.member == m)
                        .map(|r| (point_label(r.point), r as &dyn Env))
                        .collect()
                }
            })
            .collect();
        // An ensemble-judged expectation's deterministic run is judged
        // plainly (no record): its verdict is reported, not decisive.
        let det_records = records && e.ensemble_share.is_none();
        let mut main_checks = Vec::new();
        for (label, env) in &contexts[0] {
            match when_holds(e, *env) {
                Ok(true) => main_checks.push(check_in(e, *env, label.clone(), scale, det_records)),
                Ok(false) => {}
                Err(err) => main_checks.push(Check::error(
                    format!("expect[{}]", e.index),
                    e.index,
                    &e.what,
                    label,
                    err,
                )),
            }
        }
        if main_checks.is_empty() {
            main_checks.push(Check::error(
                format!("expect[{}]", e.index),
                e.index,
                &e.what,
                "",
                format!(
                    "when matches no run at {} scale: the expectation checks nothing",
                    scale.name()
                ),
            ));
        }
        if s.seeds > 0 {
            for c in main_checks.iter_mut() {
                let mut held = 0;
                let mut total = 0;
                let mut values = Vec::new();
                let mut failed = None;
                for (k, ctx) in contexts.iter().enumerate().skip(1) {
                    if let Some((_, env)) = ctx.iter().find(|(l, _)| *l == c.point) {
                        match judge(e, *env) {
                            Ok((pass, _, _, v, _, _)) => {
                                total += 1;
                                held += pass as usize;
                                values.extend(v);
                            }
                            Err(err) => {
                                failed.get_or_insert(format!("ensemble seed {k}: {err}"));
                            }
                        }
                    }
                }
                ensemble.push(EnsembleRow {
                    expect: e.index,
                    what: c.what.clone(),
                    point: c.point.clone(),
                    expected: c.expected.clone(),
                    deterministic: (c.measured.clone(), c.verdict),
                    held,
                    total,
                    values,
                    judged: e.ensemble_share.is_some(),
                });
                if let Some(bar) = e.ensemble_share {
                    ensemble_verdict(e, c, bar, (held, s.seeds), failed, scale, records);
                }
            }
        }
        if e.known_miss.is_some()
            && update_records
            && s.variant.is_none()
            && main_checks
                .iter()
                .all(|c| c.verdict == Verdict::KnownMiss && c.measured_value.is_some())
        {
            updates.push(crate::records::Update {
                expect: e.index,
                values: main_checks
                    .iter()
                    .map(|c| (c.point.clone(), c.measured_value.clone().expect("checked")))
                    .collect(),
            });
        }
        checks.extend(main_checks);
    }

    let mut tables = Vec::new();
    let mut cell_errors = Vec::new();
    for (ti, t) in s.tables.iter().enumerate() {
        let env: &dyn Env = if t.over_grid {
            &grid_envs[0]
        } else {
            main_runs[0]
        };
        let header = t.columns.iter().map(|(h, _)| h.clone()).collect();
        let rows = match eval(&t.rows, env).and_then(|v| v.list().map(|l| l.to_vec())) {
            Ok(rows) => rows
                .into_iter()
                .map(|row| {
                    let b = Bound {
                        parent: env,
                        binds: vec![("row".into(), row)],
                    };
                    t.columns
                        .iter()
                        .enumerate()
                        .map(|(j, (_, x))| match eval(x, &b) {
                            Ok(v) => v.to_string(),
                            Err(e) => {
                                cell_errors.push(Check::error(
                                    format!("table[{ti}].columns[{j}]"),
                                    usize::MAX,
                                    &format!("table[{ti}].columns[{j}]"),
                                    "",
                                    format!("a cell does not evaluate: {e}"),
                                ));
                                format!("error: {e}")
                            }
                        })
                        .collect()
                })
                .collect(),
            Err(e) => {
                cell_errors.push(Check::error(
                    format!("table[{ti}].rows"),
                    usize::MAX,
                    &format!("table[{ti}].rows"),
                    "",
                    format!("the rows do not evaluate: {e}"),
                ));
                vec![vec![format!("error: {e}")]]
            }
        };
        tables.push(TableOut {
            title: text_of(&t.title, &format!("table[{ti}].title"), env),
            header,
            rows,
        });
    }

    let mut plots = Vec::new();
    for (pi, pl) in s.plots.iter().enumerate() {
        let env: &dyn Env = if pl.over_grid {
            &grid_envs[0]
        } else {
            main_runs[0]
        };
        let mut lines = Vec::new();
        let mut error = None;
        for (label, x) in &pl.lines {
            let pts = eval(x, env).and_then(|v| {
                v.list()?
                    .iter()
                    .map(|p| match p.list()? {
                        [a, b] => Ok((a.num()?, b.num()?)),
                        _ => Err("each point must be [x, y]".to_string()),
                    })
                    .collect::<Result<Vec<_>, String>>()
            });
            match pts {
                Ok(p) => lines.push((text_of(label, &format!("plot[{pi}].lines"), env), p)),
                Err(e) => error = Some(format!("{label}: {e}")),
            }
        }
        plots.push(PlotOut {
            title: text_of(&pl.title, &format!("plot[{pi}].title"), env),
            file: pl.file.clone(),
            x_label: pl.x_label.clone(),
            y_label: pl.y_label.clone(),
            lines,
            error,
        });
    }

    let record = if s.grid.is_empty() {
        main_runs[0].record()
    } else {
        grid_envs[0].record()
    };
    let title = text_of(&s.title, "verify.title", text_env);
    let setup = s
        .setup
        .as_ref()
        .map(|t| text_of(t, "verify.setup", text_env))
        .unwrap_or_default();
    let claim = s
        .claim
        .as_ref()
        .map(|t| text_of(t, "verify.claim", text_env));
    let note = s.note.as_ref().map(|t| text_of(t, "verify.note", text_env));
    if checks.is_empty() {
        file_errors.push(Check::error(
            "expect".into(),
            usize::MAX,
            "expect",
            "",
            format!("no expectation is judged at {} scale", scale.name()),
        ));
    }
    checks.extend(file_errors);
    checks.extend(cell_errors);
    let fr = FileResult {
        file: s.file.clone(),
        title,
        setup,
        claim,
        note,
        checks,
        ensemble,
        seeds: s.seeds,
        tables,
        plots,
        runs: runs.len(),
        wall_s: runs.iter().map(|d| d.wall_s).sum(),
        updates,
        skipped,
        variant: s.variant.as_ref().map(|v| {
            let mut how = v
                .sets
                .iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if let Some((w, _)) = &v.when {
                how += &format!(" where `{w}`");
            }
            (v.name.clone(), how)
        }),
        variants: Vec::new(),
    };
    (fr, record)
}
