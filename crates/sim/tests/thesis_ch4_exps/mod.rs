//! The reproducible experiments of the thesis's chapter 4 (Cui, seed 003;
//! reference note `thesis_ch2_ch4_protocols.md` §8, items 1-20), shared by
//! the CI test `tests/thesis_ch4.rs` (shortened) and the full-length runner
//! `examples/thesis_ch4.rs` (report and plots).
//!
//! Conventions (note "Conventions"): 1000-byte payloads plus a 40-byte
//! header, so a packet is 1040 bytes on the wire and `C` in packets/s is
//! `rate/(8*1040)` (100 Mb/s = 12019 pkt/s). Where the thesis states a
//! capacity in packets/s (§4.3.3: 12500 pkt/s; Table 4.1: 125 pkt/s) the
//! link rate is set so that C is exactly that (104 Mb/s, 1.04 Mb/s). Rates
//! are payload packets per second (goodput / 8000). FAST runs "pure"
//! (`mi_threshold = 0`, no slow start), gamma = 0.5, every-other-RTT updates
//! and a 10 ms update period (ns-2 module defaults). Prose Vegas runs
//! without slow start (thesis: "Slow Start disabled") except in item 9.
//!
//! Every tolerance is the one the note states for the item, or, where it
//! states none, the one written in the experiment's `expected` text, fixed
//! before the runs. The CI scale keeps each outcome's scale-free quantities
//! (shares, delays, ratios): where it changes rates it divides capacity and
//! alpha (or alpha+) by the same factor, which leaves FAST's eqs.
//! (4.19)/(4.20) and Vegas's (4.10)/(4.12) delays and shares unchanged.

#![allow(dead_code, clippy::type_complexity, clippy::needless_range_loop)]

use dropless_cc::{from_secs, Time, MILLISECOND};
use dropless_model::fast as model;
use dropless_sim::{Buffer, FlowSpec, LinkSpec, SimConfig, SimResult, Simulation, Topology};

/// Payload bytes per packet.
pub const MSS: u32 = 1000;
/// Header bytes per packet.
pub const HDR: u32 = 40;
/// Bytes per packet on the wire.
pub const WIRE: f64 = 1040.0;

/// Shortened (CI) or full-length runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Shortened / scaled down for CI.
    Ci,
    /// The thesis's set-up, full length.
    Full,
}

/// Link rate in bits/s for `c` packets/s of 1040 bytes.
pub fn bps(c: f64) -> f64 {
    c * WIRE * 8.0
}

/// Packets/s of 1040 bytes at `rate_bps`.
pub fn pps(rate_bps: f64) -> f64 {
    rate_bps / (8.0 * WIRE)
}

/// How a measured value is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tol {
    /// |m - e| <= tol * |e|.
    Rel(f64),
    /// |m - e| <= tol.
    Abs(f64),
    /// m >= e.
    AtLeast,
    /// m <= e.
    AtMost,
}

/// One measured quantity against its expectation.
#[derive(Clone, Debug)]
pub struct Check {
    /// What is measured.
    pub what: String,
    /// Expected value (thesis or its equations).
    pub expected: f64,
    /// Measured value.
    pub measured: f64,
    /// Tolerance.
    pub tol: Tol,
    /// Within tolerance.
    pub pass: bool,
}

impl Check {
    fn new(what: impl Into<String>, expected: f64, measured: f64, tol: Tol) -> Check {
        let pass = measured.is_finite()
            && match tol {
                Tol::Rel(t) => (measured - expected).abs() <= t * expected.abs(),
                Tol::Abs(t) => (measured - expected).abs() <= t,
                Tol::AtLeast => measured >= expected,
                Tol::AtMost => measured <= expected,
            };
        Check {
            what: what.into(),
            expected,
            measured,
            tol,
            pass,
        }
    }

    /// A yes/no condition (expected 1, measured 1 or 0).
    fn flag(what: impl Into<String>, ok: bool) -> Check {
        Check::new(what, 1.0, if ok { 1.0 } else { 0.0 }, Tol::Abs(0.0))
    }

    /// Human-readable form.
    pub fn describe(&self) -> String {
        let f = |x: f64| fmt_num(x);
        let exp = match self.tol {
            Tol::Rel(t) => format!("{} ±{}%", f(self.expected), t * 100.0),
            Tol::Abs(0.0) if self.expected == 1.0 => "yes".to_string(),
            Tol::Abs(t) => format!("{} ±{}", f(self.expected), f(t)),
            Tol::AtLeast => format!(">= {}", f(self.expected)),
            Tol::AtMost => format!("<= {}", f(self.expected)),
        };
        let meas = match self.tol {
            Tol::Abs(0.0) if self.expected == 1.0 => {
                if self.measured == 1.0 {
                    "yes".to_string()
                } else {
                    "no".to_string()
                }
            }
            Tol::Rel(_) if self.expected != 0.0 => format!(
                "{} ({:+.1}%)",
                f(self.measured),
                (self.measured / self.expected - 1.0) * 100.0
            ),
            _ => f(self.measured),
        };
        format!(
            "{}: expected {exp}, measured {meas} — {}",
            self.what,
            if self.pass { "ok" } else { "FAIL" }
        )
    }
}

/// Compact number formatting.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1e5 {
        format!("{x:.3e}")
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.4}")
    }
}

/// A time series to plot.
#[derive(Clone, Debug, Default)]
pub struct Plot {
    /// File stem.
    pub name: String,
    /// Title.
    pub title: String,
    /// Panels: (y label, lines of (label, t, y)).
    pub panels: Vec<(String, Vec<(String, Vec<f64>, Vec<f64>)>)>,
}

/// The outcome of one experiment.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Item number in note §8.
    pub id: u32,
    /// Short title.
    pub title: String,
    /// Set-up as run.
    pub setup: String,
    /// What the thesis (or its equations) expects, with tolerance.
    pub expected: String,
    /// Every check.
    pub checks: Vec<Check>,
    /// Extra measured lines (tables) for the report.
    pub notes: Vec<String>,
    /// Plots (only filled when asked for).
    pub plots: Vec<Plot>,
    /// Wall-clock seconds the run took.
    pub wall_s: f64,
}

impl Outcome {
    /// All checks passed.
    pub fn pass(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|c| c.pass)
    }
    /// The failed checks, described.
    pub fn failures(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| !c.pass)
            .map(|c| c.describe())
            .collect()
    }
    fn check(&mut self, c: Check) {
        self.checks.push(c);
    }
}

// ---------------------------------------------------------------------
// Building blocks.

fn secs(t: f64) -> Time {
    from_secs(t)
}

/// The chapter's loss recovery for every FAST flow: `true` is the ns-2
/// FAST module's own recovery ([`ns2_recovery`]), `false` the transport's
/// default (RFC 6675). Set uniformly for all twenty items (no per-item
/// choice); see [`module_recovery`]. The module's recovery is the faithful
/// set-up: the thesis ran all its chapter-4 simulations with that module
/// (note §3.6, thesis L4707-4713, Appendix B). The report runs every item
/// with both and gives both pass counts.
pub const CHAPTER_MODULE_RECOVERY: bool = true;

thread_local! {
    static MODULE_RECOVERY: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Whether the FAST flows built now use the ns-2 module's recovery: the
/// innermost [`with_recovery`] on this thread, else the environment
/// variable `THESIS_CH4_RECOVERY` (`module` or `default`), else
/// [`CHAPTER_MODULE_RECOVERY`].
pub fn module_recovery() -> bool {
    if let Some(m) = MODULE_RECOVERY.with(|c| c.get()) {
        return m;
    }
    match std::env::var("THESIS_CH4_RECOVERY").as_deref() {
        Ok("module") => true,
        Ok("default") => false,
        Ok(x) => panic!("THESIS_CH4_RECOVERY={x}: use module or default"),
        Err(_) => CHAPTER_MODULE_RECOVERY,
    }
}

/// Runs `f` with every FAST flow it builds on the module's recovery
/// (`module`) or the transport's default.
pub fn with_recovery<R>(module: bool, f: impl FnOnce() -> R) -> R {
    let prev = MODULE_RECOVERY.with(|c| c.replace(Some(module)));
    let r = f();
    MODULE_RECOVERY.with(|c| c.set(prev));
    r
}

/// A FAST flow: 1000+40-byte packets, pure FAST (mi_threshold 0), with the
/// chapter's loss recovery ([`module_recovery`]).
pub fn fast(alpha: f64, rtt: f64) -> FlowSpec {
    let mut f = FlowSpec::bulk("fast", secs(rtt))
        .param("alpha", alpha)
        .param("mi_threshold", 0.0);
    f.mss = MSS;
    f.header = HDR;
    if module_recovery() {
        f = ns2_recovery(f);
    }
    f
}

/// Switches a FAST flow to the ns-2 module's loss recovery (reference note
/// §3.6): the transport half (`FlowSpec::ns2_recovery`: fast retransmit at
/// once, two packets per partial ACK, lost packets kept in the recovery
/// pipe) and the controller half (`ns2_recovery`: no estimation during
/// recovery, the pre-loss flight as `old_cwnd` for packets sent in it).
pub fn ns2_recovery(mut f: FlowSpec) -> FlowSpec {
    if f.ns2_recovery {
        return f;
    }
    f.ns2_recovery = true;
    f.param("ns2_recovery", 1.0)
}

/// A prose-Vegas flow (alpha+, beta+ in packets/s), no slow start.
pub fn vegas(alpha_plus: f64, beta_plus: f64, rtt: f64) -> FlowSpec {
    let mut f = FlowSpec::bulk("vegas-rate", secs(rtt))
        .param("alpha_plus", alpha_plus)
        .param("beta_plus", beta_plus)
        .param("slow_start", 0.0);
    f.mss = MSS;
    f.header = HDR;
    f
}

fn at(mut f: FlowSpec, start: f64, stop: Option<f64>) -> FlowSpec {
    f.start = secs(start);
    f.stop = stop.map(secs);
    f
}

/// A dumbbell of `c` packets/s with a 1 ms one-way bottleneck delay (the
/// flows' RTTs are set per flow).
pub fn dumbbell(
    c: f64,
    buffer: u64,
    flows: Vec<FlowSpec>,
    duration: f64,
    sample: f64,
) -> SimConfig {
    SimConfig {
        seed: 1,
        duration: secs(duration),
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(bps(c), MILLISECOND, Buffer::Packets(buffer)),
            access_rate_bps: None,
        },
        flows,
        cross: vec![],
        sample_interval: secs(sample),
        flow_series: true,
    }
}

