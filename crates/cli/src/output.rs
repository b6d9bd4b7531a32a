//! Files `dropless run` writes: summary.json, time series, events, plots.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use dropless_cc::{registry, CongestionCause};
use dropless_scenario::Scenario;
use dropless_sim::SimResult;
use serde_json::{json, Map, Value};

use crate::{plot, RunArgs, SeriesFormat};

/// Tables with more rows than this are also written as Parquet (`--series auto`).
pub const PARQUET_ROWS: usize = 100_000;

type Res<T> = Result<T, String>;

fn io<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// A float for JSON: non-finite values become strings ("inf", "NaN").
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        json!(x.to_string())
    }
}

/// Seconds from nanoseconds, without float noise (0.06, not 0.060000000000000005).
fn sec(t: u64) -> f64 {
    t as f64 / 1e9
}

/// A time in seconds that is a whole number of nanoseconds, cleaned of float noise.
fn clean(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// summary.json as a JSON value.
pub fn summary(s: &Scenario, r: &SimResult, wall: f64, files: &[String]) -> Value {
    let flows = r.flows.iter().map(|f| flow_value(s, f)).collect();
    summary_with(s, r, wall, files, flows)
}

/// One flow's entry of summary.json.
fn flow_value(s: &Scenario, f: &dropless_sim::FlowResult) -> Value {
    let spec = &s.config.flows[f.id];
    let info = &s.flows[f.id];
    let mut params = Map::new();
    if let Some(cs) = registry::find(&spec.cc) {
        for p in cs.params {
            let v = spec
                .params
                .iter()
                .rev()
                .find(|(k, _)| k == p.name)
                .map_or(p.default, |(_, v)| *v);
            params.insert(p.name.to_string(), num(v));
        }
    }
    json!({
        "id": f.id,
        "label": info.label,
        "entry": info.entry,
        "cc": f.cc,
        "params": params,
        "rtt_s": clean(f.rtt_s),
        "start_s": clean(f.start_s),
        "end_s": clean(f.end_s),
        "size_bytes": spec.size,
        "completion_s": f.completion_s.map(clean),
        "bytes_delivered": f.bytes_delivered,
        "goodput_bps": f.goodput_bps,
        "throughput_bps": f.throughput_bps,
        "packets_sent": f.packets_sent,
        "packets_lost": f.packets_lost,
        "retransmits": f.retransmits,
        "loss_per_10k": f.loss_per_10k,
        "congestion_events": f.congestion_events,
        "timeouts": f.timeouts,
        "lost_per_event": f.lost_per_event,
        "mean_rtt_s": f.mean_rtt_s,
        "min_rtt_s": clean(f.min_rtt_s),
        "avg_backlog_pkts": f.avg_backlog_pkts,
    })
}

/// summary.json with the given `flows` entries.
fn summary_with(
    s: &Scenario,
    r: &SimResult,
    wall: f64,
    files: &[String],
    flows: Vec<Value>,
) -> Value {
    let links: Vec<Value> = r
        .links
        .iter()
        .map(|l| {
            let info = &s.links[l.id];
            let mut v = json!({
                "id": l.id,
                "path": info.path,
                "rate_bps": l.rate_bps,
                "delay_s": sec(info.delay),
                "buffer": info.buffer_text,
                "buffer_pkts": info.buffer_pkts,
                "buffer_bytes": info.buffer_bytes,
                "bdp_pkts": info.bdp_pkts,
                "bdp_rtt_s": sec(info.bdp_rtt),
                "utilization": l.utilization,
                "avg_queue_pkts": l.avg_queue_pkts,
                "max_queue_pkts": l.max_queue_pkts,
                "drops": l.drops,
                "random_drops": l.random_drops,
                "aqm_drops": l.aqm_drops,
                "marks": l.marks,
                "packets": l.packets,
                "channels": l.channels,
                "channel_busy": l.channel_busy,
                "loss": l.loss,
            });
            if let Some(ia) = &l.interarrival {
                v["interarrival"] = json!(ia);
            }
            if let Some(s) = l.mean_sojourn_s {
                v["mean_sojourn_s"] = json!(s);
            }
            v
        })
        .collect();
    let per_wall = |x: f64| if wall > 0.0 { x / wall } else { 0.0 };
    json!({
        "dropless_version": env!("CARGO_PKG_VERSION"),
        "scenario": s.name,
        "scenario_file": s.file,
        "description": s.description,
        "overrides": s.overrides.iter().map(|o| o.text.clone()).collect::<Vec<_>>(),
        "seed": s.config.seed,
        "duration_s": sec(s.config.duration),
        "wall_time_s": wall,
        "sample_interval_s": sec(s.config.sample_interval),
        "flow_series": s.config.flow_series,
        "flows": flows,
        "bottlenecks": links,
        "jain_fairness": r.jain_fairness,
        "counters": {
            "flows": r.flows.len(),
            "data_packets": r.data_packets,
            "cross_packets": r.cross_packets,
            "events": r.events,
            "data_packets_per_wall_s": per_wall(r.data_packets as f64),
            "events_per_wall_s": per_wall(r.events as f64),
            "simulated_s_per_wall_s": per_wall(r.duration_s),
        },
        "files": files,
    })
}

/// A long-format table: column names and rows of optional floats.
pub struct Columns {
    /// Column names.
    pub names: Vec<String>,
    /// Column data; `None` or NaN is missing.
    pub cols: Vec<Vec<f64>>,
    /// Columns holding integers (written without a decimal point).
    pub int_cols: Vec<bool>,
}

impl Columns {
    fn rows(&self) -> usize {
        self.cols.first().map_or(0, Vec::len)
    }
}

/// A sample time in seconds at its whole nanosecond, so that every form of
/// a table (CSV, Parquet, a DataFrame) holds 8.04, not 8.040000000000001.
fn whole_ns(t: f64) -> f64 {
    (t * 1e9).round() / 1e9
}

/// The fixed columns of flows.csv (docs/summary-json.md); the columns after
/// them are the controllers' trace variables.
pub(crate) const FLOW_COLUMNS: [&str; 7] = [
    "t_s",
    "flow",
    "goodput_bps",
    "cwnd_pkts",
    "pacing_bps",
    "rtt_s",
    "in_flight_pkts",
];

/// The flows table: one row per sample and flow, the fixed columns, then
/// one column per controller trace variable any flow reported
/// ([`dropless_cc::Controller::trace_vars`]: PDA's capacity estimate,
/// FAST's alpha ...), empty where a flow's controller did not report it.
pub(crate) fn flow_table(r: &SimResult) -> Columns {
    let s = &r.series;
    let n = s.t.len() * s.flows.len();
    // The trace variables' names, in the order first reported.
    let mut vars: Vec<&str> = Vec::new();
    for fs in &s.flows {
        for (name, _) in &fs.vars {
            if !vars.contains(&name.as_str()) {
                vars.push(name);
            }
        }
    }
    let mut cols: Vec<Vec<f64>> = (0..7 + vars.len()).map(|_| Vec::with_capacity(n)).collect();
    for (i, t) in s.t.iter().enumerate() {
        for (f, fs) in s.flows.iter().enumerate() {
            cols[0].push(whole_ns(*t));
            cols[1].push(f as f64);
            cols[2].push(fs.goodput_bps[i]);
            cols[3].push(fs.cwnd[i]);
            cols[4].push(fs.pacing_bps[i]);
            cols[5].push(fs.rtt_s[i]);
            cols[6].push(fs.in_flight[i]);
            for (k, name) in vars.iter().enumerate() {
                // Not finite (NewReno's ssthresh before the first loss) is
                // missing, as the CSV writes it, so that every form of the
                // table holds the same values.
                let v = fs
                    .var(name)
                    .and_then(|c| c.get(i).copied())
                    .filter(|v| v.is_finite())
                    .unwrap_or(f64::NAN);
                cols[7 + k].push(v);
            }
        }
    }
    let mut names: Vec<String> = FLOW_COLUMNS.map(String::from).to_vec();
    // Named as in `dropless send --trace`; a name that is already a fixed
    // column's gets a `cc_` prefix.
    names.extend(vars.iter().map(|v| {
        if FLOW_COLUMNS.contains(v) {
            format!("cc_{v}")
        } else {
            v.to_string()
        }
    }));
    let mut int_cols = vec![false, true, false, false, false, false, true];
    int_cols.resize(names.len(), false);
    Columns {
        names,
        cols,
        int_cols,
    }
}

pub(crate) fn link_table(r: &SimResult) -> Columns {
    let s = &r.series;
    let n = s.t.len() * s.links.len();
    let mut cols: Vec<Vec<f64>> = (0..10).map(|_| Vec::with_capacity(n)).collect();
    for (i, t) in s.t.iter().enumerate() {
        for (l, ls) in s.links.iter().enumerate() {
            cols[0].push(whole_ns(*t));
            cols[1].push(l as f64);
            cols[2].push(ls.queue_pkts[i]);
            cols[3].push(ls.avg_queue_pkts[i]);
            cols[4].push(ls.drops[i]);
            cols[5].push(ls.utilization[i]);
            cols[6].push(ls.aqm_drops[i]);
            cols[7].push(ls.marks[i]);
            cols[8].push(ls.departed[i]);
            cols[9].push(ls.red_avg[i]);
        }
    }
    Columns {
        names: [
            "t_s",
            "link",
            "queue_pkts",
            "avg_queue_pkts",
            "drops",
            "utilization",
            "aqm_drops",
            "marks",
            "departed",
            "red_avg_pkts",
        ]
        .map(String::from)
        .to_vec(),
        cols,
        int_cols: vec![
            false, true, true, false, true, false, true, true, true, false,
        ],
    }
}

/// Writes `c` as CSV at `path` (missing values as empty fields).
pub fn write_csv(path: &Path, c: &Columns) -> Res<()> {
    let name = path.display().to_string();
    let f = File::create(path).map_err(io(&name))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let mut line = String::with_capacity(256);
    line.push_str(&c.names.join(","));
    line.push('\n');
    w.write_all(line.as_bytes()).map_err(io(&name))?;
    for row in 0..c.rows() {
        line.clear();
        for (k, col) in c.cols.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            let v = col[row];
            if v.is_finite() {
                if c.int_cols[k] {
                    line.push_str(&format!("{}", v as i64));
                } else {
                    line.push_str(&format!("{v}"));
                }
            }
        }
        line.push('\n');
        w.write_all(line.as_bytes()).map_err(io(&name))?;
    }
    w.flush().map_err(io(&name))
}

