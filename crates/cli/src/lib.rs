//! The `dropless` command as a library: the command line (`main`) and the
//! in-process interface the Python package uses ([`api`]).
//!
//! The command runs, checks and lists simulator scenarios.
//!
//! Exit codes: 0 success; 1 the run or its output failed (an output
//! directory that cannot be written, a full disk); 2 bad input (a malformed
//! scenario, a bad `--set`, a bad command line, an existing output directory
//! without `--force`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

pub mod api;
mod bench;
mod emulate;
pub mod interrupt;
mod list;
mod output;
mod plot;
mod probe;
pub mod report;
mod run;
mod sweep;
mod table;
mod transfer;
mod verify;

/// The built-in quick-start scenario, run when `dropless run` gets no file.
pub const QUICKSTART: &str = include_str!("../../../scenarios/quickstart.toml");
/// How the built-in quick start is named in messages and summary.json.
pub const QUICKSTART_LABEL: &str = "scenarios/quickstart.toml (built in)";

const ABOUT: &str = "Loss-avoiding transports: a packet-level simulator whose protocols run unchanged over real UDP";

const TOP_HELP: &str = "\
Examples:
  dropless run                                   run the built-in quick start
  dropless run scenarios/fast.toml --out out/fast
  dropless run scenarios/loss-based.toml --set duration=5s --set flows[0].cc=cubic
  dropless check scenarios/parking-lot.toml      validate without running
  dropless verify experiments/thesis-ch4         reproduce a paper: run its experiments, judge them
  dropless report out/fast                       an interactive HTML page of a run or sweep
  dropless list                                  controllers, queues, traffic kinds
  dropless send 127.0.0.1:9000 --time 10s -i 1s  a real transfer (dropless recv ... --check on the other side)
  sudo dropless emulate --rate 100Mbps --delay 25ms --buffer 625kB   a user-space bottleneck link

Scenario format: docs/scenario-format.md; summary.json fields: docs/summary-json.md";

const RUN_HELP: &str = "\
Output (in DIR, default out/NAME where NAME is the scenario's name):
  summary.json            scenario, seed, overrides, per-flow and per-link results
  scenario.toml           the scenario as run, after --set overrides
  flows.csv, links.csv    time series, one row per sample and flow / link
  flows.parquet, ...      the same, also as Parquet when a table has > 100,000 rows
  events.csv              congestion events of every flow
  throughput, cwnd, rtt, queue, overview (.png and .svg)   plots
  report.html             with --html: tables and interactive plots in one page

DIR is built in a temporary sibling and renamed into place at the end, so a
failed run never leaves a half-written DIR. An existing --out DIR is replaced
only with --force; the default out/NAME is replaced without it. Either way only
a directory holding a summary.json (an earlier dropless run) is replaced.

Examples:
  dropless run
  dropless run scenarios/quickstart.toml --out out/qs --force
  dropless run scenarios/fast.toml --set flows[0].params.alpha=50 --set duration=10s
  dropless run scenarios/loss-based.toml --set 'flows[*].rtt=80ms' --set topology.bottleneck.buffer=0.5bdp";

const CHECK_HELP: &str = "\
Reads the scenario, applies --set overrides, checks every field and builds the
simulation (controllers included) without running it. Exit code 0 if it is
valid, 2 with one message naming the file and field if not.

Examples:
  dropless check scenarios/fast.toml
  dropless check scenarios/fast.toml --set flows[0].params.alpha=0";

const LIST_HELP: &str = "\
Examples:
  dropless list
  dropless list controllers";

#[derive(Parser, Debug)]
#[command(name = "dropless", version, about = ABOUT, after_help = TOP_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// New subcommands (e.g. UDP `send` / `recv`) are added as variants here and
// dispatched in `main`.
#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scenario: print a summary table, write summary.json, time series and plots
    #[command(after_help = RUN_HELP)]
    Run(RunArgs),
    /// Validate a scenario without running it
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Show every controller, queue discipline and traffic kind with parameters and defaults
    #[command(after_help = LIST_HELP)]
    List(ListArgs),
    /// Send a file, or generated data for a memory-to-memory test, over UDP with a dropless controller
    #[command(after_help = transfer::SEND_HELP, allow_missing_positional = true)]
    Send(transfer::SendArgs),
    /// Receive a transfer over UDP into a file, or count and check it (--keep: one after another)
    #[command(after_help = transfer::RECV_HELP)]
    Recv(transfer::RecvArgs),
    /// Measure a path over UDP (capacity, available bandwidth, maximum burst size, base RTT) with PDA's estimators
    #[command(after_help = probe::PROBE_HELP)]
    Probe(probe::ProbeArgs),
    /// Write a new random pre-shared key for `send`/`recv`/`probe --key` (file mode 0600), or with --pair a private key for --identity (its public key printed)
    Keygen {
        /// The key file to create (an existing file is never replaced)
        file: std::path::PathBuf,
        /// A key pair: the private key goes to FILE (mode 0600), the public
        /// key to standard output (for the other end's --peer-key or
        /// --allowed-peers)
        #[arg(long)]
        pair: bool,
    },
    /// Print the public key of a private key file (from `dropless keygen --pair`)
    Pubkey {
        /// The private key file
        file: std::path::PathBuf,
    },
    /// Emulate a bottleneck link (rate, delay, buffer, loss, ECN) between two TUN devices
    #[command(after_help = emulate::EMULATE_HELP)]
    Emulate(Box<emulate::EmulateArgs>),
    /// Models: buffer sizing and trunk loss (thesis ch. 3), FAST and Vegas equilibria (ch. 4), packet-marking estimators (ch. 5)
    #[command(after_help = MODEL_HELP)]
    Model {
        #[command(subcommand)]
        which: ModelCmd,
    },
    /// Benchmark the simulator on fixed cases A-D (medians of several runs)
    #[command(after_help = bench::BENCH_HELP)]
    Bench(bench::BenchArgs),
    /// One benchmark run in this process (used by `bench`)
    #[command(hide = true)]
    BenchOne(bench::BenchOneArgs),
    /// Run a grid of scenario variants across all cores into one table
    #[command(after_help = sweep::SWEEP_HELP)]
    Sweep(sweep::SweepArgs),
    /// Run self-checking experiment files and judge their expectations (docs/verify.md)
    #[command(after_help = verify::VERIFY_HELP)]
    Verify(verify::VerifyArgs),
    /// Write DIR/report.html: one self-contained page with tables and interactive plots of a run or sweep
    #[command(after_help = report::REPORT_HELP)]
    Report(report::ReportArgs),
}