thread_local! {
    static SEND_JITTER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with every simulation it starts given a phase-breaking send
/// jitter: each flow's sends wait a uniform random time in [0, one packet
/// time on the first shared link) (`FlowSpec::send_jitter`, ns-2's
/// `overhead_`; Floyd and Jacobson 1992). A comparison column of the
/// report, not the chapter's set-up (the thesis's ns-2 scripts set no
/// `overhead_`).
pub fn with_send_jitter<R>(f: impl FnOnce() -> R) -> R {
    let prev = SEND_JITTER.with(|c| c.replace(true));
    let r = f();
    SEND_JITTER.with(|c| c.set(prev));
    r
}

fn run(mut cfg: SimConfig) -> SimResult {
    if SEND_JITTER.with(|c| c.get()) {
        cfg = cfg.with_packet_time_jitter();
    }
    Simulation::new(cfg).expect("valid configuration").run()
}

fn window_mean(t: &[f64], v: &[f64], t0: f64, t1: f64) -> f64 {
    let mut s = 0.0;
    let mut n = 0usize;
    for (x, y) in t.iter().zip(v) {
        if *x > t0 && *x <= t1 && y.is_finite() {
            s += y;
            n += 1;
        }
    }
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

/// Mean payload rate of flow `f` over `(t0, t1]`, packets/s.
pub fn rate(r: &SimResult, f: usize, t0: f64, t1: f64) -> f64 {
    window_mean(&r.series.t, &r.series.flows[f].goodput_bps, t0, t1) / (8.0 * MSS as f64)
}

/// Mean bottleneck queue over `(t0, t1]` (link `l`), packets.
pub fn queue(r: &SimResult, l: usize, t0: f64, t1: f64) -> f64 {
    window_mean(&r.series.t, &r.series.links[l].avg_queue_pkts, t0, t1)
}

fn var_mean(r: &SimResult, f: usize, name: &str, t0: f64, t1: f64) -> f64 {
    match r.series.flows[f].var(name) {
        Some(v) => window_mean(&r.series.t, v, t0, t1),
        None => f64::NAN,
    }
}

fn loss_events(r: &SimResult, f: usize, t0: f64, t1: f64) -> usize {
    r.flows[f]
        .events
        .iter()
        .filter(|e| {
            let t = dropless_cc::secs(e.time);
            t > t0 && t <= t1
        })
        .count()
}

/// Re-samples a series as means over `bin` seconds (for plots and
/// oscillation measures).
pub fn binned(t: &[f64], v: &[f64], bin: f64, scale: f64) -> (Vec<f64>, Vec<f64>) {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let (mut s, mut n, mut edge) = (0.0, 0usize, bin);
    for (x, y) in t.iter().zip(v) {
        if *x > edge + 1e-9 {
            if n > 0 {
                xs.push(edge - bin / 2.0);
                ys.push(s / n as f64 * scale);
            }
            s = 0.0;
            n = 0;
            while *x > edge + 1e-9 {
                edge += bin;
            }
        }
        if y.is_finite() {
            s += y;
            n += 1;
        }
    }
    if n > 0 {
        xs.push(edge - bin / 2.0);
        ys.push(s / n as f64 * scale);
    }
    (xs, ys)
}

fn rate_lines(r: &SimResult, bin: f64, names: &[String]) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    r.series
        .flows
        .iter()
        .zip(names)
        .map(|(f, n)| {
            let (x, y) = binned(&r.series.t, &f.goodput_bps, bin, 1.0 / 8000.0);
            (n.clone(), x, y)
        })
        .collect()
}

fn var_lines(
    r: &SimResult,
    var: &str,
    bin: f64,
    names: &[String],
) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    r.series
        .flows
        .iter()
        .zip(names)
        .filter_map(|(f, n)| {
            let v = if var == "cwnd" {
                Some(&f.cwnd[..])
            } else {
                f.var(var)
            }?;
            let (x, y) = binned(&r.series.t, v, bin, 1.0);
            Some((n.clone(), x, y))
        })
        .collect()
}

fn queue_line(r: &SimResult, bin: f64) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let (x, y) = binned(&r.series.t, &r.series.links[0].avg_queue_pkts, bin, 1.0);
    vec![("bottleneck queue".into(), x, y)]
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix} {i}")).collect()
}

// ---------------------------------------------------------------------
// Persistent congestion (items 4-10).

/// Measured persistent-congestion state after each arrival.
#[derive(Clone, Debug)]
pub struct PersistentRun {
    /// Per n: queue (packets) and rates of flows 1..=n (packets/s).
    pub rows: Vec<(f64, Vec<f64>)>,
    /// Capacity, packets/s.
    pub c: f64,
}

impl PersistentRun {
    fn x1_over_fair(&self, n: usize) -> f64 {
        self.rows[n - 1].1[0] / (self.c / n as f64)
    }
    fn jain(&self, n: usize) -> f64 {
        dropless_sim::jain(&self.rows[n - 1].1)
    }
    fn p_over_p1(&self, n: usize) -> f64 {
        self.rows[n - 1].0 / self.rows[0].0
    }
}

/// Flows from `make` arrive at `starts`; the state with n flows is measured
/// over the last `meas` fraction of the interval before arrival n+1 (or the
/// end).
fn persistent(
    c: f64,
    make: impl Fn(usize) -> FlowSpec,
    starts: &[f64],
    end: f64,
    meas: f64,
    sample: f64,
) -> (PersistentRun, SimResult) {
    let flows = starts
        .iter()
        .enumerate()
        .map(|(i, s)| at(make(i), *s, None))
        .collect();
    let r = run(dumbbell(c, 10_000_000, flows, end, sample));
    let mut rows = Vec::new();
    for n in 1..=starts.len() {
        let t1 = if n < starts.len() { starts[n] } else { end };
        let t0 = t1 - meas * (t1 - starts[n - 1]);
        let q = queue(&r, 0, t0, t1);
        let x = (0..n).map(|j| rate(&r, j, t0, t1)).collect();
        rows.push((q, x));
    }
    (PersistentRun { rows, c }, r)
}

fn persistent_table(run: &PersistentRun, expect: &[model::PersistentRow]) -> Vec<String> {
    let mut v = vec![
        "| n | queue (theory) | queue | x1 (theory) | x1 | x2 (theory) | x2 | xn (theory) | xn | x1/(c/n) | Jain |".into(),
        "|---|---|---|---|---|---|---|---|---|---|---|".into(),
    ];
    for (n, (q, x)) in run.rows.iter().enumerate() {
        let e = &expect[n];
        let g = |v: &[f64], j: usize| v.get(j).map_or("–".into(), |a| fmt_num(*a));
        v.push(format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} ({}) |",
            n + 1,
            fmt_num(e.queue_pkts),
            fmt_num(*q),
            g(&e.rates, 0),
            g(x, 0),
            g(&e.rates, 1),
            g(x, 1),
            fmt_num(e.rates[n]),
            fmt_num(x[n]),
            fmt_num(run.x1_over_fair(n + 1)),
            fmt_num(e.x1_over_fair),
            fmt_num(run.jain(n + 1)),
            fmt_num(e.jain),
        ));
    }
    v
}

/// Item 4's run (FAST, 10 flows). CI: C and alpha divided by 4.
pub fn run_fast_persistent(scale: Scale) -> (PersistentRun, Vec<model::PersistentRow>, String) {
    // Full scale in CI too (300 s of 12500 pkt/s runs in about a second):
    // at C/4 the shares are the same in theory but the 20 s spacing and the
    // 4x longer packet transmission time bias the measurement by 3-5%.
    let _ = scale;
    let (k, spacing) = (1.0, 30.0);
    let c = 12500.0 / k;
    let alpha = 200.0 / k;
    let starts: Vec<f64> = (0..10).map(|i| i as f64 * spacing).collect();
    let (run, _) = persistent(c, |_| fast(alpha, 0.04), &starts, 10.0 * spacing, 0.4, 0.1);
    let setup = format!(
        "FAST alpha = {alpha}, C = {c} pkt/s, RTT 40 ms, 10 flows arriving every {spacing} s, unlimited buffer; measured over the last 40% of each interval"
    );
    (run, model::fast_persistent_table(10, alpha, c), setup)
}

/// Start times for prose Vegas: each interval 1.3 × (the new flow's
/// equilibrium window × RTT) + 10 s, the time +1 packet per RTT needs to
/// build that window.
fn vegas_starts(rows: &[model::PersistentRow], d: f64, n: usize) -> (Vec<f64>, f64) {
    let mut starts = vec![0.0];
    let mut t = 0.0;
    for r in rows.iter().take(n) {
        let big_d = d + r.p_s;
        let w = r.rates[r.n - 1] * big_d;
        t += (1.3 * w * big_d + 10.0).max(20.0);
        starts.push(t);
    }
    starts.pop();
    (starts, t)
}

/// Items 5/6's runs (prose Vegas, 10 flows). CI: C and alpha+, beta+
/// divided by `k`.
pub fn run_vegas_persistent(
    alpha_plus: f64,
    scale: Scale,
) -> (PersistentRun, Vec<model::PersistentRow>, String) {
    // Full scale always (scaling C and alpha+ down biases the measured base
    // RTT by the longer packet transmission time); in CI the alpha+ = 2475
    // run stops after 6 flows (flows 7-10 need 90% of its 12500 s).
    let k = 1.0;
    let n = if scale == Scale::Ci && alpha_plus > 1000.0 {
        6
    } else {
        10
    };
    let c = 12500.0 / k;
    let ap = alpha_plus / k;
    let bp = (alpha_plus + 25.0) / k;
    let d = 0.04;
    let rows = model::vegas_persistent_table(n, ap, c, d);
    let (starts, end) = vegas_starts(&rows, d, n);
    let sample = if end > 2000.0 { 1.0 } else { 0.1 };
    let (run, _) = persistent(c, |_| vegas(ap, bp, d), &starts, end, 0.25, sample);
    let setup = format!(
        "prose Vegas alpha+ = {} pkt/s, beta+ = {} pkt/s, C = {c} pkt/s, RTT 40 ms, no slow start, {n} flows arriving at {} s (each interval ~1.3x the time +1 pkt/RTT needs), run {:.0} s; measured over the last 25% of each interval",
        fmt_num(ap),
        fmt_num(bp),
        starts.iter().map(|s| format!("{s:.0}")).collect::<Vec<_>>().join("/"),
        end
    );
    (run, rows, setup)
}

// ---------------------------------------------------------------------
// The experiments.

/// Runs item `id` at `scale`; `plots` also collects the time series to plot.
pub fn run_experiment(id: u32, scale: Scale, plots: bool) -> Outcome {
    let t0 = std::time::Instant::now();
    let mut o = match id {
        1 => e1(scale),
        2 => e2(scale),
        3 => e3(scale, plots),
        4 => e4(scale),
        5 => e5(scale),
        6 => e6(scale),
        7 => e7_8(scale, 7),
        8 => e7_8(scale, 8),
        9 => e9(scale),
        10 => e10(scale),
        11 => e11_12(scale, false, plots),
        12 => e11_12(scale, true, plots),
        13 => e13(scale),
        14 => e14(scale),
        15 => e15(scale, plots),
        16 => e16(scale, plots),
        17 => e17(scale),
        18 => e18(scale),
        19 => e19(scale),
        20 => e20(scale),
        _ => panic!("no experiment {id}"),
    };
    o.id = id;
    o.wall_s = t0.elapsed().as_secs_f64();
    o
}

fn e1(scale: Scale) -> Outcome {
    let dur = if scale == Scale::Full { 40.0 } else { 20.0 };
    let c = pps(100e6);
    let r = run(dumbbell(c, 10_000_000, vec![fast(200.0, 0.1)], dur, 0.01));
    let q = queue(&r, 0, dur / 2.0, dur);
    let w = window_mean(&r.series.t, &r.series.flows[0].cwnd, dur / 2.0, dur);
    let w_star = model::fast_single_window(200.0, c, 0.1);
    let mut o = Outcome {
        title: "FAST single flow, equilibrium queue".into(),
        setup: format!("1 FAST flow, alpha 200, 100 Mb/s (C = {c:.0} pkt/s), RTT 100 ms, unlimited buffer, {dur} s; second half averaged"),
        expected: format!("queue = alpha = 200 pkts (4.4), w* = alpha + C d = {w_star:.0} (4.3); ±5%"),
        ..Outcome::default()
    };
    o.check(Check::new("queue (pkts)", 200.0, q, Tol::Rel(0.05)));
    o.check(Check::new("window (pkts)", w_star, w, Tol::Rel(0.05)));
    o.check(Check::new(
        "drops",
        0.0,
        r.links[0].drops as f64,
        Tol::AtMost,
    ));
    o
}

fn e2(scale: Scale) -> Outcome {
    let dur = if scale == Scale::Full { 60.0 } else { 30.0 };
    let flows = (0..3).map(|_| fast(200.0, 0.1)).collect();
    let r = run(dumbbell(pps(100e6), 10_000_000, flows, dur, 0.01));
    let q = queue(&r, 0, dur / 2.0, dur);
    let x: Vec<f64> = (0..3).map(|f| rate(&r, f, dur / 2.0, dur)).collect();
    let mut o = Outcome {
        title: "FAST, N flows started together (true d)".into(),
        setup: format!("3 FAST flows, alpha 200, started together, 100 Mb/s, RTT 100 ms, {dur} s"),
        expected: "queue = N alpha = 600 (4.6) ±5%; equal rates, Jain >= 0.99".into(),
        ..Outcome::default()
    };
    o.check(Check::new("queue (pkts)", 600.0, q, Tol::Rel(0.05)));
    o.check(Check::new(
        "Jain index",
        0.99,
        dropless_sim::jain(&x),
        Tol::AtLeast,
    ));
    o
}

