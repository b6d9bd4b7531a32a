//! End-to-end tests of the `dropless` binary: every example scenario runs and
//! produces its summary and plots; every kind of bad input fails with one
//! clear message, a non-zero exit code and no output directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_dropless");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "dropless-cli-test-{}-{}-{name}",
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
    /// Names of the entries in the directory (hidden ones included).
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

fn dropless(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(root())
        .output()
        .expect("run dropless")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `.toml` files of a folder of the repository, sorted.
fn toml_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

fn scenarios() -> Vec<PathBuf> {
    let v = toml_files("scenarios");
    assert!(v.len() >= 6, "expected the example scenarios, found {v:?}");
    v
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned()
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Asserts the output of a failed run: exit code, one `error:` line naming
/// the file, no panic.
fn assert_failed(out: &Output, code: i32, expects: &[&str], what: &str) {
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: exit code; stderr: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: panic: {err}");
    assert!(err.starts_with("error: "), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    for e in expects {
        assert!(err.contains(e), "{what}: expected {e:?} in: {err}");
    }
}

fn check_png(p: &Path) {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert!(
        b.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG",
        p.display()
    );
    assert!(b.len() > 10_000, "{} is suspiciously small", p.display());
}

fn check_svg(p: &Path) {
    let s = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert!(s.contains("<svg"), "{}", p.display());
    assert!(
        s.contains("Time (s)"),
        "{} lacks the axis label",
        p.display()
    );
}

/// `scenarios/large/`: examples that take minutes (checked, not run here).
fn large_scenarios() -> Vec<PathBuf> {
    let v = toml_files("scenarios/large");
    assert!(!v.is_empty(), "expected scenarios/large/core-trunk.toml");
    v
}

#[test]
fn every_example_scenario_checks() {
    for s in scenarios().into_iter().chain(large_scenarios()) {
        let out = dropless(&["check", &rel(&s)]);
        assert!(
            out.status.success(),
            "{}: {}",
            s.display(),
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).starts_with("ok: "),
            "{}",
            text(&out.stdout)
        );
    }
}

/// The experiment scenarios (`experiments/**/*.toml`, which the reports cite
/// and tell readers to run) stay valid as the format evolves.
#[test]
fn every_experiment_scenario_checks() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "toml") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("experiments"), &mut files);
    assert!(
        files.len() >= 30,
        "expected the experiment files, found {files:?}"
    );
    for s in files {
        let out = dropless(&["check", &rel(&s)]);
        assert!(
            out.status.success() && text(&out.stdout).starts_with("ok: "),
            "{}: {}{}",
            s.display(),
            text(&out.stdout),
            text(&out.stderr)
        );
    }
}

