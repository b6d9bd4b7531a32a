//! `dropless bench`: the fixed performance scenarios of issue 4.
//!
//! Each run of each case is simulated in a fresh child process (the hidden
//! `dropless bench-one CASE` subcommand, spawned from the current executable)
//! so that the peak resident memory it reports (`VmHWM` from
//! `/proc/self/status`) belongs to that case alone. The parent gathers the
//! runs and prints medians. Results and methodology: `docs/performance.md`.

use std::process::Command;
use std::time::Instant;

use dropless_cc::{Time, MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, LinkSpec, SimConfig, Simulation, Topology};
use serde_json::{json, Value};

use crate::Failure;

/// Help shown after `dropless bench --help`.
pub const BENCH_HELP: &str = "\
Cases (10 simulated seconds each):
  A  100 NewReno flows, 10 Gb/s          } dumbbells: 1500-byte packets,
  B  1,000 NewReno flows, 10 Gb/s        } buffer 1 BDP, 20 ms RTT
  C  10,000 NewReno flows, 100 Gb/s      }
  D  a DWDM trunk of 16 x 40 Gb/s channels (full conversion, 16 buffer
     slots), 64 input links, 6,400 paced NewReno flows over 100 Mb/s access,
     RTTs 64-176 ms: scenarios/large/core-trunk.toml (thesis ch. 3, Fig 3.11)

Every run is a fresh child process, so peak memory (VmHWM) is per case. The
table shows medians over --runs runs: simulated data packets and events per
wall-clock second, wall time, peak RSS and peak RSS per flow. C and D take
minutes; pick cases with --cases. Methodology and results: docs/performance.md

Examples:
  dropless bench --cases A,B
  dropless bench --cases C,D --runs 1 --json bench.json
  dropless bench --cases A --runs 1 --scale 0.01      a quick smoke test";

/// Case D's scenario (also a user-facing example).
pub const CORE_TRUNK: &str = include_str!("../../../scenarios/large/core-trunk.toml");

/// Arguments of `dropless bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Runs per case; the table shows medians
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Cases to run, comma separated
    #[arg(long, value_enum, ignore_case = true, value_delimiter = ',', default_values_t = vec![Case::A, Case::B, Case::C, Case::D])]
    pub cases: Vec<Case>,
    /// Also write the runs and medians as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
    /// Multiply every simulated duration by this factor (0.01: 0.1 s instead of 10 s)
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    pub scale: f64,
}

/// Arguments of the hidden `dropless bench-one` (one run, in a child process).
#[derive(clap::Args, Debug)]
pub struct BenchOneArgs {
    /// The case
    #[arg(value_enum, ignore_case = true)]
    pub case: Case,
    /// Duration factor, as for `bench`
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    pub scale: f64,
}

fn parse_scale(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 100.0 => Ok(x),
        _ => Err(format!(
            "found \"{s}\", expected a number > 0 and <= 100 (1 = 10 simulated seconds)"
        )),
    }
}

/// A benchmark case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "UPPER")]
pub enum Case {
    /// 100 NewReno flows, 10 Gb/s, 20 ms.
    A,
    /// 1,000 NewReno flows, 10 Gb/s, 20 ms.
    B,
    /// 10,000 NewReno flows, 100 Gb/s, 20 ms.
    C,
    /// 6,400 paced NewReno flows into a 16 × 40 Gb/s DWDM trunk.
    D,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::A => "A",
            Case::B => "B",
            Case::C => "C",
            Case::D => "D",
        }
    }
    fn describe(self) -> &'static str {
        match self {
            Case::A => "100 NewReno, 10 Gb/s",
            Case::B => "1,000 NewReno, 10 Gb/s",
            Case::C => "10,000 NewReno, 100 Gb/s",
            Case::D => "6,400 paced NewReno, 16 x 40 Gb/s trunk",
        }
    }
    /// (flows, link rate) of the dumbbell cases A-C.
    fn shape(self) -> (usize, f64) {
        match self {
            Case::A => (100, 10e9),
            Case::B => (1000, 10e9),
            Case::C => (10_000, 100e9),
            Case::D => (6400, 640e9),
        }
    }
}

/// Base RTT of every case.
const RTT: Time = 20 * MILLISECOND;
/// Simulated duration of every case at `--scale 1`.
const DURATION: Time = 10 * SECOND;
/// Seed of every case.
const SEED: u64 = 1;

/// The configuration of a case: for A-C a dumbbell of bulk NewReno flows
/// with a 1-BDP drop-tail buffer, 20 ms RTT, no time series; for D the
/// scenario [`CORE_TRUNK`] without time series.
pub fn config(case: Case, scale: f64) -> Result<SimConfig, Failure> {
    let duration = ((DURATION as f64 * scale).round() as Time).max(1);
    if case == Case::D {
        let sets = [format!("duration={duration}ns")];
        let s = dropless_scenario::from_str(CORE_TRUNK, "scenarios/large/core-trunk.toml", &sets)
            .map_err(|e| Failure::Run(e.to_string()))?;
        // No time series, as in A-C.
        return Ok(SimConfig {
            sample_interval: 0,
            ..s.config
        });
    }
    let (flows, rate) = case.shape();
    let wire = 1500.0;
    let bdp = (rate * (RTT as f64 / 1e9) / 8.0 / wire).round() as u64;
    let flow = FlowSpec::bulk("newreno", RTT);
    Ok(SimConfig {
        seed: SEED,
        duration,
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(rate, RTT / 2, Buffer::Packets(bdp)),
            access_rate_bps: None,
        },
        flows: vec![flow; flows],
        cross: vec![],
        sample_interval: 0,
        flow_series: false,
    })
}