fn e3(_scale: Scale, plots: bool) -> Outcome {
    // Full length in both scales (100 s of 12019 pkt/s takes ~0.3 s).
    let c = pps(100e6);
    let flows = vec![
        at(fast(200.0, 0.1), 0.0, Some(100.0)),
        at(fast(200.0, 0.1), 20.0, Some(80.0)),
        at(fast(200.0, 0.1), 40.0, Some(60.0)),
    ];
    let r = run(dumbbell(c, 10_000_000, flows, 100.0, 0.01));
    let t = model::fast_persistent_table(3, 200.0, c);
    let mut o = Outcome {
        title: "FAST persistent congestion, Appendix B1".into(),
        setup: "100 Mb/s, 50 ms one way (RTT 100 ms, as the ns-2 script), alpha 200, flows 0-100/20-80/40-60 s, unlimited buffer; last 5 s of each interval".into(),
        expected: "queue 200 → 523.6 → 919.9 → 400 → 200; shares 0.382/0.618, 0.217/0.278/0.505, 0.5/0.5 after 60 s (4.19)/(4.20); ±5%".into(),
        ..Outcome::default()
    };
    let windows = [
        (15.0, 20.0),
        (35.0, 40.0),
        (55.0, 60.0),
        (75.0, 80.0),
        (95.0, 100.0),
    ];
    let qexp = [200.0, t[1].queue_pkts, t[2].queue_pkts, 400.0, 200.0];
    let active: [&[usize]; 5] = [&[0], &[0, 1], &[0, 1, 2], &[0, 1], &[0]];
    let shares: [Vec<f64>; 5] = [
        vec![1.0],
        t[1].rates.iter().map(|x| x / c).collect(),
        t[2].rates.iter().map(|x| x / c).collect(),
        vec![0.5, 0.5],
        vec![1.0],
    ];
    for k in 0..5 {
        let (a, b) = windows[k];
        o.check(Check::new(
            format!("queue {a}-{b} s"),
            qexp[k],
            queue(&r, 0, a, b),
            Tol::Rel(0.05),
        ));
        if active[k].len() > 1 {
            let x: Vec<f64> = active[k].iter().map(|&f| rate(&r, f, a, b)).collect();
            let s: f64 = x.iter().sum();
            for (j, xj) in x.iter().enumerate() {
                o.check(Check::new(
                    format!("share of flow {} {a}-{b} s", j + 1),
                    shares[k][j],
                    xj / s,
                    Tol::Rel(0.05),
                ));
            }
        }
    }
    if plots {
        let n = names("flow", 3);
        o.plots.push(Plot {
            name: "exp03_fast_b1".into(),
            title: "Exp. 3: FAST persistent congestion (B1): rates, queue and alpha".into(),
            panels: vec![
                ("rate (pkt/s, 1 s means)".into(), rate_lines(&r, 1.0, &n)),
                ("queue (pkts)".into(), queue_line(&r, 0.5)),
                (
                    "alpha (pkts, constant)".into(),
                    var_lines(&r, "alpha", 1.0, &n),
                ),
            ],
        });
    }
    o
}

fn persistent_checks(
    o: &mut Outcome,
    run: &PersistentRun,
    rows: &[model::PersistentRow],
    tol: f64,
    all_rates: bool,
) {
    for (n, (q, x)) in run.rows.iter().enumerate() {
        let e = &rows[n];
        o.check(Check::new(
            format!("queue, n={}", n + 1),
            e.queue_pkts,
            *q,
            Tol::Rel(tol),
        ));
        for (j, xj) in x.iter().enumerate() {
            if all_rates || j == 1 || j == 5 {
                o.check(Check::new(
                    format!("x{}({})", j + 1, n + 1),
                    e.rates[j],
                    *xj,
                    Tol::Rel(tol),
                ));
            }
        }
    }
    o.notes.extend(persistent_table(run, rows));
}

fn e4(scale: Scale) -> Outcome {
    let (run, rows, setup) = run_fast_persistent(scale);
    let mut o = Outcome {
        title: "FAST vs theory, §4.3.3 (10 flows)".into(),
        setup,
        expected: "every x_j(n) and the queue as eq. (4.20)/(4.19) ±3% (e.g. n=10: x1 529, x2 552, x6 871, x10 4040 pkt/s, queue 4727)".into(),
        ..Outcome::default()
    };
    persistent_checks(&mut o, &run, &rows, 0.03, true);
    o
}

fn e5(scale: Scale) -> Outcome {
    let (run, rows, setup) = run_vegas_persistent(2475.0, scale);
    let mut o = Outcome {
        title: "prose Vegas alpha+ 2475 vs theory".into(),
        setup,
        expected: "x2(n), x6(n) and the queue as eqs. (4.10)/(4.12) ±3% (n=10: x2 143, x6 557, x10 6077 pkt/s, queue 10487)".into(),
        ..Outcome::default()
    };
    persistent_checks(&mut o, &run, &rows, 0.03, false);
    o
}

fn e6(scale: Scale) -> Outcome {
    let (run, rows, setup) = run_vegas_persistent(250.0, scale);
    let mut o = Outcome {
        title: "prose Vegas alpha+ 250 vs theory".into(),
        setup,
        expected: "x2(n), x6(n) and the queue as eqs. (4.10)/(4.12) ±10% (beta+ - alpha+ = 10% of alpha+; n=10: x2 475, x6 829 pkt/s)".into(),
        ..Outcome::default()
    };
    persistent_checks(&mut o, &run, &rows, 0.10, false);
    o
}

fn e7_8(scale: Scale, which: u32) -> Outcome {
    let (f, fr, _) = run_fast_persistent(scale);
    let (v1, v1r, _) = run_vegas_persistent(250.0, scale);
    let (v2, v2r, _) = run_vegas_persistent(2475.0, scale);
    let runs = [
        ("FAST", &f, &fr),
        ("Vegas 250", &v1, &v1r),
        ("Vegas 2475", &v2, &v2r),
    ];
    // n = 10 at full length; in CI the alpha+ = 2475 run has 6 flows.
    let nm = v2.rows.len();
    let mut o = Outcome {
        setup: format!("the runs of items 4, 5 and 6, n = 2..={nm}"),
        ..Outcome::default()
    };
    if which == 7 {
        o.title = "fairness ordering FAST > Vegas 250 > Vegas 2475".into();
        o.expected = "x1(n)/(c/n) and Jain: FAST > Vegas 250 > Vegas 2475 at every n >= 2, each decreasing in n; n=10: 0.423 > 0.359 > 0.094, F 0.594 > 0.542 > 0.335 (values ±10%)".into();
        o.notes.push(
            "| n | x1/(c/n) FAST | Vegas 250 | Vegas 2475 | Jain FAST | Vegas 250 | Vegas 2475 |"
                .into(),
        );
        o.notes.push("|---|---|---|---|---|---|---|".into());
        for n in 2..=nm {
            let a: Vec<f64> = runs.iter().map(|r| r.1.x1_over_fair(n)).collect();
            let j: Vec<f64> = runs.iter().map(|r| r.1.jain(n)).collect();
            o.notes.push(format!(
                "| {n} | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} ({}) |",
                fmt_num(a[0]),
                fmt_num(fr[n - 1].x1_over_fair),
                fmt_num(a[1]),
                fmt_num(v1r[n - 1].x1_over_fair),
                fmt_num(a[2]),
                fmt_num(v2r[n - 1].x1_over_fair),
                fmt_num(j[0]),
                fmt_num(fr[n - 1].jain),
                fmt_num(j[1]),
                fmt_num(v1r[n - 1].jain),
                fmt_num(j[2]),
                fmt_num(v2r[n - 1].jain),
            ));
            o.check(Check::flag(
                format!(
                    "x1/(c/n) ordering at n={n} ({} > {} > {})",
                    fmt_num(a[0]),
                    fmt_num(a[1]),
                    fmt_num(a[2])
                ),
                a[0] > a[1] && a[1] > a[2],
            ));
            o.check(Check::flag(
                format!(
                    "Jain ordering at n={n} ({} > {} > {})",
                    fmt_num(j[0]),
                    fmt_num(j[1]),
                    fmt_num(j[2])
                ),
                j[0] > j[1] && j[1] > j[2],
            ));
        }
        for (name, r, _) in &runs {
            let dec = (3..=nm).all(|n| r.x1_over_fair(n) < r.x1_over_fair(n - 1));
            o.check(Check::flag(
                format!("{name}: x1/(c/n) decreasing in n"),
                dec,
            ));
            let decj = (3..=nm).all(|n| r.jain(n) < r.jain(n - 1));
            o.check(Check::flag(format!("{name}: Jain decreasing in n"), decj));
            // The note's n = 10 values.
        }
        // Expected from the equations at n = nm (at n = 10 the note's 0.423,
        // 0.359, 0.094 and 0.594, 0.542, 0.335; checked in dropless-model).
        for (name, r, e) in runs.iter() {
            let (a, j) = (e[nm - 1].x1_over_fair, e[nm - 1].jain);
            o.check(Check::new(
                format!("{name} x1/(c/n) at n={nm}"),
                a,
                r.x1_over_fair(nm),
                Tol::Rel(0.10),
            ));
            o.check(Check::new(
                format!("{name} Jain at n={nm}"),
                j,
                r.jain(nm),
                Tol::Rel(0.10),
            ));
        }
    } else {
        o.title = "buffer growth p(n)/p(1)".into();
        o.expected = "p(10)/p(1) = 23.6 (FAST), 27.9 (Vegas 250), 106 (Vegas 2475) (CI: n = 6), ±10%; Vegas grows faster, more so for larger alpha+".into();
        let m: Vec<f64> = runs.iter().map(|r| r.1.p_over_p1(nm)).collect();
        for ((name, _, e), mi) in runs.iter().zip(&m) {
            o.check(Check::new(
                format!("{name} p({nm})/p(1)"),
                e[nm - 1].p_over_p1,
                *mi,
                Tol::Rel(0.10),
            ));
        }
        o.check(Check::flag(
            "ordering FAST < Vegas 250 < Vegas 2475",
            m[0] < m[1] && m[1] < m[2],
        ));
        o.notes
            .push("| n | FAST p(n)/p(1) (theory) | Vegas 250 | Vegas 2475 |".into());
        o.notes.push("|---|---|---|---|".into());
        for n in [2, 3, 5, nm] {
            o.notes.push(format!(
                "| {n} | {} ({}) | {} ({}) | {} ({}) |",
                fmt_num(f.p_over_p1(n)),
                fmt_num(fr[n - 1].p_over_p1),
                fmt_num(v1.p_over_p1(n)),
                fmt_num(v1r[n - 1].p_over_p1),
                fmt_num(v2.p_over_p1(n)),
                fmt_num(v2r[n - 1].p_over_p1),
            ));
        }
    }
    o
}

