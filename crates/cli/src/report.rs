//! `dropless report DIR`: one self-contained HTML page (`DIR/report.html`)
//! for a run or a sweep output directory, and the HTML version of
//! `dropless verify --report`.
//!
//! The page needs no network access: uPlot (MIT, `crates/cli/assets/`) and
//! the page's own script and style are written into it, and the data is
//! embedded as JSON. A run's page shows the summary tables (per flow, per
//! link) and interactive time-series plots of `flows.csv` and `links.csv`
//! (or the Parquet files when there is no CSV); a sweep's page shows the
//! results table, sortable by any column, and a chart per swept key.
//!
//! Everything read from the output directory is data: text that goes into
//! markup is HTML-escaped, and the embedded JSON has every `<` written as
//! `\u003c`, so no value can close the script element it sits in.

mod markdown;
mod series;

use dropless_model::results_table::ResultsTable;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::Failure;

pub use markdown::verify_html;

/// Most points a plotted series gets; longer series are averaged over
/// buckets of consecutive samples.
pub const MAX_POINTS: usize = 5_000;
/// Most lines a plot draws (flows, `[[flows]]` entries or links).
pub const MAX_SERIES: usize = 40;
/// With more flows than this, flow plots draw one line per `[[flows]]`
/// entry (the mean of its flows), as the PNG plots do.
pub const GROUP_FLOWS_ABOVE: usize = 10;
/// Most rows of a table embedded in the page.
pub const MAX_TABLE_ROWS: usize = 10_000;

const UPLOT_JS: &str = include_str!("../assets/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("../assets/uPlot.min.css");
const PAGE_JS: &str = include_str!("report/page.js");
const PAGE_CSS: &str = include_str!("report/page.css");

/// Help shown after `dropless report --help`.
pub const REPORT_HELP: &str = "\
DIR is the output directory of `dropless run` (it holds summary.json) or of
`dropless sweep` (it holds results.csv). Writes DIR/report.html, one page that
needs no network access: the summary tables and interactive plots of the time
series (drag to zoom, double-click to zoom out, hover for values, click a
legend entry to hide or show a line) for a run; the results table (click a
column header to sort) and a chart per swept key for a sweep. Series longer
than 5,000 samples are averaged over buckets of consecutive samples.

Examples:
  dropless report out/fast
  dropless run scenarios/fast.toml --out out/fast --html      the same, at the end of the run
  dropless report out/sweep-buffers";

/// Arguments of `dropless report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Output directory of `dropless run` or `dropless sweep`
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// `dropless report DIR`.
pub fn report(a: &ReportArgs) -> Result<(), Failure> {
    let path = build(&a.dir)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// Writes `dir/report.html` for a run or a sweep output directory and
/// returns its path. A directory that is neither, or whose files cannot be
/// read, is an error naming the directory; the page is written to a
/// temporary name and renamed, so no partial file is left behind.
pub fn write_report(dir: &Path) -> Result<PathBuf, String> {
    build(dir).map_err(|f| match f {
        Failure::Input(m) | Failure::Run(m) | Failure::Interrupted(m) => m,
    })
}

/// [`write_report`] with the failure's kind: bad input (exit code 2) or a
/// page that cannot be written (exit code 1).
pub fn build(dir: &Path) -> Result<PathBuf, Failure> {
    let html = render(dir)?;
    let path = dir.join("report.html");
    write_atomic(&path, &html).map_err(Failure::Run)?;
    Ok(path)
}

/// The page for `dir`, a run or a sweep output directory.
pub fn render(dir: &Path) -> Result<String, Failure> {
    let input = |m: String| Failure::Input(format!("{}: {m}", dir.display()));
    if !dir.is_dir() {
        return Err(input(
            "no such directory; expected the output directory of `dropless run` (with summary.json) or `dropless sweep` (with results.csv)".into(),
        ));
    }
    if dir.join("summary.json").is_file() {
        run_page(dir).map_err(input)
    } else if dir.join("results.csv").is_file() {
        sweep_page(dir).map_err(input)
    } else {
        Err(input(
            "neither a run nor a sweep output directory; expected summary.json (from `dropless run`) or results.csv (from `dropless sweep`)".into(),
        ))
    }
}

/// Writes `text` to `path` through a temporary sibling and a rename.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report.html".into());
    let tmp = path.with_file_name(format!(".{name}.part-{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("{}: cannot write: {e}", path.display())
        })
}

/// `s` with the characters that mean something in HTML text and attribute
/// values replaced by entities.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// `v` as JSON that is safe inside a `<script>` element: every `<` (which
/// JSON has only inside strings) becomes `\u003c`, so neither `</script>`
/// nor `<!--` can appear; U+2028 and U+2029 are escaped too.
pub fn script_json(v: &Value) -> String {
    serde_json::to_string(v)
        .expect("a JSON value serializes")
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The whole page: `body` is markup (already escaped), `data` the JSON
/// the page's script draws from.
fn page(title: &str, body: &str, data: &Value) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"dropless {version}\">\n\
         <title>{title}</title>\n<style>\n{UPLOT_CSS}\n{PAGE_CSS}</style>\n</head>\n<body>\n\
         {body}\n<footer>Made by <code>dropless report</code> ({version}). Plots: \
         <a href=\"https://github.com/leeoniya/uPlot\">uPlot</a> (MIT licence, included in this page).</footer>\n\
         <script type=\"application/json\" id=\"report-data\">{data}</script>\n\
         <script>\n{UPLOT_JS}\n</script>\n<script>\n{PAGE_JS}</script>\n</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = escape(title),
        data = script_json(data),
    )
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: cannot read: {e}",
            path.file_name().unwrap_or_default().to_string_lossy()
        )
    })
}

