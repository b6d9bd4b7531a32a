//! Full-length ACWAP experiments (seed 004): the single flow of Figs. 3 and
//! 6, Tables 1 and 2, their robustness to packet phases and background
//! traffic, the beta sweep of Figs. 7-9 and ACWAP around Scalable TCP and
//! BIC. Prints markdown (the source of docs/reports/acwap.md).
//!
//! ```text
//! cargo run --release -p dropless-sim --example acwap_tables            # everything, ~6 min on 2 cores
//! cargo run --release -p dropless-sim --example acwap_tables -- tables  # one section: single, tables, robust, sweep, wrappers
//! ACWAP_THREADS=4 cargo run ...                                          # parallel runs (default 2)
//! cargo run --release -p dropless-sim --example acwap_tables -- betaloss   # only on request: the loss-vs-beta
//!     # investigation (estimators, phase replicas, background, buffer; ~96 runs, 15-25 min on 2 cores);
//!     # ACWAP_BL_PARTS=single,pooled,ticks,robust,buffer,jitter selects parts, ACWAP_BL_SECS its run length
//! ```

#[path = "../tests/common/acwap.rs"]
mod acwap;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use acwap::*;
use dropless_cc::highspeed::hstcp_a;
use dropless_sim::SimConfig;

/// Tables 1-2 and the sweep: 400 s, measured over 50-400 s (the paper's).
const LONG: u64 = 400;
const FROM: f64 = 50.0;
/// Single flow: 200 s, events counted in 40-100 s as in Figs. 3a and 6.
const SINGLE: u64 = 200;

struct Job {
    name: String,
    cfg: SimConfig,
    from: f64,
    to: f64,
}

fn job(name: impl Into<String>, cfg: SimConfig, from: f64, to: f64) -> Job {
    let extra = extra_acwap_params();
    let extra: Vec<(&str, f64)> = extra.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    Job {
        name: name.into(),
        cfg: with_acwap_params(cfg, &extra),
        from,
        to,
    }
}

/// `ACWAP_PARAMS="k=v,k=v"` adds parameters to every ACWAP flow of every
/// run (e.g. `rtt_sampling=1` for the "per-RTT estimator everywhere" check
/// in the report's notes). Empty by default; a malformed entry stops the
/// program with exit code 2 before any run.
fn extra_acwap_params() -> Vec<(String, f64)> {
    let Ok(spec) = std::env::var("ACWAP_PARAMS") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for kv in spec.split(',').filter(|s| !s.trim().is_empty()) {
        let parsed = kv
            .split_once('=')
            .and_then(|(k, v)| Some((k.trim().to_string(), v.trim().parse::<f64>().ok()?)));
        match parsed {
            Some(p) => out.push(p),
            None => {
                eprintln!("ACWAP_PARAMS: entry {kv:?} is not key=number (e.g. rtt_sampling=1)");
                std::process::exit(2);
            }
        }
    }
    out
}

/// Runs the jobs on `ACWAP_THREADS` threads; results in job order.
fn run_all(jobs: Vec<Job>) -> Vec<Measured> {
    let threads: usize = std::env::var("ACWAP_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2)
        .max(1);
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Measured>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(j) = jobs.get(i) else { break };
                let t0 = Instant::now();
                let m = run(j.cfg.clone(), j.from, j.to);
                eprintln!(
                    "  {:<40} {:>6.1} s wall, {:>10} data packets",
                    j.name,
                    t0.elapsed().as_secs_f64(),
                    m.result.data_packets
                );
                out.lock().unwrap()[i] = Some(m);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|m| m.expect("every job ran"))
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.2}", 100.0 * x)
}

fn range(a: f64, b: f64) -> String {
    if a.is_nan() {
        "-".into()
    } else {
        format!("{a:.0}~{b:.0}")
    }
}

fn arange(r: &Row) -> String {
    if r.loss.loss_events == 0 {
        return "-".into();
    }
    let (a, b) = r.a_range();
    format!("{a:.1}~{b:.1}")
}