fn e9(scale: Scale) -> Outcome {
    // The set-up of ns-2, which the thesis ran (note §1.4: its Vegas module
    // modified to the prose form), where the thesis says nothing else:
    // * Vegas slow start, doubling every other RTT while diff < gamma+ =
    //   alpha+ (ns-2's v_gamma_ = v_alpha_), left with the window cut by an
    //   eighth (`tcp-vegas.cc`). Without slow start flow 3 needs ~4e7 s at
    //   +1 pkt/RTT to build its ~60000-packet window.
    // * Initial window 1 (ns-2 `windowInit_`), every packet ACKed (ns-2
    //   TCPSink; our default).
    // * RTO ceiling 100000 s (ns-2 `maxrto_`; ours is 60 s, below the
    //   ~500 s RTT of three flows). Initial RTO 60 s: the thesis gives none,
    //   and ns-2's 6 s (`rtxcur_init_`) would expire before flow 3's first
    //   ACK (~23 s) and end its slow start at cwnd 2.
    // * Flow 1 starts at 1 ms: the transport reads timestamp 0 as "none",
    //   so packets sent at exactly t = 0 give no RTT sample, and flow 1
    //   would take its base RTT (~80 ms) from packets queued behind its own
    //   initial window instead of the first packet's 40 ms + one packet
    //   time (48.8 ms; the thesis's "8 ms packetisation delay").
    // * Flows 2 and 3 at 2000 s and 50000 s, run 2e6 s (1.5e6 s in CI), so
    //   that each slow-start overshoot has decayed at -1/+1 pkt per RTT
    //   (flow 3's RTT is ~500 s) before the measurement window.
    let c = 125.0;
    let d = 0.04;
    let starts = vec![0.001, 2000.0, 50000.0];
    let end = match scale {
        Scale::Full => 2.0e6,
        Scale::Ci => 1.5e6,
    };
    let make = |_| {
        let mut f = vegas(2500.0, 2525.0, d)
            .param("slow_start", 1.0)
            .param("ss_exit_cut", 2.0)
            .param("initial_cwnd", 1.0);
        f.initial_rto = secs(60.0);
        f.max_rto = secs(100_000.0);
        f
    };
    let (run, r) = persistent(c, make, &starts, end, 0.25, 10.0);
    let p: Vec<f64> = run.rows.iter().map(|(q, _)| q / c).collect();
    let theory = model::vegas_persistent_delays(3, 2500.0, c, d);
    let d_meas = r.flows[0].min_rtt_s;
    let theory_meas_d = model::vegas_persistent_delays(3, 2500.0, c, d_meas);
    let mut o = Outcome {
        title: "pathological prose Vegas, Table 4.1".into(),
        setup: format!(
            "alpha+ 2500, beta+ 2525 pkt/s, C = 125 pkt/s (1.04 Mb/s), RTT 40 ms (+{:.1} ms packetisation: measured base RTT {:.1} ms), flows at {} s, run {end:.0} s (10 s samples); as ns-2: Vegas slow start (doubling every other RTT while diff < alpha+, window cut by 1/8 at exit), initial window 1, every packet ACKed, RTO ceiling 1e5 s; initial RTO 60 s",
            (d_meas - d) * 1e3,
            d_meas * 1e3,
            starts.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>().join("/")
        ),
        expected: "p(1..3) = 0.976, 21.68, 426.19 s (the thesis's simulation, Table 4.1) within 20%; eq. (4.10) at d = 40 ms (0.8, 18.4, 403.3) is 20-25% lower, which the thesis attributes to the packetisation delay in the measured base RTT (until 2026-11-22 this item was checked against those 40 ms values, a check the thesis's own p(1) fails by 22%); the newest flow takes almost all capacity".into(),
        ..Outcome::default()
    };
    // Table 4.1's reproduction target is its simulation row (note §8 item
    // 9: "Expect p(1), p(2), p(3) = 0.976, 21.68, 426.19 s (thesis
    // simulation)"). Until stop 11 this compared with eq. (4.10) at
    // d = 40 ms, a check the thesis's own p(1) fails (+22%): the thesis
    // explains that gap by the 8 ms packetisation in the measured base RTT.
    // Eq. (4.10) at the measured base RTT is reported beside it (note):
    // measured p(1..3) = 0.983, 22.89, 502.5 s (full length) against
    // 0.976, 22.41, 492.0 s there (within 2.1%), 23-25% above the 40 ms
    // values. Before the ns-2 set-up above (initial window 10 at t = 0, so
    // no RTT sample from it and a base RTT of 80 ms; slow start keeping its
    // window; 60 s RTO ceiling and 1 s initial RTO, which fired spuriously;
    // 40000 s run) the run measured 1.639, 8.784, 32.2 s, newest share 0.354.
    const THESIS_SIM: [f64; 3] = [0.976, 21.68, 426.19];
    for i in 0..3 {
        o.check(Check::new(
            format!("p({}) s", i + 1),
            THESIS_SIM[i],
            p[i],
            Tol::Rel(0.20),
        ));
    }
    let x = &run.rows[2].1;
    o.check(Check::new(
        "newest flow's share with 3 flows",
        0.9,
        x[2] / x.iter().sum::<f64>(),
        Tol::AtLeast,
    ));
    o.notes.push(format!(
        "eq. (4.10) at the measured base RTT {:.1} ms: p = {}, {}, {} s; at d = 40 ms: {}, {}, {} s; measured {}, {}, {} s",
        d_meas * 1e3,
        fmt_num(theory_meas_d[0]),
        fmt_num(theory_meas_d[1]),
        fmt_num(theory_meas_d[2]),
        fmt_num(theory[0]),
        fmt_num(theory[1]),
        fmt_num(theory[2]),
        fmt_num(p[0]),
        fmt_num(p[1]),
        fmt_num(p[2])
    ));
    o
}

fn e10(scale: Scale) -> Outcome {
    let mut o = Outcome {
        title: "two-flow closed forms".into(),
        setup: "FAST two-flow persistent congestion in three set-ups (alpha/C/RTT = 200/12019/100 ms, 50/3000/20 ms, 400/24038/200 ms); prose Vegas two-flow at alpha+/c = 0.02 (250/12500) and 0.198 (2475/12500, CI: /4)".into(),
        expected: "older FAST flow's share 1/(1+phi_g) = 0.382 (4.23) regardless of alpha, c, d, ±5%; prose Vegas 2/(3+a+sqrt((1+a)(5+a))) (4.22): 0.3786, 0.3513, ±5%".into(),
        ..Outcome::default()
    };
    for (alpha, c, d) in [
        (200.0, pps(100e6), 0.1),
        (50.0, 3000.0, 0.02),
        (400.0, 2.0 * pps(100e6), 0.2),
    ] {
        let flows = vec![
            at(fast(alpha, d), 0.0, None),
            at(fast(alpha, d), 20.0, None),
        ];
        let r = run(dumbbell(c, 10_000_000, flows, 45.0, 0.05));
        let x1 = rate(&r, 0, 35.0, 45.0);
        let x2 = rate(&r, 1, 35.0, 45.0);
        o.check(Check::new(
            format!("FAST older share, alpha {alpha}, C {c:.0}, RTT {d}"),
            model::fast_two_flow_share(),
            x1 / (x1 + x2),
            Tol::Rel(0.05),
        ));
    }
    for ap in [250.0, 2475.0] {
        let k = if scale == Scale::Ci && ap > 1000.0 {
            4.0
        } else {
            1.0
        };
        let c = 12500.0 / k;
        let rows = model::vegas_persistent_table(2, ap / k, c, 0.04);
        let (starts, end) = vegas_starts(&rows, 0.04, 2);
        let (run, _) = persistent(
            c,
            |_| vegas(ap / k, (ap + 25.0) / k, 0.04),
            &starts,
            end,
            0.25,
            0.1,
        );
        let x = &run.rows[1].1;
        o.check(Check::new(
            format!("Vegas older share, alpha+/c = {:.3}", ap / 12500.0),
            model::vegas_two_flow_share(ap / 12500.0),
            x[0] / (x[0] + x[1]),
            Tol::Rel(0.05),
        ));
    }
    o.notes.push(format!(
        "the a = 20 case (0.0436, Table 4.1 set-up) is item 9's two-flow interval; closed form {:.4}",
        model::vegas_two_flow_share(20.0)
    ));
    o
}

/// N existing flows (started together) plus one new flow at `t_new`.
/// One run of items 11/12: `n` FAST flows (alpha 50, RTT `d_old`) from 0 s
/// and one new flow (RTT `d_new`) at `t_new`. Returns x_old/x_new over the
/// last 40% of the time after the arrival, whether the new flow's final
/// baseRTT is its true propagation delay, the mean queue over the 2 s
/// before the arrival divided by `n alpha` (1 when the old flows are in the
/// equilibrium of eq. (4.6), as the thesis's set-up requires), and the run.
fn new_flow_run(
    n: usize,
    d_old: f64,
    d_new: f64,
    four_phase: bool,
    c: f64,
    t_new: f64,
    end: f64,
) -> (f64, bool, f64, SimResult) {
    let mut flows: Vec<FlowSpec> = (0..n).map(|_| fast(50.0, d_old)).collect();
    let mut nf = at(fast(50.0, d_new), t_new, None);
    if four_phase {
        nf = nf.param("four_phase", 1.0);
    }
    flows.push(nf);
    // RTO floor 1 s (RFC 6298 (2.4)) instead of the transport's 200 ms: the
    // transport takes an RTT sample from every ACK, so after the steady
    // queue before the arrival the RTO of a 200 ms flow sits a few ms above
    // its RTT, and the queue's regrowth at the end of the depletion phase
    // fired spurious timeouts that aborted the four phases (case a,
    // N = 9-12, with the 200 ms floor; ratios within 3% of these). ns-2,
    // which the thesis used, times one packet per RTT for its RTO.
    for f in flows.iter_mut() {
        f.min_rto = dropless_cc::SECOND;
    }
    let r = run(dumbbell(c, 10_000_000, flows, end, 0.05));
    let q_pre = queue(&r, 0, t_new - 2.0, t_new) / (n as f64 * 50.0);
    let meas0 = end - (end - t_new) * 0.4;
    let x_new = rate(&r, n, meas0, end);
    let x_old: f64 = (0..n).map(|f| rate(&r, f, meas0, end)).sum::<f64>() / n as f64;
    // Drained: the new flow's baseRTT after its phases is within 1 ms of
    // its true propagation delay.
    let base = r.series.flows[n]
        .var("base_rtt")
        .and_then(|v| v.last().copied())
        .unwrap_or(f64::NAN);
    let drained = (base - d_new).abs() < 0.001 + 2.0 * WIRE * 8.0 / bps(c);
    (x_old / x_new, drained, q_pre, r)
}

