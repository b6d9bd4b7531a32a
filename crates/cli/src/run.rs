//! `dropless run` and `dropless check`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use dropless_cc::secs;
use dropless_scenario::Scenario;
use dropless_sim::{SimResult, Simulation};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::interrupt::{cancelled, Interrupted};
use crate::{output, table, CheckArgs, Failure, RunArgs, QUICKSTART, QUICKSTART_LABEL};

/// Loads the scenario named on the command line, or the built-in quick start.
pub fn load(path: Option<&Path>, sets: &[String]) -> Result<Scenario, Failure> {
    if let Some(p) = path.filter(|p| dropless_verify::spec::is_model_only(p)) {
        return Err(Failure::Input(format!(
            "{}: a model-only experiment (verify.model = true) simulates nothing; `dropless verify {}` evaluates it",
            p.display(),
            p.display()
        )));
    }
    let s = match path {
        Some(p) => dropless_scenario::load(p, sets),
        None => dropless_scenario::from_str(QUICKSTART, QUICKSTART_LABEL, sets),
    };
    s.map_err(|e| Failure::Input(e.to_string()))
}

/// `dropless check`.
pub fn check(a: &CheckArgs) -> Result<(), Failure> {
    if let Some(p) = a
        .scenario
        .as_deref()
        .filter(|p| dropless_verify::spec::is_model_only(p))
    {
        let spec = dropless_verify::spec::load(p, dropless_verify::spec::Scale::Full)
            .map_err(Failure::Input)?
            .expect("a model-only file is an experiment");
        println!(
            "ok: {}: model-only experiment \"{}\", {} expectations, nothing to simulate (dropless verify runs it)",
            p.display(),
            spec.title,
            spec.expects.len()
        );
        return Ok(());
    }
    let s = load(a.scenario.as_deref(), &a.set)?;
    let sim = s.simulation().map_err(|e| Failure::Input(e.to_string()))?;
    drop(sim);
    let links: Vec<String> = s
        .config
        .topology
        .links()
        .iter()
        .map(|l| match l.channels {
            1 => dropless_scenario::units::fmt_rate(l.rate_bps),
            k => format!("{k} x {}", dropless_scenario::units::fmt_rate(l.rate_bps)),
        })
        .collect();
    println!(
        "ok: {}: \"{}\", {} flows in {} entries, {} cross-traffic sources, links {}, {} simulated",
        s.file,
        s.name,
        s.config.flows.len(),
        s.entries(),
        s.config.cross.len(),
        links.join(" / "),
        dropless_scenario::units::fmt_time(s.config.duration),
    );
    Ok(())
}

/// The output directory: `--out`, or `out/NAME` with the scenario's name
/// made safe (characters other than letters, digits, `-`, `_` and `.`
/// become `_`; leading dots go). A name left empty (`"."`, `".."`,
/// `"..."`) is refused: `out/` itself would be the output directory, and a
/// second run with --force would replace every other result in it.
fn out_dir(a: &RunArgs, s: &Scenario) -> Result<PathBuf, Failure> {
    if let Some(o) = &a.out {
        return Ok(o.clone());
    }
    let safe: String = s
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() {
        return Err(Failure::Input(format!(
            "name: found {:?}, which leaves no directory name under out/; expected a name with a letter or digit, or give --out",
            crate::table::printable(&s.name, 40)
        )));
    }
    Ok(Path::new("out").join(safe))
}

/// The directory an output directory is built in before it is renamed into
/// place: a hidden sibling.
pub(crate) fn temp_sibling(dir: &Path, what: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    dir.with_file_name(format!(".{name}.{what}-{}-{nanos}", std::process::id()))
}

pub(crate) fn cannot_write(dir: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Run(format!(
        "cannot write output directory \"{}\": {e}",
        dir.display()
    ))
}

/// Checks before the run that `dir` can be created (or replaced).
pub(crate) fn preflight(dir: &Path, force: bool) -> Result<(), Failure> {
    if dir.as_os_str().is_empty() || dir.file_name().is_none() {
        return Err(Failure::Input(format!(
            "output directory \"{}\": expected a directory path like out/run1",
            dir.display()
        )));
    }
    match std::fs::symlink_metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(Failure::Input(format!(
                "output directory \"{}\" exists and is not a directory; choose another --out",
                dir.display()
            )))
        }
        Ok(_) if !force => {
            return Err(Failure::Input(format!(
                "output directory \"{}\" already exists; use --force to replace it or --out to choose another",
                dir.display()
            )))
        }
        Ok(_) => {
            let empty = std::fs::read_dir(dir)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false);
            if !empty && !dir.join("summary.json").is_file() {
                return Err(Failure::Input(format!(
                    "output directory \"{}\" exists and holds no summary.json, so it is not an earlier dropless output; refusing to replace it, even with --force",
                    dir.display()
                )));
            }
        }
        Err(_) => {}
    }
    writable(dir)
}

