//! `dropless._dropless`: the Python extension module behind the `dropless`
//! package (`python/dropless/`). It is a thin layer over `dropless::api`:
//! every simulation runs in this process, with the GIL released, and every
//! error is raised with the command line's one-line message.
//!
//! The Python side (`dropless/__init__.py`) turns tables into DataFrames;
//! numeric columns cross as little-endian bytes (`numpy.frombuffer`), so a
//! table of a million rows is one copy, not a million Python floats.

use std::path::{Path, PathBuf};

use dropless::api::{self, Column, Source, Table};
use dropless::Failure;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

create_exception!(
    _dropless,
    InputError,
    PyValueError,
    "Bad input: a scenario, override, grid or argument that dropless refuses (the command line's exit code 2)."
);
create_exception!(
    _dropless,
    RunError,
    PyRuntimeError,
    "A run or its output failed (the command line's exit code 1)."
);

fn raise(f: Failure) -> PyErr {
    match f {
        Failure::Input(m) => InputError::new_err(m),
        Failure::Run(m) => RunError::new_err(m),
        Failure::Interrupted(m) => PyKeyboardInterrupt::new_err(m),
    }
}

/// Whether a run should stop: a cancelled sweep ([`cancel`]), or a signal
/// Python has received (Ctrl-C, Jupyter's "interrupt kernel"; only the main
/// thread sees those, and its handler raising means "stop"). Called between
/// chunks of a simulation, about ten times a second, with the GIL released.
fn should_stop() -> bool {
    dropless::interrupt::cancelled() || Python::attach(|py| py.check_signals().is_err())
}

/// Asks every simulation of this process to stop (`True`: a sweep was
/// interrupted) or clears that request (`False`, as a sweep starts).
#[pyfunction]
fn cancel(on: bool) {
    dropless::interrupt::cancel(on);
}

/// Which scenario: `kind` is "quickstart", "path" or "text".
fn source<'a>(kind: &str, text: &'a str, label: &'a str) -> PyResult<Source<'a>> {
    match kind {
        "quickstart" => Ok(Source::Quickstart),
        "path" => Ok(Source::Path(Path::new(text))),
        "text" => Ok(Source::Text { text, label }),
        other => Err(InputError::new_err(format!(
            "scenario source {other:?}: expected quickstart, path or text"
        ))),
    }
}

/// A table as a list of (name, dtype, data): dtype "f8"/"i8"/"u8" with
/// little-endian bytes, or "str" with a list of strings.
fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (name, c) in t.names.iter().zip(&t.columns) {
        let (dtype, bytes) = match c {
            Column::Float(v) => ("f8", le_bytes(v.iter().map(|x| x.to_le_bytes()))),
            Column::Int(v) => ("i8", le_bytes(v.iter().map(|x| x.to_le_bytes()))),
            Column::UInt(v) => ("u8", le_bytes(v.iter().map(|x| x.to_le_bytes()))),
            Column::Str(v) => {
                out.append((name.clone(), "str", PyList::new(py, v)?))?;
                continue;
            }
        };
        let item = (name.clone(), dtype, PyBytes::new(py, &bytes));
        out.append(item)?;
    }
    Ok(out)
}

fn le_bytes(it: impl Iterator<Item = [u8; 8]>) -> Vec<u8> {
    it.flatten().collect()
}

/// Runs a scenario; returns a dict with summary_json, flows, links, events
/// (tables), out and files.
#[pyfunction]
#[pyo3(signature = (kind, text, label, sets, out=None, force=false, plots=true, html=false))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    kind: &str,
    text: &str,
    label: &str,
    sets: Vec<String>,
    out: Option<PathBuf>,
    force: bool,
    plots: bool,
    html: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let src = source(kind, text, label)?;
    let opts = api::RunOptions {
        out,
        force,
        plots,
        html,
    };
    let r = py
        .detach(|| {
            api::load(src, &sets).and_then(|s| api::run_until_stopped(&s, &opts, &should_stop))
        })
        .map_err(raise)?;
    let d = PyDict::new(py);
    d.set_item("summary_json", r.summary_json)?;
    d.set_item("flows", table(py, &r.flows)?)?;
    d.set_item("links", table(py, &r.links)?)?;
    d.set_item("events", table(py, &r.events)?)?;
    d.set_item("out", r.out.map(|p| p.display().to_string()))?;
    d.set_item("files", r.files)?;
    Ok(d)
}