fn e11_12(scale: Scale, four_phase: bool, plots: bool) -> Outcome {
    let c = pps(100e6);
    let ns: Vec<usize> = match scale {
        Scale::Full => (1..=15).collect(),
        Scale::Ci => {
            if four_phase {
                vec![1, 2, 3, 4, 5, 8, 9, 10, 12, 14]
            } else {
                vec![1, 3, 5, 10, 15]
            }
        }
    };
    let cases = [("a", 0.2, 0.2), ("b", 0.2, 0.04), ("c", 0.04, 0.2)];
    // The thesis's set-up has the N old flows in equilibrium with the true d
    // when the new flow arrives (§4.4.1, note §4.7). Pure FAST from a small
    // window grows by at most gamma alpha = 25 packets per update (every
    // other RTT), so one old flow at 200 ms needs about 2400/25 * 0.4 s
    // = 38 s to fill the 2404-packet pipe: the arrival is at 50 s, and the
    // run lasts 100 s more so that the new 200 ms flow (same growth limit)
    // has converged before the measurement window (the last 40 s). The
    // precondition is checked: the queue just before the arrival is N alpha.
    let (t_new, end) = (50.0, 150.0);
    let mut o = Outcome {
        setup: format!(
            "N = {} FAST flows (alpha 50) started together at 0 s, one new flow at {t_new} s (once the old flows are in equilibrium, queue N alpha), C = {c:.0} pkt/s (100 Mb/s of 1040 B), RTO floor 1 s; RTT old/new: (a) 200/200, (b) 200/40, (c) 40/200 ms; run {end} s, ratio x_old/x_new over the last 40% of the time after the arrival{}",
            ns.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(","),
            if four_phase { "; the new flow uses the four-phase start with r = alpha = 50" } else { "" }
        ),
        ..Outcome::default()
    };
    let mut table = vec![
        "| N | predicted b1/(N alpha + b1) | (a) | (b) | (c) | T exact ms | T approx ms |"
            .to_string(),
        "|---|---|---|---|---|---|---|".to_string(),
    ];
    let mut ratios: Vec<Vec<(usize, f64, bool)>> = vec![vec![]; 3];
    let mut plot_runs = Vec::new();
    let mut q_pre_worst: (f64, usize, &str) = (1.0, 0, "");
    for &n in &ns {
        let mut row = format!("| {n} | {} |", fmt_num(model::new_flow_ratio(n)));
        for (k, (_, d_old, d_new)) in cases.iter().enumerate() {
            let (ratio, drained, q_pre, r) =
                new_flow_run(n, *d_old, *d_new, four_phase, c, t_new, end);
            ratios[k].push((n, ratio, drained));
            if (q_pre - 1.0).abs() > (q_pre_worst.0 - 1.0).abs() {
                q_pre_worst = (q_pre, n, cases[k].0);
            }
            row += &format!(
                " {}{} |",
                fmt_num(ratio),
                if four_phase {
                    if drained {
                        " (drained)"
                    } else {
                        ""
                    }
                } else {
                    ""
                }
            );
            if plots && four_phase && k == 0 && (n == 5 || n == 14) {
                plot_runs.push((n, r));
            }
        }
        row += &format!(
            " {:.1} | {:.1} |",
            model::drain_time_limit(n, 50.0, c) * 1e3,
            model::drain_time_thesis_approx(n, 50.0, c) * 1e3
        );
        table.push(row);
    }
    o.notes = table;
    // Set-up precondition (thesis §4.4.1): old flows in equilibrium with
    // the true d, i.e. queue N alpha (eq. (4.6)), when the new flow arrives.
    o.check(Check::new(
        format!(
            "old flows in equilibrium at the arrival: queue over the 2 s before / (N alpha), worst run (case {}, N = {})",
            q_pre_worst.2, q_pre_worst.1
        ),
        1.0,
        q_pre_worst.0,
        Tol::Rel(0.05),
    ));
    if !four_phase {
        o.title = "N flows + one new flow, pure FAST (Fig. 4.10 baseline)".into();
        o.expected = "x_old/x_new = b1/(N alpha + b1) (4.26) ±10% for cases (a) and (b) (0.618 at N=1 ... 0.227 at N=15); case (c) fairer (ratio above the prediction)".into();
        for k in 0..2 {
            for &(n, ratio, _) in &ratios[k] {
                o.check(Check::new(
                    format!("case {} N={n}", cases[k].0),
                    model::new_flow_ratio(n),
                    ratio,
                    Tol::Rel(0.10),
                ));
            }
        }
        for &(n, ratio, _) in &ratios[2] {
            o.check(Check::new(
                format!("case c N={n} (fairer than predicted)"),
                model::new_flow_ratio(n),
                ratio,
                Tol::AtLeast,
            ));
        }
    } else {
        o.title = "four-phase start, Fig. 4.10".into();
        o.expected = "fair (ratio >= 0.85) for N up to a threshold between 9 and 11 when the old flows' RTT is 200 ms (cases a, b) and between 2 and 3 when it is 40 ms (case c); below the fair level beyond the threshold (N >= threshold + 2 checked); queue drains (new flow measures the true d) wherever T(N) < old RTT".into();
        for (k, (name, d_old, _)) in cases.iter().enumerate() {
            let (lo, hi) = if *d_old > 0.1 { (9, 11) } else { (2, 3) };
            // Largest N such that every tested N' <= N is fair.
            let mut thr = 0;
            for &(n, ratio, _) in &ratios[k] {
                if ratio >= 0.85 {
                    thr = n;
                } else {
                    break;
                }
            }
            // The threshold is known to the tested grid: the largest tested
            // N at or below lo is the lowest acceptable value.
            let grid_lo = ratios[k]
                .iter()
                .map(|x| x.0)
                .filter(|&m| m <= lo)
                .max()
                .unwrap_or(0);
            let tested_hi = ratios[k].iter().map(|x| x.0).max().unwrap_or(0);
            if tested_hi > hi {
                let mid = (grid_lo + hi) as f64 / 2.0;
                o.check(Check::new(
                    format!(
                        "case {name}: largest N with every N' <= N fair (accept {grid_lo}..={hi})"
                    ),
                    mid,
                    thr as f64,
                    Tol::Abs((hi - grid_lo) as f64 / 2.0),
                ));
            }
            let above: Vec<&(usize, f64, bool)> =
                ratios[k].iter().filter(|x| x.0 >= hi + 2).collect();
            if !above.is_empty() {
                o.check(Check::flag(
                    format!(
                        "case {name}: not fair for N >= {} (ratios {})",
                        hi + 2,
                        above
                            .iter()
                            .map(|x| fmt_num(x.1))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    above.iter().all(|x| x.1 < 0.85),
                ));
            }
            let should: Vec<usize> = ratios[k]
                .iter()
                .filter(|x| model::drain_time_limit(x.0, 50.0, c) < *d_old)
                .map(|x| x.0)
                .collect();
            let missed: Vec<usize> = ratios[k]
                .iter()
                .filter(|x| should.contains(&x.0) && !x.2)
                .map(|x| x.0)
                .collect();
            o.check(Check::flag(
                format!("case {name}: queue drained for every N with T(N) < {:.0} ms (missed: {missed:?})", d_old * 1e3),
                missed.is_empty(),
            ));
        }
        for (n, r) in plot_runs {
            let nm: Vec<String> = (0..n)
                .map(|i| format!("old {}", i + 1))
                .chain(["new (four-phase)".to_string()])
                .collect();
            let mut rates = rate_lines(&r, 0.25, &nm);
            // Old flows: show their mean only, to keep the plot readable.
            let old: Vec<(String, Vec<f64>, Vec<f64>)> = rates.drain(..n).collect();
            let mean_old = (
                format!("old flows (mean of {n})"),
                old[0].1.clone(),
                (0..old[0].2.len())
                    .map(|i| old.iter().map(|l| l.2[i]).sum::<f64>() / n as f64)
                    .collect(),
            );
            rates.insert(0, mean_old);
            // alpha (constant 50: no alpha-adjusting here) of the first old
            // flow and of the new flow.
            let mut alpha = var_lines(&r, "alpha", 0.25, &nm);
            let alpha_new = alpha.pop();
            alpha.truncate(1);
            alpha.extend(alpha_new);
            let mut base = var_lines(&r, "base_rtt", 0.25, &nm);
            let base_new = base
                .pop()
                .map(|(l, x, y)| (l, x, y.iter().map(|v| v * 1e3).collect::<Vec<_>>()));
            o.plots.push(Plot {
                name: format!("exp12_four_phase_N{n}"),
                title: format!(
                    "Exp. 12(a): {n} old flows (200 ms) + one four-phase flow (T = {:.0} ms)",
                    model::drain_time_limit(n, 50.0, c) * 1e3
                ),
                panels: vec![
                    ("rate (pkt/s)".into(), rates),
                    ("queue (pkts)".into(), queue_line(&r, 0.05)),
                    (
                        "new flow baseRTT (ms)".into(),
                        base_new.into_iter().collect(),
                    ),
                    ("alpha (pkts, constant)".into(), alpha),
                ],
            });
        }
    }
    o
}

fn e13(scale: Scale) -> Outcome {
    let c = pps(100e6);
    let _ = scale; // full length in both scales (60 s of 12019 pkt/s)
    let (sp, end) = (20.0, 60.0);
    let mk = || fast(200.0, 0.1).param("four_phase", 1.0);
    let flows = vec![
        at(mk(), 0.0, None),
        at(mk(), sp, None),
        at(mk(), 2.0 * sp, None),
    ];
    let r = run(dumbbell(c, 10_000_000, flows, end, 0.01));
    let mut o = Outcome {
        title: "four-phase, Fig. 4.9 (three flows)".into(),
        setup: format!("3 four-phase FAST flows, alpha 200, r = 200, 100 Mb/s (assumed), RTT 100 ms (assumed), starts 0/{sp}/{} s, {end} s", 2.0 * sp),
        expected: "shares about 1/3 each (standard FAST: 0.217/0.278/0.505) and queue ≈ 3 alpha = 600 (not 920), ±10%; two flows 0.5/0.5 before the third; utilisation over the run >= 95%".into(),
        ..Outcome::default()
    };
    let x: Vec<f64> = (0..3).map(|f| rate(&r, f, end - 10.0, end)).collect();
    let s: f64 = x.iter().sum();
    for (j, xj) in x.iter().enumerate() {
        o.check(Check::new(
            format!("share of flow {} with 3 flows", j + 1),
            1.0 / 3.0,
            xj / s,
            Tol::Rel(0.10),
        ));
    }
    o.check(Check::new(
        "queue with 3 flows",
        600.0,
        queue(&r, 0, end - 10.0, end),
        Tol::Rel(0.10),
    ));
    let y: Vec<f64> = (0..2)
        .map(|f| rate(&r, f, 2.0 * sp - 8.0, 2.0 * sp))
        .collect();
    o.check(Check::new(
        "share of flow 1 with 2 flows",
        0.5,
        y[0] / (y[0] + y[1]),
        Tol::Rel(0.10),
    ));
    o.check(Check::new(
        "queue with 2 flows",
        400.0,
        queue(&r, 0, 2.0 * sp - 8.0, 2.0 * sp),
        Tol::Rel(0.10),
    ));
    o.check(Check::new(
        "utilisation",
        0.95,
        r.links[0].utilization,
        Tol::AtLeast,
    ));
    o
}

/// Transmission times on the B5 script's links that our dumbbell's fixed
/// return path leaves out (note §6.1, B5: "access links 400 Mb/s, 0 ms";
/// S1-S3 -> B1 -> B2 -> D1-D3 with duplex links): the data packet's 1040
/// bytes on the egress access link B2 -> D (400 Mb/s, 20.8 us) and the
/// 40-byte ACK (ns-2 `TCPSink`) on the three reverse links D -> B2 -> B1 ->
/// S (400, 200 and 400 Mb/s: 0.8 + 1.6 + 0.8 us): 24.0 us per round trip.
/// The ingress access link and the bottleneck are modelled as links.
pub const B5_SERIALISATION_S: f64 =
    1040.0 * 8.0 / 400e6 + 40.0 * 8.0 / 400e6 + 40.0 * 8.0 / 200e6 + 40.0 * 8.0 / 400e6;

fn overflow_link(mut flows: Vec<FlowSpec>, buffer: u64, end: f64, sample: f64) -> SimConfig {
    // B5 script: 200 Mb/s, 50 ms bottleneck (RTT 100 ms), access 400 Mb/s.
    // Drops at a full drop-tail queue depend on where the ACK-clocked
    // arrivals fall within a bottleneck packet time (41.6 us), so the
    // round trip includes B5's serialisation times as ns-2 has them.
    for f in &mut flows {
        f.rtt = f.rtt.map(|r| r + secs(B5_SERIALISATION_S));
    }
    SimConfig {
        seed: 1,
        duration: secs(end),
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(200e6, 50 * MILLISECOND, Buffer::Packets(buffer)),
            access_rate_bps: Some(400e6),
        },
        flows,
        cross: vec![],
        sample_interval: secs(sample),
        flow_series: true,
    }
}

/// Item 14's three flows (B5: alpha 800, starts 0/20/40 s, stops
/// 200/180/160 s).
fn e14_flows() -> Vec<FlowSpec> {
    vec![
        at(fast(800.0, 0.1), 0.0, Some(200.0)),
        at(fast(800.0, 0.1), 20.0, Some(180.0)),
        at(fast(800.0, 0.1), 40.0, Some(160.0)),
    ]
}

/// Item 14's run length at `scale`.
fn e14_end(scale: Scale) -> f64 {
    if scale == Scale::Full {
        200.0
    } else {
        140.0
    }
}

/// Item 14 with [`Bg::Jitter`]`(seed)`: the run and its rates over 40-140 s.
pub fn e14_jittered(seed: u64, scale: Scale) -> (SimResult, Vec<f64>) {
    let cfg = overflow_link(e14_flows(), 1300, e14_end(scale), 0.05);
    let v = run(SimConfig {
        seed,
        ..cfg.with_packet_time_jitter()
    });
    let x = (0..3).map(|f| rate(&v, f, 40.0, 140.0)).collect();
    (v, x)
}

/// The best flow's share of the summed rates.
pub fn best_share(x: &[f64]) -> f64 {
    x.iter().cloned().fold(0.0, f64::max) / x.iter().sum::<f64>()
}

fn e14(scale: Scale) -> Outcome {
    let end = e14_end(scale);
    let r = run(overflow_link(e14_flows(), 1300, end, 0.05));
    let c = pps(200e6);
    let mut o = Outcome {
        title: "buffer overflow, original FAST (Appendix B5)".into(),
        setup: format!("3 FAST flows, alpha 800, buffer 1300 pkts (< 3 alpha), 200 Mb/s, 50 ms one way, access 400 Mb/s, starts 0/20/40 s, stops 200/180/160 s; run {end} s"),
        expected: "repeated overflows after the 2nd flow starts (>= 10 drop episodes in 20-140 s); window halvings in every flow; persistent dominance over 40-140 s: best flow's share >= 0.40 (c/3 = 0.333) and Jain <= 0.95".into(),
        ..Outcome::default()
    };
    let ev: Vec<usize> = (0..3).map(|f| loss_events(&r, f, 20.0, 140.0)).collect();
    o.check(Check::new(
        "loss events of all flows 20-140 s",
        10.0,
        ev.iter().sum::<usize>() as f64,
        Tol::AtLeast,
    ));
    for (f, e) in ev.iter().enumerate() {
        o.check(Check::new(
            format!("halvings of flow {}", f + 1),
            1.0,
            *e as f64,
            Tol::AtLeast,
        ));
    }
    let x: Vec<f64> = (0..3).map(|f| rate(&r, f, 40.0, 140.0)).collect();
    o.check(Check::new(
        "best flow's share 40-140 s",
        0.40,
        best_share(&x),
        Tol::AtLeast,
    ));
    o.check(Check::new(
        "Jain 40-140 s",
        0.95,
        dropless_sim::jain(&x),
        Tol::AtMost,
    ));
    o.notes.push(format!(
        "rates 40-140 s: {} pkt/s (c = {c:.0}); loss events {ev:?}; timeouts {:?}",
        x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(", "),
        r.flows.iter().map(|f| f.timeouts).collect::<Vec<_>>()
    ));
    if scale == Scale::Full {
        // Variants (not part of pass/fail): the phase-breaking send jitter.
        for seed in E14_JITTER_SEEDS {
            let (v, x) = e14_jittered(seed, scale);
            o.notes.push(format!(
                "- variant, {}: rates 40-140 s {} pkt/s, best share {:.3}, Jain {:.3}; loss events 20-140 s {:?}; timeouts {:?}",
                variant_label(Bg::Jitter(seed), false),
                x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(", "),
                best_share(&x),
                dropless_sim::jain(&x),
                (0..3).map(|f| loss_events(&v, f, 20.0, 140.0)).collect::<Vec<_>>(),
                v.flows.iter().map(|f| f.timeouts).collect::<Vec<_>>()
            ));
        }
    }
    o
}

