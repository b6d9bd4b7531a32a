//! `dropless verify PATH...`: runs self-checking experiment files and
//! judges their expectations (the `dropless-verify` crate;
//! `docs/verify.md`).

use std::path::{Path, PathBuf};

use dropless_verify::{report, Scale};

use crate::Failure;

/// Help shown after `dropless verify --help`.
pub const VERIFY_HELP: &str = "\
Each PATH is an experiment file or a directory searched for them (*.toml). An
experiment file is a scenario plus [verify] and [[expect]] tables saying what
the paper expects, from where, and within what tolerance (docs/verify.md).
Every file is read and every run built before any runs: a malformed file or
expectation stops everything with one line naming the file and field.

Prints one line per experiment and every unexpected check. Exit code: 0 when
every expectation holds or is a declared known miss; 1 when one fails that
was not declared (or a declared miss now holds); 2 on bad input.

Every known miss records what it measured at each scale (record_ci,
record_full); a measurement that leaves its record fails (MOVED), whether the
miss got worse or came closer. --update-records rewrites those records from
this run (only those keys, formatting and comments kept) and prints every
change: use it for a change whose effect you understand, never to make a
regression pass.

--report FILE writes the Markdown report (written to a temporary name and
renamed); --html also writes FILE with the extension .html, the same report as
one page with its plots embedded. A REPORT.md beside the experiments (in the
first PATH if it is a directory) is its preamble; its first '# ' line is the
report's title.

Examples:
  dropless verify experiments/thesis-ch4 --scale ci
  dropless verify experiments/ --scale full --report docs/reports/all.md
  dropless verify my-experiments/ --jobs 2
  dropless verify --functions                 every function expressions can use";

/// Arguments of `dropless verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Experiment files or directories
    #[arg(value_name = "PATH", required_unless_present = "functions")]
    pub paths: Vec<PathBuf>,
    /// ci: apply each file's [verify.ci] shortening; full: the files as written
    #[arg(long, value_enum, default_value = "full")]
    pub scale: ScaleArg,
    /// Write the Markdown report here
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Also write the report as one HTML page (FILE with .html), plots embedded
    #[arg(long, requires = "report")]
    pub html: bool,
    /// Parallel runs [default: all cores]
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub jobs: Option<u32>,
    /// No progress lines
    #[arg(short, long)]
    pub quiet: bool,
    /// List the functions expressions can use, and exit
    #[arg(long)]
    pub functions: bool,
    /// Rewrite the known misses' records at this scale (record_ci or
    /// record_full) from this run, printing every old -> new change. For a
    /// change whose effect is understood; never to hide a regression
    #[arg(long)]
    pub update_records: bool,
    /// The commit a rewritten record names [default: git rev-parse HEAD]
    #[arg(long, value_name = "REV", requires = "update_records")]
    pub record_commit: Option<String>,
}

/// `--scale`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ScaleArg {
    /// Shortened for CI
    Ci,
    /// As written
    Full,
}

/// The directory `--report FILE` is written in, if FILE can be written there.
fn report_dir(path: &Path) -> Result<&Path, Failure> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(Failure::Input(format!(
            "--report {}: no such directory {}",
            path.display(),
            dir.display()
        )));
    }
    if path.is_dir() {
        return Err(Failure::Input(format!(
            "--report {}: is a directory, expected a file name",
            path.display()
        )));
    }
    Ok(dir)
}

fn write_atomic(path: &Path, text: &str) -> Result<(), Failure> {
    let dir = report_dir(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.part"));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Failure::Run(format!("--report {}: cannot write: {e}", path.display()))
        })
}

/// Draws every experiment's `[[plot]]`s into `img/` beside the report
/// (each written under a temporary name and renamed).
fn draw_plots(report: &Path, out: &dropless_verify::Outcome) -> Result<(), Failure> {
    let plots: Vec<_> = out
        .files
        .iter()
        .flat_map(|f| f.plots.iter())
        .filter(|p| p.error.is_none())
        .collect();
    if plots.is_empty() {
        return Ok(());
    }
    let dir = report_dir(report)?.join("img");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::Run(format!("{}: cannot create: {e}", dir.display())))?;
    for p in plots {
        let tmp = dir.join(format!(".part-{}.png", p.file));
        let dst = dir.join(format!("{}.png", p.file));
        crate::plot::draw_xy(&tmp, &p.title, &p.x_label, &p.y_label, &p.lines)
            .and_then(|_| std::fs::rename(&tmp, &dst).map_err(|e| e.to_string()))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                Failure::Run(format!("{}: cannot draw: {e}", dst.display()))
            })?;
    }
    Ok(())
}

/// The commit checked out (`git rev-parse --short=12 HEAD`), which a
/// rewritten record names.
fn head_commit() -> Result<String, Failure> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .map_err(|e| {
            Failure::Input(format!(
                "--update-records: cannot run git to name the commit: {e}"
            ))
        })?;
    let c = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || c.is_empty() {
        return Err(Failure::Input(
            "--update-records: not in a git checkout: a record names the commit it was measured at"
                .into(),
        ));
    }
    Ok(c)
}

