//! A run's time series for the page: `flows.csv` and `links.csv` (or their
//! Parquet files) read in one pass each and binned into at most
//! [`MAX_POINTS`] points per line.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{json, Value};

use super::{GROUP_FLOWS_ABOVE, MAX_POINTS, MAX_SERIES};

/// How the samples in one bucket become one point.
#[derive(Clone, Copy, PartialEq)]
enum Agg {
    /// Their mean (rates, windows, queue lengths).
    Mean,
    /// Their largest value (cumulative counters: the bucket's last value).
    Max,
}

/// A column to plot: its name, the factor to the plotted unit, and how it is
/// binned.
#[derive(Clone)]
struct Metric {
    col: Cow<'static, str>,
    scale: f64,
    agg: Agg,
}

const FLOW_METRICS: &[Metric] = &[
    Metric {
        col: Cow::Borrowed("goodput_bps"),
        scale: 1e-6,
        agg: Agg::Mean,
    },
    Metric {
        col: Cow::Borrowed("cwnd_pkts"),
        scale: 1.0,
        agg: Agg::Mean,
    },
    Metric {
        col: Cow::Borrowed("rtt_s"),
        scale: 1e3,
        agg: Agg::Mean,
    },
    Metric {
        col: Cow::Borrowed("pacing_bps"),
        scale: 1e-6,
        agg: Agg::Mean,
    },
];

/// Flow plots: metric index, title, unit, what an empty plot means.
const FLOW_PLOTS: &[(usize, &str, &str, &str)] = &[
    (0, "Goodput", "Mbit/s", "no goodput samples"),
    (
        1,
        "Congestion window",
        "packets",
        "no flow has a congestion window (rate-based controllers only)",
    ),
    (2, "RTT (latest sample)", "ms", "no RTT samples"),
    (
        3,
        "Pacing rate",
        "Mbit/s",
        "no flow has a pacing rate (ACK-clocked controllers only)",
    ),
];

const LINK_METRICS: &[Metric] = &[
    Metric {
        col: Cow::Borrowed("queue_pkts"),
        scale: 1.0,
        agg: Agg::Mean,
    },
    Metric {
        col: Cow::Borrowed("utilization"),
        scale: 100.0,
        agg: Agg::Mean,
    },
    Metric {
        col: Cow::Borrowed("drops"),
        scale: 1.0,
        agg: Agg::Max,
    },
    Metric {
        col: Cow::Borrowed("aqm_drops"),
        scale: 1.0,
        agg: Agg::Max,
    },
    Metric {
        col: Cow::Borrowed("marks"),
        scale: 1.0,
        agg: Agg::Max,
    },
];

/// One table's series, binned.
struct Binned {
    /// Each bucket's last sample time (NaN for a bucket with no row).
    x: Vec<f64>,
    /// `[metric][group][bucket]`: (sum or largest value, count).
    acc: Vec<Vec<Vec<(f64, u32)>>>,
    /// How each metric is binned, in `acc`'s order.
    aggs: Vec<Agg>,
    /// Samples per bucket.
    k: usize,
    /// Distinct sample times seen (largest sample index + 1).
    samples: usize,
    /// Which file the rows came from.
    file: String,
}

impl Binned {
    /// Line `g` of metric `m`, one value per non-empty bucket.
    fn line(&self, m: usize, g: usize) -> Vec<Option<f64>> {
        let agg = self.acc[m].get(g);
        self.x
            .iter()
            .enumerate()
            .filter(|(_, x)| !x.is_nan())
            .map(|(b, _)| {
                agg.and_then(|a| a.get(b))
                    .filter(|(_, n)| *n > 0)
                    .map(|(s, n)| match self.aggs[m] {
                        Agg::Mean => s / f64::from(*n),
                        Agg::Max => *s,
                    })
            })
            .collect()
    }
}