/// A number from a JSON field scaled by `k` (integers kept as they are
/// when `k` is 1); strings ("inf") and booleans pass through.
fn scaled(v: Option<&Value>, k: f64) -> Value {
    match v {
        Some(Value::Number(n)) if k == 1.0 => Value::Number(n.clone()),
        Some(Value::Number(n)) => n.as_f64().map_or(Value::Null, |x| json!(x * k)),
        Some(Value::String(s)) => json!(s),
        Some(Value::Bool(b)) => json!(b),
        _ => Value::Null,
    }
}

/// A table for the page's script: column names (with units) and rows.
fn table(columns: &[(&str, &str)], rows: Vec<Value>) -> Value {
    let cols: Vec<Value> = columns
        .iter()
        .map(|(n, u)| json!({"name": n, "unit": u}))
        .collect();
    json!({"columns": cols, "rows": rows, "total": rows.len()})
}

/// One `<dt>`/`<dd>` pair, escaped.
fn meta(out: &mut String, k: &str, v: &str) {
    out.push_str(&format!("<dt>{}</dt><dd>{}</dd>", escape(k), escape(v)));
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "–".into(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// A numeric CSV cell for the page's JSON, exactly as written: a number
/// when JavaScript reads it back to the same text (every f64 the sweep
/// writes, every integer up to 2^53), otherwise the text itself, so that a
/// 64-bit seed such as 10451216379200822465 is not shown rounded to
/// 10451216379200823000 (the page sorts such strings numerically).
fn exact_number(text: &str) -> Value {
    let t = text.trim();
    let Ok(x) = t.parse::<f64>() else {
        return Value::Null;
    };
    if !x.is_finite() {
        return Value::Null;
    }
    let integer = !t.is_empty()
        && t.trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit());
    if integer {
        return match t.parse::<i64>() {
            Ok(i) if i.unsigned_abs() <= 1 << 53 => json!(i),
            _ => json!(t),
        };
    }
    json!(x)
}

fn num_of(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

/// The page for a run output directory.
fn run_page(dir: &Path) -> Result<String, String> {
    let text = read_text(&dir.join("summary.json"))?;
    let sum: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "summary.json: not valid JSON ({e}); expected the summary.json `dropless run` writes"
        )
    })?;
    if !sum.is_object() || !sum.get("flows").is_some_and(Value::is_array) {
        return Err(
            "summary.json: no \"flows\" list; expected the summary.json `dropless run` writes"
                .into(),
        );
    }
    let empty = Vec::new();
    let flows = sum["flows"].as_array().unwrap_or(&empty);
    let links = sum
        .get("bottlenecks")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let name = text_of(sum.get("scenario"));

    // Header.
    let mut body = String::new();
    body.push_str(&format!(
        "<header><h1>{}</h1>",
        escape(&format!("dropless run: {name}"))
    ));
    if let Some(Value::String(d)) = sum.get("description") {
        body.push_str(&format!("<p class=\"desc\">{}</p>", escape(d)));
    }
    body.push_str("<dl class=\"meta\">");
    meta(
        &mut body,
        "scenario file",
        &text_of(sum.get("scenario_file")),
    );
    let overrides: Vec<String> = sum
        .get("overrides")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|o| text_of(Some(o))).collect())
        .unwrap_or_default();
    if !overrides.is_empty() {
        meta(&mut body, "overrides", &overrides.join("  "));
    }
    meta(&mut body, "seed", &text_of(sum.get("seed")));
    meta(
        &mut body,
        "duration",
        &format!("{} s", text_of(sum.get("duration_s"))),
    );
    meta(
        &mut body,
        "sample interval",
        &format!("{} s", text_of(sum.get("sample_interval_s"))),
    );
    if let Some(j) = num_of(sum.get("jain_fairness")) {
        meta(&mut body, "Jain fairness index", &format!("{j:.4}"));
    }
    if let Some(w) = num_of(sum.get("wall_time_s")) {
        meta(&mut body, "wall time", &format!("{w:.2} s"));
    }
    meta(&mut body, "dropless", &text_of(sum.get("dropless_version")));
    body.push_str("</dl></header>\n");

    // Summary tables.
    let flow_rows: Vec<Value> = flows
        .iter()
        .take(MAX_TABLE_ROWS)
        .map(|f| {
            json!([
                scaled(f.get("id"), 1.0),
                scaled(f.get("label"), 1.0),
                scaled(f.get("cc"), 1.0),
                scaled(f.get("rtt_s"), 1e3),
                scaled(f.get("start_s"), 1.0),
                scaled(f.get("goodput_bps"), 1e-6),
                scaled(f.get("throughput_bps"), 1e-6),
                scaled(f.get("packets_sent"), 1.0),
                scaled(f.get("packets_lost"), 1.0),
                scaled(f.get("loss_per_10k"), 1.0),
                scaled(f.get("retransmits"), 1.0),
                scaled(f.get("congestion_events"), 1.0),
                scaled(f.get("timeouts"), 1.0),
                scaled(f.get("mean_rtt_s"), 1e3),
                scaled(f.get("min_rtt_s"), 1e3),
                scaled(f.get("avg_backlog_pkts"), 1.0),
                scaled(f.get("completion_s"), 1.0),
            ])
        })
        .collect();
    let mut flow_table = table(
        &[
            ("flow", ""),
            ("label", ""),
            ("cc", ""),
            ("RTT", "ms"),
            ("start", "s"),
            ("goodput", "Mbit/s"),
            ("throughput", "Mbit/s"),
            ("sent", "pkts"),
            ("lost", "pkts"),
            ("loss", "per 10k"),
            ("retransmits", "pkts"),
            ("congestion events", ""),
            ("timeouts", ""),
            ("mean RTT", "ms"),
            ("min RTT", "ms"),
            ("backlog", "pkts"),
            ("completion", "s"),
        ],
        flow_rows,
    );
    flow_table["total"] = json!(flows.len());
    let link_rows: Vec<Value> = links
        .iter()
        .take(MAX_TABLE_ROWS)
        .map(|l| {
            json!([
                scaled(l.get("id"), 1.0),
                scaled(l.get("path"), 1.0),
                scaled(l.get("rate_bps"), 1e-6),
                scaled(l.get("delay_s"), 1e3),
                scaled(l.get("buffer"), 1.0),
                scaled(l.get("buffer_pkts"), 1.0),
                scaled(l.get("bdp_pkts"), 1.0),
                scaled(l.get("utilization"), 100.0),
                scaled(l.get("avg_queue_pkts"), 1.0),
                scaled(l.get("max_queue_pkts"), 1.0),
                scaled(l.get("drops"), 1.0),
                scaled(l.get("random_drops"), 1.0),
                scaled(l.get("packets"), 1.0),
            ])
        })
        .collect();
    let mut link_table = table(
        &[
            ("link", ""),
            ("path", ""),
            ("rate", "Mbit/s"),
            ("delay", "ms"),
            ("buffer", ""),
            ("buffer", "pkts"),
            ("BDP", "pkts"),
            ("utilization", "%"),
            ("mean queue", "pkts"),
            ("max queue", "pkts"),
            ("drops", "pkts"),
            ("random drops", "pkts"),
            ("packets", ""),
        ],
        link_rows,
    );
    link_table["total"] = json!(links.len());
    body.push_str(
        "<section><h2>Summary</h2>\
         <p class=\"note\">Click a column header to sort. Field meanings: docs/summary-json.md.</p>\
         <h3>Flows</h3><div class=\"table\" data-table=\"flows\"></div>\
         <h3>Links</h3><div class=\"table\" data-table=\"links\"></div></section>\n",
    );

    // Time series.
    let dt = num_of(sum.get("sample_interval_s")).filter(|d| d.is_finite() && *d > 0.0);
    let duration = num_of(sum.get("duration_s")).filter(|d| d.is_finite() && *d >= 0.0);
    let mut plots = Vec::new();
    let mut notes = Vec::new();
    match (dt, duration) {
        (Some(dt), Some(duration)) => {
            let (p, n) = series::run_plots(dir, flows, links, dt, duration)?;
            plots = p;
            notes = n;
        }
        _ => notes.push(
            "The time series are not shown: summary.json has no sample_interval_s or duration_s."
                .to_string(),
        ),
    }
    body.push_str("<section><h2>Time series</h2>");
    body.push_str(
        "<p class=\"note\">Drag across a plot to zoom in, double-click to zoom out; hover for the values; \
         click a legend entry to hide or show its line. The flow plots share a cursor, as do the link plots.</p>",
    );
    for n in &notes {
        body.push_str(&format!("<p class=\"note series-note\">{}</p>", escape(n)));
    }
    body.push_str("<div id=\"plots\"></div></section>\n");

    let data = json!({
        "kind": "run",
        "tables": {"flows": flow_table, "links": link_table},
        "plots": plots,
    });
    Ok(page(&format!("{name} — dropless report"), &body, &data))
}