/// Runs `dropless verify`.
pub fn verify(a: &VerifyArgs) -> Result<(), Failure> {
    if a.functions {
        for (sig, help) in dropless_verify::functions::HELP
            .iter()
            .chain(dropless_verify::measure::HELP)
        {
            println!("{sig}\n    {help}");
        }
        println!("points(\"m\"), where(\"m\", axis = v, ...), at(\"m\", axis = v, ...), grid_values(\"axis\")\n    over the grid: a [measures] entry at every point, those matching, the one matching; an axis's values");
        return Ok(());
    }
    // Refuse an unwritable report before spending time on runs.
    if let Some(r) = &a.report {
        report_dir(r)?;
        if a.html && r.with_extension("html") == *r {
            return Err(Failure::Input(format!(
                "--report {}: with --html the HTML page is FILE with .html, which is FILE itself; name the Markdown report FILE.md",
                r.display()
            )));
        }
    }
    let scale = match a.scale {
        ScaleArg::Ci => Scale::Ci,
        ScaleArg::Full => Scale::Full,
    };
    let jobs = a
        .jobs
        .map(|j| j as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // The commit the records will name: the one checked out when the run
    // starts.
    let record_commit = if a.update_records {
        Some(match &a.record_commit {
            Some(c) if !c.trim().is_empty() => c.trim().to_string(),
            Some(_) => {
                return Err(Failure::Input(
                    "--record-commit: expected a commit name, found nothing".into(),
                ))
            }
            None => head_commit()?,
        })
    } else {
        None
    };
    let out = dropless_verify::verify(&dropless_verify::Options {
        paths: a.paths.clone(),
        scale,
        jobs,
        progress: !a.quiet,
        update_records: a.update_records,
    })
    .map_err(Failure::Input)?;
    print!("{}", report::terminal(&out));
    if let Some(commit) = &record_commit {
        let mut changed = 0;
        for f in out.files.iter().filter(|f| !f.updates.is_empty()) {
            let lines =
                dropless_verify::records::rewrite(Path::new(&f.file), scale, commit, &f.updates)
                    .map_err(Failure::Run)?;
            changed += lines.len();
            for l in lines {
                println!("record: {l}");
            }
        }
        eprintln!(
            "{changed} known-miss record(s) rewritten at {} scale",
            scale.name()
        );
    }
    eprintln!("simulation wall time {:.1} s", out.wall_s);
    if let Some(r) = &a.report {
        let preamble_path = a
            .paths
            .first()
            .filter(|p| p.is_dir())
            .map(|p| p.join("REPORT.md"));
        let preamble = match preamble_path.filter(|p| p.is_file()) {
            Some(p) => Some(
                std::fs::read_to_string(&p)
                    .map_err(|e| Failure::Input(format!("{}: cannot read: {e}", p.display())))?,
            ),
            None => None,
        };
        let (title, body) = match preamble.as_deref() {
            Some(p) if p.starts_with("# ") => {
                let (first, rest) = p.split_once('\n').unwrap_or((p, ""));
                (first[2..].trim().to_string(), Some(rest.to_string()))
            }
            other => ("Verification report".to_string(), other.map(str::to_string)),
        };
        let command = format!(
            "dropless verify {} --scale {}",
            a.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            scale.name()
        );
        let md = report::markdown(&out, &command, &title, body.as_deref(), &way_back(r));
        draw_plots(r, &out)?;
        write_atomic(r, &md)?;
        eprintln!("report written to {}", r.display());
        if a.html {
            let h = r.with_extension("html");
            let page = crate::report::verify_html(&md, &title, report_dir(r)?);
            crate::report::write_atomic(&h, &page)
                .map_err(|e| Failure::Run(format!("--html: {e}")))?;
            eprintln!("HTML report written to {}", h.display());
        }
    }
    if out.unexpected() {
        return Err(Failure::Run(format!("verify: {}", report::headline(&out))));
    }
    Ok(())
}

/// The relative way from the folder of `report` back to the current
/// directory (which the experiment paths are relative to): `"../../"` for
/// docs/reports/x.md. Empty when the report is written here, or when the
/// two cannot be related (the links are then as given).
fn way_back(report: &Path) -> String {
    let Ok(here) = std::env::current_dir().and_then(|d| d.canonicalize()) else {
        return String::new();
    };
    let folder = match report.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => return String::new(),
    };
    let Ok(folder) = folder.canonicalize() else {
        return String::new();
    };
    let common = here
        .components()
        .zip(folder.components())
        .take_while(|(a, b)| a == b)
        .count();
    let up = folder.components().count() - common;
    let mut way = "../".repeat(up);
    for c in here.components().skip(common) {
        way.push_str(&c.as_os_str().to_string_lossy());
        way.push('/');
    }
    way
}