#[test]
fn every_example_scenario_runs_and_plots() {
    let tmp = Scratch::new("examples");
    for s in scenarios() {
        let name = s.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = tmp.path().join(&name);
        let out = dropless(&["run", &rel(&s), "--out", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(stdout.contains("Jain fairness"), "{name}: {stdout}");
        let j = read_json(&dir.join("summary.json"));
        assert_eq!(j["scenario"], name.as_str(), "{name}");
        assert!(j["flows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["goodput_bps"].as_f64().unwrap() >= 0.0));
        let delivered: f64 = j["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["goodput_bps"].as_f64().unwrap())
            .sum();
        assert!(delivered > 0.0, "{name}: nothing delivered");
        for b in j["bottlenecks"].as_array().unwrap() {
            let u = b["utilization"].as_f64().unwrap();
            assert!(u > 0.05 && u <= 1.0001, "{name}: utilization {u}");
        }
        for f in ["throughput", "cwnd", "rtt", "queue", "overview"] {
            if f == "cwnd" && !dir.join("cwnd.png").exists() {
                assert!(
                    dir.join("rate.png").exists(),
                    "{name}: neither cwnd nor rate plot"
                );
                continue;
            }
            check_png(&dir.join(format!("{f}.png")));
            check_svg(&dir.join(format!("{f}.svg")));
        }
        for f in ["flows.csv", "links.csv", "events.csv", "scenario.toml"] {
            assert!(dir.join(f).is_file(), "{name}: {f} missing");
        }
        // The recorded scenario runs again to the same results.
        let again = tmp.path().join(format!("{name}-again"));
        let out = dropless(&[
            "run",
            dir.join("scenario.toml").to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
            "--no-plots",
            "-q",
        ]);
        assert!(out.status.success(), "{name} again: {}", text(&out.stderr));
        let k = read_json(&again.join("summary.json"));
        assert_eq!(
            j["flows"], k["flows"],
            "{name}: scenario.toml reproduces the run"
        );
    }
}

#[test]
fn summary_json_has_the_documented_fields() {
    let tmp = Scratch::new("summary");
    let dir = tmp.path().join("qs");
    let out = dropless(&[
        "run",
        "--out",
        dir.to_str().unwrap(),
        "--set",
        "duration=6s",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j = read_json(&dir.join("summary.json"));
    for k in [
        "scenario",
        "scenario_file",
        "overrides",
        "seed",
        "duration_s",
        "wall_time_s",
        "flows",
        "bottlenecks",
        "jain_fairness",
        "counters",
    ] {
        assert!(j.get(k).is_some(), "summary.json lacks {k}");
    }
    assert_eq!(j["scenario"], "quickstart");
    assert!(j["scenario_file"].as_str().unwrap().contains("quickstart"));
    assert_eq!(j["duration_s"], 6.0);
    for f in j["flows"].as_array().unwrap() {
        for k in [
            "id",
            "cc",
            "rtt_s",
            "goodput_bps",
            "throughput_bps",
            "packets_sent",
            "packets_lost",
            "loss_per_10k",
            "congestion_events",
            "avg_backlog_pkts",
        ] {
            assert!(f.get(k).is_some(), "flow lacks {k}");
        }
    }
    for b in j["bottlenecks"].as_array().unwrap() {
        for k in [
            "rate_bps",
            "utilization",
            "avg_queue_pkts",
            "max_queue_pkts",
            "drops",
        ] {
            assert!(b.get(k).is_some(), "bottleneck lacks {k}");
        }
    }
    for k in ["data_packets", "events", "data_packets_per_wall_s"] {
        assert!(j["counters"].get(k).is_some(), "counters lack {k}");
    }
    let jain = j["jain_fairness"].as_f64().unwrap();
    assert!(jain > 0.0 && jain <= 1.0);
}

#[test]
fn set_overrides_are_recorded_and_change_the_result() {
    let tmp = Scratch::new("set");
    let base = tmp.path().join("base");
    let over = tmp.path().join("over");
    let qs = "scenarios/quickstart.toml";
    let out = dropless(&[
        "run",
        qs,
        "--out",
        base.to_str().unwrap(),
        "--set",
        "duration=8s",
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = dropless(&[
        "run",
        qs,
        "--out",
        over.to_str().unwrap(),
        "--set",
        "duration=8s",
        "--set",
        "topology.bottleneck.rate=50Mbps",
        "--set",
        "flows[1].cc=cubic",
        "--set",
        "flows[*].rtt=30ms",
        "--set",
        "seed=7",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("overrides: duration=8s"));
    let a = read_json(&base.join("summary.json"));
    let b = read_json(&over.join("summary.json"));
    assert_eq!(a["overrides"], serde_json::json!(["duration=8s"]));
    assert_eq!(
        b["overrides"],
        serde_json::json!([
            "duration=8s",
            "topology.bottleneck.rate=50Mbps",
            "flows[1].cc=cubic",
            "flows[*].rtt=30ms",
            "seed=7"
        ])
    );
    assert_eq!(b["duration_s"], 8.0);
    assert_eq!(b["seed"], 7);
    assert_eq!(b["bottlenecks"][0]["rate_bps"], 50e6);
    assert_eq!(a["bottlenecks"][0]["rate_bps"], 100e6);
    assert_eq!(b["flows"][1]["cc"], "cubic");
    assert_eq!(b["flows"][0]["rtt_s"], 0.03);
    let total = |j: &serde_json::Value| -> f64 {
        j["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                f["goodput_bps"].as_f64().unwrap()
                    * (f["end_s"].as_f64().unwrap() - f["start_s"].as_f64().unwrap())
            })
            .sum::<f64>()
            / 8.0
    };
    assert!(total(&b) < 50e6, "the 50 Mb/s link carried {}", total(&b));
    assert!(total(&a) > 60e6, "the 100 Mb/s link carried {}", total(&a));
    // The override is visible in the recorded scenario too.
    let toml = std::fs::read_to_string(over.join("scenario.toml")).unwrap();
    assert!(toml.contains("50Mbps") && toml.contains("--set topology.bottleneck.rate=50Mbps"));
}

#[test]
fn builtin_quickstart_runs_without_a_file() {
    let tmp = Scratch::new("builtin");
    let dir = tmp.path().join("qs");
    let out = dropless(&[
        "run",
        "--out",
        dir.to_str().unwrap(),
        "--set",
        "duration=6s",
        "--no-plots",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j = read_json(&dir.join("summary.json"));
    assert_eq!(j["scenario"], "quickstart");
    assert!(j["scenario_file"].as_str().unwrap().contains("built in"));
    // The built-in copy is the file under scenarios/.
    let out = dropless(&["check"]);
    assert!(out.status.success());
}

#[test]
fn parquet_series_are_written_on_request() {
    let tmp = Scratch::new("parquet");
    let dir = tmp.path().join("pq");
    let out = dropless(&[
        "run",
        "--out",
        dir.to_str().unwrap(),
        "--set",
        "duration=6s",
        "--series",
        "both",
        "--no-plots",
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for f in ["flows.parquet", "links.parquet"] {
        let b = std::fs::read(dir.join(f)).unwrap();
        assert!(b.starts_with(b"PAR1") && b.ends_with(b"PAR1"), "{f}");
    }
    assert!(dir.join("flows.csv").is_file());
}

#[test]
fn existing_output_directory_needs_force() {
    let tmp = Scratch::new("force");
    let dir = tmp.path().join("out");
    let d = dir.to_str().unwrap();
    let args = [
        "run",
        "--out",
        d,
        "--set",
        "duration=6s",
        "--no-plots",
        "-q",
    ];
    assert!(dropless(&args).status.success());
    let first = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let out = dropless(&args);
    assert_failed(&out, 2, &["already exists", "--force"], "existing dir");
    assert_eq!(
        std::fs::read_to_string(dir.join("summary.json")).unwrap(),
        first
    );
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(dropless(&forced).status.success());
    assert_eq!(tmp.entries(), vec!["out"], "no temporary directories left");
    // A directory that is not a dropless output is never replaced.
    let other = tmp.path().join("precious");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("thesis.tex"), "keep me").unwrap();
    let out = dropless(&[
        "run",
        "--out",
        other.to_str().unwrap(),
        "--force",
        "--set",
        "duration=6s",
    ]);
    assert_failed(&out, 2, &["not an earlier dropless output"], "foreign dir");
    assert!(other.join("thesis.tex").is_file());
}

#[test]
fn output_directory_that_cannot_be_written() {
    let tmp = Scratch::new("unwritable");
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let dir = file.join("out");
    let out = dropless(&[
        "run",
        "--out",
        dir.to_str().unwrap(),
        "--set",
        "duration=6s",
    ]);
    assert_failed(
        &out,
        1,
        &["cannot write output directory", dir.to_str().unwrap()],
        "parent is a file",
    );
    // The output directory is itself an existing file.
    let out = dropless(&[
        "run",
        "--out",
        file.to_str().unwrap(),
        "--set",
        "duration=6s",
    ]);
    assert_failed(&out, 2, &["is not a directory"], "out is a file");
    assert_eq!(tmp.entries(), vec!["a-file"]);
    if cfg!(target_os = "linux") {
        let out = dropless(&[
            "run",
            "--out",
            "/proc/dropless-test-out",
            "--set",
            "duration=6s",
        ]);
        assert_failed(
            &out,
            1,
            &["cannot write output directory \"/proc/dropless-test-out\""],
            "/proc",
        );
    }
}

#[test]
fn unreadable_scenario_files() {
    let tmp = Scratch::new("unreadable");
    let out_dir = tmp.path().join("out");
    let o = out_dir.to_str().unwrap();
    let missing = tmp.path().join("nope.toml");
    let out = dropless(&["run", missing.to_str().unwrap(), "--out", o]);
    assert_failed(
        &out,
        2,
        &[
            missing.to_str().unwrap(),
            "cannot read the file: no such file",
        ],
        "missing file",
    );
    let out = dropless(&["run", tmp.path().to_str().unwrap(), "--out", o]);
    assert_failed(&out, 2, &["is a directory"], "directory");
    let binary = tmp.path().join("binary.toml");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    let out = dropless(&["run", binary.to_str().unwrap(), "--out", o]);
    assert_failed(&out, 2, &["binary.toml", "not UTF-8"], "binary");
    let huge = tmp.path().join("huge.toml");
    std::fs::write(&huge, vec![b'#'; 2 << 20]).unwrap();
    let out = dropless(&["run", huge.to_str().unwrap(), "--out", o]);
    assert_failed(&out, 2, &["huge.toml", "at most 1048576 bytes"], "huge");
    assert!(!out_dir.exists());
}

/// Every file under tests/bad/ states what is wrong with it and what the
/// message must contain (`# expect: ...` lines). Each must fail in `check`
/// and in `run` with exit code 2 and leave no output directory.
#[test]
fn bad_scenarios_fail_with_one_clear_message() {
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&bad)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "{} fixtures", files.len());
    let tmp = Scratch::new("bad");
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let expects: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: "))
            .collect();
        assert!(!expects.is_empty(), "{} has no # expect lines", f.display());
        let name = rel(f);
        let mut all = vec![name.as_str()];
        all.extend(&expects);
        let out = dropless(&["check", &name]);
        assert_failed(&out, 2, &all, &name);
        let dir = tmp.path().join("out");
        let out = dropless(&["run", &name, "--out", dir.to_str().unwrap()]);
        assert_failed(&out, 2, &all, &name);
        assert!(tmp.entries().is_empty(), "{name} left {:?}", tmp.entries());
    }
}

#[test]
fn bad_set_overrides() {
    let tmp = Scratch::new("badset");
    let dir = tmp.path().join("out");
    let d = dir.to_str().unwrap();
    let qs = "scenarios/quickstart.toml";
    let cases: &[(&str, &[&str])] = &[
        ("flows[5].cc=fast", &["--set flows[5].cc=fast", "an index below 2"]),
        ("duration", &["--set duration", "KEY=VALUE"]),
        ("flows[x].rtt=1s", &["dotted key path"]),
        (
            "flows[0].rtt=20 parsecs",
            &[
                "scenarios/quickstart.toml: flows[0].rtt: found \"20 parsecs\"",
                "the value comes from --set flows[0].rtt=20 parsecs",
            ],
        ),
        (
            "topology.bottleneck.rat=1Gbps",
            &["topology.bottleneck.rat", "did you mean \"rate\"?", "--set"],
        ),
        ("flows[0].params.alpha=5", &["flows[0].params.alpha", "unknown parameter \"alpha\" of newreno"]),
        ("duration=0s", &["duration: found \"0s\", expected a positive time"]),
        (
            "duration=3s",
            &[
                "flows[1].start: found \"5s\", expected a start before the end of the run (duration = \"3s\")",
                "the duration comes from --set duration=3s",
            ],
        ),
    ];
    for (set, expects) in cases {
        let out = dropless(&["run", qs, "--out", d, "--set", set]);
        assert_failed(&out, 2, expects, set);
        let out = dropless(&["check", qs, "--set", set]);
        assert_failed(&out, 2, expects, set);
    }
    assert!(tmp.entries().is_empty());
}

#[test]
fn list_shows_every_controller_queue_and_traffic_kind() {
    let out = dropless(&["list"]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    for name in dropless_cc::registry::all().iter().map(|c| c.name) {
        assert!(s.contains(&format!("{name}: ")), "list lacks {name}");
    }
    for p in dropless_cc::registry::find("fast").unwrap().params {
        assert!(s.contains(p.name), "list lacks fast's {}", p.name);
    }
    for w in [
        "droptail",
        "poisson",
        "constant",
        "pareto",
        "mean_on",
        "dumbbell",
        "parking-lot",
        "default",
        "100",
    ] {
        assert!(s.contains(w), "list lacks {w}");
    }
    let out = dropless(&["list", "queues"]);
    assert!(text(&out.stdout).contains("droptail") && !text(&out.stdout).contains("newreno"));
}

#[test]
fn help_has_examples_for_every_subcommand() {
    for sub in [
        &["--help"][..],
        &["run", "--help"],
        &["check", "--help"],
        &["list", "--help"],
    ] {
        let out = dropless(sub);
        assert!(out.status.success(), "{sub:?}");
        let s = text(&out.stdout);
        assert!(s.contains("Examples:"), "{sub:?}: {s}");
        assert!(s.contains("dropless "), "{sub:?}");
    }
    let s = text(&dropless(&["run", "--help"]).stdout);
    for w in ["--out", "--set", "--force", "KEY=VALUE", "summary.json"] {
        assert!(s.contains(w), "run --help lacks {w}");
    }
    // Usage errors are reported by clap with exit code 2.
    let out = dropless(&["run", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Same seed: every output file is byte-identical, except the wall-clock
/// fields of summary.json (`wall_time_s` and the `*_per_wall_s` speeds),
/// which are removed before comparing. Another seed changes the cross traffic.
#[test]
fn same_seed_gives_byte_identical_outputs() {
    let s = Scratch::new("determinism");
    let run = |dir: &str, seed: &str| {
        let out = s.path().join(dir);
        let o = dropless(&[
            "run",
            "scenarios/cross-traffic.toml",
            "--out",
            out.to_str().unwrap(),
            "--set",
            "duration=12s",
            "--set",
            seed,
            "--series",
            "both",
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        out
    };
    let a = run("a", "seed=11");
    let b = run("b", "seed=11");
    let c = run("c", "seed=12");
    let mut names: Vec<String> = std::fs::read_dir(&a)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names.iter().any(|n| n.ends_with(".png")) && names.iter().any(|n| n.ends_with(".parquet"))
    );
    let strip = |p: &Path| {
        let mut v = read_json(p);
        v.as_object_mut().unwrap().remove("wall_time_s");
        let c = v["counters"].as_object_mut().unwrap();
        c.retain(|k, _| !k.ends_with("_per_wall_s"));
        v
    };
    for n in &names {
        if n == "summary.json" {
            assert_eq!(strip(&a.join(n)), strip(&b.join(n)));
        } else {
            assert!(
                std::fs::read(a.join(n)).unwrap() == std::fs::read(b.join(n)).unwrap(),
                "{n} differs between two runs with the same seed"
            );
        }
    }
    assert!(
        std::fs::read(a.join("links.csv")).unwrap() != std::fs::read(c.join("links.csv")).unwrap(),
        "another seed should change the cross traffic and so the queue"
    );
    assert_ne!(
        read_json(&a.join("summary.json"))["counters"]["cross_packets"],
        read_json(&c.join("summary.json"))["counters"]["cross_packets"]
    );
}

/// `dropless probe`: bad options are refused in one line naming them, and a
/// closed port ends the probe with an error after --timeout, not a hang.
#[test]
fn probe_refuses_bad_input_and_ends_on_a_closed_port() {
    let out = dropless(&["probe", "127.0.0.1:9", "--timeout", "1e30"]);
    assert_failed(
        &out,
        2,
        &["--timeout", "1e30", "at most 3600"],
        "probe --timeout",
    );
    let out = dropless(&["probe", "127.0.0.1:9", "--param", "bogus=1"]);
    assert_failed(
        &out,
        2,
        &["--param", "bogus", "allowed parameters"],
        "probe --param",
    );
    let out = dropless(&["probe", "127.0.0.1:9", "--time", "0s"]);
    assert_failed(&out, 2, &["--time"], "probe --time");
    // A port nobody listens on (bound, then released).
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let peer = format!("127.0.0.1:{port}");
    let t = std::time::Instant::now();
    let out = dropless(&[
        "probe",
        &peer,
        "--time",
        "5s",
        "--timeout",
        "1",
        "--insecure",
    ]);
    assert_failed(&out, 1, &["probe", "no progress"], "probe of a closed port");
    // Encrypted (the default), the handshake is what goes unanswered.
    let key = std::env::temp_dir().join(format!("dropless-probe-key-{}", std::process::id()));
    let _ = std::fs::remove_file(&key);
    assert!(dropless(&["keygen", key.to_str().unwrap()])
        .status
        .success());
    let out = dropless(&[
        "probe",
        &peer,
        "--time",
        "5s",
        "--timeout",
        "1",
        "--key",
        key.to_str().unwrap(),
    ]);
    assert_failed(
        &out,
        1,
        &["probe", "handshake", "same key"],
        "encrypted probe of a closed port",
    );
    std::fs::remove_file(&key).unwrap();
    assert!(t.elapsed() < std::time::Duration::from_secs(30));
}

/// Issue 21's bad inputs: names that leave no output directory, labels too
/// long for a table or carrying terminal escapes, a "file" that never ends,
/// a window parameter no run can hold, timeouts no clock can count. Each
/// gets a one-line error or a bounded outcome, never a panic.
#[test]
fn hostile_names_labels_sizes_and_timeouts() {
    let dir = Scratch::new("hostile");
    let quick = std::fs::read_to_string(root().join("scenarios/quickstart.toml")).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    // Names that would make out/ itself the output directory.
    for n in [".", "..", "..."] {
        let f = write(
            "n.toml",
            &quick.replace("name = \"quickstart\"", &format!("name = \"{n}\"")),
        );
        let out = dropless(&["run", &f, "--set", "duration=6s"]);
        assert_failed(&out, 2, &["name", "--out"], &format!("name {n:?}"));
    }
    // A 70,000-character label with an escape sequence: the table cuts and
    // escapes it.
    let label = format!("\\u001b[31m{}", "x".repeat(70_000));
    let f = write(
        "label.toml",
        &quick.replacen("[[flows]]", &format!("[[flows]]\nlabel = \"{label}\""), 1),
    );
    let o = dir.path().join("label-out");
    let out = dropless(&[
        "run",
        &f,
        "--set",
        "duration=6s",
        "--out",
        o.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        !stdout.contains('\u{1b}'),
        "a raw escape reached the terminal"
    );
    assert!(stdout.contains("\\u{1b}"), "{stdout}");
    assert!(
        stdout.lines().all(|l| l.chars().count() < 400),
        "a line too long"
    );
    // A file whose size the file system does not know.
    let out = dropless(&["check", "/dev/zero"]);
    assert_failed(&out, 2, &["/dev/zero", "1048576 bytes"], "check /dev/zero");
    // A window no run can hold finishes, bounded by the path.
    let f = write(
        "cwnd.toml",
        &quick.replacen(
            "cc = \"newreno\"",
            "cc = \"newreno\"\nparams = { initial_cwnd = 1e300 }",
            1,
        ),
    );
    let o = dir.path().join("cwnd-out");
    let t = std::time::Instant::now();
    let out = dropless(&[
        "run",
        &f,
        "--set",
        "duration=6s",
        "--out",
        o.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(t.elapsed() < std::time::Duration::from_secs(60));
    // At most a million packets in flight (the transport's own cap, 2^24,
    // let the sender keep 16.8 million).
    let flows = std::fs::read_to_string(o.join("flows.csv")).unwrap();
    let col = flows
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "in_flight_pkts")
        .unwrap();
    let most = flows
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(col)?.parse::<f64>().ok())
        .fold(0.0, f64::max);
    assert!(most > 0.0 && most <= 1e6, "{most} packets in flight");
    // Timeouts beyond what a Duration holds.
    for args in [
        vec![
            "send",
            "127.0.0.1:9",
            "--time",
            "1s",
            "--timeout",
            "1e30",
            "--insecure",
        ],
        vec![
            "recv",
            "127.0.0.1:0",
            "--discard",
            "--keep",
            "--timeout",
            "1e30",
            "--insecure",
        ],
    ] {
        let out = dropless(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let e = text(&out.stderr);
        assert!(e.contains("--timeout") && !e.contains("panicked"), "{e}");
    }
}