/// Columns of results.csv the sweep charts plot: (column, label, unit, scale).
const SWEEP_METRICS: &[(&str, &str, &str, f64)] = &[
    ("goodput_bps", "goodput", "Mbit/s", 1e-6),
    ("loss_per_10k", "loss", "per 10k packets", 1.0),
    ("utilization", "utilization", "%", 100.0),
    ("jain", "Jain index", "", 1.0),
    ("mean_rtt_s", "mean RTT", "ms", 1e3),
    ("throughput_bps", "throughput", "Mbit/s", 1e-6),
];

/// Mean, smallest and largest of some numbers.
#[derive(Clone, Copy)]
struct Stat {
    sum: f64,
    n: usize,
    min: f64,
    max: f64,
}

impl Default for Stat {
    fn default() -> Stat {
        Stat {
            sum: 0.0,
            n: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Stat {
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// `f` of each, null where there were no numbers.
    fn column(stats: &[Stat], f: fn(&Stat) -> f64) -> Vec<Value> {
        stats
            .iter()
            .map(|s| if s.n == 0 { Value::Null } else { json!(f(s)) })
            .collect()
    }
}

/// The `[set]` keys of grid.toml, if it can be read.
fn grid_keys(text: &str) -> Option<Vec<String>> {
    let t: toml::Table = text.parse().ok()?;
    let set = t.get("set")?.as_table()?;
    let mut keys: Vec<String> = set.keys().cloned().collect();
    keys.sort();
    Some(keys)
}

/// The page for a sweep output directory.
fn sweep_page(dir: &Path) -> Result<String, String> {
    let text = read_text(&dir.join("results.csv"))?;
    let no_run = "results.csv: no header with a \"run\" column; expected the results.csv `dropless sweep` writes";
    let parsed = ResultsTable::parse(&text).map_err(|e| {
        if e.starts_with("empty file") {
            no_run.to_string()
        } else {
            format!("results.csv {e}")
        }
    })?;
    if parsed.column("run").is_none() {
        return Err(no_run.into());
    }
    let ResultsTable { header, rows } = parsed;
    let grid_text = std::fs::read_to_string(dir.join("grid.toml")).ok();
    let col = |name: &str| header.iter().position(|h| h == name);
    // The swept keys: grid.toml's [set] keys found in the header, else the
    // columns between `seed` and `flow` (where the sweep writes them).
    let keys: Vec<usize> = match grid_text.as_deref().and_then(grid_keys) {
        Some(k) => k.iter().filter_map(|k| col(k)).collect(),
        None => match (col("seed"), col("flow")) {
            (Some(s), Some(f)) if s < f => (s + 1..f).collect(),
            _ => Vec::new(),
        },
    };
    let numeric: Vec<bool> = (0..header.len())
        .map(|c| {
            !keys.contains(&c)
                && rows
                    .iter()
                    .all(|r| r[c].is_empty() || r[c].parse::<f64>().is_ok())
        })
        .collect();
    let cell = |r: &Vec<String>, c: usize| -> Value {
        if numeric[c] {
            exact_number(&r[c])
        } else {
            json!(r[c])
        }
    };
    let table_rows: Vec<Value> = rows
        .iter()
        .take(MAX_TABLE_ROWS)
        .map(|r| Value::Array((0..header.len()).map(|c| cell(r, c)).collect()))
        .collect();
    let cols: Vec<(&str, &str)> = header.iter().map(|h| (h.as_str(), "")).collect();
    let mut results = table(&cols, table_rows);
    results["total"] = json!(rows.len());

    // A chart per swept key: each metric's mean, min and max over the rows
    // at each of the key's values (in the order the sweep ran them).
    let mut charts = Vec::new();
    for &k in &keys {
        let mut values: Vec<&str> = Vec::new();
        for r in &rows {
            if !values.contains(&r[k].as_str()) {
                values.push(&r[k]);
            }
        }
        let mut metrics = Map::new();
        for (m, label, unit, scale) in SWEEP_METRICS {
            let Some(mc) = col(m) else { continue };
            let mut stats = vec![Stat::default(); values.len()];
            for r in &rows {
                let Ok(x) = r[mc].parse::<f64>() else {
                    continue;
                };
                if x.is_finite() {
                    let i = values.iter().position(|v| *v == r[k]).expect("value seen");
                    stats[i].add(x * scale);
                }
            }
            metrics.insert(
                m.to_string(),
                json!({
                    "label": label,
                    "unit": unit,
                    "mean": Stat::column(&stats, |s| s.sum / s.n as f64),
                    "min": Stat::column(&stats, |s| s.min),
                    "max": Stat::column(&stats, |s| s.max),
                }),
            );
        }
        charts.push(json!({"key": header[k], "values": values, "metrics": metrics}));
    }

    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let runs = col("run").map_or(0, |c| {
        let mut r: Vec<&str> = rows.iter().map(|r| r[c].as_str()).collect();
        r.sort_unstable();
        r.dedup();
        r.len()
    });
    let mut body = String::new();
    body.push_str(&format!(
        "<header><h1>{}</h1><dl class=\"meta\">",
        escape(&format!("dropless sweep: {name}"))
    ));
    meta(&mut body, "runs", &runs.to_string());
    meta(
        &mut body,
        "rows (one per run and flow)",
        &rows.len().to_string(),
    );
    meta(
        &mut body,
        "swept keys",
        &keys
            .iter()
            .map(|&k| header[k].as_str())
            .collect::<Vec<_>>()
            .join(", "),
    );
    body.push_str("</dl>");
    if let Some(g) = &grid_text {
        body.push_str(&format!(
            "<details><summary>grid.toml</summary><pre>{}</pre></details>",
            escape(g)
        ));
    }
    body.push_str("</header>\n<section><h2>Charts</h2>");
    if charts.is_empty() {
        body.push_str("<p class=\"note\">No swept key found in results.csv: no charts.</p>");
    } else {
        body.push_str(
            "<p class=\"note\">Each chart shows a metric against one swept key's values: the mean over every run \
             and flow at that value (over the other keys' values and the repeats too), with the smallest and largest. \
             <label>Metric: <select id=\"metric\"></select></label></p>",
        );
    }
    body.push_str("<div id=\"charts\"></div></section>\n");
    body.push_str(
        "<section><h2>Results</h2><p class=\"note\">One row per run and flow (results.csv). \
         Click a column header to sort.</p><div class=\"table\" data-table=\"results\"></div></section>\n",
    );
    let data = json!({
        "kind": "sweep",
        "tables": {"results": results},
        "charts": charts,
    });
    Ok(page(
        &format!("{name} — dropless sweep report"),
        &body,
        &data,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dropless-report-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn embedded_scripts_cannot_end_early() {
        for (name, text) in [("uPlot", UPLOT_JS), ("page.js", PAGE_JS)] {
            let lower = text.to_ascii_lowercase();
            assert!(!lower.contains("</script"), "{name} holds </script");
            assert!(!lower.contains("<!--"), "{name} holds <!--");
        }
        assert!(!UPLOT_CSS.contains("</") && !PAGE_CSS.contains("</"));
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = json!({"name": "</script><script>alert(1)</script><!--"});
        let s = script_json(&v);
        assert!(!s.contains('<'), "{s}");
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn hostile_scenario_name_is_escaped() {
        let d = tmp("hostile");
        let evil = "</script><img src=x onerror=alert(1)>";
        let sum = json!({
            "scenario": evil,
            "description": format!("desc {evil} & more"),
            "flows": [{"id": 0, "label": evil, "cc": "fast", "goodput_bps": 1e6}],
            "bottlenecks": [],
            "duration_s": 1.0,
            "sample_interval_s": 0.5,
        });
        std::fs::write(d.join("summary.json"), sum.to_string()).unwrap();
        std::fs::write(
            d.join("flows.csv"),
            "t_s,flow,goodput_bps,cwnd_pkts,pacing_bps,rtt_s,in_flight_pkts\n0.5,0,1000000,10,,0.1,10\n1,0,2000000,12,,0.1,12\n",
        )
        .unwrap();
        let path = build(&d).unwrap();
        let html = std::fs::read_to_string(&path).unwrap();
        assert!(!html.contains(evil));
        assert!(!html.contains("<img"));
        assert!(html.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"));
        // Only the page's own three script elements end.
        assert_eq!(html.matches("</script>").count(), 3);
        assert!(!d.read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains(".part")));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn refuses_a_directory_that_is_no_output() {
        let d = tmp("empty");
        std::fs::write(d.join("notes.txt"), "hello").unwrap();
        match build(&d) {
            Err(Failure::Input(m)) => {
                assert!(m.contains(&d.display().to_string()), "{m}");
                assert!(
                    m.contains("summary.json") && m.contains("results.csv"),
                    "{m}"
                );
                assert!(!m.contains('\n'));
            }
            other => panic!("expected an input failure, got {other:?}"),
        }
        assert!(!d.join("report.html").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn sweep_page_has_a_chart_per_key() {
        let d = tmp("sweep");
        std::fs::write(
            d.join("grid.toml"),
            "scenario = \"x.toml\"\n[set]\nduration = [\"1s\", \"2s\"]\n",
        )
        .unwrap();
        std::fs::write(
            d.join("results.csv"),
            "run,repeat,seed,duration,flow,cc,goodput_bps,loss_per_10k,utilization,jain\n\
             0,0,1,1s,0,newreno,1000000,0,0.5,1\n0,0,1,1s,1,\"a,b\",3000000,2,0.5,1\n\
             1,0,2,2s,0,newreno,2000000,1,0.9,0.9\n",
        )
        .unwrap();
        let html = render(&d).unwrap();
        let start = html.find("id=\"report-data\">").unwrap() + "id=\"report-data\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        let data: Value = serde_json::from_str(&html[start..end]).unwrap();
        let charts = data["charts"].as_array().unwrap();
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0]["key"], "duration");
        assert_eq!(charts[0]["values"], json!(["1s", "2s"]));
        assert_eq!(
            charts[0]["metrics"]["goodput_bps"]["mean"],
            json!([2.0, 2.0])
        );
        assert_eq!(data["tables"]["results"]["rows"][1][5], "a,b");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