/// Reads the rows of `path` (CSV, or Parquet if `parquet`), calling `f`
/// with the values of the `want` columns (None: empty cell, null, or no
/// such column). The first `required` of `want` must be present.
fn read_rows(
    path: &Path,
    parquet: bool,
    want: &[&str],
    required: usize,
    f: &mut dyn FnMut(&[Option<f64>]),
) -> Result<(), String> {
    let fname = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let resolve = |names: &[String]| -> Result<Vec<Option<usize>>, String> {
        let idx: Vec<Option<usize>> = want
            .iter()
            .map(|w| names.iter().position(|n| n == w))
            .collect();
        if let Some(k) = idx[..required].iter().position(Option::is_none) {
            return Err(format!(
                "{fname}: no column \"{}\"; expected the {fname} `dropless run` writes (docs/summary-json.md)",
                want[k]
            ));
        }
        Ok(idx)
    };
    let mut vals = vec![None; want.len()];
    if parquet {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use parquet::record::Field;
        let err = |e: &dyn std::fmt::Display| format!("{fname}: cannot read: {e}");
        let file = File::open(path).map_err(|e| err(&e))?;
        let r = SerializedFileReader::new(file).map_err(|e| err(&e))?;
        let names = parquet_names(&r);
        let idx = resolve(&names)?;
        let mut row_vals = vec![None; names.len()];
        for row in r.get_row_iter(None).map_err(|e| err(&e))? {
            let row = row.map_err(|e| err(&e))?;
            for (i, (_, field)) in row.get_column_iter().enumerate().take(names.len()) {
                row_vals[i] = match field {
                    Field::Double(x) => Some(*x),
                    Field::Float(x) => Some(f64::from(*x)),
                    Field::Long(x) => Some(*x as f64),
                    Field::Int(x) => Some(f64::from(*x)),
                    Field::ULong(x) => Some(*x as f64),
                    _ => None,
                };
            }
            for (v, i) in vals.iter_mut().zip(&idx) {
                *v = i.and_then(|i| row_vals[i]);
            }
            f(&vals);
        }
        return Ok(());
    }
    let file = File::open(path).map_err(|e| format!("{fname}: cannot read: {e}"))?;
    let mut lines = BufReader::with_capacity(1 << 20, file).lines();
    let header = match lines.next() {
        Some(h) => h.map_err(|e| format!("{fname}: cannot read: {e}"))?,
        None => return Err(format!("{fname}: empty; expected a header line")),
    };
    let names = csv_names(&header);
    let idx = resolve(&names)?;
    // For each column of the file, which wanted value it is.
    let mut wanted_at = vec![None; names.len()];
    for (k, i) in idx.iter().enumerate() {
        if let Some(i) = i {
            wanted_at[*i] = Some(k);
        }
    }
    for (n, line) in lines.enumerate() {
        let line = line.map_err(|e| format!("{fname}: cannot read: {e}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        vals.iter_mut().for_each(|v| *v = None);
        for (c, field) in line.split(',').enumerate() {
            let Some(k) = wanted_at.get(c).copied().flatten() else {
                continue;
            };
            if field.is_empty() {
                continue;
            }
            vals[k] = Some(field.parse::<f64>().map_err(|_| {
                format!(
                    "{fname} line {}: column {}: \"{}\" is not a number",
                    n + 2,
                    want[k],
                    super::markdown::shorten(field, 40)
                )
            })?);
        }
        f(&vals);
    }
    Ok(())
}

/// The column names of a CSV header line.
fn csv_names(header: &str) -> Vec<String> {
    header.trim_end().split(',').map(str::to_string).collect()
}

/// The column names of a Parquet file.
fn parquet_names(r: &parquet::file::reader::SerializedFileReader<File>) -> Vec<String> {
    use parquet::file::reader::FileReader;
    r.metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect()
}

/// The columns of `stem`.csv (else `stem`.parquet) in `dir`; empty when
/// neither can be read.
fn column_names(dir: &Path, stem: &str) -> Vec<String> {
    let csv = dir.join(format!("{stem}.csv"));
    if csv.is_file() {
        return File::open(&csv)
            .ok()
            .and_then(|f| BufReader::new(f).lines().next())
            .and_then(Result::ok)
            .map(|h| csv_names(&h))
            .unwrap_or_default();
    }
    File::open(dir.join(format!("{stem}.parquet")))
        .ok()
        .and_then(|f| parquet::file::reader::SerializedFileReader::new(f).ok())
        .map(|r| parquet_names(&r))
        .unwrap_or_default()
}

/// Most controller-variable plots on a page (PDA in search mode reports 20
/// variables).
const MAX_VAR_PLOTS: usize = 12;

/// A controller variable's plot: its metric (scaled to the unit its name's
/// suffix gives), title and unit.
fn var_metric(name: &str) -> (Metric, String, &'static str) {
    let (scale, unit) = if name.ends_with("_bps") {
        (1e-6, "Mbit/s")
    } else if name.ends_with("_s") {
        (1e3, "ms")
    } else if name.ends_with("_mbps") {
        (1.0, "Mbit/s")
    } else if name.ends_with("_ms") {
        (1.0, "ms")
    } else if name.ends_with("_pkts") {
        (1.0, "packets")
    } else {
        (1.0, "")
    };
    (
        Metric {
            col: Cow::Owned(name.to_string()),
            scale,
            agg: Agg::Mean,
        },
        format!("Controller: {name}"),
        unit,
    )
}

/// Bins the rows of `stem`.csv (else `stem`.parquet) in `dir`: samples
/// `dt` apart, `k` per bucket; `group_of` maps the group column's value to
/// and the time to a line (None: not drawn). None when neither file
/// exists.
fn bin(
    dir: &Path,
    stem: &str,
    group_col: &'static str,
    metrics: &[Metric],
    group_of: &dyn Fn(f64, f64) -> Option<usize>,
    dt: f64,
    k: usize,
) -> Result<Option<Binned>, String> {
    let csv = dir.join(format!("{stem}.csv"));
    let pq = dir.join(format!("{stem}.parquet"));
    let (path, parquet) = if csv.is_file() {
        (csv, false)
    } else if pq.is_file() {
        (pq, true)
    } else {
        return Ok(None);
    };
    let mut want = vec!["t_s", group_col];
    want.extend(metrics.iter().map(|m| m.col.as_ref()));
    let limit = 2 * MAX_POINTS + 2;
    let mut b = Binned {
        x: Vec::new(),
        acc: metrics.iter().map(|_| Vec::new()).collect(),
        aggs: metrics.iter().map(|m| m.agg).collect(),
        k,
        samples: 0,
        file: path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
    };
    read_rows(&path, parquet, &want, 2, &mut |v| {
        let (Some(t), Some(g)) = (v[0], v[1]) else {
            return;
        };
        if !(t.is_finite() && t >= 0.0) {
            return;
        }
        let Some(g) = group_of(g, t) else { return };
        let i = (t / dt).round() as usize;
        let bucket = i / k;
        if bucket >= limit {
            return;
        }
        b.samples = b.samples.max(i + 1);
        if b.x.len() <= bucket {
            b.x.resize(bucket + 1, f64::NAN);
        }
        if b.x[bucket].is_nan() || b.x[bucket] < t {
            b.x[bucket] = t;
        }
        for (m, metric) in metrics.iter().enumerate() {
            let Some(x) = v[2 + m].map(|x| x * metric.scale).filter(|x| x.is_finite()) else {
                continue;
            };
            let lines = &mut b.acc[m];
            if lines.len() <= g {
                lines.resize_with(g + 1, Vec::new);
            }
            let cells = &mut lines[g];
            if cells.len() <= bucket {
                cells.resize(bucket + 1, (0.0, 0));
            }
            let c = &mut cells[bucket];
            match metric.agg {
                Agg::Mean => c.0 += x,
                Agg::Max => c.0 = if c.1 == 0 { x } else { c.0.max(x) },
            }
            c.1 += 1;
        }
    })?;
    Ok(Some(b))
}

/// Maps a row's flow or link id and time to its line (None: not drawn).
type GroupOf = Box<dyn Fn(f64, f64) -> Option<usize>>;

/// Numbers as JSON (NaN and infinities as null).
fn values(v: &[Option<f64>]) -> Value {
    Value::Array(
        v.iter()
            .map(|x| {
                x.filter(|x| x.is_finite())
                    .map_or(Value::Null, |x| json!(x))
            })
            .collect(),
    )
}

/// Times, rounded to the nanosecond.
fn times(b: &Binned) -> Value {
    Value::Array(
        b.x.iter()
            .filter(|x| !x.is_nan())
            .map(|x| json!((x * 1e9).round() / 1e9))
            .collect(),
    )
}

/// Most points of the goodput plot: goodput is averaged over at least 1/200
/// of the run, as the PNG plot draws it (plot.rs), so that the jitter of
/// single samples does not fill the plot as a dense band.
pub(super) const GOODPUT_POINTS: usize = 200;

/// Means of `per` consecutive points of each line (empty points skipped; a
/// group with none stays empty), each at the time of the last of its points.
fn coarsen(x: &[f64], lines: &[Vec<Option<f64>>], per: usize) -> (Vec<f64>, Vec<Vec<Option<f64>>>) {
    let xs = x.chunks(per).map(|c| c[c.len() - 1]).collect();
    let ys = lines
        .iter()
        .map(|v| {
            v.chunks(per)
                .map(|c| {
                    let (sum, n) = c
                        .iter()
                        .flatten()
                        .fold((0.0, 0u32), |(s, n), y| (s + y, n + 1));
                    (n > 0).then(|| sum / f64::from(n))
                })
                .collect()
        })
        .collect();
    (xs, ys)
}

/// A note on binning when buckets hold more than one sample.
fn binning_note(what: &str, b: &Binned) -> Option<String> {
    (b.k > 1).then(|| {
        format!(
            "The {what} series have {} samples each, more than {MAX_POINTS}: each point is the mean of {} consecutive samples (cumulative counts: the largest).",
            b.samples, b.k
        )
    })
}

/// The run's plots (JSON for the page's script) and notes on what is
/// binned, grouped, left out or missing.
pub(super) fn run_plots(
    dir: &Path,
    flows: &[Value],
    links: &[Value],
    dt: f64,
    duration: f64,
) -> Result<(Vec<Value>, Vec<String>), String> {
    let mut plots = Vec::new();
    let mut notes = Vec::new();
    let expected = (duration / dt).round().max(0.0) as usize + 1;
    let k = expected.div_ceil(MAX_POINTS).max(1);

    // Flows: one line per flow, or per [[flows]] entry with many flows.
    let grouped = flows.len() > GROUP_FLOWS_ABOVE;
    let entry_of: Vec<usize> = flows
        .iter()
        .map(|f| f.get("entry").and_then(Value::as_u64).unwrap_or(0) as usize)
        .collect();
    // Samples before a flow starts and after it ends (stopped or completed)
    // are not measurements: left out, as in the PNG plots.
    let spans: Vec<(f64, f64)> = flows
        .iter()
        .map(|f| {
            let start = f.get("start_s").and_then(Value::as_f64).unwrap_or(0.0);
            let end = f
                .get("end_s")
                .and_then(Value::as_f64)
                .unwrap_or(f64::INFINITY);
            (start, end + dt)
        })
        .collect();
    let active = std::rc::Rc::new(move |id: usize, t: f64| {
        spans.get(id).is_none_or(|(s, e)| t >= *s && t <= *e)
    });
    let (labels, group_of): (Vec<String>, GroupOf) = if grouped {
        let n = entry_of.iter().max().map_or(0, |m| m + 1);
        let labels = (0..n)
            .map(|e| {
                let members: Vec<&Value> = flows
                    .iter()
                    .zip(&entry_of)
                    .filter(|(_, x)| **x == e)
                    .map(|(f, _)| f)
                    .collect();
                let cc = members
                    .first()
                    .and_then(|f| f.get("cc"))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                format!("entry {e}: {cc} × {} (mean)", members.len())
            })
            .collect();
        let map = entry_of.clone();
        let active = active.clone();
        (
            labels,
            Box::new(move |id: f64, t: f64| {
                map.get(id as usize)
                    .copied()
                    .filter(|g| *g < MAX_SERIES && id >= 0.0 && active(id as usize, t))
            }),
        )
    } else {
        let labels = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                f.get("label")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("flow {i}"), str::to_string)
            })
            .collect();
        let n = flows.len();
        let active = active.clone();
        (
            labels,
            Box::new(move |id: f64, t: f64| {
                (id >= 0.0 && (id as usize) < n.min(MAX_SERIES) && active(id as usize, t))
                    .then_some(id as usize)
            }),
        )
    };
    if grouped {
        notes.push(format!(
            "With {} flows (more than {GROUP_FLOWS_ABOVE}), each line of the flow plots is the mean of the flows of one [[flows]] entry.",
            flows.len()
        ));
    }
    if labels.len() > MAX_SERIES {
        notes.push(format!(
            "Only the first {MAX_SERIES} of {} {} are drawn.",
            labels.len(),
            if grouped { "entries" } else { "flows" }
        ));
    }
    // The controllers' trace variables (the columns after the fixed ones).
    let vars: Vec<String> = column_names(dir, "flows")
        .into_iter()
        .filter(|n| !crate::output::FLOW_COLUMNS.contains(&n.as_str()))
        .collect();
    if vars.len() > MAX_VAR_PLOTS {
        notes.push(format!(
            "Only the first {MAX_VAR_PLOTS} of the controllers' {} trace variables are drawn (all are in flows.csv).",
            vars.len()
        ));
    }
    let mut flow_metrics: Vec<Metric> = FLOW_METRICS.to_vec();
    let mut flow_plots: Vec<(usize, String, &str, String)> = FLOW_PLOTS
        .iter()
        .map(|&(m, t, u, e)| (m, t.to_string(), u, e.to_string()))
        .collect();
    for name in vars.iter().take(MAX_VAR_PLOTS) {
        let (metric, title, unit) = var_metric(name);
        flow_plots.push((
            flow_metrics.len(),
            title,
            unit,
            format!("no flow reported a finite {name}"),
        ));
        flow_metrics.push(metric);
    }
    match bin(dir, "flows", "flow", &flow_metrics, &*group_of, dt, k)? {
        None => notes.push(
            "Flow time series not available: no flows.csv or flows.parquet in this directory (the run had --series none or flow_series = false)."
                .into(),
        ),
        Some(b) => {
            if b.file.ends_with(".parquet") {
                notes.push("The flow series are read from flows.parquet (there is no flows.csv).".into());
            }
            notes.extend(binning_note("flow", &b));
            let x = times(&b);
            let xs: Vec<f64> = b.x.iter().copied().filter(|x| !x.is_nan()).collect();
            for (m, title, unit, empty) in &flow_plots {
                let (m, unit) = (*m, *unit);
                let shown: Vec<(&String, Vec<Option<f64>>)> = labels
                    .iter()
                    .enumerate()
                    .take(MAX_SERIES)
                    .map(|(g, l)| (l, b.line(m, g)))
                    .filter(|(_, v)| v.iter().any(Option::is_some))
                    .collect();
                if shown.is_empty() {
                    notes.push(format!("No {} plot: {empty}.", title.to_lowercase()));
                    continue;
                }
                let per = xs.len().div_ceil(GOODPUT_POINTS).max(1);
                let (x, shown) = if flow_metrics[m].col == "goodput_bps" && per > 1 {
                    let lines: Vec<Vec<Option<f64>>> = shown.iter().map(|(_, v)| v.clone()).collect();
                    let (cx, cy) = coarsen(&xs, &lines, per);
                    notes.push(format!(
                        "The goodput plot shows means over {per} consecutive points (at most {GOODPUT_POINTS} per line), as the PNG plot does."
                    ));
                    let cx = Value::Array(cx.iter().map(|x| json!((x * 1e9).round() / 1e9)).collect());
                    (cx, shown.iter().map(|(l, _)| *l).zip(cy).collect())
                } else {
                    (x.clone(), shown)
                };
                let series: Vec<Value> = shown
                    .iter()
                    .map(|(l, v)| json!({"label": l, "values": values(v)}))
                    .collect();
                plots.push(json!({
                    // Controller variables' ids are prefixed: a variable
                    // may be named like a link plot (`drops`).
                    "id": if m < FLOW_METRICS.len() {
                        flow_metrics[m].col.to_string()
                    } else {
                        format!("cc_{}", flow_metrics[m].col)
                    },
                    "title": title,
                    "unit": unit,
                    "sync": "flows",
                    "x": x,
                    "series": series,
                }));
            }
        }
    }

    // Links.
    let link_labels: Vec<String> = links
        .iter()
        .enumerate()
        .map(|(i, l)| match l.get("path").and_then(Value::as_str) {
            Some(p) => format!("link {i} ({p})"),
            None => format!("link {i}"),
        })
        .collect();
    let nl = links.len().max(1);
    let link_group = move |id: f64, _t: f64| {
        (id >= 0.0 && (id as usize) < nl.min(MAX_SERIES)).then_some(id as usize)
    };
    let label_of = |g: usize| {
        link_labels
            .get(g)
            .cloned()
            .unwrap_or_else(|| format!("link {g}"))
    };
    match bin(dir, "links", "link", LINK_METRICS, &link_group, dt, k)? {
        None => notes.push(
            "Link time series not available: no links.csv or links.parquet in this directory."
                .into(),
        ),
        Some(b) => {
            if b.file.ends_with(".parquet") {
                notes.push(
                    "The link series are read from links.parquet (there is no links.csv).".into(),
                );
            }
            if !notes.iter().any(|n| n.contains("series have")) {
                notes.extend(binning_note("link", &b));
            }
            let x = times(&b);
            let lines = b.acc[0].len().max(b.acc[1].len());
            let simple = |m: usize, title: &str, unit: &str, id: &str| {
                let series: Vec<Value> = (0..lines)
                    .map(|g| (label_of(g), b.line(m, g)))
                    .filter(|(_, v)| v.iter().any(Option::is_some))
                    .map(|(l, v)| json!({"label": l, "values": values(&v)}))
                    .collect();
                (!series.is_empty()).then(|| {
                    json!({"id": id, "title": title, "unit": unit, "sync": "links", "x": x, "series": series})
                })
            };
            plots.extend(simple(0, "Queue", "packets", "queue_pkts"));
            plots.extend(simple(1, "Utilization", "%", "utilization"));
            let mut series = Vec::new();
            let lines = (2..5).map(|m| b.acc[m].len()).max().unwrap_or(0);
            for g in 0..lines {
                for (m, what, always) in [
                    (2, "drops", true),
                    (3, "AQM drops", false),
                    (4, "CE marks", false),
                ] {
                    let v = b.line(m, g);
                    let any = v.iter().any(Option::is_some);
                    let nonzero = v.iter().any(|x| x.is_some_and(|x| x != 0.0));
                    if any && (always || nonzero) {
                        series.push(json!({"label": format!("{}: {what}", label_of(g)), "values": values(&v)}));
                    }
                }
            }
            if !series.is_empty() {
                plots.push(json!({
                    "id": "drops",
                    "title": "Drops and marks (cumulative)",
                    "unit": "packets",
                    "sync": "links",
                    "x": x,
                    "series": series,
                }));
            }
        }
    }
    Ok((plots, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The controllers' trace variables in flows.csv get plots of their
    /// own, scaled by their names' units, ids prefixed; past
    /// MAX_VAR_PLOTS a note says how many were left out.
    #[test]
    fn controller_variables_are_plotted() {
        let d = std::env::temp_dir().join(format!("dropless-report-vars-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let extra: Vec<String> = (0..MAX_VAR_PLOTS).map(|i| format!("v{i}")).collect();
        let mut csv = format!(
            "t_s,flow,goodput_bps,cwnd_pkts,pacing_bps,rtt_s,in_flight_pkts,capacity_bps,buffer_s,drops,{}\n",
            extra.join(",")
        );
        for i in 1..=10 {
            csv += &format!(
                "{},0,1000000,10,,0.01,1,{},0.002,{i},{}\n",
                i as f64 * 0.1,
                i * 100_000_000,
                ["1"; MAX_VAR_PLOTS].join(",")
            );
            // A flow whose controller reports none of them.
            csv += &format!(
                "{},1,1000000,10,,0.01,1,,,{},\n",
                i as f64 * 0.1,
                ",".repeat(MAX_VAR_PLOTS - 1)
            );
        }
        std::fs::write(d.join("flows.csv"), csv).unwrap();
        let flows = vec![
            json!({"id": 0, "start_s": 0.0}),
            json!({"id": 1, "start_s": 0.0}),
        ];
        let (plots, notes) = run_plots(&d, &flows, &[], 0.1, 1.0).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
        let cap = plots.iter().find(|p| p["id"] == "cc_capacity_bps").unwrap();
        assert_eq!(cap["unit"], "Mbit/s");
        assert_eq!(cap["title"], "Controller: capacity_bps");
        // Flow 1 reported nothing: one line, flow 0's, in Mbit/s.
        let lines = cap["series"].as_array().unwrap();
        assert_eq!(lines.len(), 1);
        let first = lines[0]["values"][0].as_f64().unwrap();
        assert!((first - 100.0).abs() < 1e-9, "{first}");
        let buf = plots.iter().find(|p| p["id"] == "cc_buffer_s").unwrap();
        assert_eq!(buf["unit"], "ms");
        assert!((buf["series"][0]["values"][0].as_f64().unwrap() - 2.0).abs() < 1e-9);
        // Named like a link plot, kept apart from it.
        assert!(plots.iter().any(|p| p["id"] == "cc_drops"));
        assert!(!plots.iter().any(|p| p["id"] == "drops"));
        // 3 + MAX_VAR_PLOTS variables: only MAX_VAR_PLOTS drawn, and said so.
        let drawn = plots
            .iter()
            .filter(|p| p["id"].as_str().unwrap().starts_with("cc_"))
            .count();
        assert_eq!(drawn, MAX_VAR_PLOTS);
        let total = 3 + MAX_VAR_PLOTS;
        assert!(
            notes
                .iter()
                .any(|n| n.contains(&format!("{MAX_VAR_PLOTS} of the controllers' {total}"))),
            "{notes:?}"
        );
    }

    /// Issue 37: the goodput plot is averaged to at most GOODPUT_POINTS
    /// points (as the PNG), the window plot keeps its samples.
    #[test]
    fn goodput_is_averaged_as_the_png_plot() {
        let d = std::env::temp_dir().join(format!("dropless-report-gp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let mut csv =
            String::from("t_s,flow,goodput_bps,cwnd_pkts,pacing_bps,rtt_s,in_flight_pkts\n");
        // 1,000 samples alternating 0 and 2 Mb/s: a band if drawn raw.
        for i in 1..=1000 {
            csv += &format!(
                "{},0,{},{},,0.01,1\n",
                i as f64 * 0.01,
                (i % 2) * 2_000_000,
                i
            );
        }
        std::fs::write(d.join("flows.csv"), csv).unwrap();
        let flows = vec![json!({"id": 0, "start_s": 0.0})];
        let (plots, notes) = run_plots(&d, &flows, &[], 0.01, 10.0).unwrap();
        let gp = plots.iter().find(|p| p["id"] == "goodput_bps").unwrap();
        let cw = plots.iter().find(|p| p["id"] == "cwnd_pkts").unwrap();
        let n = gp["x"].as_array().unwrap().len();
        assert!((GOODPUT_POINTS / 2..=GOODPUT_POINTS).contains(&n), "{n}");
        assert_eq!(cw["x"].as_array().unwrap().len(), 1000);
        for v in gp["series"][0]["values"].as_array().unwrap() {
            let v = v.as_f64().unwrap();
            // Five consecutive samples of 0 and 2 Mb/s: 0.8 or 1.2, never 0 or 2.
            assert!(
                (v - 0.8).abs() < 1e-9 || (v - 1.2).abs() < 1e-9,
                "a mean of five samples: {v}"
            );
        }
        assert!(
            notes.iter().any(|n| n.contains("means over 5 consecutive")),
            "{notes:?}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn long_series_are_binned() {
        let d = std::env::temp_dir().join(format!("dropless-report-bin-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let mut csv = String::from("t_s,link,queue_pkts,avg_queue_pkts,drops,utilization\n");
        for i in 1..=12_000 {
            csv += &format!("{},0,{},0,{},0.5\n", i as f64 * 0.001, i % 2, i);
        }
        std::fs::write(d.join("links.csv"), csv).unwrap();
        let links = vec![json!({"id": 0, "path": "topology.bottleneck"})];
        let (plots, notes) = run_plots(&d, &[], &links, 0.001, 12.0).unwrap();
        let q = &plots[0];
        assert_eq!(q["title"], "Queue");
        let n = q["x"].as_array().unwrap().len();
        assert!(n <= MAX_POINTS && n > MAX_POINTS / 2, "{n}");
        // Bucket 1 holds samples 3, 4, 5: queue 1, 0, 1; drops 3, 4, 5.
        let q1 = q["series"][0]["values"][1].as_f64().unwrap();
        assert!((q1 - 2.0 / 3.0).abs() < 1e-12, "{q1}");
        assert_eq!(plots[1]["series"][0]["values"][1], json!(50.0));
        let drops = plots.iter().find(|p| p["id"] == "drops").unwrap();
        assert_eq!(drops["series"][0]["values"][1], json!(5.0));
        assert!(
            notes.iter().any(|n| n.contains("mean of 3 consecutive")),
            "{notes:?}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
