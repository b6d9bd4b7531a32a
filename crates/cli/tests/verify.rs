//! `dropless verify`: a user's own experiment folder. A wrong expectation
//! fails with a message naming the file, the expectation and the measured
//! value; a malformed one is refused before anything runs; a declared known
//! miss passes, and fails once it holds; reports are computed from the runs
//! and identical run to run; grids and ensembles are judged per point.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_dropless");

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "dropless-verify-test-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn verify(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("verify")
        .args(args)
        .output()
        .expect("run dropless")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// One FAST flow alone on a 20 Mb/s link: its queue settles at alpha.
fn scenario(rate: &str) -> String {
    format!(
        r#"
name = "user-fast"
duration = "10s"
seed = 3

[topology]
kind = "dumbbell"

[topology.bottleneck]
rate = "{rate}"
delay = "1ms"
buffer = "100000pkt"

[[flows]]
cc = "fast"
rtt = "40ms"
params = {{ alpha = 50, mi_threshold = 0 }}
"#
    )
}

const EXPECT: &str = r#"
[verify]
title = "FAST queue"
setup = "one FAST flow at {capacity(0) / 1e6} Mb/s"

[measures]
q = "queue(0, 5, duration)"
x = "goodput(0, 5, duration)"

[[expect]]
what = "queue"
value = "q"
expected = "param(0, 'alpha')"
tol = "5%"
source = "thesis eq. (4.4)"
tol_source = "test"

[[expect]]
what = "goodput over capacity"
value = "x / capacity(0)"
min = 0.8
source = "a FAST flow alone fills the link"
"#;