const MODEL_HELP: &str = "\
Examples:
  dropless model fast persistent --flows 10 --alpha 200 --capacity 12500
  dropless model fast new-flow --max-flows 15 --alpha 50 --rtt 0.2
  dropless model fast two-flow --json
  dropless model marking static --scheme adpm-brc,adpm-random,rem --k 1,10,100,1000
  dropless model marking track --delta 1e-6 --sequence random --csv
  dropless model buffer --channels 16 --inputs 32 --rate 40Gbps --flows 64000 --rtt-min 60ms --rtt-max 180ms --utilization 0.7
  dropless model loss --channels 2 --inputs 16 --buffer 10 --load 0.3,0.6,0.9
  dropless model closed-loop --channels 16 --inputs 32 --buffer 100 --rate 40Gbps --flows 6400 --rtt-min 60ms --rtt-max 180ms
  dropless model tables
  dropless model extrapolate out/s2-sweep --x topology.trunk.rate --y utilization --at 40Gbps";

/// Model families.
#[derive(Subcommand, Debug)]
enum ModelCmd {
    /// FAST / Vegas equilibria: persistent, vegas, new-flow, two-flow, alpha
    Fast {
        /// Model name and its arguments (`dropless model fast --help` lists them)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Packet-marking estimators (ADPM, REM, TPM, RPM): static, track, detect
    Marking {
        /// Study name and its arguments (`dropless model marking --help` lists them)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Buffer sizing for core DWDM trunks (thesis ch. 3): every rule side by side for a target utilization
    Buffer {
        /// Options (`dropless model buffer --help` lists them)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Open-loop loss of a DWDM trunk (thesis ch. 3): G1DM, EBD, EBI, EB, M/M/K/(K+B), Monte Carlo
    Loss {
        /// Options (`dropless model loss --help` lists them)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// TCP (Mathis's law) against the trunk's loss models: the closed-loop fixed point (thesis ch. 3)
    ClosedLoop {
        /// Options (`dropless model closed-loop --help` lists them)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Thesis Tables 3.1-3.4 regenerated beside the printed values
    Tables {
        /// Options (--csv, --json)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The extrapolation method (thesis ch. 3): fit a sweep's results against the bit-rate, evaluate at the target
    Extrapolate {
        /// RESULTS (a sweep's results.csv or directory) and options (`dropless model extrapolate --help` lists them)
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `dropless model buffer|loss|closed-loop|tables|extrapolate ARGS`: the chapter 3 models.
fn buffer_model(command: &str, args: Vec<String>) -> Result<(), Failure> {
    let mut words = vec![command.to_string()];
    words.extend(args);
    match dropless_model::buffer::cli::run(&words) {
        Ok(s) => {
            print!("{s}");
            Ok(())
        }
        Err(e) => Err(Failure::Input(e)),
    }
}

/// Arguments of `dropless run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Scenario file (TOML); without it, the built-in quick start
    #[arg(value_name = "SCENARIO")]
    pub scenario: Option<PathBuf>,
    /// Output directory [default: out/NAME]
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Override a scenario value (repeatable): duration=5s, flows[0].cc=fast,
    /// topology.bottleneck.rate=1Gbps, flows[*].rtt=40ms
    #[arg(short, long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Replace DIR if it exists (only an earlier dropless output directory)
    #[arg(short, long)]
    pub force: bool,
    /// Time-series files to write
    #[arg(long, value_enum, default_value_t = SeriesFormat::Auto)]
    pub series: SeriesFormat,
    /// Do not draw plots
    #[arg(long)]
    pub no_plots: bool,
    /// Do not print the summary table
    #[arg(short, long)]
    pub quiet: bool,
    /// Never show the progress bar (it is shown only on a terminal, for runs over a second)
    #[arg(long)]
    pub no_progress: bool,
    /// Also write DIR/report.html, an interactive page of the results (as `dropless report DIR`)
    #[arg(long)]
    pub html: bool,
}

/// Which time-series files `run` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SeriesFormat {
    /// CSV always, Parquet too for tables over 100,000 rows
    Auto,
    /// CSV only
    Csv,
    /// Parquet only
    Parquet,
    /// CSV and Parquet
    Both,
    /// No time-series files
    None,
}

/// Arguments of `dropless check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Scenario file (TOML); without it, the built-in quick start
    #[arg(value_name = "SCENARIO")]
    pub scenario: Option<PathBuf>,
    /// Override a scenario value (repeatable), as for `run`
    #[arg(short, long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Arguments of `dropless list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Show only this section
    #[arg(value_enum)]
    pub what: Option<ListWhat>,
}

/// Sections of `dropless list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListWhat {
    /// Congestion controllers and their parameters
    Controllers,
    /// Queue disciplines
    Queues,
    /// Cross-traffic kinds
    Traffic,
    /// Topology kinds
    Topologies,
    /// Units accepted in scenario files
    Units,
}

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit code 2.
    Input(String),
    /// The run or its output failed: exit code 1.
    Run(String),
    /// Stopped on request (Ctrl-C, a cancelled sweep) before its end, with
    /// nothing written: exit code 130, as a shell reports SIGINT.
    Interrupted(String),
}

/// Restores the default SIGPIPE action, so that `dropless list | head` ends
/// quietly instead of panicking on a closed pipe.
fn reset_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_DFL at start-up, before
    // any other thread exists, has no memory-safety implications.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The `dropless` command line: parses `std::env::args` and runs the command.
pub fn main() -> ExitCode {
    reset_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    let r = match cli.command {
        Command::Run(a) => run::run(&a),
        Command::Check(a) => run::check(&a),
        Command::List(a) => {
            list::list(a.what);
            Ok(())
        }
        Command::Send(a) => transfer::send(&a),
        Command::Recv(a) => transfer::recv(&a),
        Command::Bench(a) => bench::bench(&a),
        Command::Emulate(a) => emulate::emulate(&a),
        Command::Probe(a) => probe::probe(&a),
        Command::Keygen { file, pair } => transfer::keygen(&file, pair),
        Command::Pubkey { file } => transfer::pubkey(&file),
        Command::BenchOne(a) => bench::bench_one(&a),
        Command::Sweep(a) => sweep::sweep(&a),
        Command::Verify(a) => verify::verify(&a),
        Command::Report(a) => report::report(&a),
        Command::Model {
            which: ModelCmd::Fast { args },
        } => match dropless_model::fast::cli::run(&args) {
            Ok(s) => {
                print!("{s}");
                Ok(())
            }
            Err(e) => Err(Failure::Input(e)),
        },
        Command::Model {
            which: ModelCmd::Buffer { args },
        } => buffer_model("buffer", args),
        Command::Model {
            which: ModelCmd::Loss { args },
        } => buffer_model("loss", args),
        Command::Model {
            which: ModelCmd::ClosedLoop { args },
        } => buffer_model("closed-loop", args),
        Command::Model {
            which: ModelCmd::Tables { args },
        } => buffer_model("tables", args),
        Command::Model {
            which: ModelCmd::Extrapolate { args },
        } => buffer_model("extrapolate", args),
        Command::Model {
            which: ModelCmd::Marking { args },
        } => match dropless_model::marking::cli::run(&args) {
            Ok(s) => {
                print!("{s}");
                Ok(())
            }
            Err(e) => Err(Failure::Input(e)),
        },
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Run(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
        Err(Failure::Interrupted(m)) => {
            eprintln!("{m}");
            ExitCode::from(130)
        }
    }
}

/// A command-line error of clap's (an unknown, missing or conflicting
/// flag, a value it could not parse) on one line naming the flag, as every
/// other input error: clap's usage block and "For more information" hint
/// are left out (`--help` shows them). Help and version go out as clap
/// writes them.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    let text = e.render().to_string();
    let mut l = one_line(&text);
    // "required arguments were not provided" names what is missing; the
    // usage line names the flag that needs it (`send --check` without -R).
    if e.kind() == ErrorKind::MissingRequiredArgument {
        if let Some(u) = text.lines().find_map(|l| l.trim().strip_prefix("Usage: ")) {
            l.push_str(&format!(" (for: {u})"));
        }
    }
    eprintln!("{l}");
    ExitCode::from(2)
}

/// Clap's error text on one line: its lines before the usage block,
/// trimmed and joined ("tip:" lines in parentheses).
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for l in text.lines().map(str::trim) {
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if l.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str(l);
        } else if l.starts_with("tip:") {
            out.push_str(&format!(" ({l})"));
        } else {
            out.push(' ');
            out.push_str(l);
        }
    }
    out
}
