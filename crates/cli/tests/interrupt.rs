//! Ctrl-C on the command line (issue 37): SIGINT during a long `dropless
//! run` or `dropless sweep` ends it within 2 s with exit code 130, a
//! one-line message, and nothing written (no output directory, no
//! temporary sibling). The waits are for the process, bounded, and long
//! beside the 0.1-s chunks a run is stopped between, so load does not
//! decide the outcome.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_dropless");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!(
        "dropless-interrupt-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// Starts `dropless ARGS`, waits until it has run `after`, sends SIGINT,
/// and returns (exit code, stderr, seconds from the signal to the exit).
fn interrupt(args: &[&str], after: Duration) -> (Option<i32>, String, f64) {
    let mut child: Child = Command::new(BIN)
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dropless");
    std::thread::sleep(after);
    assert!(
        child.try_wait().unwrap().is_none(),
        "dropless {args:?} ended before the signal: make the run longer"
    );
    // SAFETY: kill(2) on our own child's pid.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0);
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("dropless {args:?} still running 30 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = t0.elapsed().as_secs_f64();
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err, took)
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn sigint_stops_a_long_run_within_two_seconds_and_writes_nothing() {
    let d = scratch("run");
    let out = d.join("out");
    let (code, err, took) = interrupt(
        &[
            "run",
            "scenarios/loss-based.toml",
            "--set",
            "duration=3600s",
            "--out",
            out.to_str().unwrap(),
            "--no-progress",
        ],
        Duration::from_millis(1500),
    );
    assert_eq!(code, Some(130), "{err}");
    assert!(took < 2.0, "exited {took:.2} s after SIGINT");
    assert!(
        err.starts_with("interrupted: the run of scenarios/loss-based.toml stopped at "),
        "{err}"
    );
    assert!(
        err.contains("nothing was written") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    assert!(leftovers(&d).is_empty(), "{:?}", leftovers(&d));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sigint_stops_a_sweep_and_its_runs_in_flight() {
    let d = scratch("sweep");
    let scen = root().join("scenarios/loss-based.toml");
    std::fs::write(
        d.join("grid.toml"),
        format!(
            "scenario = {:?}\nrepeats = 4\n[set]\nduration = [\"3600s\"]\n",
            scen.display().to_string()
        ),
    )
    .unwrap();
    let out = d.join("out");
    let (code, err, took) = interrupt(
        &[
            "sweep",
            d.join("grid.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "2",
            "--quiet",
        ],
        Duration::from_millis(1500),
    );
    assert_eq!(code, Some(130), "{err}");
    assert!(took < 2.0, "exited {took:.2} s after SIGINT");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(
        last.starts_with("interrupted: sweep ") && last.ends_with("nothing was written"),
        "{err}"
    );
    let mut left = leftovers(&d);
    left.sort();
    assert_eq!(left, vec!["grid.toml".to_string()]);
    let _ = std::fs::remove_dir_all(&d);
}
