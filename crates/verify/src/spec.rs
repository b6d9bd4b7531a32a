//! Reading and checking an experiment file's verification tables
//! (`[verify]`, `[vars]`, `[measures]`, `[aggregates]`, `[[grid]]`,
//! `[ensemble]`, `[[expect]]`, `[[table]]`; `docs/verify.md`). Everything
//! is checked here, before any simulation runs: a malformed expectation is
//! refused with one line naming the file, the field and what is allowed.

use std::path::{Path, PathBuf};

use toml::{Table, Value as T};

use crate::expr::{parse, Expr, Value};
use crate::records::{self, Record};
use crate::{functions, measure};

/// Top-level tables this crate reads (the scenario reader ignores them).
pub const TABLES: &[&str] = &[
    "verify",
    "vars",
    "measures",
    "aggregates",
    "grid",
    "ensemble",
    "variant",
    "expect",
    "table",
    "plot",
];

/// Shortened (`ci`) or as written (`full`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The `[verify.ci]` overrides applied.
    Ci,
    /// The file as written.
    Full,
}

impl Scale {
    /// The name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Ci => "ci",
            Scale::Full => "full",
        }
    }
}

/// How a measured value is judged.
#[derive(Clone, Debug, PartialEq)]
pub enum Judge {
    /// `|m - e| <= tol * |e|` (`tol = "5%"`).
    Rel(Expr, f64),
    /// `|m - e| <= tol` (`tol = 3`, or no tol: exact).
    Abs(Expr, f64),
    /// `min <= m <= max`, either bound optional.
    Bounds(Option<Expr>, Option<Expr>),
    /// The value is a condition that must be true.
    Holds,
}

/// One `[[expect]]` entry.
#[derive(Clone, Debug)]
pub struct Expect {
    /// Position in the file, 1-based, for messages.
    pub index: usize,
    /// Label (may quote values with `{...}`).
    pub what: String,
    /// What is measured.
    pub value: Expr,
    /// How it is judged.
    pub judge: Judge,
    /// Where the expected value comes from in the paper.
    pub source: String,
    /// Why the tolerance is what it is.
    pub tol_source: Option<String>,
    /// Evaluated once over the grid (aggregates) instead of per run.
    pub over_grid: bool,
    /// Per-run expectations: only the runs where this holds.
    pub when: Option<Expr>,
    /// A declared non-reproduction, with its reason.
    pub known_miss: Option<String>,
    /// What the check compares: a measurement with the paper, or a
    /// definition with itself.
    pub kind: Kind,
    /// Why an identity check is one (`kind_reason`).
    pub kind_reason: Option<String>,
    /// The known miss's recorded value at CI scale (`record_ci`).
    pub record_ci: Option<Record>,
    /// The known miss's recorded value at full scale (`record_full`).
    pub record_full: Option<Record>,
    /// `full_only`: judged at full scale only, with the reason (a value
    /// the paper gives only at its full size, say).
    pub full_only: Option<String>,
    /// `ensemble_share`: the verdict is the ensemble's, met when at least
    /// this fraction of the `[ensemble]`'s seeds meets the expectation
    /// (the deterministic run is reported beside it, as the
    /// phase-sensitive case).
    pub ensemble_share: Option<f64>,
}

impl Expect {
    /// The known miss's record at `scale`, if any.
    pub fn record(&self, scale: Scale) -> Option<&Record> {
        match scale {
            Scale::Ci => self.record_ci.as_ref(),
            Scale::Full => self.record_full.as_ref(),
        }
    }
}

/// What an expectation compares (`kind` on an `[[expect]]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A measurement (of a run or a model) against the paper (the default).
    Measurement,
    /// A restatement of a definition, or printed constants against each
    /// other: still run and able to fail, but not a reproduction.
    Identity,
}

impl Kind {
    /// The name used in files.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Measurement => "measurement",
            Kind::Identity => "identity",
        }
    }
}

/// One `[[grid]]` axis.
#[derive(Clone, Debug)]
pub struct Axis {
    /// Name in expressions.
    pub name: String,
    /// Values at full scale.
    pub values: Vec<Value>,
    /// Values at CI scale, if different.
    pub ci: Option<Vec<Value>>,
    /// `--set` keys, each with one value per axis value (or the value itself).
    pub sets: Vec<(String, Option<Vec<String>>)>,
}

impl Axis {
    /// Values at `scale`.
    pub fn at(&self, scale: Scale) -> &[Value] {
        match (scale, &self.ci) {
            (Scale::Ci, Some(v)) => v,
            _ => &self.values,
        }
    }
}

/// One `[[table]]`: a table of values for the report.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// Heading.
    pub title: String,
    /// Over the grid (aggregate names) instead of the main run.
    pub over_grid: bool,
    /// The rows: a list; each element is bound to `row`.
    pub rows: Expr,
    /// Column headers and cell expressions.
    pub columns: Vec<(String, Expr)>,
}

/// One `[[plot]]`: lines of `(x, y)` points drawn beside the report.
#[derive(Clone, Debug)]
pub struct PlotSpec {
    /// Heading (interpolated).
    pub title: String,
    /// File stem of the image (letters, digits, `-`, `_`).
    pub file: String,
    /// Over the grid instead of the main run.
    pub over_grid: bool,
    /// Axis labels.
    pub x_label: String,
    /// Vertical axis label.
    pub y_label: String,
    /// Line labels and expressions giving lists of `[x, y]`.
    pub lines: Vec<(String, Expr)>,
}

/// A measure: a named expression, maybe with parameters.
#[derive(Clone, Debug)]
pub struct Measure {
    /// Name.
    pub name: String,
    /// Parameter names (a function if non-empty).
    pub params: Vec<String>,
    /// Body.
    pub body: Expr,
}