/// Base RTT one FAST flow measures on the B5 link (item 14-16 set-up),
/// in seconds: the ns-2 script's 100 ms + 20.8 (ingress) + 41.6
/// (bottleneck) + 20.8 (egress) + 3.2 us (ACK) = 100.0864 ms.
pub fn b5_base_rtt() -> f64 {
    let r = run(overflow_link(vec![fast(100.0, 0.1)], 1300, 1.0, 0.1));
    r.flows[0].min_rtt_s
}

/// Background traffic on the bottleneck of items 15 and 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bg {
    /// None: the thesis's set-up as written.
    None,
    /// Constant-rate stream of 500-byte packets at 1% of the bottleneck: a
    /// phase-breaking device (as `tests/common/acwap.rs`, "Setup" of
    /// `docs/reports/acwap.md`). It moves the queue's departure grid by a
    /// fraction of a packet time every 20 us, so no flow's ACK clock stays
    /// locked to the slot a departure frees (Floyd and Jacobson's phase
    /// effect), while adding no random queue fluctuation.
    Cbr,
    /// Poisson arrivals of 1040-byte packets at 1% of the bottleneck
    /// (sensitivity check).
    Poisson,
    /// No background; instead every FAST flow's sends wait a random time
    /// in [0, one bottleneck packet time) (`FlowSpec::send_jitter`, ns-2's
    /// `overhead_`; Floyd and Jacobson's 1992 remedy for phase effects,
    /// random processing time up to the bottleneck service time), drawn
    /// with the given run seed.
    Jitter(u64),
}

/// One 1040-byte packet's time on the B5 bottleneck (200 Mb/s): the
/// upper end of the [`Bg::Jitter`] send delay (for labels).
const B5_PACKET_TIME_S: f64 = 1040.0 * 8.0 / 200e6;

/// Seeds of the [`Bg::Jitter`] variants of items 15 and 16.
pub const JITTER_SEEDS: [u64; 3] = [1, 2, 3];

/// Seeds of item 14's send-jitter variants (a 200-s run takes about 7 s).
pub const E14_JITTER_SEEDS: std::ops::RangeInclusive<u64> = 1..=13;

/// Items 15/16's two-flow run with background `bg`; `ns2` switches both
/// flows to the ns-2 module's loss recovery ([`ns2_recovery`]).
fn two_flow_overflow(pacing: bool, adjust: bool, end: f64, bg: Bg, ns2: bool) -> SimResult {
    let mk = || {
        let mut f = fast(800.0, 0.1);
        if pacing {
            f = f.param("decrease_pacing", 1.0);
        }
        if adjust {
            f = f.param("alpha_adjust", 1.0);
        }
        f
    };
    let flows = with_recovery(ns2, || vec![at(mk(), 0.0, None), at(mk(), 20.0, None)]);
    let mut cfg = overflow_link(flows, 1590, end, 0.02);
    let (kind, size) = match bg {
        Bg::None => return run(cfg),
        Bg::Jitter(seed) => {
            return run(SimConfig {
                seed,
                ..cfg.with_packet_time_jitter()
            })
        }
        Bg::Cbr => (dropless_sim::CrossKind::Constant, 500),
        Bg::Poisson => (dropless_sim::CrossKind::Poisson, 1040),
    };
    cfg.cross.push(dropless_sim::CrossSpec {
        kind,
        rate_bps: 200e6 * 0.01,
        packet_size: size,
        link: 0,
        start: 0,
        stop: None,
    });
    run(cfg)
}

/// Variants of items 15 and 16 reported beside the main set-up (thesis's
/// link, no background, the chapter's recovery [`module_recovery`]): the
/// phase-breaking CBR stream, Poisson background, the other recovery, and
/// the other recovery with the CBR stream. The flag selects the other
/// recovery.
const OVERFLOW_VARIANTS: [(Bg, bool); 7] = [
    (Bg::Cbr, false),
    (Bg::Poisson, false),
    (Bg::None, true),
    (Bg::Cbr, true),
    (Bg::Jitter(JITTER_SEEDS[0]), false),
    (Bg::Jitter(JITTER_SEEDS[1]), false),
    (Bg::Jitter(JITTER_SEEDS[2]), false),
];

/// Name of the chapter's recovery (`other` false) or of the other one.
fn recovery_name(other: bool) -> &'static str {
    if module_recovery() != other {
        "ns-2 module recovery"
    } else {
        "transport's default (RFC 6675) recovery"
    }
}

/// Label of an [`OVERFLOW_VARIANTS`] entry.
fn variant_label(bg: Bg, other: bool) -> String {
    let bg = match bg {
        Bg::None => None,
        Bg::Cbr => Some("CBR 1% (500 B)".to_string()),
        Bg::Poisson => Some("Poisson 1% (1040 B)".to_string()),
        Bg::Jitter(seed) => Some(format!(
            "send jitter U[0, {:.1} us), seed {seed}",
            B5_PACKET_TIME_S * 1e6
        )),
    };
    match (other, bg) {
        (false, Some(b)) => b,
        (true, Some(b)) => format!("{} + {b}", recovery_name(true)),
        (_, None) => recovery_name(true).to_string(),
    }
}