/// Whether an output can be built beside `dir` (where it is written before
/// being renamed into place): checked before any simulation, so that an
/// unwritable output is not found only after the runs.
pub(crate) fn writable(dir: &Path) -> Result<(), Failure> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| cannot_write(dir, e))?;
    }
    let probe = temp_sibling(dir, "probe");
    std::fs::create_dir(&probe).map_err(|e| cannot_write(dir, e))?;
    let w = std::fs::write(probe.join("probe"), b"ok");
    let _ = std::fs::remove_dir_all(&probe);
    w.map_err(|e| cannot_write(dir, e))
}

/// Runs the simulation with a progress bar on a terminal for long runs,
/// stopping early (with where it stopped) when `stop` asks
/// ([`crate::interrupt`]).
pub(crate) fn simulate(
    sim: Simulation,
    duration: u64,
    progress: bool,
    stop: &dyn Fn() -> bool,
) -> Result<(SimResult, f64), Interrupted> {
    const STEPS: u64 = 1000;
    let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:20}] {percent:>3}% {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let mut shown = false;
    let r = crate::interrupt::simulate(sim, duration, stop, &mut |sim, t, w| {
        if !progress {
            return;
        }
        if !shown && w > 0.8 {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
        if shown {
            bar.set_position((t as u128 * STEPS as u128 / duration.max(1) as u128) as u64);
            bar.set_message(format!(
                "{:.1}/{:.1} s simulated, {:.1}x real time, {:.2} M pkt/s",
                secs(t),
                secs(duration),
                secs(t) / w,
                sim.data_packets() as f64 / w / 1e6
            ));
        }
    });
    bar.finish_and_clear();
    r
}

/// Memory a simulated flow takes, bytes: 10.8 kB measured with 50,000
/// NewReno flows (550 MB peak), rounded up.
const BYTES_PER_FLOW: u64 = 12_000;

/// Refuses, before building anything, a run whose flows need more memory
/// than the machine has available (`MemAvailable` of /proc/meminfo; no
/// check where it cannot be read): the scenario format allows a million
/// flows, about 12 GB.
pub(crate) fn memory_check(s: &Scenario) -> Result<(), Failure> {
    let need = s.flows.len() as u64 * BYTES_PER_FLOW + (64 << 20);
    let Some(avail) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    }) else {
        return Ok(());
    };
    if need > avail {
        return Err(Failure::Input(format!(
            "{}: {} flows need about {:.1} GB ({} kB each) but {:.1} GB of memory are available; run fewer flows",
            s.file,
            s.flows.len(),
            need as f64 / 1e9,
            BYTES_PER_FLOW / 1000,
            avail as f64 / 1e9
        )));
    }
    Ok(())
}

/// `dropless run`.
pub fn run(a: &RunArgs) -> Result<(), Failure> {
    let s = load(a.scenario.as_deref(), &a.set)?;
    memory_check(&s)?;
    let sim = s.simulation().map_err(|e| Failure::Input(e.to_string()))?;
    let dir = out_dir(a, &s)?;
    // The default out/NAME belongs to dropless: an earlier run's output there
    // is replaced without --force. An explicit --out DIR needs --force.
    preflight(&dir, a.force || a.out.is_none())?;

    let progress = !a.no_progress && std::io::stderr().is_terminal();
    crate::interrupt::install_signal_handlers();
    let (result, wall) = simulate(sim, s.config.duration, progress, &cancelled)
        .map_err(|i| Failure::Interrupted(i.message(&format!("the run of {}", s.file))))?;

    let tmp = temp_sibling(&dir, "tmp");
    std::fs::create_dir(&tmp).map_err(|e| cannot_write(&dir, e))?;
    let written = output::write_all(&tmp, &s, &result, wall, a);
    let files = match written {
        Ok(f) => f,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(cannot_write(&dir, e));
        }
    };
    if let Err(e) = replace_dir(&tmp, &dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(cannot_write(&dir, e));
    }
    let mut files = files;
    if a.html {
        crate::report::build(&dir)?;
        files.push("report.html".into());
    }
    if !a.quiet {
        table::print(&s, &result, wall);
    }
    println!("wrote {}/ ({})", dir.display(), files.join(", "));
    Ok(())
}

/// Moves `tmp` to `dir`, replacing an existing `dir`.
pub(crate) fn replace_dir(tmp: &Path, dir: &Path) -> std::io::Result<()> {
    if dir.exists() {
        let old = temp_sibling(dir, "old");
        std::fs::rename(dir, &old)?;
        if let Err(e) = std::fs::rename(tmp, dir) {
            let _ = std::fs::rename(&old, dir);
            return Err(e);
        }
        std::fs::remove_dir_all(&old)
    } else {
        std::fs::rename(tmp, dir)
    }
}