/// A `[[variant]]`: the experiment again with other settings, its checks
/// reported beside the file's own and not judged (docs/verify.md).
#[derive(Clone, Debug)]
pub struct Variant {
    /// Index among the file's `[[variant]]` entries.
    pub index: usize,
    /// Name in reports.
    pub name: String,
    /// `--set` overrides, applied after the grid point's.
    pub sets: Vec<String>,
    /// Grid points it applies to (an expression of the axes and `[vars]`),
    /// with its text; `None`: every point. Elsewhere the point runs as in
    /// the file.
    pub when: Option<(String, Expr)>,
}

/// A checked experiment file.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The file as named.
    pub file: String,
    /// Its path.
    pub path: PathBuf,
    /// The file's text.
    pub text: String,
    /// Title for reports.
    pub title: String,
    /// Set-up text (interpolated).
    pub setup: Option<String>,
    /// The claim in words (interpolated).
    pub claim: Option<String>,
    /// Extra report text (interpolated).
    pub note: Option<String>,
    /// Imported files: (name, path).
    pub imports: Vec<(String, PathBuf)>,
    /// `--set` overrides at CI scale.
    pub ci_sets: Vec<String>,
    /// Constants (after the scale's overrides).
    pub vars: Vec<(String, Value)>,
    /// Per-run measures, in order.
    pub measures: Vec<Measure>,
    /// Per-grid measures, in order.
    pub aggregates: Vec<Measure>,
    /// Grid axes.
    pub grid: Vec<Axis>,
    /// Ensemble seeds (0: none) at this scale.
    pub seeds: usize,
    /// `--set` overrides of ensemble runs.
    pub ensemble_sets: Vec<String>,
    /// Expectations.
    pub expects: Vec<Expect>,
    /// Report tables.
    pub tables: Vec<TableSpec>,
    /// Report plots.
    pub plots: Vec<PlotSpec>,
    /// `[verify] model = true`: the file evaluates models only and
    /// simulates nothing (no scenario tables, no run functions).
    pub model: bool,
    /// The file's `[[variant]]` entries.
    pub variants: Vec<Variant>,
    /// `Some`: this spec is that variant of the file (made by the runner).
    pub variant: Option<Variant>,
}

/// Names every run context defines.
pub const RUN_NAMES: &[&str] = &["duration", "seed", "flows", "links", "scale", "member"];
/// Names every grid context defines.
pub const GRID_NAMES: &[&str] = &["scale", "points_count", "member"];
/// Functions only grid contexts have.
pub const GRID_FUNCS: &[&str] = &["points", "where", "at", "grid_values"];

/// Every function of values alone.
pub fn value_funcs() -> Vec<&'static str> {
    names(functions::HELP)
}

/// Every run function.
pub fn run_funcs() -> Vec<&'static str> {
    names(measure::HELP)
}

fn names(help: &[(&'static str, &str)]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (sig, _) in help {
        for part in sig.split([',', '|']) {
            let p = part.trim();
            if let Some((n, _)) = p.split_once('(') {
                let n = n.trim();
                if !n.is_empty()
                    && n.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && !out.contains(&n)
                {
                    out.push(n);
                }
            }
        }
    }
    out.push("if");
    out
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, field: &str, msg: impl std::fmt::Display) -> String {
        format!("{}: {field}: {msg}", self.file)
    }
}

fn str_of<'a>(c: &Ctx, t: &'a Table, key: &str, at: &str) -> Result<Option<&'a str>, String> {
    match t.get(key) {
        None => Ok(None),
        Some(T::String(s)) => Ok(Some(s)),
        Some(v) => Err(c.err(
            &format!("{at}{key}"),
            format!("expected a string, found {}", v.type_str()),
        )),
    }
}

fn check_keys(c: &Ctx, t: &Table, allowed: &[&str], at: &str) -> Result<(), String> {
    for k in t.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(c.err(
                &format!("{at}{k}"),
                format!("unknown key \"{k}\"; allowed: {}", allowed.join(", ")),
            ));
        }
    }
    Ok(())
}

/// An expression given as a string or a number.
fn expr_of(c: &Ctx, v: &T, field: &str) -> Result<Expr, String> {
    match v {
        T::String(s) => parse(s).map_err(|e| c.err(field, format!("\"{s}\": {e}"))),
        T::Integer(i) => Ok(Expr::Lit(Value::Num(*i as f64))),
        T::Float(f) => Ok(Expr::Lit(Value::Num(*f))),
        T::Boolean(b) => Ok(Expr::Lit(Value::Bool(*b))),
        v => Err(c.err(
            field,
            format!(
                "expected an expression (a string) or a number, found {}",
                v.type_str()
            ),
        )),
    }
}