fn opt(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "-".into()
    }
}

/// Events detected in `[a, b)` by flow `f`.
fn events_in(m: &Measured, f: usize, a: f64, b: f64) -> usize {
    m.losses
        .events
        .iter()
        .filter(|e| e.flow == f && e.time_s >= a && e.time_s < b)
        .count()
}

fn single_section() {
    println!("## Single flow at 500 Mb/s (Figs. 3 and 6)\n");
    println!("One flow, RTT 120 ms, 500 Mb/s, buffer {BUFFER_PKTS} packets, no background traffic, {SINGLE} s. Events are counted over 40-200 s; the paper counts 40-100 s.\n");
    let gains = [0.125, 1e-3, 1e-4, 3e-5, 1.67e-5];
    let mut jobs = vec![
        job(
            "single HSTCP",
            single(flow("highspeed", 120), SINGLE),
            40.0,
            SINGLE as f64,
        ),
        job(
            "single ACWAP-HSTCP",
            single(acwap(120, BETA), SINGLE),
            40.0,
            SINGLE as f64,
        ),
        job(
            "single ACWAP-HSTCP no pacing",
            single(acwap(120, BETA).param("pacing", 0.0), SINGLE),
            40.0,
            SINGLE as f64,
        ),
    ];
    for g in &gains[1..] {
        jobs.push(job(
            format!("single ACWAP-HSTCP gain {g}"),
            single(acwap(120, BETA).param("rtt_gain", *g), SINGLE),
            40.0,
            SINGLE as f64,
        ));
    }
    let r = run_all(jobs);
    let hs = &r[0];
    println!("### HSTCP: every congestion event in 40-200 s\n");
    println!("| detected at (s) | W_c (packets) | dropped | a(W_c) | mean seq gap | W_c / a(W_c) | dropped packets sent back to back |");
    println!("|---|---|---|---|---|---|---|");
    for e in hs.losses.events.iter().filter(|e| e.flow == 0) {
        let a = hstcp_a(e.cwnd);
        println!(
            "| {:.2} | {:.0} | {} | {:.1} | {} | {:.0} | {}/{} |",
            e.time_s,
            e.cwnd,
            e.lost,
            a,
            e.mean_gap.map_or("-".into(), |g| format!("{g:.1}")),
            e.cwnd / a,
            e.back_to_back,
            e.recorded
        );
    }
    if let Some(e) = hs.losses.events.iter().find(|e| e.flow == 0 && e.lost > 1) {
        println!(
            "\nSequence numbers dropped in the event at {:.2} s (gaps {:?}):\n\n`{:?}`\n",
            e.time_s, &e.gaps, &e.lost_seqs
        );
    }
    println!(
        "Paper: W_c = 8400, 26 packets (= a(W_c)) dropped per event, gap about 323 = W_c/a(W_c).\n"
    );
    println!("### HSTCP against ACWAP-HSTCP (beta = 0.8) and ablations\n");
    println!("| run | events 40-100 s | events 40-200 s | dropped per event | max dropped in an event | back-to-back drops | share of 500 Mb/s (40-200 s) | fraction of time a(w) = 1 |");
    println!("|---|---|---|---|---|---|---|---|");
    let labels: Vec<String> = [
        "HSTCP",
        "ACWAP-HSTCP (R_C gain 1/8)",
        "ACWAP-HSTCP without pacing",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(
        gains[1..]
            .iter()
            .map(|g| format!("ACWAP-HSTCP, R_C gain {g}")),
    )
    .collect();
    for (m, label) in r.iter().zip(&labels) {
        let row = &m.rows[0];
        let max = m
            .losses
            .events
            .iter()
            .filter(|e| e.flow == 0)
            .map(|e| e.lost)
            .max()
            .unwrap_or(0);
        println!(
            "| {label} | {} | {} | {:.2} | {max} | {:.2} | {} % | {:.2} |",
            events_in(m, 0, 40.0, 100.0),
            row.loss.loss_events,
            row.loss.drops_per_event,
            row.loss.back_to_back_fraction,
            pct(row.util),
            limiting_fraction(m, 0, 40.0, SINGLE as f64)
        );
    }
    println!("\nPaper (Fig. 6): 6 events in 40-100 s with HSTCP, 4 with ACWAP-HSTCP, one packet dropped per event.\n");
}

/// Paper's Table 1 rows: flow, RTT, util %, events, drops/event, cwnd, a(w).
const PAPER_T1: [(&str, u32, f64, u32, f64, &str, &str); 4] = [
    ("H1", 60, 78.34, 83, 31.61, "6653~7219", "23~25"),
    ("H2", 120, 7.96, 62, 11.59, "1007~1946", "8~12"),
    ("H3", 180, 0.93, 56, 3.78, "119~293", "2~4"),
    ("R1", 120, 1.71, 20, 2.25, "112~443", "1"),
];
/// Paper's Table 2 rows: flow, RTT, util %, events, drops/event.
const PAPER_T2: [(&str, u32, f64, u32, f64); 3] = [
    ("f1", 60, 56.32, 35, 2.56),
    ("f2", 120, 21.23, 22, 1.60),
    ("f3", 180, 12.21, 13, 1.20),
];

fn table1_md(m: &Measured) {
    println!("| flow | RTT (ms) | utilization % paper / ours | congestion events paper / ours | dropped per event paper / ours | cwnd at congestion paper / ours | a(w) paper / ours | timeouts | mean seq gap | events shared with another flow |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (p, r) in PAPER_T1.iter().zip(&m.rows) {
        println!(
            "| {} | {} | {:.2} / {} | {} / {} | {:.2} / {:.2} | {} / {} | {} / {} | {} | {} | {:.0} % |",
            p.0,
            p.1,
            p.2,
            pct(r.util),
            p.3,
            r.loss.loss_events,
            p.4,
            r.loss.drops_per_event,
            p.5,
            range(r.loss.cwnd_min, r.loss.cwnd_max),
            p.6,
            if r.cc == "newreno" { "1".into() } else { arange(r) },
            r.loss.timeouts,
            opt(r.loss.mean_gap, 0),
            100.0 * r.loss.synchronised_fraction
        );
    }
}

fn table2_md(m: &Measured) {
    println!("| flow | RTT (ms) | utilization % paper / ours | congestion events paper / ours | dropped per event paper / ours | cwnd at congestion | timeouts | mean seq gap | events shared with another flow |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (i, r) in m.rows.iter().enumerate() {
        let (name, rtt, pu, pe, pd) = match PAPER_T2.get(i) {
            Some(p) => (
                p.0.to_string(),
                p.1,
                format!("{:.2}", p.2),
                p.3.to_string(),
                format!("{:.2}", p.4),
            ),
            None => ("R1".into(), 120, "-".into(), "-".into(), "-".into()),
        };
        println!(
            "| {name} | {rtt} | {pu} / {} | {pe} / {} | {pd} / {:.2} | {} | {} | {} | {:.0} % |",
            pct(r.util),
            r.loss.loss_events,
            r.loss.drops_per_event,
            range(r.loss.cwnd_min, r.loss.cwnd_max),
            r.loss.timeouts,
            opt(r.loss.mean_gap, 0),
            100.0 * r.loss.synchronised_fraction
        );
    }
}

fn summary_md(t1: &Measured, t2: &Measured) {
    println!("| measure | Table 1 (HSTCP) | Table 2 (ACWAP-HSTCP) | paper T1 / T2 |");
    println!("|---|---|---|---|");
    println!(
        "| fairness index over the three high-speed flows | {:.3} | {:.3} | 0.409 / 0.712 |",
        t1.fairness("highspeed"),
        t2.fairness("highspeed")
    );
    let ev = |m: &Measured| -> usize { m.rows.iter().take(3).map(|r| r.loss.loss_events).sum() };
    let dr = |m: &Measured| -> u64 { m.rows.iter().take(3).map(|r| r.loss.drops).sum() };
    println!(
        "| congestion events, three high-speed flows | {} | {} | 201 / 70 |",
        ev(t1),
        ev(t2)
    );
    println!(
        "| packets dropped, three high-speed flows | {} | {} | 3554 / 140 |",
        dr(t1),
        dr(t2)
    );
    let qd = |m: &Measured| -> f64 { m.rows.iter().take(3).map(|r| r.window.queue_drops).sum() };
    println!(
        "| packets of the three flows dropped at the queue (ground truth) | {:.0} | {:.0} | - |",
        qd(t1),
        qd(t2)
    );
    println!(
        "| congestion episodes at the bottleneck | {} | {} | - |",
        t1.losses.episodes.len(),
        t2.losses.episodes.len()
    );
    println!(
        "| episodes hitting 2+ flows (synchronised) | {:.0} % | {:.0} % | - |",
        100.0 * t1.losses.sync_ratio,
        100.0 * t2.losses.sync_ratio
    );
    println!(
        "| flows hit per episode | {:.2} | {:.2} | - |",
        t1.losses.mean_flows_per_episode, t2.losses.mean_flows_per_episode
    );
    println!(
        "| bottleneck share of all flows | {} % | {} % | 88.94 / 89.76 |",
        pct(t1.total_util()),
        pct(t2.total_util())
    );
}

fn tables_section() {
    println!("## Tables 1 and 2 (1 Gb/s, {LONG} s, measured over {FROM:.0}-{LONG} s)\n");
    println!(
        "Buffer {BUFFER_PKTS} packets of {} bytes on the wire, minimum RTO 1 s, background {}.\n",
        MSS + HEADER,
        Background::Constant.label()
    );
    let bg = Background::Constant;
    let r = run_all(vec![
        job("table 1", table1(LONG, bg), FROM, LONG as f64),
        job("table 2", table2(LONG, false, bg), FROM, LONG as f64),
        job("table 2 + Reno", table2(LONG, true, bg), FROM, LONG as f64),
    ]);
    println!("### Table 1: HSTCP\n");
    table1_md(&r[0]);
    println!("\n### Table 2: ACWAP-HSTCP, beta = 0.8\n");
    table2_md(&r[1]);
    println!("\n### Table 2 with Table 1's Reno flow alongside\n");
    table2_md(&r[2]);
    println!("\n### Summary\n");
    summary_md(&r[0], &r[1]);
    println!();
}

fn robust_section() {
    println!("## Robustness of Tables 1 and 2\n");
    println!("Replicas shift flow i's RTT by (i+1) x 1.1 us or (i+1) x 2.3 us (other packet phases, same experiment); the background variants replace the constant-rate stream; the send-jitter variants have no background and delay each flow's sends by a uniform random time in [0, 8.32 us), one packet time on the bottleneck (ns-2's `overhead_`), with the given seed.\n");
    let variants: [(&str, Background, f64, Option<u64>); 7] = [
        ("CBR, phase +1.1 us", Background::Constant, 1.1, None),
        ("CBR, phase +2.3 us", Background::Constant, 2.3, None),
        ("no background", Background::None, 0.0, None),
        ("no background, phase +1.1 us", Background::None, 1.1, None),
        ("Poisson background", Background::Poisson, 0.0, None),
        ("send jitter, seed 1", Background::None, 0.0, Some(1)),
        ("send jitter, seed 2", Background::None, 0.0, Some(2)),
    ];
    let mut jobs = vec![];
    for (label, bg, shift, jitter) in variants {
        let make = |c: SimConfig| {
            let c = shift_phases(c, shift);
            match jitter {
                Some(seed) => SimConfig {
                    seed,
                    ..c.with_packet_time_jitter()
                },
                None => c,
            }
        };
        jobs.push(job(
            format!("table 1, {label}"),
            make(table1(LONG, bg)),
            FROM,
            LONG as f64,
        ));
        jobs.push(job(
            format!("table 2, {label}"),
            make(table2(LONG, false, bg)),
            FROM,
            LONG as f64,
        ));
    }
    let labels = variants.map(|v| v.0);
    let r = run_all(jobs);
    println!("| variant | T1 utilization % H1/H2/H3/R1 | T1 dropped per event H1/H2/H3/R1 | T1 events H1/H2/H3/R1 | T2 utilization % f1/f2/f3 | T2 dropped per event f1/f2/f3 | T2 events f1/f2/f3 | FI T1 / T2 | sync T1 / T2 |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (k, label) in labels.iter().enumerate() {
        let (t1, t2) = (&r[2 * k], &r[2 * k + 1]);
        let join = |m: &Measured, f: &dyn Fn(&Row) -> String| -> String {
            m.rows.iter().map(f).collect::<Vec<_>>().join(" / ")
        };
        println!(
            "| {label} | {} | {} | {} | {} | {} | {} | {:.3} / {:.3} | {:.0} / {:.0} % |",
            join(t1, &|r| pct(r.util)),
            join(t1, &|r| format!("{:.1}", r.loss.drops_per_event)),
            join(t1, &|r| r.loss.loss_events.to_string()),
            join(t2, &|r| pct(r.util)),
            join(t2, &|r| format!("{:.2}", r.loss.drops_per_event)),
            join(t2, &|r| r.loss.loss_events.to_string()),
            t1.fairness("highspeed"),
            t2.fairness("highspeed"),
            100.0 * t1.losses.sync_ratio,
            100.0 * t2.losses.sync_ratio
        );
    }
    println!();
}

fn sweep_section() {
    let betas = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    for bg in [Background::Constant, Background::Poisson] {
        println!("## Beta sweep (Figs. 7-9), background {}\n", bg.label());
        println!("One HSTCP flow and one ACWAP-HSTCP flow, both 120 ms, 1 Gb/s, {LONG} s, measured over {FROM:.0}-{LONG} s. Loss rate = packets lost / packets sent (delivered + lost).\n");
        let jobs = betas
            .iter()
            .map(|&b| {
                job(
                    format!("sweep beta {b} {}", bg.label()),
                    pair(b, LONG, bg),
                    FROM,
                    LONG as f64,
                )
            })
            .collect();
        let r = run_all(jobs);
        println!("| beta | loss rate HSTCP (1e-5) | loss rate ACWAP (1e-5) | loss rate both (1e-5) | utilization % HSTCP | utilization % ACWAP | fairness index | ACWAP events | ACWAP dropped per event | HSTCP dropped per event | a(w) = 1 time fraction |");
        println!("|---|---|---|---|---|---|---|---|---|---|---|");
        for (b, m) in betas.iter().zip(&r) {
            let (h, a) = (&m.rows[0], &m.rows[1]);
            let lost = (h.window.lost_pkts + a.window.lost_pkts) as f64;
            let both = lost / (h.window.delivered_pkts + a.window.delivered_pkts + lost);
            println!(
                "| {b} | {:.2} | {:.2} | {:.2} | {} | {} | {:.3} | {} | {:.2} | {:.2} | {:.2} |",
                1e5 * h.loss_rate,
                1e5 * a.loss_rate,
                1e5 * both,
                pct(h.util),
                pct(a.util),
                dropless_sim::jain(&[h.util, a.util]),
                a.loss.loss_events,
                a.loss.drops_per_event,
                h.loss.drops_per_event,
                limiting_fraction(m, 1, FROM, LONG as f64)
            );
        }
        println!();
    }
}

/// Estimator variants of the beta-sweep loss investigation: label and the
/// extra ACWAP parameters.
const ESTIMATORS: [(&str, &[(&str, f64)]); 4] = [
    ("every ACK, gain 1/8 (default)", &[]),
    (
        "ns-2: one timed packet per RTT, exact, gain 1/8",
        &[("rtt_sampling", 1.0)],
    ),
    (
        "ns-2: one timed packet per RTT, tick 1 ms",
        &[("rtt_sampling", 1.0), ("rtt_tick", 0.001)],
    ),
    (
        "ns-2: one timed packet per RTT, tick 10 ms (ns-2 default tcpTick_)",
        &[("rtt_sampling", 1.0), ("rtt_tick", 0.01)],
    ),
];

/// Length of the loss investigation runs (`ACWAP_BL_SECS`, default 400 s).
fn betaloss_secs() -> u64 {
    std::env::var("ACWAP_BL_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(LONG)
}

fn betaloss_table(title: &str, variants: Vec<(String, SimConfig, f64)>, secs: u64) {
    println!("#### {title}\n");
    println!("Loss rate = lost / sent (1e-5); hit = fraction of the congestion episodes at the bottleneck in which the flow lost packets.\n");
    println!("| variant | beta | loss rate HSTCP | loss rate ACWAP | loss rate both | ACWAP drops/s | utilization % HSTCP / ACWAP | fairness index | events HSTCP / ACWAP | ACWAP dropped per event | episodes | ACWAP hit | HSTCP hit | a(w) = 1 time fraction |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let to = secs as f64;
    let jobs = variants
        .iter()
        .map(|(l, c, b)| job(format!("{l} beta {b}"), c.clone(), FROM, to))
        .collect();
    let r = run_all(jobs);
    for ((l, _, b), m) in variants.iter().zip(&r) {
        let (h, a) = (&m.rows[0], &m.rows[1]);
        let p = pair_loss(m, FROM, to);
        println!(
            "| {l} | {b} | {:.2} | {:.2} | {:.2} | {:.3} | {} / {} | {:.3} | {} / {} | {:.2} | {} | {:.2} | {:.2} | {:.2} |",
            1e5 * h.loss_rate,
            1e5 * a.loss_rate,
            1e5 * p.both_rate,
            p.acwap_drops_per_s,
            pct(h.util),
            pct(a.util),
            dropless_sim::jain(&[h.util, a.util]),
            h.loss.loss_events,
            a.loss.loss_events,
            a.loss.drops_per_event,
            p.episodes,
            p.acwap_hit,
            p.hstcp_hit,
            limiting_fraction(m, 1, FROM, to)
        );
    }
    println!();
}

/// Why the ACWAP flow's loss rate does (not) fall with beta: estimator,
/// buffer and the single-flow check of each estimator.
fn betaloss_section() {
    let secs = betaloss_secs();
    let which = std::env::var("ACWAP_BL_PARTS")
        .unwrap_or_else(|_| "single,pooled,ticks,robust,buffer,jitter".into());
    println!("## Beta sweep: what decides the ACWAP flow's loss rate\n");
    println!("One HSTCP flow and one ACWAP-HSTCP flow, both 120 ms, 1 Gb/s, background CBR 1% (500 B), {secs} s, measured over {FROM:.0}-{secs} s.\n");
    if which.contains("single") {
        println!(
            "#### Single ACWAP-HSTCP flow (beta 0.8, 500 Mb/s, {SINGLE} s) with each estimator\n"
        );
        println!("| estimator | events 40-100 s | events 40-{SINGLE} s | dropped per event | max dropped in an event | a(w) = 1 time fraction |");
        println!("|---|---|---|---|---|---|");
        let jobs = ESTIMATORS
            .iter()
            .map(|(l, p)| {
                job(
                    format!("single {l}"),
                    with_acwap_params(single(acwap(120, BETA), SINGLE), p),
                    40.0,
                    SINGLE as f64,
                )
            })
            .collect();
        let r = run_all(jobs);
        for ((l, _), m) in ESTIMATORS.iter().zip(&r) {
            let row = &m.rows[0];
            let max = m.losses.events.iter().map(|e| e.lost).max().unwrap_or(0);
            println!(
                "| {l} | {} | {} | {:.2} | {max} | {:.2} |",
                events_in(m, 0, 40.0, 100.0),
                row.loss.loss_events,
                row.loss.drops_per_event,
                limiting_fraction(m, 0, 40.0, SINGLE as f64)
            );
        }
        println!();
    }
    let betas = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    let two = [ESTIMATORS[0], ESTIMATORS[1]];
    if which.contains("pooled") {
        pooled_sweep(&two, &betas, secs);
    }
    if which.contains("ticks") {
        let mut v = vec![];
        for (l, p) in &ESTIMATORS[2..] {
            for b in betas {
                v.push((
                    l.to_string(),
                    with_acwap_params(pair(b, secs, Background::Constant), p),
                    b,
                ));
            }
        }
        betaloss_table(
            "ns-2 estimator with a clock tick (buffer 1000 packets, CBR background)",
            v,
            secs,
        );
    }
    if which.contains("robust") {
        let mut v = vec![];
        for (l, p) in two {
            for (name, bg) in [
                ("Poisson 1% (100 B)", Background::Poisson),
                ("no background", Background::None),
            ] {
                for b in [0.2, 0.9] {
                    v.push((
                        format!("{l}; {name}"),
                        with_acwap_params(pair(b, secs, bg), p),
                        b,
                    ));
                }
            }
        }
        betaloss_table("Other background traffic (buffer 1000 packets)", v, secs);
    }
    if which.contains("buffer") {
        let mut v = vec![];
        for (l, p) in two {
            for buf in [250, 500, 2000] {
                for b in [0.2, 0.9] {
                    v.push((
                        format!("{l}; buffer {buf}"),
                        with_acwap_params(with_buffer(pair(b, secs, Background::Constant), buf), p),
                        b,
                    ));
                }
            }
        }
        betaloss_table("Buffer size (CBR background)", v, secs);
    }
    if which.contains("jitter") {
        // No background; instead each flow's sends wait a uniform random
        // time in [0, one packet time on the bottleneck) (ns-2's
        // `overhead_`), three seeds as three replicas.
        let mut v = vec![];
        for (l, p) in two {
            for seed in [1, 2, 3] {
                for b in [0.2, 0.9] {
                    let mut c = with_acwap_params(pair(b, secs, Background::None), p);
                    c.seed = seed;
                    v.push((
                        format!("{l}; send jitter, seed {seed}"),
                        c.with_packet_time_jitter(),
                        b,
                    ));
                }
            }
        }
        betaloss_table(
            "Send jitter instead of background (buffer 1000 packets)",
            v,
            secs,
        );
    }
}

/// Packet-phase replicas of the pooled sweep (us added per flow index).
const PHASES: [f64; 3] = [0.0, 1.1, 2.3];

/// The sweep with each estimator over three packet-phase replicas (CBR
/// background): per-replica ACWAP loss rates and the pooled values.
fn pooled_sweep(estimators: &[(&str, &[(&str, f64)])], betas: &[f64], secs: u64) {
    let to = secs as f64;
    let mut jobs = vec![];
    for (l, p) in estimators {
        for &b in betas {
            for us in PHASES {
                jobs.push(job(
                    format!("{l} beta {b} +{us} us"),
                    with_acwap_params(shift_phases(pair(b, secs, Background::Constant), us), p),
                    FROM,
                    to,
                ));
            }
        }
    }
    let r = run_all(jobs);
    println!("#### Sweep over three packet-phase replicas (buffer 1000 packets, CBR background)\n");
    println!("Replicas add 0, 1.1 or 2.3 us per flow index to the RTTs. Loss rates in 1e-5 (lost / sent); pooled = all replicas' lost packets over all their sent packets; shares, fairness index, drops per event and a(w) = 1 fraction are means over the replicas.\n");
    println!("| estimator | beta | ACWAP loss rate +0 / +1.1 / +2.3 us | ACWAP loss rate pooled | HSTCP loss rate pooled | both flows pooled | utilization % HSTCP / ACWAP | fairness index | ACWAP events | ACWAP dropped per event | HSTCP dropped per event | episodes hitting ACWAP | a(w) = 1 time fraction |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let n = PHASES.len() as f64;
    for (i, chunk) in r.chunks(PHASES.len()).enumerate() {
        let (l, _) = estimators[i / betas.len()];
        let b = betas[i % betas.len()];
        let (mut lost, mut sent) = ([0.0; 2], [0.0; 2]);
        let (mut hu, mut au, mut fi, mut ev, mut ape, mut hpe, mut hit, mut lim) =
            (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        let mut per = vec![];
        for m in chunk {
            for f in 0..2 {
                let w = &m.rows[f].window;
                lost[f] += w.lost_pkts as f64;
                sent[f] += w.lost_pkts as f64 + w.delivered_pkts;
            }
            let (h, a) = (&m.rows[0], &m.rows[1]);
            per.push(format!("{:.2}", 1e5 * a.loss_rate));
            hu += h.util / n;
            au += a.util / n;
            fi += dropless_sim::jain(&[h.util, a.util]) / n;
            ev += a.loss.loss_events as f64 / n;
            ape += a.loss.drops_per_event / n;
            hpe += h.loss.drops_per_event / n;
            hit += pair_loss(m, FROM, to).acwap_hit / n;
            lim += limiting_fraction(m, 1, FROM, to) / n;
        }
        println!(
            "| {l} | {b} | {} | {:.2} | {:.2} | {:.2} | {} / {} | {:.3} | {ev:.1} | {ape:.2} | {hpe:.2} | {hit:.2} | {lim:.2} |",
            per.join(" / "),
            1e5 * lost[1] / sent[1],
            1e5 * lost[0] / sent[0],
            1e5 * (lost[0] + lost[1]) / (sent[0] + sent[1]),
            pct(hu),
            pct(au),
            fi
        );
    }
    println!();
}

fn wrappers_section() {
    println!("## ACWAP around Scalable TCP and BIC\n");
    println!("One flow alone at 500 Mb/s, RTT 120 ms, no background, {SINGLE} s, measured over 40-{SINGLE} s.\n");
    let to = SINGLE as f64;
    let ccs = ["highspeed", "scalable", "bic"];
    let mut jobs = vec![];
    for cc in ccs {
        jobs.push(job(cc, single(flow(cc, 120), SINGLE), 40.0, to));
        jobs.push(job(
            format!("acwap-{cc}"),
            single(flow(&format!("acwap-{cc}"), 120), SINGLE),
            40.0,
            to,
        ));
    }
    let r = run_all(jobs);
    println!("| controller | events | dropped per event | back-to-back drops | share of 500 Mb/s % | loss rate (1e-5) |");
    println!("|---|---|---|---|---|---|");
    for m in &r {
        let row = &m.rows[0];
        println!(
            "| {} | {} | {:.2} | {:.2} | {} | {:.2} |",
            row.cc,
            row.loss.loss_events,
            row.loss.drops_per_event,
            row.loss.back_to_back_fraction,
            pct(row.util),
            1e5 * row.loss_rate
        );
    }
    println!();
}

fn main() {
    let which: Vec<String> = std::env::args().skip(1).collect();
    let all = which.is_empty();
    let want = |s: &str| all || which.iter().any(|w| w == s);
    let t0 = Instant::now();
    println!("# ACWAP experiments (seed 004): measured\n");
    println!("Generated by `cargo run --release -p dropless-sim --example acwap_tables`.\n");
    if want("single") {
        single_section();
    }
    if want("tables") {
        tables_section();
    }
    if want("robust") {
        robust_section();
    }
    if want("sweep") {
        sweep_section();
    }
    if which.iter().any(|w| w == "betaloss") {
        betaloss_section();
    }
    if want("wrappers") {
        wrappers_section();
    }
    eprintln!("total {:.0} s wall", t0.elapsed().as_secs_f64());
}