#[test]
fn a_wrong_expectation_names_file_expectation_and_measured_value() {
    let d = Scratch::new("wrong");
    let f = d.write(
        "mine.toml",
        &(scenario("20Mbps")
            + &EXPECT.replace("expected = \"param(0, 'alpha')\"", "expected = 10")),
    );
    let out = verify(&[d.path().to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    let line = o
        .lines()
        .find(|l| l.contains("FAIL:"))
        .unwrap_or_else(|| panic!("no failure line in {o}"));
    assert!(line.contains(&f.display().to_string()), "{line}");
    assert!(
        line.contains("expect[0]") && line.contains("queue"),
        "{line}"
    );
    assert!(line.contains("expected 10 ±5%"), "{line}");
    // The measured value is the queue the flow holds, about alpha = 50.
    let measured: f64 = line
        .split("measured ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no measured value in {line}"));
    assert!((measured - 50.0).abs() < 5.0, "{line}");
}

#[test]
fn the_right_expectation_passes_and_the_report_quotes_the_run() {
    let d = Scratch::new("right");
    d.write("mine.toml", &(scenario("20Mbps") + EXPECT));
    let rep = d.path().join("report.md");
    let out = verify(&[
        d.path().join("mine.toml").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let r1 = std::fs::read_to_string(&rep).unwrap();
    assert!(r1.contains("one FAST flow at 20 Mb/s"), "{r1}");
    assert!(r1.contains("**pass**"), "{r1}");
    // Deterministic: the same report again, bit for bit.
    let out = verify(&[
        d.path().join("mine.toml").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&rep).unwrap(), r1);
    // Changing the scenario changes the numbers of its row.
    d.write("mine.toml", &(scenario("40Mbps") + EXPECT));
    let out = verify(&[
        d.path().join("mine.toml").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let r2 = std::fs::read_to_string(&rep).unwrap();
    assert!(r2.contains("one FAST flow at 40 Mb/s"), "{r2}");
    assert_ne!(r1, r2);
    assert!(!d.path().join(".report.md.part").exists());
}

#[test]
fn malformed_expectations_are_refused_before_anything_runs() {
    let cases = [
        ("value = \"q\"", "value = \"q +\"", "expect[0].value"),
        ("value = \"q\"", "value = \"qq\"", "unknown name \"qq\""),
        ("tol = \"5%\"", "tol = \"five\"", "expect[0].tol"),
        ("tol_source = \"test\"\n", "", "expect[0].tol_source"),
        ("source = \"thesis eq. (4.4)\"\n", "", "expect[0].source"),
        ("min = 0.8", "min = 0.8\nexpected = 1", "expect[1].expected"),
        (
            "x = \"goodput(0, 5, duration)\"",
            "x = \"nosuch(0)\"",
            "unknown function \"nosuch\"",
        ),
        (
            "what = \"queue\"",
            "what = \"queue\"\nwhen_ = 1",
            "unknown key \"when_\"",
        ),
        (
            "q = \"queue(0, 5, duration)\"",
            "q = \"z + 1\"\nz = \"q\"",
            "in a cycle",
        ),
    ];
    for (from, to, needle) in cases {
        let d = Scratch::new("bad");
        // A second, long experiment beside the bad one: nothing may run.
        d.write(
            "a-long.toml",
            &(scenario("20Mbps").replace("\"10s\"", "\"100000s\"") + EXPECT),
        );
        d.write(
            "b-bad.toml",
            &(scenario("20Mbps") + &EXPECT.replacen(from, to, 1)),
        );
        let t0 = std::time::Instant::now();
        let out = verify(&[d.path().to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{needle}: {err}");
        assert!(
            err.contains("b-bad.toml") && err.contains(needle),
            "{needle}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(!err.contains("/2]"), "no run started: {err}");
        assert!(t0.elapsed().as_secs() < 30, "refused at once");
    }
}

#[test]
fn a_known_miss_passes_until_it_holds() {
    let d = Scratch::new("known");
    let miss = EXPECT.replace(
        "expected = \"param(0, 'alpha')\"",
        "expected = 10\nknown_miss = \"the queue is {q} packets, not 10\"",
    );
    d.write("mine.toml", &(scenario("20Mbps") + &miss));
    // Without a record of what it measures, a known miss is an error.
    let out = verify(&[d.path().join("mine.toml").to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("known miss without record_full"),
        "{}",
        text(&out.stdout)
    );
    let out = verify(&[
        d.path().join("mine.toml").to_str().unwrap(),
        "-q",
        "--update-records",
        "--record-commit",
        "abc123",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = d.path().join("r.md");
    let out = verify(&[
        d.path().join("mine.toml").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("known miss"));
    let r = std::fs::read_to_string(&rep).unwrap();
    // The reason quotes the measured queue, computed.
    let line = r
        .lines()
        .find(|l| l.contains("the queue is"))
        .expect("reason in the report");
    assert!(!line.contains("{q}") && !line.contains("error"), "{line}");
    // Declared a miss, but it holds: that is unexpected.
    let holds = EXPECT.replace(
        "expected = \"param(0, 'alpha')\"",
        "expected = \"param(0, 'alpha')\"\nknown_miss = \"said not to hold\"",
    );
    d.write("mine.toml", &(scenario("20Mbps") + &holds));
    let out = verify(&[d.path().join("mine.toml").to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("UNEXPECTED PASS"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn grids_aggregates_and_ensembles() {
    let d = Scratch::new("grid");
    let grid = r#"
[verify]
title = "queue grows with alpha"

[measures]
q = "queue(0, 5, duration)"

[aggregates]
qs = "points('q')"

[[grid]]
name = "alpha"
values = [20, 50]
set = "flows[0].params.alpha"

[ensemble]
seeds = 3
set = { "flows[*].send_jitter" = "0.6ms" }

[[expect]]
what = "queue at alpha {alpha}"
value = "q"
expected = "alpha"
tol = "10%"
source = "thesis eq. (4.4)"
tol_source = "test"

[[expect]]
what = "queue grows with alpha"
value = "increasing(qs) and at('q', alpha = 50) > at('q', alpha = 20)"
over = "grid"
source = "thesis eq. (4.4)"
"#;
    d.write("g.toml", &(scenario("20Mbps") + grid));
    let rep = d.path().join("r.md");
    let out = verify(&[
        d.path().join("g.toml").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "-q",
        "-j",
        "2",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let r = std::fs::read_to_string(&rep).unwrap();
    assert!(r.contains("queue at alpha 20 [alpha=20]"), "{r}");
    assert!(r.contains("queue at alpha 50 [alpha=50]"), "{r}");
    // 2 points x (1 + 3 seeds) runs.
    assert!(r.contains("(8 runs)"), "{r}");
    // Every expectation has an ensemble row with 3 members.
    let rows: Vec<&str> = r.lines().filter(|l| l.contains("/3 |")).collect();
    assert_eq!(rows.len(), 3, "{r}");
    // The same with one thread: identical (results do not depend on --jobs).
    let rep1 = d.path().join("r1.md");
    let out = verify(&[
        d.path().join("g.toml").to_str().unwrap(),
        "--report",
        rep1.to_str().unwrap(),
        "-q",
        "-j",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&rep1).unwrap(), r);
}

#[test]
fn a_folder_without_experiments_or_a_bad_report_path_is_bad_input() {
    let d = Scratch::new("empty");
    let out = verify(&[d.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no .toml experiment files"));
    d.write("plain.toml", &scenario("20Mbps"));
    let out = verify(&[d.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a self-checking experiment"),
        "{}",
        text(&out.stderr)
    );
    d.write("plain.toml", &(scenario("20Mbps") + EXPECT));
    let out = verify(&[
        d.path().to_str().unwrap(),
        "--report",
        "/nonexistent-dir/r.md",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--report"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn plots_are_drawn_beside_the_report_and_bad_ones_refused() {
    let d = Scratch::new("plot");
    let plot = r#"
[[plot]]
title = "goodput"
file = "user-goodput"
y_label = "Mb/s"
lines = [["FAST", "[[p[0], p[1] / 1e6] for p in xy(0, 'goodput', 1, 0, duration)]"]]
"#;
    d.write("mine.toml", &(scenario("20Mbps") + EXPECT + plot));
    let rep = d.path().join("r.md");
    let out = verify(&[
        d.path().join("mine.toml").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let png = d.path().join("img/user-goodput.png");
    let bytes = std::fs::read(&png).expect("plot written");
    assert_eq!(&bytes[1..4], b"PNG");
    assert!(std::fs::read_to_string(&rep)
        .unwrap()
        .contains("](img/user-goodput.png)"));
    assert!(!d.path().join("img/.part-user-goodput.png").exists());
    // A file stem that could leave the directory is refused before any run.
    d.write(
        "mine.toml",
        &(scenario("20Mbps") + EXPECT + &plot.replace("user-goodput", "../x")),
    );
    let out = verify(&[d.path().join("mine.toml").to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("plot[0].file"),
        "{}",
        text(&out.stderr)
    );
}

/// A model-only experiment (`[verify] model = true`) evaluates functions of
/// values without a simulation; anything that needs one is refused before
/// anything runs, with one line naming the file and the field.
#[test]
fn model_only_experiments_run_no_simulation_and_refuse_what_needs_one() {
    let s = Scratch::new("model-only");
    let ok = s.write(
        "ok.toml",
        r#"
name = "m"
[verify]
model = true
title = "ADPM after 10 random probes"
[[grid]]
name = "k"
values = [10, 100]
[measures]
r = "marking_error('adpm-random', [k], 64, 50, 3)[0]"
[[expect]]
what = "mean error"
value = "r.mean"
expected = "1 / (k + 2)"
tol = "15%"
source = "thesis eq. (5.2)"
tol_source = "a small ensemble"
"#,
    );
    let out = verify(&[ok.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("1 of 1 experiments reproduce"));
    for (name, body, field) in [
        (
            "run-fn.toml",
            "[measures]\nq = \"queue(0, 0, 1)\"",
            "measures.q",
        ),
        (
            "run-name.toml",
            "[measures]\nq = \"duration * 2\"",
            "measures.q",
        ),
        ("scenario.toml", "duration = \"1s\"", "duration"),
        ("ensemble.toml", "[ensemble]\nseeds = 3", "ensemble"),
        (
            "grid-set.toml",
            "[[grid]]\nname = \"k\"\nvalues = [1]\nset = \"seed\"",
            "grid k.set",
        ),
        ("bad-model.toml", "", "verify.model"),
    ] {
        let model = if name == "bad-model.toml" {
            "\"yes\""
        } else {
            "true"
        };
        let f = s.write(
            name,
            &format!(
                "{body}\n[verify]\nmodel = {model}\ntitle = \"t\"\n[[expect]]\nwhat = \"w\"\nvalue = \"1 == 1\"\nsource = \"s\"\n"
            ),
        );
        let out = verify(&[f.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        let line = err.lines().find(|l| l.starts_with("error:")).unwrap_or("");
        assert!(line.contains(name) && line.contains(field), "{name}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
    }
    // A bad argument is found when the function runs: the expectation
    // fails, naming the value and what is allowed.
    let f = s.write(
        "bad-scheme.toml",
        "[verify]\nmodel = true\ntitle = \"t\"\n[[expect]]\nwhat = \"w\"\nvalue = \"len(marking_error('zz', [1], 1, 1, 1)) == 1\"\nsource = \"s\"\n",
    );
    let out = verify(&[f.to_str().unwrap()]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("unknown marking scheme \"zz\" (allowed: adpm-brc"),
        "{all}"
    );
}

/// The known-miss file of `a_known_miss_passes_until_it_holds`, recorded.
fn recorded_miss(d: &Scratch, alpha: u32) -> (PathBuf, String) {
    let miss = EXPECT.replace(
        "expected = \"param(0, 'alpha')\"",
        "expected = 10\nknown_miss = \"the queue is {q} packets, not 10\"",
    );
    let original = scenario("20Mbps").replace("alpha = 50", &format!("alpha = {alpha}")) + &miss;
    let f = d.write("miss.toml", &original);
    let out = verify(&[
        f.to_str().unwrap(),
        "-q",
        "--update-records",
        "--record-commit",
        "abc123",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    assert!(
        o.contains("expect[0].record_full: (none) -> { commit = \"abc123\", value = "),
        "the change is printed: {o}"
    );
    (f, original)
}

#[test]
fn a_known_miss_that_moves_from_its_record_fails_either_way() {
    let d = Scratch::new("moved");
    let (f, original) = recorded_miss(&d, 50);
    let recorded = std::fs::read_to_string(&f).unwrap();
    let line = recorded
        .lines()
        .find(|l| l.starts_with("record_full"))
        .expect("record written into the [[expect]]");
    // Only the record key was added: the rest of the file is as written.
    assert_eq!(recorded.replace(&format!("{line}\n"), ""), original);
    let value: f64 = line
        .split("value = ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("a value in {line}"));
    assert!(
        (value - 50.0).abs() < 5.0,
        "the queue settles at alpha: {line}"
    );
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    // The same file with alpha tripled (the scenario changed, the record
    // kept): the queue triples, further from the expected 10.
    let tripled = std::fs::read_to_string(&f)
        .unwrap()
        .replace("alpha = 50", "alpha = 150");
    std::fs::write(&f, tripled).unwrap();
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    let moved = o
        .lines()
        .find(|l| l.contains("expect[0] MOVED"))
        .unwrap_or_else(|| panic!("no MOVED line in {o}"));
    assert!(
        moved.contains(&f.display().to_string()) && moved.contains("expect[0]"),
        "{moved}"
    );
    assert!(moved.contains("got worse"), "{moved}");

    // The record shifted by 3x instead (the scenario as recorded): the
    // measurement is now closer to the paper than the record says.
    let shifted = std::fs::read_to_string(&f)
        .unwrap()
        .replace("alpha = 150", "alpha = 50")
        .replace(
            &format!(
                "value = {}",
                line.split("value = ")
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .next()
                    .unwrap()
                    .trim()
            ),
            &format!("value = {}", value * 3.0),
        );
    std::fs::write(&f, shifted).unwrap();
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("MOVED") && o.contains("came closer"), "{o}");
}

#[test]
fn checks_of_nothing_are_errors() {
    // A when that matches no run.
    let d = Scratch::new("vacuous");
    let when = EXPECT.replace(
        "what = \"queue\"",
        "what = \"queue\"\nwhen = \"duration > 1000\"",
    );
    let f = d.write("when.toml", &(scenario("20Mbps") + &when));
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    let line = o
        .lines()
        .find(|l| l.contains("expect[0] ERROR"))
        .unwrap_or_else(|| panic!("{o}"));
    assert!(
        line.contains("when.toml")
            && line.contains("expect[0]")
            && line.contains("when matches no run"),
        "{line}"
    );
    // A text that does not render.
    let tpl = EXPECT.replace(
        "setup = \"one FAST flow at {capacity(0) / 1e6} Mb/s\"",
        "setup = \"one FAST flow at {capacity(7) / 1e6} Mb/s\"",
    );
    let f = d.write("tpl.toml", &(scenario("20Mbps") + &tpl));
    let rep = d.path().join("r.md");
    let out = verify(&[f.to_str().unwrap(), "-q", "--report", rep.to_str().unwrap()]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(
        o.lines()
            .any(|l| l.contains("tpl.toml") && l.contains("verify.setup") && l.contains("ERROR")),
        "{o}"
    );
    let r = std::fs::read_to_string(&rep).unwrap();
    assert!(!r.contains("{error"), "no error rendered as text: {r}");
    // A condition over an empty set.
    let empty = EXPECT.replace(
        "value = \"x / capacity(0)\"\nmin = 0.8",
        "value = \"all([q > 0 for k in range(0, 0)])\"",
    );
    let f = d.write("empty.toml", &(scenario("20Mbps") + &empty));
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(
        o.contains("expect[1] ERROR") && o.contains("empty set"),
        "{o}"
    );
}

#[test]
fn bad_kinds_and_records_are_refused_naming_file_and_key() {
    let miss = "expected = 10\nknown_miss = \"not 10\"";
    let cases = [
        (
            "expected = 10\nkind = \"proof\"",
            "expect[0].kind",
            "\"identity\"",
        ),
        (
            "expected = 10\nkind = \"identity\"",
            "expect[0].kind_reason",
            "missing",
        ),
        (
            &*format!("{miss}\nrecord_full = {{ commit = \"a\", value = \"x\" }}"),
            "expect[0].record_full",
            "drift",
        ),
        (
            &*format!("{miss}\nrecord_full = 3"),
            "expect[0].record_full",
            "expected {",
        ),
        (
            &*format!("{miss}\nrecord_ci = {{ commit = \"a\", min = 5, max = 2 }}"),
            "expect[0].record_ci",
            "min 5 is above max 2",
        ),
        (
            "expected = 10\nrecord_full = { commit = \"a\", value = 50, drift = \"1%\" }",
            "expect[0].record_full",
            "without known_miss",
        ),
        (
            &*format!("{miss}\nrecord_ci = {{ unrecorded = \"slow\" }}"),
            "expect[0].record_ci",
            "CI scale",
        ),
    ];
    for (to, key, needle) in cases {
        let d = Scratch::new("badrec");
        d.write(
            "b-bad.toml",
            &(scenario("20Mbps") + &EXPECT.replacen("expected = \"param(0, 'alpha')\"", to, 1)),
        );
        let out = verify(&[d.path().to_str().unwrap(), "-q"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{key}: {err}");
        assert!(
            err.contains("b-bad.toml") && err.contains(key) && err.contains(needle),
            "{key} {needle}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn identity_checks_are_reported_apart_and_not_counted() {
    let d = Scratch::new("identity");
    let ident = EXPECT.replace(
        "source = \"a FAST flow alone fills the link\"",
        "source = \"a FAST flow alone fills the link\"\n\n[[expect]]\nwhat = \"twice two\"\nvalue = \"2 * 2\"\nexpected = 4\nsource = \"arithmetic\"\nkind = \"identity\"\nkind_reason = \"restates a definition\"",
    );
    let f = d.write("ident.toml", &(scenario("20Mbps") + &ident));
    let rep = d.path().join("r.md");
    let out = verify(&[f.to_str().unwrap(), "-q", "--report", rep.to_str().unwrap()]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{o}");
    assert!(
        o.contains("1 of 1 experiments reproduce (1 identity check not counted)"),
        "{o}"
    );
    let r = std::fs::read_to_string(&rep).unwrap();
    assert!(
        r.contains("## Identity checks") && r.contains("restates a definition"),
        "{r}"
    );
    // An experiment of identity checks alone is not a reproduction.
    let only = "[verify]\nmodel = true\ntitle = \"t\"\n\n[[expect]]\nwhat = \"twice two\"\nvalue = \"2 * 2\"\nexpected = 4\nsource = \"arithmetic\"\nkind = \"identity\"\nkind_reason = \"restates a definition\"\n";
    let g = d.write("only.toml", only);
    let out = verify(&[f.to_str().unwrap(), g.to_str().unwrap(), "-q"]);
    let o = text(&out.stdout);
    assert!(
        o.contains("1 of 1 experiments reproduce (2 identity checks not counted; 1 experiment of identity checks only)"),
        "{o}"
    );
}

/// A file whose one expectation reads `member` (0 in the deterministic
/// run, k in ensemble seed k of 3): `judge` is its bounds and extra keys.
fn member_file(judge: &str) -> String {
    scenario("20Mbps").replace("duration = \"10s\"", "duration = \"1s\"")
        + &format!(
            r#"
[verify]
title = "ensemble-judged"

[ensemble]
seeds = 3
set = {{ "flows[*].send_jitter" = "0.6ms" }}

[[expect]]
what = "the member"
value = "member"
source = "test"
{judge}
"#
        )
}

#[test]
fn an_ensemble_judged_expectation_takes_the_ensembles_verdict() {
    let d = Scratch::new("share");
    // (bounds and share, exit code): members 1-3 give shares the
    // deterministic run (member 0) does not decide.
    let cases = [
        // The deterministic run misses (0 < 1), every seed meets it.
        ("min = 1\nensemble_share = 0.9", 0, "3 of 3 seeds (1)"),
        // The deterministic run meets it (0 <= 0), no seed does.
        ("max = 0\nensemble_share = 0.5", 1, "0 of 3 seeds (0)"),
        // Seeds 2 and 3 meet it: a share of 2/3 against 0.6 and 0.7.
        ("min = 2\nensemble_share = 0.6", 0, "2 of 3 seeds (0.6667)"),
        ("min = 2\nensemble_share = 0.7", 1, "2 of 3 seeds (0.6667)"),
        // Without ensemble_share the deterministic run decides.
        ("min = 1", 1, "measured 0"),
        ("max = 0", 0, ""),
    ];
    for (judge, code, needle) in cases {
        let f = d.write("m.toml", &member_file(judge));
        let rep = d.path().join("r.md");
        let out = verify(&[f.to_str().unwrap(), "--report", rep.to_str().unwrap()]);
        let o = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{judge}: {o}{}",
            text(&out.stderr)
        );
        let r = std::fs::read_to_string(&rep).unwrap();
        assert!(r.contains(needle), "{judge}: {needle} in {r}");
        if judge.contains("ensemble_share") {
            // The deterministic run is reported beside the verdict.
            assert!(r.contains("deterministic run 0"), "{judge}: {r}");
            assert!(r.contains("the member (*judged*)"), "{judge}: {r}");
        }
    }
}

#[test]
fn an_ensemble_judged_known_miss_records_its_share() {
    let d = Scratch::new("sharemiss");
    let f = d.write(
        "m.toml",
        &member_file("min = 2\nensemble_share = 0.7\nknown_miss = \"two seeds of three\""),
    );
    let out = verify(&[
        f.to_str().unwrap(),
        "-q",
        "--scale",
        "ci",
        "--update-records",
        "--record-commit",
        "abc123",
    ]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{o}{}", text(&out.stderr));
    assert!(
        o.contains("expect[0].record_ci: (none) -> { commit = \"abc123\", value = 0.666667"),
        "the share is recorded: {o}"
    );
    let out = verify(&[f.to_str().unwrap(), "-q", "--scale", "ci"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A lower bar: the share now meets it, an unexpected pass.
    let low = std::fs::read_to_string(&f)
        .unwrap()
        .replace("ensemble_share = 0.7", "ensemble_share = 0.6");
    std::fs::write(&f, low).unwrap();
    let out = verify(&[f.to_str().unwrap(), "-q", "--scale", "ci"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("UNEXPECTED PASS"), "{o}");
    // One seed fewer meets it (min 3): the recorded share is left.
    let worse = std::fs::read_to_string(&f)
        .unwrap()
        .replace("ensemble_share = 0.6", "ensemble_share = 0.7")
        .replace("min = 2", "min = 3");
    std::fs::write(&f, worse).unwrap();
    let out = verify(&[f.to_str().unwrap(), "-q", "--scale", "ci"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("MOVED") && o.contains("got worse"), "{o}");
}

#[test]
fn bad_ensemble_shares_are_refused_naming_file_and_key() {
    let cases = [
        (
            member_file("min = 1\nensemble_share = 1.5"),
            "1.5: expected a number from 0 to 1",
        ),
        (
            member_file("min = 1\nensemble_share = -0.1"),
            "expected a number from 0 to 1",
        ),
        (
            member_file("min = 1\nensemble_share = \"most\""),
            "found string",
        ),
        (
            member_file("min = 1\nensemble_share = 0.9").replace(
                "[ensemble]\nseeds = 3\nset = { \"flows[*].send_jitter\" = \"0.6ms\" }\n",
                "",
            ),
            "no [ensemble]",
        ),
        (
            member_file("min = 1\nensemble_share = 0.9").replace(
                "title = \"ensemble-judged\"",
                "title = \"e\"\nci = { seeds = 0 }",
            ),
            "at ci scale",
        ),
    ];
    for (file, needle) in cases {
        let d = Scratch::new("badshare");
        d.write("s-bad.toml", &file);
        let out = verify(&[d.path().to_str().unwrap(), "-q", "--scale", "ci"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{needle}: {err}");
        assert!(
            err.contains("s-bad.toml")
                && err.contains("expect[0].ensemble_share")
                && err.contains(needle),
            "{needle}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
}

/// A `[[variant]]` runs the file again with its settings; its checks are
/// reported beside the file's own, and its misses do not fail the command.
/// With `when`, only the grid points it names change; the others run as in
/// the file (the same measured values).
#[test]
fn a_variant_is_reported_beside_the_file_and_not_judged() {
    let d = Scratch::new("variant");
    let base = EXPECT.replace("expected = \"param(0, 'alpha')\"", "expected = 50");
    let grid = r#"
[[grid]]
name = "rate"
values = ["20Mbps", "10Mbps"]
set = "topology.bottleneck.rate"

[[variant]]
name = "alpha 20"
set = { "flows[0].params.alpha" = 20 }
when = "rate == '10Mbps'"
"#;
    let f = d.write("v.toml", &(scenario("20Mbps") + &base + grid));
    let rep = d.path().join("r.md");
    let out = verify(&[f.to_str().unwrap(), "-q", "--report", rep.to_str().unwrap()]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{o}{}", text(&out.stderr));
    let line = o
        .lines()
        .find(|l| l.contains("variant alpha 20"))
        .unwrap_or_else(|| panic!("no variant line in {o}"));
    // Four checks (two expectations at two points); the queue misses 50
    // where alpha is 20.
    assert!(
        line.contains("3/4") && line.contains("not judged"),
        "{line}"
    );
    assert!(o.contains("1 of 1 experiments reproduce"), "{o}");
    let r = std::fs::read_to_string(&rep).unwrap();
    assert!(r.contains("**Variant \"alpha 20\"**"), "{r}");
    let row = |point: &str| -> Vec<String> {
        r.lines()
            .find(|l| {
                l.starts_with(&format!("| queue [rate={point}]")) && l.matches('|').count() == 7
            })
            .unwrap_or_else(|| panic!("no variant row at {point} in {r}"))
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    // | check | expected | measured | verdict | measured with | with | (cells 1-6)
    let same = row("20Mbps");
    assert_eq!(
        same[3], same[5],
        "the point the variant skips runs as the file: {same:?}"
    );
    assert_eq!(
        (same[4].as_str(), same[6].as_str()),
        ("pass", "holds"),
        "{same:?}"
    );
    let changed = row("10Mbps");
    let q: f64 = changed[5]
        .split_whitespace()
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{changed:?}"));
    assert!(
        (q - 20.0).abs() < 3.0,
        "alpha 20 holds about 20 packets: {changed:?}"
    );
    assert_eq!(
        (changed[4].as_str(), changed[6].as_str()),
        ("pass", "misses"),
        "{changed:?}"
    );
}

#[test]
fn bad_variants_are_refused_naming_file_and_key() {
    let d = Scratch::new("badvariant");
    let cases = [
        ("[[variant]]\nname = \"x\"\n", "variant[0].set: missing"),
        ("[[variant]]\nset = { duration = \"5s\" }\n", "variant[0].name: missing"),
        (
            "[[variant]]\nname = \"x\"\nset = { duration = \"5s\" }\nfoo = 1\n",
            "variant[0].foo: unknown key",
        ),
        (
            "[[variant]]\nname = \"x\"\nset = { duration = \"5s\" }\n[[variant]]\nname = \"x\"\nset = { duration = \"6s\" }\n",
            "variant[1].name: variant \"x\" is named twice",
        ),
        (
            "[[variant]]\nname = \"x\"\nset = { duration = \"5s\" }\nwhen = \"nosuch == 1\"\n",
            "variant[0].when",
        ),
        (
            "[[variant]]\nname = \"x\"\nset = { duration = \"5s\" }\nwhen = \"1 == 2\"\n",
            "variant[0].when: matches no grid point",
        ),
        (
            "[[variant]]\nname = \"x\"\nset = { \"flows[0].params.nosuch\" = 1 }\n",
            "variant[0] \"x\"",
        ),
    ];
    for (i, (v, want)) in cases.iter().enumerate() {
        let f = d.write(&format!("b{i}.toml"), &(scenario("20Mbps") + EXPECT + v));
        let out = verify(&[f.to_str().unwrap(), "-q"]);
        let e = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{v}: {e}{}", text(&out.stdout));
        assert!(
            e.contains(&format!("b{i}.toml")) && e.contains(want) && e.lines().count() == 1,
            "{v}: wanted {want:?} in one line: {e}"
        );
    }
}

/// A variant's misses are not judged, but a check that cannot be evaluated
/// in it is an error: the command fails (exit 1) naming the file, the
/// variant and the expectation.
#[test]
fn an_error_in_a_variant_fails_the_command() {
    let d = Scratch::new("varianterr");
    let e = EXPECT.replace(
        "value = \"x / capacity(0)\"\nmin = 0.8",
        "value = \"[1, 2, 3, 4, 5, 6][floor(param(0, 'alpha') / 10)]\"\nmin = 0",
    );
    let v = "[[variant]]\nname = \"big alpha\"\nset = { \"flows[0].params.alpha\" = 100 }\n";
    let f = d.write("e.toml", &(scenario("20Mbps") + &e + v));
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{o}{}", text(&out.stderr));
    assert!(
        o.lines()
            .any(|l| l.contains("e.toml (variant big alpha): expect[1] ERROR")),
        "{o}"
    );
    // Without the variant the same file passes.
    let f = d.write("ok.toml", &(scenario("20Mbps") + &e));
    let out = verify(&[f.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