fn set_value(v: &T) -> Option<String> {
    match v {
        T::String(s) => Some(s.clone()),
        T::Integer(i) => Some(i.to_string()),
        T::Float(f) => Some(f.to_string()),
        T::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn sets_of(c: &Ctx, v: &T, field: &str) -> Result<Vec<String>, String> {
    let t = v.as_table().ok_or_else(|| {
        c.err(
            field,
            "expected a table of --set keys and values, like { duration = \"20s\" }",
        )
    })?;
    t.iter()
        .map(|(k, v)| {
            set_value(v).map(|s| format!("{k}={s}")).ok_or_else(|| {
                c.err(
                    &format!("{field}.{k}"),
                    "expected a string, number or boolean",
                )
            })
        })
        .collect()
}

/// Parses a tolerance: `"5%"` relative, a number (or numeric string) absolute.
fn tol_of(c: &Ctx, v: &T, field: &str) -> Result<(bool, f64), String> {
    let bad = || {
        c.err(
            field,
            "expected a relative tolerance like \"5%\" or an absolute one like 3 (non-negative)",
        )
    };
    let (rel, x) = match v {
        T::Integer(i) => (false, *i as f64),
        T::Float(f) => (false, *f),
        T::String(s) => match s.trim().strip_suffix('%') {
            Some(p) => (true, p.trim().parse::<f64>().map_err(|_| bad())? / 100.0),
            None => (false, s.trim().parse::<f64>().map_err(|_| bad())?),
        },
        _ => return Err(bad()),
    };
    if !x.is_finite() || x < 0.0 {
        return Err(bad());
    }
    Ok((rel, x))
}

fn measures_of(c: &Ctx, v: Option<&T>, table: &str) -> Result<Vec<Measure>, String> {
    let Some(v) = v else { return Ok(vec![]) };
    let t = v
        .as_table()
        .ok_or_else(|| c.err(table, "expected a table of name = \"expression\""))?;
    let mut out = Vec::new();
    for (k, v) in t {
        let field = format!("{table}.{k}");
        let (name, params) = match k.split_once('(') {
            Some((n, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or_else(|| c.err(&field, "a function measure is written \"name(a, b)\""))?;
                let ps: Vec<String> = inner
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                (n.trim().to_string(), ps)
            }
            None => (k.clone(), vec![]),
        };
        let ident = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        };
        if !ident(&name) || !params.iter().all(|p| ident(p)) {
            return Err(c.err(
                &field,
                "a measure's name (and parameters) must be words of letters, digits and _",
            ));
        }
        out.push(Measure {
            name,
            params,
            body: expr_of(c, v, &field)?,
        });
    }
    Ok(out)
}

/// `over = "run"` (the default) or `"grid"`.
fn over_of(c: &Ctx, t: &Table, at: &str) -> Result<bool, String> {
    match str_of(c, t, "over", at)? {
        None | Some("run") => Ok(false),
        Some("grid") => Ok(true),
        Some(o) => Err(c.err(
            &format!("{at}over"),
            format!("\"{o}\": allowed values are \"run\" (default) and \"grid\""),
        )),
    }
}

/// A list of `["label", "expression"]` pairs (table columns, plot lines).
fn labelled(
    c: &Ctx,
    t: &Table,
    key: &str,
    at: &str,
    what: &str,
) -> Result<Vec<(String, Expr)>, String> {
    let list = t.get(key).and_then(T::as_array).ok_or_else(|| {
        c.err(
            &format!("{at}{key}"),
            format!("missing: a list of [\"{what}\", \"expression\"] pairs"),
        )
    })?;
    let mut out = Vec::new();
    for (j, l) in list.iter().enumerate() {
        let field = format!("{at}{key}[{j}]");
        match l.as_array().map(|a| a.as_slice()) {
            Some([T::String(h), x]) => out.push((h.clone(), expr_of(c, x, &field)?)),
            _ => return Err(c.err(&field, format!("expected [\"{what}\", \"expression\"]"))),
        }
    }
    Ok(out)
}

/// Whether `path` is a model-only experiment (`[verify] model = true`),
/// which `dropless run` and `check` do not simulate. False for anything
/// unreadable: the caller's own loading reports that.
pub fn is_model_only(path: &Path) -> bool {
    use std::io::Read;
    // Read at most the size limit: a device or pipe reports no size.
    let mut text = String::new();
    let limit = dropless_scenario::MAX_FILE_BYTES;
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_string(&mut text))
        .is_ok_and(|n| n as u64 <= limit);
    read && text
        .parse::<Table>()
        .ok()
        .and_then(|r| r.get("verify")?.get("model")?.as_bool())
        .unwrap_or(false)
}

/// Reads the verification tables of `path` at `scale`. `Ok(None)`: the
/// file has none (not an experiment).
pub fn load(path: &Path, scale: Scale) -> Result<Option<Spec>, String> {
    let file = path.display().to_string();
    let c = Ctx { file: &file };
    let meta = std::fs::metadata(path).map_err(|e| format!("{file}: cannot read the file: {e}"))?;
    if meta.len() > dropless_scenario::MAX_FILE_BYTES {
        return Err(format!(
            "{file}: cannot read the file: larger than {} bytes",
            dropless_scenario::MAX_FILE_BYTES
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{file}: cannot read the file: {e}"))?;
    let root: Table = text.parse().map_err(|e: toml::de::Error| {
        format!(
            "{file}: not valid TOML: {}",
            e.message().trim().replace('\n', "; ")
        )
    })?;
    if !root.contains_key("verify") && !root.contains_key("expect") {
        return Ok(None);
    }
    let v = root
        .get("verify")
        .and_then(T::as_table)
        .ok_or_else(|| c.err("verify", "missing: an experiment with [[expect]] needs a [verify] table with at least title = \"...\""))?;
    check_keys(
        &c,
        v,
        &["title", "setup", "claim", "note", "import", "ci", "model"],
        "verify.",
    )?;
    let model = match v.get("model") {
        None => false,
        Some(T::Boolean(b)) => *b,
        Some(_) => return Err(c.err("verify.model", "expected true or false")),
    };
    if model {
        // A model file holds the verification tables and a name, nothing
        // a simulation would read.
        if let Some(k) = root.keys().find(|k| {
            !TABLES.contains(&k.as_str()) && !["name", "description"].contains(&k.as_str())
        }) {
            return Err(c.err(
                k,
                "a model-only experiment (verify.model = true) simulates nothing; allowed: name, description and the verification tables",
            ));
        }
        if root.contains_key("ensemble") {
            return Err(c.err("ensemble", "a model-only experiment (verify.model = true) has no seeded runs to repeat; give its functions a seed"));
        }
    }
    let title = str_of(&c, v, "title", "verify.")?
        .ok_or_else(|| c.err("verify.title", "missing: a short title for the report"))?
        .to_string();
    let setup = str_of(&c, v, "setup", "verify.")?.map(str::to_string);
    let claim = str_of(&c, v, "claim", "verify.")?.map(str::to_string);
    let note = str_of(&c, v, "note", "verify.")?.map(str::to_string);
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut imports = Vec::new();
    if let Some(i) = v.get("import") {
        let t = i
            .as_table()
            .ok_or_else(|| c.err("verify.import", "expected a table name = \"file.toml\""))?;
        for (k, p) in t {
            let p = p.as_str().ok_or_else(|| {
                c.err(
                    &format!("verify.import.{k}"),
                    "expected a file name (relative to this file)",
                )
            })?;
            let full = dir.join(p);
            if !full.is_file() {
                return Err(c.err(
                    &format!("verify.import.{k}"),
                    format!("no such file {}", full.display()),
                ));
            }
            imports.push((k.clone(), full));
        }
    }
    let mut ci_sets = Vec::new();
    let mut ci_vars = None;
    let mut ci_seeds = None;
    if let Some(ci) = v.get("ci") {
        let t = ci
            .as_table()
            .ok_or_else(|| c.err("verify.ci", "expected a table with set, vars, seeds"))?;
        check_keys(&c, t, &["set", "vars", "seeds"], "verify.ci.")?;
        if let Some(s) = t.get("set") {
            ci_sets = sets_of(&c, s, "verify.ci.set")?;
        }
        ci_vars = t.get("vars");
        if let Some(s) = t.get("seeds") {
            ci_seeds = Some(
                s.as_integer()
                    .filter(|n| (0..=1000).contains(n))
                    .ok_or_else(|| {
                        c.err("verify.ci.seeds", "expected a whole number from 0 to 1000")
                    })? as usize,
            );
        }
    }
    let mut vars: Vec<(String, Value)> = Vec::new();
    let mut add_vars = |t: &T, field: &str| -> Result<(), String> {
        let t = t
            .as_table()
            .ok_or_else(|| c.err(field, "expected a table of name = value"))?;
        for (k, x) in t {
            let val = Value::from_toml(x).map_err(|e| c.err(&format!("{field}.{k}"), e))?;
            match vars.iter_mut().find(|(n, _)| n == k) {
                Some(slot) => slot.1 = val,
                None => vars.push((k.clone(), val)),
            }
        }
        Ok(())
    };
    if let Some(t) = root.get("vars") {
        add_vars(t, "vars")?;
    }
    if scale == Scale::Ci {
        if let Some(t) = ci_vars {
            add_vars(t, "verify.ci.vars")?;
        }
    }
    let measures = measures_of(&c, root.get("measures"), "measures")?;
    let aggregates = measures_of(&c, root.get("aggregates"), "aggregates")?;

    let mut grid = Vec::new();
    if let Some(g) = root.get("grid") {
        let arr = g
            .as_array()
            .ok_or_else(|| c.err("grid", "expected [[grid]] entries"))?;
        for (i, a) in arr.iter().enumerate() {
            let at = format!("grid[{i}].");
            let t = a
                .as_table()
                .ok_or_else(|| c.err(&format!("grid[{i}]"), "expected a table"))?;
            check_keys(&c, t, &["name", "values", "ci", "set"], &at)?;
            let name = str_of(&c, t, "name", &at)?
                .ok_or_else(|| {
                    c.err(
                        &format!("{at}name"),
                        "missing: the axis's name in expressions",
                    )
                })?
                .to_string();
            let list = |key: &str| -> Result<Option<Vec<Value>>, String> {
                match t.get(key) {
                    None => Ok(None),
                    Some(T::Array(v)) if !v.is_empty() && v.len() <= 10_000 => v
                        .iter()
                        .map(|x| Value::from_toml(x).map_err(|e| c.err(&format!("{at}{key}"), e)))
                        .collect::<Result<Vec<_>, _>>()
                        .map(Some),
                    Some(_) => Err(c.err(
                        &format!("{at}{key}"),
                        "expected a non-empty list of at most 10000 values",
                    )),
                }
            };
            let values = list("values")?
                .ok_or_else(|| c.err(&format!("{at}values"), "missing: the axis's values"))?;
            let ci = list("ci")?;
            let mut sets = Vec::new();
            match t.get("set") {
                None => {}
                Some(T::String(k)) => sets.push((k.clone(), None)),
                Some(T::Table(st)) => {
                    for (k, v) in st {
                        let vals = v.as_array().ok_or_else(|| {
                            c.err(
                                &format!("{at}set.{k}"),
                                "expected a list with one value per axis value",
                            )
                        })?;
                        if vals.len() != values.len()
                            || ci.as_ref().is_some_and(|_| true) && vals.len() != values.len()
                        {
                            return Err(c.err(
                                &format!("{at}set.{k}"),
                                format!("{} values for an axis of {}", vals.len(), values.len()),
                            ));
                        }
                        let vs = vals
                            .iter()
                            .map(|x| {
                                set_value(x).ok_or_else(|| {
                                    c.err(&format!("{at}set.{k}"), "expected strings or numbers")
                                })
                            })
                            .collect::<Result<Vec<_>, _>>()?;
                        sets.push((k.clone(), Some(vs)));
                    }
                }
                Some(_) => {
                    return Err(c.err(
                        &format!("{at}set"),
                        "expected a --set key, or a table of keys to lists",
                    ))
                }
            }
            if let Some(civ) = &ci {
                if sets.iter().any(|(_, v)| v.is_some()) && !civ.iter().all(|x| values.contains(x))
                {
                    return Err(c.err(
                        &format!("{at}ci"),
                        "with per-value sets, the ci values must be a subset of values",
                    ));
                }
            }
            if grid.iter().any(|x: &Axis| x.name == name) {
                return Err(c.err(
                    &format!("{at}name"),
                    format!("axis \"{name}\" is named twice"),
                ));
            }
            grid.push(Axis {
                name,
                values,
                ci,
                sets,
            });
        }
    }

    let mut seeds = 0;
    let mut ensemble_sets = Vec::new();
    if let Some(e) = root.get("ensemble") {
        let t = e
            .as_table()
            .ok_or_else(|| c.err("ensemble", "expected a table with seeds and set"))?;
        check_keys(&c, t, &["seeds", "set"], "ensemble.")?;
        seeds = t
            .get("seeds")
            .and_then(T::as_integer)
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| c.err("ensemble.seeds", "expected a whole number from 1 to 1000"))?
            as usize;
        if let Some(s) = t.get("set") {
            ensemble_sets = sets_of(&c, s, "ensemble.set")?;
        }
    }
    if scale == Scale::Ci {
        if let Some(s) = ci_seeds {
            seeds = s;
        }
    }

    let mut variants: Vec<Variant> = Vec::new();
    if let Some(v) = root.get("variant") {
        let arr = match v {
            T::Array(a) if !a.is_empty() => a,
            _ => {
                return Err(c.err(
                    "variant",
                    "expected [[variant]] entries (name, set, optional when)",
                ))
            }
        };
        if model {
            return Err(c.err("variant", "a model-only experiment (verify.model = true) has no scenario for a variant to change"));
        }
        for (i, t) in arr.iter().enumerate() {
            let at = format!("variant[{i}].");
            let t = t.as_table().ok_or_else(|| {
                c.err(
                    &format!("variant[{i}]"),
                    "expected a table (name, set, optional when)",
                )
            })?;
            check_keys(&c, t, &["name", "set", "when"], &at)?;
            let name = str_of(&c, t, "name", &at)?
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| {
                    c.err(
                        &format!("{at}name"),
                        "missing: a short name for the report, like \"ns-2 pacer\"",
                    )
                })?
                .to_string();
            if variants.iter().any(|v| v.name == name) {
                return Err(c.err(
                    &format!("{at}name"),
                    format!("variant \"{name}\" is named twice"),
                ));
            }
            let sets = match t.get("set") {
                None => Vec::new(),
                Some(x) => sets_of(&c, x, &format!("{at}set"))?,
            };
            if sets.is_empty() {
                return Err(c.err(
                    &format!("{at}set"),
                    "missing: the --set keys and values the variant changes, like { \"flows[*].params.pacer\" = 1 }",
                ));
            }
            let when = match t.get("when") {
                None => None,
                Some(T::String(w)) => Some((
                    w.clone(),
                    parse(w).map_err(|e| c.err(&format!("{at}when"), format!("\"{w}\": {e}")))?,
                )),
                Some(x) => {
                    return Err(c.err(
                        &format!("{at}when"),
                        format!(
                            "expected an expression of the grid's axes (a string), found {}",
                            x.type_str()
                        ),
                    ))
                }
            };
            variants.push(Variant {
                index: i,
                name,
                sets,
                when,
            });
        }
    }

    let mut expects = Vec::new();
    let arr = match root.get("expect") {
        Some(T::Array(a)) if !a.is_empty() => a,
        Some(_) => return Err(c.err("expect", "expected [[expect]] entries")),
        None => return Err(c.err("expect", "missing: at least one [[expect]] entry")),
    };
    for (i, e) in arr.iter().enumerate() {
        let at = format!("expect[{i}].");
        let f = |k: &str| format!("{at}{k}");
        let t = e
            .as_table()
            .ok_or_else(|| c.err(&format!("expect[{i}]"), "expected a table"))?;
        check_keys(
            &c,
            t,
            &[
                "what",
                "value",
                "expected",
                "tol",
                "min",
                "max",
                "source",
                "tol_source",
                "over",
                "when",
                "known_miss",
                "kind",
                "kind_reason",
                "record_ci",
                "record_full",
                "full_only",
                "ensemble_share",
            ],
            &at,
        )?;
        let what = str_of(&c, t, "what", &at)?
            .ok_or_else(|| c.err(&f("what"), "missing: what is measured, in words"))?
            .to_string();
        let value = expr_of(
            &c,
            t.get("value")
                .ok_or_else(|| c.err(&f("value"), "missing: the expression measured"))?,
            &f("value"),
        )?;
        let source = str_of(&c, t, "source", &at)?
            .ok_or_else(|| {
                c.err(
                    &f("source"),
                    "missing: where the expectation comes from (equation, table, figure, page)",
                )
            })?
            .to_string();
        let tol_source = str_of(&c, t, "tol_source", &at)?.map(str::to_string);
        let judge = match (t.get("expected"), t.get("min"), t.get("max")) {
            (Some(x), None, None) => {
                let ex = expr_of(&c, x, &f("expected"))?;
                match t.get("tol") {
                    None => Judge::Abs(ex, 0.0),
                    Some(tv) => {
                        let (rel, x) = tol_of(&c, tv, &f("tol"))?;
                        if x > 0.0 && tol_source.is_none() {
                            return Err(c.err(
                                &f("tol_source"),
                                "missing: where the tolerance comes from, or why it is what it is",
                            ));
                        }
                        if rel {
                            Judge::Rel(ex, x)
                        } else {
                            Judge::Abs(ex, x)
                        }
                    }
                }
            }
            (None, lo, hi) if lo.is_some() || hi.is_some() => {
                if t.contains_key("tol") {
                    return Err(c.err(
                        &f("tol"),
                        "a tolerance goes with expected, not with min/max",
                    ));
                }
                Judge::Bounds(
                    lo.map(|x| expr_of(&c, x, &f("min"))).transpose()?,
                    hi.map(|x| expr_of(&c, x, &f("max"))).transpose()?,
                )
            }
            (None, None, None) => {
                if t.contains_key("tol") {
                    return Err(c.err(&f("tol"), "a tolerance needs expected"));
                }
                Judge::Holds
            }
            _ => {
                return Err(c.err(
                    &f("expected"),
                    "give either expected (with tol) or min/max, not both",
                ))
            }
        };
        let over_grid = over_of(&c, t, &at)?;
        let when = t
            .get("when")
            .map(|x| expr_of(&c, x, &f("when")))
            .transpose()?;
        if over_grid && when.is_some() {
            return Err(c.err(
                &f("when"),
                "when filters runs; it does not apply to over = \"grid\"",
            ));
        }
        let known_miss = str_of(&c, t, "known_miss", &at)?.map(str::to_string);
        let kind = match str_of(&c, t, "kind", &at)? {
            None | Some("measurement") => Kind::Measurement,
            Some("identity") => Kind::Identity,
            Some(k) => {
                return Err(c.err(
                    &f("kind"),
                    format!("\"{k}\": allowed values are \"measurement\" (default: the check compares a measurement with the paper) and \"identity\" (it restates a definition or compares printed constants)"),
                ))
            }
        };
        let kind_reason = str_of(&c, t, "kind_reason", &at)?.map(str::to_string);
        match (kind, &kind_reason) {
            (Kind::Identity, None) => {
                return Err(c.err(
                    &f("kind_reason"),
                    "missing: why this check restates a definition (one line)",
                ))
            }
            (Kind::Measurement, Some(_)) => {
                return Err(c.err(&f("kind_reason"), "goes with kind = \"identity\" only"))
            }
            _ => {}
        }
        let mut recs = [None, None];
        for (slot, sc) in recs.iter_mut().zip([Scale::Ci, Scale::Full]) {
            let k = records::key(sc);
            if let Some(r) = t.get(k) {
                if known_miss.is_none() {
                    return Err(c.err(
                        &f(k),
                        "a record without known_miss: only a declared known miss records its measured value (remove the record, or declare the miss)",
                    ));
                }
                *slot = Some(records::parse(r, sc).map_err(|m| c.err(&f(k), m))?);
            }
        }
        let [record_ci, record_full] = recs;
        let full_only = str_of(&c, t, "full_only", &at)?.map(str::to_string);
        if full_only.as_deref().is_some_and(|r| r.trim().is_empty()) {
            return Err(c.err(
                &f("full_only"),
                "expected the reason the expectation cannot be judged at CI scale",
            ));
        }
        if full_only.is_some() && record_ci.is_some() {
            return Err(c.err(
                &f("record_ci"),
                "a full_only expectation is not judged at CI scale: it has no CI record",
            ));
        }
        let ensemble_share = match t.get("ensemble_share") {
            None => None,
            Some(v) => {
                let x = match v {
                    T::Float(x) => *x,
                    T::Integer(n) => *n as f64,
                    other => {
                        return Err(c.err(
                            &f("ensemble_share"),
                            format!("expected a number from 0 to 1 (the fraction of the ensemble's seeds that must meet the expectation), found {}", other.type_str()),
                        ))
                    }
                };
                if !(0.0..=1.0).contains(&x) {
                    return Err(c.err(
                        &f("ensemble_share"),
                        format!("{x}: expected a number from 0 to 1 (the fraction of the ensemble's seeds that must meet the expectation)"),
                    ));
                }
                if seeds == 0 {
                    return Err(c.err(
                        &f("ensemble_share"),
                        format!("the verdict is judged over the ensemble, but the file has no [ensemble] with seeds at {} scale: add one (seeds and set), or remove ensemble_share", scale.name()),
                    ));
                }
                Some(x)
            }
        };
        expects.push(Expect {
            index: i,
            what,
            value,
            judge,
            source,
            tol_source,
            over_grid,
            when,
            known_miss,
            kind,
            kind_reason,
            record_ci,
            record_full,
            full_only,
            ensemble_share,
        });
    }

    let mut tables = Vec::new();
    if let Some(tv) = root.get("table") {
        let arr = tv
            .as_array()
            .ok_or_else(|| c.err("table", "expected [[table]] entries"))?;
        for (i, e) in arr.iter().enumerate() {
            let at = format!("table[{i}].");
            let t = e
                .as_table()
                .ok_or_else(|| c.err(&format!("table[{i}]"), "expected a table"))?;
            check_keys(&c, t, &["title", "over", "rows", "columns"], &at)?;
            let over_grid = over_of(&c, t, &at)?;
            let rows = expr_of(
                &c,
                t.get("rows").ok_or_else(|| {
                    c.err(
                        &format!("{at}rows"),
                        "missing: a list expression; each element is `row`",
                    )
                })?,
                &format!("{at}rows"),
            )?;
            let columns = labelled(&c, t, "columns", &at, "header")?;
            tables.push(TableSpec {
                title: str_of(&c, t, "title", &at)?.unwrap_or("").to_string(),
                over_grid,
                rows,
                columns,
            });
        }
    }

    let mut plots = Vec::new();
    if let Some(pv) = root.get("plot") {
        let arr = pv
            .as_array()
            .ok_or_else(|| c.err("plot", "expected [[plot]] entries"))?;
        for (i, e) in arr.iter().enumerate() {
            let at = format!("plot[{i}].");
            let t = e
                .as_table()
                .ok_or_else(|| c.err(&format!("plot[{i}]"), "expected a table"))?;
            check_keys(
                &c,
                t,
                &["title", "file", "over", "x_label", "y_label", "lines"],
                &at,
            )?;
            let over_grid = over_of(&c, t, &at)?;
            let file = str_of(&c, t, "file", &at)?
                .ok_or_else(|| c.err(&format!("{at}file"), "missing: the image's file stem"))?
                .to_string();
            if file.is_empty()
                || file.len() > 100
                || !file
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_')
            {
                return Err(c.err(
                    &format!("{at}file"),
                    "a file stem of letters, digits, - and _ (at most 100)",
                ));
            }
            let lines = labelled(&c, t, "lines", &at, "label")?;
            plots.push(PlotSpec {
                title: str_of(&c, t, "title", &at)?.unwrap_or("").to_string(),
                file,
                over_grid,
                x_label: str_of(&c, t, "x_label", &at)?
                    .unwrap_or("Time (s)")
                    .to_string(),
                y_label: str_of(&c, t, "y_label", &at)?.unwrap_or("").to_string(),
                lines,
            });
        }
    }

    let spec = Spec {
        file: file.clone(),
        path: path.to_path_buf(),
        text,
        title,
        setup,
        claim,
        note,
        imports,
        ci_sets,
        vars,
        measures,
        aggregates,
        grid,
        seeds,
        ensemble_sets,
        expects,
        tables,
        plots,
        model,
        variants,
        variant: None,
    };
    if model {
        if !spec.ci_sets.is_empty() {
            return Err(c.err("verify.ci.set", "a model-only experiment (verify.model = true) has no scenario to override; use verify.ci.vars"));
        }
        if let Some(a) = spec.grid.iter().find(|a| !a.sets.is_empty()) {
            return Err(c.err(&format!("grid {}.set", a.name), "a model-only experiment (verify.model = true) has no scenario to override; the axis's name alone carries its value"));
        }
    }
    check_names(&spec)?;
    Ok(Some(spec))
}

/// Every `{...}` expression of a text, parsed (`{{` and `}}` are braces).
pub fn text_exprs(text: &str) -> Result<Vec<Expr>, String> {
    let mut out = Vec::new();
    for piece in interpolation_pieces(text)? {
        if let Piece::Expr(src) = piece {
            out.push(parse(src).map_err(|e| format!("{{{src}}}: {e}"))?);
        }
    }
    Ok(out)
}

/// A piece of an interpolated text.
pub enum Piece<'a> {
    /// Literal text.
    Text(String),
    /// An expression's source.
    Expr(&'a str),
}

/// Splits a text into literal pieces and `{expression}` pieces.
pub fn interpolation_pieces(text: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' if b.get(i + 1) == Some(&b'{') => {
                lit.push('{');
                i += 2;
            }
            b'}' if b.get(i + 1) == Some(&b'}') => {
                lit.push('}');
                i += 2;
            }
            b'{' => {
                let end = text[i + 1..]
                    .find('}')
                    .ok_or_else(|| "a \"{\" is not closed (write {{ for a brace)".to_string())?;
                if !lit.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut lit)));
                }
                out.push(Piece::Expr(&text[i + 1..i + 1 + end]));
                i += end + 2;
            }
            b'}' => return Err("a \"}\" without \"{\" (write }} for a brace)".into()),
            _ => {
                let ch = text[i..].chars().next().expect("in bounds");
                lit.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Text(lit));
    }
    Ok(out)
}