fn write_parquet(path: &Path, table: &str, c: &Columns) -> Res<()> {
    use parquet::basic::Compression;
    use parquet::data_type::{DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let name = path.display().to_string();
    let fields: Vec<String> = c
        .names
        .iter()
        .zip(&c.int_cols)
        .enumerate()
        .map(|(k, (n, int))| match (k < 2, int) {
            (true, true) => format!("REQUIRED INT64 {n};"),
            (true, false) => format!("REQUIRED DOUBLE {n};"),
            (false, true) => format!("OPTIONAL INT64 {n};"),
            (false, false) => format!("OPTIONAL DOUBLE {n};"),
        })
        .collect();
    let schema = parse_message_type(&format!("message {table} {{ {} }}", fields.join(" ")))
        .map_err(io(&name))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let f = File::create(path).map_err(io(&name))?;
    let mut w =
        SerializedFileWriter::new(f, Arc::new(schema), Arc::new(props)).map_err(io(&name))?;
    const GROUP: usize = 1 << 20;
    let rows = c.rows();
    let mut start = 0;
    while start < rows {
        let end = (start + GROUP).min(rows);
        let mut rg = w.next_row_group().map_err(io(&name))?;
        let mut k = 0;
        while let Some(mut col) = rg.next_column().map_err(io(&name))? {
            let data = &c.cols[k][start..end];
            let required = k < 2;
            let defs: Vec<i16> = data.iter().map(|v| i16::from(v.is_finite())).collect();
            let defs = (!required).then_some(defs.as_slice());
            if c.int_cols[k] {
                let vals: Vec<i64> = data
                    .iter()
                    .filter(|v| v.is_finite())
                    .map(|v| *v as i64)
                    .collect();
                col.typed::<Int64Type>()
                    .write_batch(&vals, defs, None)
                    .map_err(io(&name))?;
            } else {
                let vals: Vec<f64> = data.iter().copied().filter(|v| v.is_finite()).collect();
                col.typed::<DoubleType>()
                    .write_batch(&vals, defs, None)
                    .map_err(io(&name))?;
            }
            col.close().map_err(io(&name))?;
            k += 1;
        }
        rg.close().map_err(io(&name))?;
        start = end;
    }
    w.close().map_err(io(&name))?;
    Ok(())
}

fn write_events(path: &Path, r: &SimResult) -> Res<()> {
    let name = path.display().to_string();
    let f = File::create(path).map_err(io(&name))?;
    let mut w = BufWriter::new(f);
    writeln!(w, "flow,t_s,cause,rto,cwnd_pkts,lost").map_err(io(&name))?;
    for f in &r.flows {
        for e in &f.events {
            let cause = match e.cause {
                CongestionCause::Loss => "loss",
                CongestionCause::Ecn => "ecn",
            };
            writeln!(
                w,
                "{},{},{},{},{},{}",
                f.id,
                sec(e.time),
                cause,
                u8::from(e.rto),
                e.cwnd,
                e.lost
            )
            .map_err(io(&name))?;
        }
    }
    w.flush().map_err(io(&name))
}

/// Writes every output file into `dir`; returns their names.
pub fn write_all(
    dir: &Path,
    s: &Scenario,
    r: &SimResult,
    wall: f64,
    a: &RunArgs,
) -> Res<Vec<String>> {
    let mut files = vec!["summary.json".to_string(), "scenario.toml".to_string()];
    let header = format!(
        "# The scenario as run by dropless {} (from {}{})\n",
        env!("CARGO_PKG_VERSION"),
        s.file,
        if s.overrides.is_empty() {
            String::new()
        } else {
            format!(
                ", with --set {}",
                s.overrides
                    .iter()
                    .map(|o| o.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" --set ")
            )
        }
    );
    std::fs::write(
        dir.join("scenario.toml"),
        format!("{header}{}", s.effective_toml),
    )
    .map_err(io("scenario.toml"))?;

    let tables = [("flows", flow_table(r)), ("links", link_table(r))];
    for (name, t) in &tables {
        if t.rows() == 0 {
            continue;
        }
        let (csv, pq) = match a.series {
            SeriesFormat::Auto => (true, t.rows() > PARQUET_ROWS),
            SeriesFormat::Csv => (true, false),
            SeriesFormat::Parquet => (false, true),
            SeriesFormat::Both => (true, true),
            SeriesFormat::None => (false, false),
        };
        if csv {
            write_csv(&dir.join(format!("{name}.csv")), t)?;
            files.push(format!("{name}.csv"));
        }
        if pq {
            write_parquet(&dir.join(format!("{name}.parquet")), name, t)?;
            files.push(format!("{name}.parquet"));
        }
    }
    write_events(&dir.join("events.csv"), r)?;
    files.push("events.csv".into());

    if !a.no_plots {
        files.extend(plot::draw_all(dir, s, r)?);
    }

    write_summary(&dir.join("summary.json"), s, r, wall, &files)?;
    Ok(files)
}

/// Writes summary.json, the same bytes as `to_string_pretty(&summary(..))`
/// and a newline, but streamed: each flow's entry is built, written and
/// dropped in turn. Held all at once, the entries (a map of 25 keys each)
/// and the text were most of a many-flow run's peak memory, about 9 KiB
/// per flow (docs/performance.md).
fn write_summary(path: &Path, s: &Scenario, r: &SimResult, wall: f64, files: &[String]) -> Res<()> {
    let top = summary_with(s, r, wall, files, Vec::new());
    let Value::Object(top) = top else {
        unreachable!("summary.json is an object")
    };
    let mut w = BufWriter::new(File::create(path).map_err(io("summary.json"))?);
    serde_json::to_writer_pretty(&mut w, &StreamedSummary { top: &top, s, r })
        .map_err(io("summary.json"))?;
    w.write_all(b"\n").map_err(io("summary.json"))?;
    w.flush().map_err(io("summary.json"))
}

/// summary.json's top-level object with its `flows` array produced lazily.
struct StreamedSummary<'a> {
    top: &'a Map<String, Value>,
    s: &'a Scenario,
    r: &'a SimResult,
}