/// Checks a scenario as `dropless check` does (builds it without running).
#[pyfunction]
fn check(py: Python<'_>, kind: &str, text: &str, label: &str, sets: Vec<String>) -> PyResult<()> {
    let src = source(kind, text, label)?;
    py.detach(|| api::load(src, &sets).and_then(|s| api::check(&s)))
        .map_err(raise)
}

/// A controller's parameter: name, default, meaning.
type Param = (String, f64, String);

/// Every controller: a list of (name, help, [(param, default, help)]).
#[pyfunction]
fn controllers() -> Vec<(String, String, Vec<Param>)> {
    api::controllers()
        .into_iter()
        .map(|c| (c.name, c.help, c.params))
        .collect()
}

/// JSON text of a scenario (a dict in Python) as TOML text.
#[pyfunction]
fn json_to_toml(json: &str, what: &str) -> PyResult<String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| InputError::new_err(format!("{what}: {e}")))?;
    let t = toml::Value::try_from(v).map_err(|e| {
        InputError::new_err(format!(
            "{what}: cannot be written as TOML ({e}); expected a dict of str, int, float, bool, lists and dicts (no None)"
        ))
    })?;
    toml::to_string(&t).map_err(|e| InputError::new_err(format!("{what}: {e}")))
}

/// Reads and checks a grid file (or, with `text`, grid text whose scenario
/// path is relative to `path`): (grid JSON for workers, runs).
#[pyfunction]
#[pyo3(signature = (path, text=None))]
fn sweep_load(py: Python<'_>, path: PathBuf, text: Option<&str>) -> PyResult<(String, usize)> {
    py.detach(|| {
        let g = match text {
            None => api::Sweep::load(&path)?,
            Some(t) => api::Sweep::from_text(t, "the grid dict", &path)?,
        };
        g.check()?;
        Ok((g.to_json(), g.runs()))
    })
    .map_err(raise)
}

/// The default output directory of a grid file.
#[pyfunction]
fn sweep_default_dir(path: PathBuf) -> String {
    api::Sweep::default_dir(&path).display().to_string()
}

/// Checks that a sweep's output directory may be written.
#[pyfunction]
fn sweep_check_dir(dir: PathBuf, force: bool) -> PyResult<()> {
    api::Sweep::check_dir(&dir, force).map_err(raise)
}

/// Runs run `i` of a grid (JSON from `sweep_load`): its encoded rows.
#[pyfunction]
fn sweep_run_one<'py>(py: Python<'py>, grid: &str, i: usize) -> PyResult<Bound<'py, PyBytes>> {
    let b = py
        .detach(|| api::Sweep::from_json(grid).and_then(|g| g.run_one(i)))
        .map_err(raise)?;
    Ok(PyBytes::new(py, &b))
}

/// Runs the given runs of a grid one after another (a Ray task of several
/// runs): their encoded rows, in the order given.
#[pyfunction]
fn sweep_run_many<'py>(
    py: Python<'py>,
    grid: &str,
    runs: Vec<usize>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let out = py
        .detach(|| {
            let g = api::Sweep::from_json(grid)?;
            runs.iter()
                .map(|&i| g.run_one(i))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(raise)?;
    Ok(out.iter().map(|b| PyBytes::new(py, b)).collect())
}

/// Writes a sweep's results from every run's encoded rows; returns the table.
#[pyfunction]
fn sweep_write<'py>(
    py: Python<'py>,
    grid: &str,
    results: Vec<Vec<u8>>,
    dir: PathBuf,
) -> PyResult<Bound<'py, PyList>> {
    let t = py
        .detach(|| api::Sweep::from_json(grid).and_then(|g| g.write(&results, &dir)))
        .map_err(raise)?;
    table(py, &t)
}

/// Writes report.html into a run's or a sweep's output directory.
#[pyfunction]
fn report(py: Python<'_>, dir: PathBuf) -> PyResult<String> {
    py.detach(|| dropless::report::build(&dir))
        .map(|p| p.display().to_string())
        .map_err(raise)
}

/// The built-in quick start: (text, label).
#[pyfunction]
fn quickstart() -> (&'static str, &'static str) {
    api::quickstart_text()
}

/// The module.
#[pymodule]
fn _dropless(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(controllers, m)?)?;
    m.add_function(wrap_pyfunction!(json_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_load, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_default_dir, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_check_dir, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run_one, m)?)?;
    m.add_function(wrap_pyfunction!(cancel, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run_many, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_write, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(quickstart, m)?)?;
    Ok(())
}