/// Checks that every name and function an expression uses exists in the
/// context it will be evaluated in.
fn check_names(s: &Spec) -> Result<(), String> {
    let c = Ctx { file: &s.file };
    let vf = value_funcs();
    let rf = run_funcs();
    let axes: Vec<&str> = s.grid.iter().map(|a| a.name.as_str()).collect();
    let vars: Vec<&str> = s.vars.iter().map(|(n, _)| n.as_str()).collect();
    let imports: Vec<&str> = s.imports.iter().map(|(n, _)| n.as_str()).collect();
    // Names visible in a run context: built-ins, vars, axes (their value
    // at the point), imports, measures defined earlier.
    // `both`: a grid file's own texts, which read the grid and then the
    // first point's run (the set-up common to every point).
    let check_in = |e: &Expr,
                    field: &str,
                    grid: bool,
                    upto: usize,
                    params: &[String],
                    both: bool|
     -> Result<(), String> {
        let (names, calls) = e.free_names();
        if s.model {
            let run_only = ["duration", "seed", "flows", "links"];
            if let Some(n) = names
                .iter()
                .find(|n| {
                    run_only.contains(&n.as_str())
                        && !vars.contains(&n.as_str())
                        && !params.contains(n)
                })
                .or_else(|| {
                    calls
                        .iter()
                        .find(|f| f.as_str() != "if" && rf.contains(&f.as_str()))
                })
            {
                return Err(c.err(
                    field,
                    format!("{n} needs a simulation, and this experiment is model-only (verify.model = true)"),
                ));
            }
        }
        let ms: &[Measure] = if grid { &s.aggregates } else { &s.measures };
        let plain_measure = |n: &str| {
            s.measures
                .iter()
                .any(|m| m.params.is_empty() && m.name == n)
        };
        let fn_measure = |n: &str| {
            s.measures
                .iter()
                .any(|m| !m.params.is_empty() && m.name == n)
        };
        for n in &names {
            let ok = (both && (RUN_NAMES.contains(&n.as_str()) || plain_measure(n)))
                || vars.contains(&n.as_str())
                || axes.contains(&n.as_str())
                || imports.contains(&n.as_str())
                || params.contains(n)
                || ms[..upto.max(ms.len())]
                    .iter()
                    .any(|m| m.params.is_empty() && &m.name == n)
                || (!grid && RUN_NAMES.contains(&n.as_str()))
                || (grid && GRID_NAMES.contains(&n.as_str()));
            if !ok {
                let mut known: Vec<String> = vars
                    .iter()
                    .chain(&axes)
                    .chain(&imports)
                    .map(|x| x.to_string())
                    .collect();
                known.extend(
                    ms[..upto]
                        .iter()
                        .filter(|m| m.params.is_empty())
                        .map(|m| m.name.clone()),
                );
                known.extend(params.iter().cloned());
                known.extend(
                    (if grid { GRID_NAMES } else { RUN_NAMES })
                        .iter()
                        .map(|x| x.to_string()),
                );
                let later = ms[upto..].iter().any(|m| &m.name == n);
                return Err(c.err(
                    field,
                    if later {
                        format!("\"{n}\" is defined later in [{}]; a measure can use only the ones above it", if grid { "aggregates" } else { "measures" })
                    } else {
                        format!("unknown name \"{n}\"; known here: {}", known.join(", "))
                    },
                ));
            }
        }
        for f in &calls {
            let ok = (both && (rf.contains(&f.as_str()) || fn_measure(f)))
                || vf.contains(&f.as_str())
                || (!grid && rf.contains(&f.as_str()))
                || (grid && GRID_FUNCS.contains(&f.as_str()))
                || ms[..upto.max(ms.len())]
                    .iter()
                    .any(|m| !m.params.is_empty() && &m.name == f);
            if !ok {
                return Err(c.err(
                    field,
                    if !grid && GRID_FUNCS.contains(&f.as_str()) {
                        format!("{f}() reads the grid: use it in [aggregates] or an expectation with over = \"grid\"")
                    } else if grid && rf.contains(&f.as_str()) {
                        format!("{f}() reads one run: define a [measures] entry and read it here with points(\"name\")")
                    } else {
                        format!("unknown function \"{f}\" (dropless verify --functions lists them)")
                    },
                ));
            }
        }
        Ok(())
    };
    let check = |e: &Expr, field: &str, grid: bool, upto: usize, params: &[String]| {
        check_in(e, field, grid, upto, params, false)
    };
    let file_grid = !s.grid.is_empty();
    let text_in = |t: &Option<String>, field: &str, grid: bool, both: bool| -> Result<(), String> {
        if let Some(t) = t {
            let upto = if grid {
                s.aggregates.len()
            } else {
                s.measures.len()
            };
            for e in text_exprs(t).map_err(|e| c.err(field, e))? {
                check_in(&e, field, grid, upto, &[], both)?;
            }
        }
        Ok(())
    };
    let text = |t: &Option<String>, field: &str, grid: bool| text_in(t, field, grid, false);
    for (i, m) in s.measures.iter().enumerate() {
        check(
            &m.body,
            &format!("measures.{}", m.name),
            false,
            i,
            &m.params,
        )?;
    }
    for (i, m) in s.aggregates.iter().enumerate() {
        check(
            &m.body,
            &format!("aggregates.{}", m.name),
            true,
            i,
            &m.params,
        )?;
    }
    text_in(&Some(s.title.clone()), "verify.title", file_grid, file_grid)?;
    text_in(&s.setup, "verify.setup", file_grid, file_grid)?;
    text_in(&s.claim, "verify.claim", file_grid, file_grid)?;
    text_in(&s.note, "verify.note", file_grid, file_grid)?;
    for e in &s.expects {
        let g = e.over_grid;
        let n = if g {
            s.aggregates.len()
        } else {
            s.measures.len()
        };
        let at = |k: &str| format!("expect[{}].{k}", e.index);
        if g && s.grid.is_empty() {
            return Err(c.err(&at("over"), "over = \"grid\" needs [[grid]] axes"));
        }
        check(&e.value, &at("value"), g, n, &[])?;
        match &e.judge {
            Judge::Rel(x, _) | Judge::Abs(x, _) => check(x, &at("expected"), g, n, &[])?,
            Judge::Bounds(lo, hi) => {
                if let Some(x) = lo {
                    check(x, &at("min"), g, n, &[])?;
                }
                if let Some(x) = hi {
                    check(x, &at("max"), g, n, &[])?;
                }
            }
            Judge::Holds => {}
        }
        if let Some(w) = &e.when {
            check(w, &at("when"), false, n, &[])?;
        }
        text(&Some(e.what.clone()), &at("what"), g)?;
        text(&e.known_miss, &at("known_miss"), g)?;
    }
    for (i, t) in s.tables.iter().enumerate() {
        let g = t.over_grid;
        let n = if g {
            s.aggregates.len()
        } else {
            s.measures.len()
        };
        check(&t.rows, &format!("table[{i}].rows"), g, n, &[])?;
        for (j, (_, x)) in t.columns.iter().enumerate() {
            check(
                x,
                &format!("table[{i}].columns[{j}]"),
                g,
                n,
                &["row".to_string()],
            )?;
        }
    }
    for (i, pl) in s.plots.iter().enumerate() {
        let g = pl.over_grid;
        let n = if g {
            s.aggregates.len()
        } else {
            s.measures.len()
        };
        for (j, (_, x)) in pl.lines.iter().enumerate() {
            check(x, &format!("plot[{i}].lines[{j}]"), g, n, &[])?;
        }
        text(&Some(pl.title.clone()), &format!("plot[{i}].title"), g)?;
    }
    no_cycles(&c, &s.measures, "measures")?;
    no_cycles(&c, &s.aggregates, "aggregates")?;
    Ok(())
}