impl serde::Serialize for StreamedSummary<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        struct Flows<'b>(&'b Scenario, &'b SimResult);
        impl serde::Serialize for Flows<'_> {
            fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
                let mut seq = ser.serialize_seq(Some(self.1.flows.len()))?;
                for f in &self.1.flows {
                    seq.serialize_element(&flow_value(self.0, f))?;
                }
                seq.end()
            }
        }
        let mut m = ser.serialize_map(Some(self.top.len()))?;
        for (k, v) in self.top {
            if k == "flows" {
                m.serialize_entry(k, &Flows(self.s, self.r))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed summary.json is the same text as the whole value
    /// pretty-printed, on a run with several flows of two kinds.
    #[test]
    fn streamed_summary_equals_the_value_printed() {
        let text = include_str!("../../../scenarios/parking-lot.toml");
        let s = dropless_scenario::from_str(
            text,
            "parking-lot.toml",
            &["duration=0.2s".into(), "flows[*].start=0s".into()],
        )
        .unwrap();
        let r = s.simulation().unwrap().run();
        assert!(r.flows.len() > 1);
        let files = vec!["flows.csv".to_string()];
        let dir = std::env::temp_dir().join(format!("dropless-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("summary.json");
        write_summary(&path, &s, &r, 1.5, &files).unwrap();
        let streamed = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let held = serde_json::to_string_pretty(&summary(&s, &r, 1.5, &files)).unwrap() + "\n";
        assert_eq!(streamed, held);
    }

    /// flows.csv carries each controller's trace variables as columns: a
    /// PDA flow's capacity estimate beside a CUBIC flow's empty field, and
    /// a variable named like a fixed column gets a `cc_` prefix.
    #[test]
    fn the_flows_table_holds_the_controllers_trace_variables() {
        let text = include_str!("../../../scenarios/quickstart.toml");
        let s = dropless_scenario::from_str(
            text,
            "quickstart.toml",
            &[
                "duration=1s".into(),
                "flows[0].cc=pda".into(),
                "flows[*].start=0s".into(),
            ],
        )
        .unwrap();
        let mut r = s.simulation().unwrap().run();
        assert!(r.series.flows.len() >= 2, "the quick start has two flows");
        let kinds: Vec<&str> = r.flows.iter().map(|f| f.cc.as_str()).collect();
        let t = flow_table(&r);
        let col = |name: &str| t.names.iter().position(|n| n == name);
        let cap = col("capacity_bps").expect("PDA's capacity_bps column");
        assert_eq!(t.names.len(), t.cols.len());
        assert_eq!(t.int_cols.len(), t.cols.len());
        let flows = r.series.flows.len();
        let mut pda_values = 0;
        for row in 0..t.rows() {
            let f = t.cols[1][row] as usize;
            let v = t.cols[cap][row];
            if kinds[f] == "pda" {
                pda_values += usize::from(v.is_finite());
            } else {
                assert!(
                    v.is_nan(),
                    "flow {f} ({}) has no capacity estimate",
                    kinds[f]
                );
            }
        }
        assert!(pda_values > 0);
        assert_eq!(t.rows(), r.series.t.len() * flows);
        // Every trace column is aligned with the samples (PDA once
        // reported `phase` twice per sample, and its column ran twice as
        // long as the others).
        let n = r.series.t.len();
        for fs in &r.series.flows {
            for (name, v) in &fs.vars {
                assert_eq!(v.len(), n, "{name}");
            }
        }
        // A trace variable named like a fixed column.
        r.series.flows[0].vars.push(("rtt_s".into(), vec![1.0; n]));
        let t = flow_table(&r);
        assert_eq!(t.names.iter().filter(|n| *n == "rtt_s").count(), 1);
        let k = t.names.iter().position(|n| n == "cc_rtt_s").unwrap();
        assert_eq!(t.cols[k][0], 1.0);
    }
}
