//! `dropless sweep` (a grid of runs gathered into one table) and a smoke
//! test of `dropless bench`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_dropless");

/// A fresh scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "dropless-sweep-test-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
    fn entries(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn dropless(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run dropless")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A short two-flow scenario: 20 Mb/s, 0.3 simulated seconds.
const SCENARIO: &str = r#"
name = "tiny"
duration = "300ms"
seed = 5
[topology]
kind = "dumbbell"
bottleneck = { rate = "20Mbps", delay = "5ms", buffer = "1bdp" }
[[flows]]
cc = "newreno"
rtt = "20ms"
"#;

/// Writes the scenario and a grid into `dir`; returns the grid path.
fn setup(dir: &Path, grid: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("scen")).unwrap();
    std::fs::write(dir.join("scen/tiny.toml"), SCENARIO).unwrap();
    let g = dir.join("grid.toml");
    std::fs::write(&g, grid).unwrap();
    g
}

const GRID: &str = r#"
scenario = "scen/tiny.toml"
[set]
"flows[0].cc" = ["newreno", "cubic"]
"topology.bottleneck.buffer" = ["0.25bdp", "1bdp"]
"#;

#[test]
fn two_by_two_grid_runs_and_is_independent_of_jobs() {
    let s = Scratch::new("grid");
    setup(s.path(), GRID);
    let one = dropless(
        s.path(),
        &["sweep", "grid.toml", "--out", "out1", "--jobs", "1"],
    );
    assert!(one.status.success(), "{}", text(&one.stderr));
    let out = text(&one.stdout);
    assert!(out.contains("4 runs"), "{out}");
    assert!(out.contains("goodput Mb/s"), "{out}");

    let csv = std::fs::read_to_string(s.path().join("out1/results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines.len(),
        5,
        "header + one row per run (one flow):\n{csv}"
    );
    let head: Vec<&str> = lines[0].split(',').collect();
    for col in [
        "run",
        "seed",
        "flows[0].cc",
        "topology.bottleneck.buffer",
        "goodput_bps",
        "loss_per_10k",
        "utilization",
        "jain",
    ] {
        assert!(head.contains(&col), "missing column {col}: {head:?}");
    }
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split(',').collect()).collect();
    let expect = [
        ("newreno", "0.25bdp"),
        ("newreno", "1bdp"),
        ("cubic", "0.25bdp"),
        ("cubic", "1bdp"),
    ];
    let mut seeds = Vec::new();
    for (i, (row, (cc, buf))) in rows.iter().zip(expect).enumerate() {
        assert_eq!(row[col("run")], i.to_string());
        assert_eq!(row[col("flows[0].cc")], cc);
        assert_eq!(row[col("topology.bottleneck.buffer")], buf);
        assert_eq!(row[col("cc")], cc, "the override reached the simulator");
        let good: f64 = row[col("goodput_bps")].parse().unwrap();
        assert!(good > 1e6 && good <= 20e6, "goodput {good}");
        seeds.push(row[col("seed")].to_string());
    }
    seeds.sort();
    seeds.dedup();
    assert_eq!(seeds.len(), 4, "each run has its own seed");
    assert!(s.path().join("out1/results.parquet").is_file());
    assert!(s.path().join("out1/grid.toml").is_file());

    let two = dropless(
        s.path(),
        &["sweep", "grid.toml", "--out", "out2", "--jobs", "2", "-q"],
    );
    assert!(two.status.success(), "{}", text(&two.stderr));
    for f in ["results.csv", "results.parquet"] {
        let a = std::fs::read(s.path().join("out1").join(f)).unwrap();
        let b = std::fs::read(s.path().join("out2").join(f)).unwrap();
        assert!(a == b, "{f} differs between --jobs 1 and --jobs 2");
    }

    // An existing output directory needs --force.
    let again = dropless(s.path(), &["sweep", "grid.toml", "--out", "out1"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("--force"));
    let forced = dropless(
        s.path(),
        &["sweep", "grid.toml", "--out", "out1", "--force", "-q"],
    );
    assert!(forced.status.success(), "{}", text(&forced.stderr));
}

/// Issue 37: a sweep's saved grid (DIR/grid.toml) runs again as it is, from
/// another directory, to the same bytes: its scenario path names the copy of
/// the scenario saved beside it, and the grid's comments are kept.
#[test]
fn a_saved_grid_runs_again_from_its_output_directory() {
    let s = Scratch::new("saved");
    setup(
        s.path(),
        &format!("# the buffers\nrepeats = 2\n{GRID}").replace(
            "scenario = \"scen/tiny.toml\"",
            "scenario = \"scen/tiny.toml\" # beside the grid",
        ),
    );
    let first = dropless(s.path(), &["sweep", "grid.toml", "--out", "first", "-q"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let saved = std::fs::read_to_string(s.path().join("first/grid.toml")).unwrap();
    assert!(
        saved.contains("scenario = \"scenario.toml\" # beside the grid"),
        "{saved}"
    );
    assert!(saved.starts_with("# the buffers"), "{saved}");
    assert_eq!(
        std::fs::read_to_string(s.path().join("first/scenario.toml")).unwrap(),
        SCENARIO
    );
    // From the scenario's own directory, where the original relative path
    // would not resolve.
    let again = dropless(
        &s.path().join("scen"),
        &["sweep", "../first/grid.toml", "--out", "../again", "-q"],
    );
    assert!(again.status.success(), "{}", text(&again.stderr));
    for f in [
        "results.csv",
        "results.parquet",
        "grid.toml",
        "scenario.toml",
    ] {
        let a = std::fs::read(s.path().join("first").join(f)).unwrap();
        let b = std::fs::read(s.path().join("again").join(f)).unwrap();
        assert!(a == b, "{f} differs between the sweep and its re-run");
    }
}

#[test]
fn repeats_get_distinct_seeds() {
    let s = Scratch::new("repeats");
    setup(
        s.path(),
        "scenario = \"scen/tiny.toml\"\nrepeats = 3\nseed = 9\n",
    );
    let o = dropless(s.path(), &["sweep", "grid.toml", "--out", "o", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(s.path().join("o/results.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("0,0,"), "{csv}");
    assert!(lines[2].starts_with("2,2,"), "{csv}");
}

/// Issue 37: seeds over a scenario with nothing random give one run many
/// times; the sweep says so. With send jitter drawn from the seed the
/// repeats differ and there is no warning.
#[test]
fn a_sweep_whose_seeds_change_nothing_says_so() {
    let s = Scratch::new("seedless");
    setup(s.path(), "scenario = \"scen/tiny.toml\"\nrepeats = 3\n");
    let o = dropless(s.path(), &["sweep", "grid.toml", "--out", "o", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("warning: grid.toml: the 3 repeats of each grid point gave identical results"),
        "{err}"
    );
    let csv = std::fs::read_to_string(s.path().join("o/results.csv")).unwrap();
    let goodput: std::collections::BTreeSet<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(6).unwrap())
        .collect();
    assert_eq!(goodput.len(), 1, "{csv}");

    setup(
        s.path(),
        "scenario = \"scen/tiny.toml\"\nrepeats = 3\n[set]\n\"flows[*].send_jitter\" = [\"600us\"]\n",
    );
    let o = dropless(s.path(), &["sweep", "grid.toml", "--out", "j", "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("warning"), "{}", text(&o.stderr));
}

/// An output directory that cannot be written is found before any run
/// (issue 37), not after the whole sweep.
#[test]
fn an_unwritable_output_is_refused_before_any_run() {
    let s = Scratch::new("unwritable");
    setup(
        s.path(),
        "scenario = \"scen/tiny.toml\"\n[set]\nduration = [\"3600s\"]\n",
    );
    std::fs::write(s.path().join("blocker"), "a file, not a directory").unwrap();
    let o = dropless(
        s.path(),
        &["sweep", "grid.toml", "--out", "blocker/out", "-q"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: cannot write output directory \"blocker/out\""),
        "{err}"
    );
    assert!(!err.contains("run 0 done"), "{err}");
}

/// Runs a bad grid; checks exit code 2, the message and that nothing is left.
fn bad(grid: &str, needles: &[&str]) {
    let s = Scratch::new("bad");
    setup(s.path(), grid);
    let before = s.entries();
    let o = dropless(s.path(), &["sweep", "grid.toml", "--out", "res"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{grid}\n{err}");
    assert!(err.starts_with("error: grid.toml"), "{err}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    assert_eq!(err.lines().count(), 1, "one message: {err}");
    assert_eq!(s.entries(), before, "nothing written");
}

#[test]
fn bad_grids_fail_clearly() {
    bad(
        "scenario = \"scen/tiny.toml\"\n[set]\n\"flows[0].colour\" = [\"red\"]\n",
        &["flows[0].colour"],
    );
    bad(
        "scenario = \"scen/tiny.toml\"\n[set]\n\"flows[0].cc\" = []\n",
        &["set.\"flows[0].cc\"", "empty list"],
    );
    bad(
        "scenario = \"scen/missing.toml\"\n",
        &["scenario", "missing.toml"],
    );
    bad("[set]\n\"duration\" = [\"1s\"]\n", &["scenario", "missing"]);
    bad(
        "scenario = \"scen/tiny.toml\"\nrepeat = 2\n",
        &["repeat", "unknown field", "repeats"],
    );
    bad(
        "scenario = \"scen/tiny.toml\"\n[set]\n\"flows[0].cc\" = [\"newreno\", \"warp\"]\n",
        &["run 1", "warp"],
    );
    bad(
        "scenario = \"scen/tiny.toml\"\n[set]\n\"duration\" = \"1s\"\n",
        &["set.\"duration\"", "expected a list"],
    );
}

#[test]
fn bench_smoke() {
    let s = Scratch::new("bench");
    let o = dropless(
        s.path(),
        &[
            "bench", "--cases", "A", "--runs", "1", "--scale", "0.01", "--json", "b.json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for col in [
        "case", "Mpkt/s", "Mevent/s", "wall s", "peak MiB", "KiB/flow",
    ] {
        assert!(out.contains(col), "missing {col}: {out}");
    }
    assert!(out.lines().any(|l| l.starts_with("A ")), "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.path().join("b.json")).unwrap()).unwrap();
    let m = &j["cases"][0]["median"];
    assert!(m["data_packets"].as_f64().unwrap() > 1000.0, "{j}");
    assert!(m["peak_rss_bytes"].as_f64().unwrap() > 1e6, "{j}");
}

/// Case D is the real trunk of scenarios/large/core-trunk.toml.
#[test]
fn bench_case_d_is_the_core_trunk() {
    let s = Scratch::new("bench-d");
    let o = dropless(
        s.path(),
        &[
            "bench", "--cases", "D", "--runs", "1", "--scale", "0.01", "--json", "d.json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.lines()
            .any(|l| l.starts_with("D ") && l.contains("16 x 40 Gb/s trunk") && l.contains("6400")),
        "{out}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.path().join("d.json")).unwrap()).unwrap();
    let run = &j["cases"][0]["each_run"][0];
    assert_eq!(run["flows"], 6400, "{j}");
    // 0.1 s is slow start: some packets, a little of the trunk in use.
    assert!(run["data_packets"].as_u64().unwrap() > 10_000, "{j}");
    let u = run["utilization"].as_f64().unwrap();
    assert!(u > 0.0 && u < 1.0, "{j}");
}