/// Peak resident set size of this process in bytes (`VmHWM`), if known.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `dropless bench-one`: simulates one case once and prints one JSON line.
pub fn bench_one(a: &BenchOneArgs) -> Result<(), Failure> {
    let (flows, _) = a.case.shape();
    let cfg = config(a.case, a.scale)?;
    let t0 = Instant::now();
    let sim =
        Simulation::new(cfg).map_err(|e| Failure::Run(format!("{}: {}", e.field, e.message)))?;
    let r = sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let util = r.links.first().map_or(0.0, |l| l.utilization);
    let line = json!({
        "case": a.case.name(),
        "flows": flows,
        "simulated_s": DURATION as f64 * a.scale / 1e9,
        "wall_s": wall,
        "data_packets": r.data_packets,
        "events": r.events,
        "utilization": util,
        "peak_rss_bytes": peak_rss(),
    });
    println!("{line}");
    Ok(())
}

/// One run as reported by a child process.
#[derive(Clone, Debug)]
struct RunStats {
    wall_s: f64,
    data_packets: u64,
    events: u64,
    utilization: f64,
    peak_rss: Option<u64>,
    raw: Value,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn spawn_one(case: Case, a: &BenchArgs) -> Result<RunStats, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Run(format!("cannot find the dropless executable: {e}")))?;
    let out = Command::new(exe)
        .arg("bench-one")
        .arg(case.name())
        .arg("--scale")
        .arg(a.scale.to_string())
        .output()
        .map_err(|e| Failure::Run(format!("cannot start a benchmark run: {e}")))?;
    if !out.status.success() {
        return Err(Failure::Run(format!(
            "benchmark case {} failed ({}): {}",
            case.name(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim()).map_err(|e| {
        Failure::Run(format!(
            "benchmark case {}: unreadable child output ({e}): {text}",
            case.name()
        ))
    })?;
    Ok(RunStats {
        wall_s: v["wall_s"].as_f64().unwrap_or(f64::NAN),
        data_packets: v["data_packets"].as_u64().unwrap_or(0),
        events: v["events"].as_u64().unwrap_or(0),
        utilization: v["utilization"].as_f64().unwrap_or(f64::NAN),
        peak_rss: v["peak_rss_bytes"].as_u64(),
        raw: v,
    })
}

/// `dropless bench`.
pub fn bench(a: &BenchArgs) -> Result<(), Failure> {
    let mut cases: Vec<Case> = Vec::new();
    for c in &a.cases {
        if !cases.contains(c) {
            cases.push(*c);
        }
    }
    println!(
        "dropless bench: {} run(s) per case, each in a fresh process; {} simulated s per case{}; medians",
        a.runs,
        DURATION as f64 * a.scale / 1e9,
        if a.scale == 1.0 { "" } else { " (--scale)" },
    );
    let header = format!(
        "{:<4} {:<46} {:>6} {:>10} {:>10} {:>12} {:>9} {:>10} {:>10} {:>6}",
        "case",
        "scenario",
        "flows",
        "Mpkt/s",
        "Mevent/s",
        "data pkts",
        "wall s",
        "peak MiB",
        "KiB/flow",
        "util"
    );
    println!("{header}");
    let mut report = Vec::new();
    for &case in &cases {
        let mut runs = Vec::new();
        for i in 0..a.runs {
            let r = spawn_one(case, a)?;
            eprintln!(
                "  {} run {}/{}: {:.2} s wall, {:.2} M pkt/s, {:.2} M events/s, peak {} MiB",
                case.name(),
                i + 1,
                a.runs,
                r.wall_s,
                r.data_packets as f64 / r.wall_s / 1e6,
                r.events as f64 / r.wall_s / 1e6,
                r.peak_rss
                    .map_or("?".into(), |b| format!("{:.0}", b as f64 / 1048576.0)),
            );
            runs.push(r);
        }
        let (flows, _) = case.shape();
        let pps = median(
            runs.iter()
                .map(|r| r.data_packets as f64 / r.wall_s)
                .collect(),
        );
        let eps = median(runs.iter().map(|r| r.events as f64 / r.wall_s).collect());
        let wall = median(runs.iter().map(|r| r.wall_s).collect());
        let pkts = median(runs.iter().map(|r| r.data_packets as f64).collect());
        let util = median(runs.iter().map(|r| r.utilization).collect());
        let rss = median(
            runs.iter()
                .map(|r| r.peak_rss.map_or(f64::NAN, |b| b as f64))
                .collect(),
        );
        println!(
            "{:<4} {:<46} {:>6} {:>10.2} {:>10.2} {:>12.0} {:>9.2} {:>10.1} {:>10.1} {:>6.3}",
            case.name(),
            case.describe(),
            flows,
            pps / 1e6,
            eps / 1e6,
            pkts,
            wall,
            rss / 1048576.0,
            rss / 1024.0 / flows as f64,
            util
        );
        report.push(json!({
            "case": case.name(),
            "scenario": case.describe(),
            "flows": flows,
            "runs": a.runs,
            "median": {
                "data_packets_per_wall_s": pps,
                "events_per_wall_s": eps,
                "wall_s": wall,
                "data_packets": pkts,
                "peak_rss_bytes": rss,
                "peak_rss_bytes_per_flow": rss / flows as f64,
                "utilization": util,
            },
            "each_run": runs.iter().map(|r| r.raw.clone()).collect::<Vec<_>>(),
        }));
    }
    if let Some(path) = &a.json {
        let v = json!({
            "dropless_version": env!("CARGO_PKG_VERSION"),
            "scale": a.scale,
            "cases": report,
        });
        let text = serde_json::to_string_pretty(&v).expect("JSON value") + "\n";
        std::fs::write(path, text)
            .map_err(|e| Failure::Run(format!("cannot write \"{}\": {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