/// Item 15's checks on the runs without (a) and with (b) decrease pacing.
/// One line for a variant run (not part of pass/fail): its verdict and
/// every check's measured value, failures marked.
fn variant_summary(checks: &[Check]) -> String {
    let ok = checks.iter().all(|c| c.pass);
    let values = checks
        .iter()
        .map(|c| {
            format!(
                "{} {}{}",
                c.what,
                fmt_num(c.measured),
                if c.pass { "" } else { " (FAIL)" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{} — {values}",
        if ok { "all checks pass" } else { "fails" }
    )
}

fn e15_checks(a: &SimResult, b: &SimResult, end: f64) -> (Vec<Check>, Vec<String>) {
    let (t0, t1) = (30.0, end);
    let mut checks = Vec::new();
    let mut notes = Vec::new();
    for (lbl, r, unequal) in [("(a)", a, true), ("(b)", b, false)] {
        let x = [rate(r, 0, t0, t1), rate(r, 1, t0, t1)];
        let ratio = x[0].max(x[1]) / x[0].min(x[1]);
        let ev = [loss_events(r, 0, t0, t1), loss_events(r, 1, t0, t1)];
        if unequal {
            checks.push(Check::new(
                format!("{lbl} flow 2 / flow 1 loss events"),
                2.0,
                ev[1] as f64 / (ev[0].max(1)) as f64,
                Tol::AtLeast,
            ));
            checks.push(Check::new(
                format!("{lbl} rate ratio max/min"),
                1.25,
                ratio,
                Tol::AtLeast,
            ));
        } else {
            checks.push(Check::new(
                format!("{lbl} rate ratio max/min"),
                1.15,
                ratio,
                Tol::AtMost,
            ));
            let er = ev[0].max(ev[1]) as f64 / ev[0].min(ev[1]).max(1) as f64;
            checks.push(Check::new(
                format!("{lbl} loss-event ratio max/min"),
                2.0,
                er,
                Tol::AtMost,
            ));
        }
        notes.push(format!(
            "{lbl}: rates {} / {} pkt/s, loss events {} / {}, packets lost {} / {}, timeouts {} / {}",
            fmt_num(x[0]), fmt_num(x[1]), ev[0], ev[1],
            r.flows[0].packets_lost, r.flows[1].packets_lost, r.flows[0].timeouts, r.flows[1].timeouts
        ));
    }
    (checks, notes)
}

fn e15(scale: Scale, plots: bool) -> Outcome {
    let end = 100.0; // full length in both scales
    let m = module_recovery();
    let a = two_flow_overflow(false, false, end, Bg::None, m);
    let b = two_flow_overflow(true, false, end, Bg::None, m);
    let mut o = Outcome {
        title: "two-flow overflow without/with decrease pacing (§4.5.1-4.5.2)".into(),
        setup: format!("2 FAST flows, alpha 800, buffer 1590, 200 Mb/s, 50 ms one way (assumed: B5's link), flow 2 at 20 s, {end} s; (a) original, (b) Algorithm 1 decrease pacing; no background traffic, {}; variants with a phase-breaking CBR stream, Poisson background and the {} reported below", recovery_name(false), recovery_name(true)),
        expected: "(a) flow 2 halves repeatedly: >= 2x flow 1's loss events (30-100 s), long-term rate ratio max/min >= 1.25; (b) long-term averages about equal: ratio <= 1.15, loss events within a factor 2".into(),
        ..Outcome::default()
    };
    let (checks, notes) = e15_checks(&a, &b, end);
    o.checks = checks;
    o.notes = notes;
    let mut cbr_b = None;
    if scale == Scale::Full {
        // Variants (not part of pass/fail).
        for (bg, other) in OVERFLOW_VARIANTS {
            let lbl = variant_label(bg, other);
            let va = two_flow_overflow(false, false, end, bg, m != other);
            let vb = two_flow_overflow(true, false, end, bg, m != other);
            let (checks, notes) = e15_checks(&va, &vb, end);
            o.notes.push(format!(
                "- variant, {lbl}: {}; {}",
                variant_summary(&checks),
                notes.join("; ")
            ));
            if bg == Bg::Cbr && !other {
                cbr_b = Some(vb);
            }
        }
    }
    if plots {
        let n = names("flow", 2);
        let mut runs = vec![
            ("(a) original FAST", &a, "exp15a_no_pacing"),
            ("(b) decrease pacing", &b, "exp15b_decrease_pacing"),
        ];
        if let Some(v) = &cbr_b {
            runs.push((
                "(b) variant with the 1% CBR stream",
                v,
                "exp15b_decrease_pacing_cbr",
            ));
        }
        for (lbl, r, stem) in runs {
            o.plots.push(Plot {
                name: stem.into(),
                title: format!("Exp. 15 {lbl}: two FAST flows, alpha 800, buffer 1590"),
                panels: vec![
                    ("rate (pkt/s, 1 s means)".into(), rate_lines(r, 1.0, &n)),
                    ("cwnd (pkts)".into(), var_lines(r, "cwnd", 0.1, &n)),
                    ("queue (pkts)".into(), queue_line(r, 0.1)),
                    (
                        "alpha (pkts, constant)".into(),
                        var_lines(r, "alpha", 0.1, &n),
                    ),
                ],
            });
        }
    }
    o
}

/// Item 16's checks on one run (alphas, rates and queue over 40-100 s).
fn e16_checks(r: &SimResult, end: f64) -> (Vec<Check>, String) {
    let (t0, t1) = (40.0, end);
    let mut checks = Vec::new();
    let to: u64 = r.flows.iter().map(|f| f.timeouts).sum();
    checks.push(Check::new("RTOs", 0.0, to as f64, Tol::AtMost));
    let a1 = r.series.flows[0].var("alpha").unwrap();
    let a2 = r.series.flows[1].var("alpha").unwrap();
    let diff: Vec<f64> = a1.iter().zip(a2).map(|(x, y)| (x - y).abs()).collect();
    let md = window_mean(&r.series.t, &diff, t0, t1);
    checks.push(Check::new(
        "mean |alpha1 - alpha2| / alpha0",
        0.10,
        md / 800.0,
        Tol::AtMost,
    ));
    let x = [rate(r, 0, t0, t1), rate(r, 1, t0, t1)];
    checks.push(Check::new(
        "rate ratio max/min",
        1.10,
        x[0].max(x[1]) / x[0].min(x[1]),
        Tol::AtMost,
    ));
    let q = queue(r, 0, t0, t1);
    checks.push(Check::new(
        "mean queue / buffer",
        0.5,
        q / 1590.0,
        Tol::AtLeast,
    ));
    let lpe = r.flows.iter().map(|f| f.lost_per_event).fold(0.0, f64::max);
    checks.push(Check::new(
        "packets lost per loss event (worst flow)",
        5.0,
        lpe,
        Tol::AtMost,
    ));
    let events: Vec<String> = r
        .flows
        .iter()
        .map(|f| {
            f.events
                .iter()
                .map(|e| {
                    format!(
                        "{:.1} s{} {} lost",
                        dropless_cc::secs(e.time),
                        if e.rto { " RTO" } else { "" },
                        e.lost
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let note = format!(
        "rates {} / {} pkt/s; mean alpha {} / {}; loss events 40-100 s {} / {}; mean queue {}; every loss event, flow 1: [{}], flow 2: [{}]",
        fmt_num(x[0]),
        fmt_num(x[1]),
        fmt_num(window_mean(&r.series.t, a1, t0, t1)),
        fmt_num(window_mean(&r.series.t, a2, t0, t1)),
        loss_events(r, 0, t0, t1),
        loss_events(r, 1, t0, t1),
        fmt_num(q),
        events[0],
        events[1]
    );
    (checks, note)
}

fn e16(scale: Scale, plots: bool) -> Outcome {
    let end = 100.0; // full length in both scales
    let m = module_recovery();
    let r = two_flow_overflow(true, true, end, Bg::None, m);
    let mut o = Outcome {
        title: "alpha-adjusting, two flows (S1)".into(),
        setup: format!("as item 15(b) plus alpha-adjusting (halve on loss recovery, k = 0.1/s, floor alpha0/100), {end} s; no background, {}; variants as item 15 reported below", recovery_name(false)),
        expected: "no RTOs; alpha1 ≈ alpha2 (mean |alpha1 - alpha2| <= 10% of alpha0 over 40-100 s); equal windows/rates (ratio <= 1.10); queue stays below the buffer and rises towards it (mean over 40-100 s >= 50% of 1590); few packets per loss event (<= 5)".into(),
        ..Outcome::default()
    };
    let (checks, note) = e16_checks(&r, end);
    o.checks = checks;
    o.notes.push(note);
    let mut other_run = None;
    if scale == Scale::Full {
        for (bg, other) in OVERFLOW_VARIANTS {
            let lbl = variant_label(bg, other);
            let v = two_flow_overflow(true, true, end, bg, m != other);
            let (checks, note) = e16_checks(&v, end);
            o.notes.push(format!(
                "- variant, {lbl}: {}; {note}",
                variant_summary(&checks)
            ));
            if bg == Bg::None && other {
                other_run = Some(v);
            }
        }
    }
    if plots {
        let n = names("flow", 2);
        let mut runs = vec![(
            "Exp. 16: decrease pacing + alpha-adjusting, two flows, alpha0 800, buffer 1590",
            &r,
            "exp16_alpha_adjusting",
        )];
        if let Some(v) = &other_run {
            runs.push((
                if m {
                    "Exp. 16 variant with the transport's default recovery: decrease pacing + alpha-adjusting"
                } else {
                    "Exp. 16 variant with the ns-2 module's recovery: decrease pacing + alpha-adjusting"
                },
                v,
                if m {
                    "exp16_alpha_adjusting_default_recovery"
                } else {
                    "exp16_alpha_adjusting_ns2_recovery"
                },
            ));
        }
        for (title, r, stem) in runs {
            o.plots.push(Plot {
                name: stem.into(),
                title: title.into(),
                panels: vec![
                    ("alpha (pkts)".into(), var_lines(r, "alpha", 0.1, &n)),
                    ("rate (pkt/s, 1 s means)".into(), rate_lines(r, 1.0, &n)),
                    ("cwnd (pkts)".into(), var_lines(r, "cwnd", 0.1, &n)),
                    ("queue (pkts)".into(), queue_line(r, 0.1)),
                ],
            });
        }
    }
    o
}

fn s2_s3(alphas: [f64; 4], rtts: [f64; 4], end: f64) -> SimResult {
    let flows = alphas
        .iter()
        .zip(rtts)
        .map(|(a, d)| {
            fast(*a, d)
                .param("decrease_pacing", 1.0)
                .param("alpha_adjust", 1.0)
        })
        .collect();
    SimConfig {
        seed: 1,
        duration: secs(end),
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(400e6, MILLISECOND, Buffer::Packets(3190)),
            access_rate_bps: None,
        },
        flows,
        cross: vec![],
        sample_interval: secs(0.1),
        flow_series: true,
    }
    .pipe(run)
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}

fn e17(scale: Scale) -> Outcome {
    let end = if scale == Scale::Full { 300.0 } else { 150.0 };
    let r = s2_s3([800.0; 4], [0.04, 0.05, 0.06, 0.09], end);
    let c = pps(400e6);
    let mut o = Outcome {
        title: "alpha-adjusting, heterogeneous RTTs (S2)".into(),
        setup: format!("4 FAST flows with decrease pacing + alpha-adjusting, alpha0 800, RTT 40/50/60/90 ms, 400 Mb/s (C = {c:.0} pkt/s), buffer 3190, started together, {end} s; rates over the second half"),
        expected: "near-equal rates regardless of RTT: each within ±15% of C/4".into(),
        ..Outcome::default()
    };
    let x: Vec<f64> = (0..4).map(|f| rate(&r, f, end / 2.0, end)).collect();
    let tot: f64 = x.iter().sum();
    for (f, xf) in x.iter().enumerate() {
        o.check(Check::new(
            format!(
                "flow {} (RTT {} ms) rate / (sum/4)",
                f + 1,
                [40, 50, 60, 90][f]
            ),
            1.0,
            xf / (tot / 4.0),
            Tol::Rel(0.15),
        ));
    }
    o.notes.push(format!(
        "rates {} pkt/s (C/4 = {:.0}), Jain {:.3}, timeouts {:?}",
        x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(", "),
        c / 4.0,
        dropless_sim::jain(&x),
        r.flows.iter().map(|f| f.timeouts).collect::<Vec<_>>()
    ));
    o
}

fn e18(scale: Scale) -> Outcome {
    let end = if scale == Scale::Full { 300.0 } else { 150.0 };
    let al = [400.0, 600.0, 800.0, 1400.0];
    let r = s2_s3(al, [0.05; 4], end);
    let mut o = Outcome {
        title: "alpha-adjusting, heterogeneous alpha0 (S3)".into(),
        setup: format!("4 FAST flows with decrease pacing + alpha-adjusting, alpha0 400/600/800/1400, RTT 50 ms, 400 Mb/s, buffer 3190, started together, {end} s; second half"),
        expected: "rate shares 2:3:4:7 = 0.125/0.1875/0.25/0.4375 ±15%; alpha_i/alpha0_i equal across flows (each within ±10% of their mean)".into(),
        ..Outcome::default()
    };
    let x: Vec<f64> = (0..4).map(|f| rate(&r, f, end / 2.0, end)).collect();
    let tot: f64 = x.iter().sum();
    for f in 0..4 {
        o.check(Check::new(
            format!("share of flow {} (alpha0 {})", f + 1, al[f]),
            al[f] / 3200.0,
            x[f] / tot,
            Tol::Rel(0.15),
        ));
    }
    let norm: Vec<f64> = (0..4)
        .map(|f| var_mean(&r, f, "alpha", end / 2.0, end) / al[f])
        .collect();
    let m = norm.iter().sum::<f64>() / 4.0;
    for f in 0..4 {
        o.check(Check::new(
            format!("alpha/alpha0 of flow {} vs mean", f + 1),
            m,
            norm[f],
            Tol::Rel(0.10),
        ));
    }
    o.notes.push(format!(
        "rates {} pkt/s; alpha/alpha0 {}",
        x.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(", "),
        norm.iter()
            .map(|v| fmt_num(*v))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    o
}

/// Item 19's run: one FAST flow on B4's lossy link; `ns2` selects the ns-2
/// module's recovery, `mi` the MI threshold.
fn e19_run(ns2: bool, mi: f64) -> SimResult {
    let mut link = LinkSpec::new(100e6, 20 * MILLISECOND, Buffer::Packets(1000));
    link.loss = 1e-4;
    let f = with_recovery(ns2, || fast(100.0, 0.04).param("mi_threshold", mi));
    run(SimConfig {
        seed: 1,
        duration: secs(10.0),
        topology: Topology::Dumbbell {
            bottleneck: link,
            access_rate_bps: None,
        },
        flows: vec![f],
        cross: vec![],
        sample_interval: secs(0.002),
        flow_series: true,
    })
}

/// Highest queue within 1 s after any loss event.
fn peak_after_loss(r: &SimResult) -> f64 {
    let q = &r.series.links[0].queue_pkts;
    let mut peak: f64 = 0.0;
    for e in &r.flows[0].events {
        let te = dropless_cc::secs(e.time);
        for (t, v) in r.series.t.iter().zip(q) {
            if *t >= te && *t <= te + 1.0 {
                peak = peak.max(*v);
            }
        }
    }
    peak
}

fn e19(scale: Scale) -> Outcome {
    // B4 is the thesis's test of the ns-2 module's loss recovery ("this
    // experiment is to evaluate the loss recovery performance of FAST
    // TCP"; the spikes are blamed on that recovery, transplanted from
    // NewReno), so the flow uses the module's recovery (note §3.6; see
    // `ns2_recovery`). The transport's default recovery is reported too.
    let r = e19_run(true, 0.0);
    let c = pps(100e6);
    let mut o = Outcome {
        title: "random loss (Appendix B4)".into(),
        setup: "1 FAST flow, alpha 100, 100 Mb/s, 20 ms one way (RTT 40 ms), Bernoulli loss 1e-4 at the bottleneck, buffer 1000, 10 s; the ns-2 FAST module's loss recovery (note §3.6: fast retransmit at once, two packets per partial ACK, lost packets kept in the pipe, no estimation during recovery and the pre-loss flight as old_cwnd for packets sent in it)".into(),
        expected: "qualitative: keeps operating (goodput 2-10 s >= 50% of C), every loss recovered without timeout, queue spikes around Fast Recovery (peak queue within 1 s after a loss event > 1.5 alpha = 150)".into(),
        ..Outcome::default()
    };
    let x = rate(&r, 0, 2.0, 10.0);
    o.check(Check::new("goodput 2-10 s / C", 0.5, x / c, Tol::AtLeast));
    o.check(Check::new(
        "loss events",
        1.0,
        r.flows[0].congestion_events as f64,
        Tol::AtLeast,
    ));
    o.check(Check::new(
        "timeouts",
        0.0,
        r.flows[0].timeouts as f64,
        Tol::AtMost,
    ));
    o.check(Check::new(
        "peak queue within 1 s after a loss event",
        150.0,
        peak_after_loss(&r),
        Tol::AtLeast,
    ));
    o.notes.push(format!(
        "goodput {} pkt/s, {} loss events, mean queue {}, random drops {}",
        fmt_num(x),
        r.flows[0].congestion_events,
        fmt_num(queue(&r, 0, 2.0, 10.0)),
        r.links[0].random_drops
    ));
    if scale == Scale::Full {
        for (ns2, mi, lbl) in [
            (false, 0.0, "transport's default (RFC 6675) recovery"),
            (true, 0.00075, "ns-2 module recovery, mi_threshold 0.00075 s (module default, the B4 script sets none)"),
            (false, 0.00075, "default recovery, mi_threshold 0.00075 s"),
        ] {
            let v = e19_run(ns2, mi);
            o.notes.push(format!(
                "- variant, {lbl}: peak queue within 1 s after a loss event {}, goodput 2-10 s / C {}, timeouts {}",
                fmt_num(peak_after_loss(&v)),
                fmt_num(rate(&v, 0, 2.0, 10.0) / c),
                v.flows[0].timeouts
            ));
        }
    }
    o
}

/// FAST equilibrium on the B2 parking lot with baseRTT errors `delta`
/// (eqs. (4.13)-(4.16): `x_i = alpha/(Σ_{l in path} p_l - delta_i)`),
/// solved by nested bisection on the prices of the two saturated links.
fn parking_lot_equilibrium(phase: usize, alpha: f64, c: f64, delta2: f64) -> Vec<f64> {
    let bis = |f: &dyn Fn(f64) -> f64, lo: f64| {
        // f decreasing in p, root above lo.
        let (mut a, mut b) = (lo, lo + 1e-3);
        while f(b) > 0.0 {
            b = lo + 2.0 * (b - lo);
        }
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if f(m) > 0.0 {
                a = m
            } else {
                b = m
            }
        }
        0.5 * (a + b)
    };
    match phase {
        // Flows 1, 2 on link A.
        0 => {
            let pa = bis(&|p| alpha / p + alpha / (p - delta2) - c, delta2);
            vec![alpha / pa, alpha / (pa - delta2)]
        }
        // Flows 1, 2 (A), 1, 3 (B).
        1 => {
            let inner = |pa: f64| bis(&|pb| alpha / (pa + pb) + alpha / pb - c, 0.0);
            let pa = bis(
                &|pa| {
                    let pb = inner(pa);
                    alpha / (pa + pb) + alpha / (pa - delta2) - c
                },
                delta2,
            );
            let pb = inner(pa);
            vec![alpha / (pa + pb), alpha / (pa - delta2), alpha / pb]
        }
        // Flows 1, 2 (A), 1, 3, 4 (C).
        _ => {
            let inner = |pa: f64| bis(&|pc| alpha / (pa + pc) + 2.0 * alpha / pc - c, 0.0);
            let pa = bis(
                &|pa| {
                    let pc = inner(pa);
                    alpha / (pa + pc) + alpha / (pa - delta2) - c
                },
                delta2,
            );
            let pc = inner(pa);
            vec![
                alpha / (pa + pc),
                alpha / (pa - delta2),
                alpha / pc,
                alpha / pc,
            ]
        }
    }
}

fn e20(scale: Scale) -> Outcome {
    let (rate_bps, alpha) = match scale {
        Scale::Full => (1e9, 1000.0),
        Scale::Ci => (100e6, 100.0),
    };
    let c = pps(rate_bps);
    let link = LinkSpec::new(rate_bps, 20 * MILLISECOND, Buffer::Packets(10_000_000));
    let mk = |path: (usize, usize), start: f64| {
        let mut f = FlowSpec::bulk("fast", 0)
            .param("alpha", alpha)
            .param("mi_threshold", 0.0);
        f.rtt = None;
        f.path = path;
        f.mss = MSS;
        f.header = HDR;
        f.start = secs(start);
        if module_recovery() {
            f = ns2_recovery(f);
        }
        f
    };
    let cfg = SimConfig {
        seed: 1,
        duration: secs(100.0),
        topology: Topology::ParkingLot {
            links: vec![link; 3],
            access_rate_bps: None,
        },
        flows: vec![
            mk((0, 2), 0.0),
            mk((0, 0), 20.0),
            mk((1, 2), 40.0),
            mk((2, 2), 60.0),
        ],
        cross: vec![],
        sample_interval: secs(0.05),
        flow_series: true,
    };
    let r = run(cfg);
    // Flow 1 alone keeps alpha packets at the first link it crosses (A);
    // flow 2 (link A only) therefore over-estimates d by alpha/c. Flows 3
    // and 4 join links with no standing queue (downstream of the
    // bottleneck): no error.
    let delta2 = alpha / c;
    let mut o = Outcome {
        title: "multi-bottleneck (Appendix B2)".into(),
        setup: format!("parking lot of three {} Mb/s, 20 ms links (C = {c:.0} pkt/s), alpha {alpha}; flow 1 over A-B-C 0-100 s, flow 2 over A 20-100 s, flow 3 over B-C 40-100 s, flow 4 over C 60-100 s", rate_bps / 1e6),
        expected: format!("proportional fairness corrected for flow 2's baseRTT error alpha/c = {:.2} ms (eqs. (4.13)-(4.16)) ±10%; no oscillation: coefficient of variation of 1-s rates over the last 10 s of each interval < 5%", delta2 * 1e3),
        ..Outcome::default()
    };
    let ivals = [(20.0, 40.0, 2), (40.0, 60.0, 3), (60.0, 100.0, 4)];
    for (k, &(a, b, nf)) in ivals.iter().enumerate() {
        let e = parking_lot_equilibrium(k, alpha, c, delta2);
        let m0 = b - 10.0;
        for f in 0..nf {
            let x = rate(&r, f, m0, b);
            o.check(Check::new(
                format!("flow {} rate {a}-{b} s", f + 1),
                e[f],
                x,
                Tol::Rel(0.10),
            ));
            let (_, ys) = binned(&r.series.t, &r.series.flows[f].goodput_bps, 1.0, 1.0);
            let w: Vec<f64> = ys
                .iter()
                .enumerate()
                .filter(|(i, _)| (*i as f64) + 0.5 > m0 && (*i as f64) + 0.5 <= b)
                .map(|(_, v)| *v)
                .collect();
            let mean = w.iter().sum::<f64>() / w.len() as f64;
            let cv =
                (w.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / w.len() as f64).sqrt() / mean;
            o.check(Check::new(
                format!("flow {} CV {a}-{b} s", f + 1),
                0.05,
                cv,
                Tol::AtMost,
            ));
        }
        o.notes.push(format!(
            "{a}-{b} s: expected {} pkt/s (unbiased proportional fairness: {})",
            e.iter().map(|v| fmt_num(*v)).collect::<Vec<_>>().join(", "),
            match k {
                0 => "C/2, C/2",
                1 => "C/3, 2C/3, 2C/3",
                _ => "C/4, 3C/4, 3C/8, 3C/8",
            }
        ));
    }
    o
}

/// Known reasons for experiments that do not reproduce (filled in from the
/// full-length runs; `None` when the item passes or is not understood).
pub fn explain(id: u32) -> Option<&'static str> {
    Some(match id {
        7 => "Partly reproduces: every index falls with n and the orderings hold at most n, but FAST > Vegas 250 fails for x1/(c/n) and Jain at n = 2 (0.7670 vs 0.7690, 0.9485 vs 0.9493) and for Jain at n = 6-8 (e.g. 0.7239 vs 0.7307 at n = 6). There the theoretical margin is 0.3-3% (0.9472 vs 0.9443 at n = 2, 0.7217 vs 0.6931 at n = 6), while prose Vegas with alpha+ = 250 runs measurably fairer than eq. (4.10) (its Jain index up to 9% above theory) because its dead zone beta+ - alpha+ is 10% of alpha+, the 'slight difference' the thesis itself notes for this case. (Before the wire-format v2 timestamp fix the failures were Jain at n = 4-8.)",
        12 => "Partly reproduces. The queue empties in every run where the drain time T(N) is below the old flows' RTT (cases a and b: N <= 9, and also N = 10; case c: N <= 3); case (b) is fair up to N = 11 and case (c) up to N = 3, within the thesis's 9-11 and 2-3. Case (a) stays fair (ratio >= 0.85) up to N = 12, one above the accepted 9-11: at N = 11 and 12 the queue does not quite empty, but the partial drain removes most of the new flow's baseRTT error (ratios 0.95/0.93 at N = 11, 0.851/0.843 at N = 12 for cases a/b); above that the ratio falls back towards the pure-FAST curve (0.81/0.78 at N = 13, 0.65 at N = 15). Our thresholds follow a window limit rather than the thesis's time limit: while the old flows keep their windows, the queue can only drain down to N alpha - x1 d_old packets (x1 = 2C/(1 + sqrt(1 + 4N)) the new flow's rate), which is <= 0 up to N = 12 for d_old = 200 ms and up to N = 3 for 40 ms, the thresholds measured. The thesis's threshold 4.16(N^1.5 + N) ms < d_old (N <= 11) assumes the old flows refill the queue within one RTT; ours update every other RTT through a 255/256-per-ACK RTT average (module defaults) and react later, so at N = 11-12 the drain runs almost to the window limit.",
        14 => "Does not reproduce since the wire-format v2 timestamp fix (2026-11-22). The overflows and halvings are there (490 loss events of all flows in 20-140 s, 149-173 halvings and 21-36 timeouts per flow), but no flow dominates persistently: rates 7375 / 8549 / 5837 pkt/s over 40-140 s, best share 0.39 (needs >= 0.40), Jain 0.977 (needs <= 0.95). Before the fix the item passed (best share 0.48, Jain 0.91): flow 1 starts at t = 0, a send timestamp of 0 then read as 'no timestamp', and flow 1 took its base RTT from later packets, which had already queued; that error, not the overflows, made it dominate. With the transport's default recovery the three flows share almost equally (best share 0.34, Jain 0.998). The thesis's dominance (Fig. B.14) may come from the same kind of base-RTT error in the ns-2 run, or from phase effects of its deterministic drop-tail queue. The second is what we see: with a phase-breaking send jitter (each send delayed by U[0, 41.6 us), one bottleneck packet time; variants below, added 2026-11-23 after this item had failed) one flow dominates in every one of 13 seeds (best share 0.53-0.89, Jain 0.41-0.77, both checks met), and the CI test `e14_send_jitter_dominance_on_fresh_seeds` replicates it on seeds 14-16, which had not been run when the test was written (best share 0.79-0.90, Jain 0.41-0.52). The exactly deterministic run locks the three flows' arrivals into phases that spread the drops evenly; ns-2's deterministic run evidently did not. The chapter's set-up has no jitter (the thesis's scripts set no `overhead_`), so the item stays failed; whether the chapter should run with a jitter is for the lead to decide, and it would move other items too (the send-jitter column below).",
        15 => "Does not reproduce with the module's recovery (the chapter's set-up). (a) is unfair as the thesis says (rates 6160 / 17099 pkt/s, 2.78:1) but the roles are reversed: over 30-100 s it is flow 1, not the later flow 2, that keeps losing (loss events 107 / 55, ratio 0.51 against >= 2). (b) is even less fair (18920 / 4678 pkt/s, 4.04:1 against <= 1.15; loss events 34 / 97, 11 timeouts for flow 2). In this deterministic drop-tail simulation which flow takes the drops at the full queue is a phase effect (Floyd and Jacobson 1992): the packets that find no slot are the second ones of the pairs a growing flow sends per ACK, and where the flows' ACK-clocked arrivals fall within a 41.6 us bottleneck packet time decides whose they are. Item 15 is sensitive at that scale: before the timestamp fix and before the ns-2 topology's 24 us of serialisation were added to the round trip, adding 0, 5, 12, 24, 30 or 100 us to both flows' RTT gave (b) rate ratios 1.93, 2.68, 1.20, 1.52, 1.31 and 3.60 with the module's recovery, and 2.18, 2.18, 1.05, 1.05, 2.17 and 1.77 with the transport's default recovery. Variants with the module's recovery: the 1% CBR stream makes (b) fair (1.09:1, loss events 101 / 102) but (a) too (1.09:1); Poisson background gives (b) 1.15:1 and (a) 1.05:1. With the transport's default recovery (b) is 2.00:1 (1.12:1 with the CBR stream) and (a) 1.22:1 with a loss-event ratio of 0.67.",
        16 => "Reproduces in the steady state but fails the loss count per event because of flow 2's arrival. With the module's recovery (the chapter's set-up): no RTOs, the alphas stay together (mean |alpha1 - alpha2| 0.14% of alpha0 over 40-100 s), rates within 0.2% (12005 / 12026 pkt/s), queue at 91% of the buffer, and after the arrival each flow has one loss event of 1 packet (68.0 and 68.1 s): no consecutive losses. The check 'packets lost per loss event (worst flow) <= 5' counts the whole run, and flow 2's start at 21.1 s overflows the buffer (alpha 800 + 800 > 1590 packets) with 210 of its packets lost before alpha-adjusting, which acts only after a loss, can do anything: its mean is 105.5. The check's window was fixed before the run and is not changed. Before the wire-format v2 timestamp fix the same run also had consecutive losses at 68.0 and 68.5 s (69 and 109 packets). With the transport's default recovery (variant) the rates differ by 11.0% (limit 10%) and the arrival overflow fails the count the same way.",
        _ => return None,
    })
}