/// Measures may be written in any order (a TOML table has none), but none
/// may depend on itself, directly or through others.
fn no_cycles(c: &Ctx, ms: &[Measure], table: &str) -> Result<(), String> {
    let deps: Vec<Vec<usize>> = ms
        .iter()
        .map(|m| {
            let (names, calls) = m.body.free_names();
            ms.iter()
                .enumerate()
                .filter(|(_, o)| {
                    (names.contains(&o.name) && !m.params.contains(&o.name))
                        || calls.contains(&o.name)
                })
                .map(|(i, _)| i)
                .collect()
        })
        .collect();
    // 0 unvisited, 1 on the stack, 2 done.
    fn visit(
        i: usize,
        deps: &[Vec<usize>],
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        match state[i] {
            2 => return None,
            1 => {
                let from = path.iter().position(|&p| p == i).unwrap_or(0);
                let mut cycle = path[from..].to_vec();
                cycle.push(i);
                return Some(cycle);
            }
            _ => {}
        }
        state[i] = 1;
        path.push(i);
        for &d in &deps[i] {
            if let Some(cy) = visit(d, deps, state, path) {
                return Some(cy);
            }
        }
        path.pop();
        state[i] = 2;
        None
    }
    let mut state = vec![0u8; ms.len()];
    for i in 0..ms.len() {
        if let Some(cy) = visit(i, &deps, &mut state, &mut Vec::new()) {
            let names: Vec<&str> = cy.iter().map(|&k| ms[k].name.as_str()).collect();
            return Err(c.err(
                &format!("{table}.{}", ms[cy[0]].name),
                format!(
                    "the measures depend on each other in a cycle: {}",
                    names.join(" -> ")
                ),
            ));
        }
    }
    Ok(())
}
