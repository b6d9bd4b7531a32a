//! TCP-Madison (seed 002): the Fig. 2, 6, 7 and 8 experiments, checking
//! the "must show" claims, for the protocol as printed ("paper")
//! and with the precautions of `dropless_cc::madison` ([`PRECAUTIONS`]).
//! Multi-seed claims are about the median over [`SEEDS`]. The report with
//! the paper's numbers is `docs/reports/madison.md`
//! (`examples/madison_figs.rs`).
//!
//! Claims the simulation does not reproduce are kept as `#[ignore]`d tests
//! that state the claim, with the reason in the attribute; run them with
//! `cargo test --release -p dropless-sim --test madison -- --ignored`.

#[path = "common/madison.rs"]
mod scenarios;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{path_report, Buffer, FlowSpec, LinkSpec, SimConfig, Simulation, Topology};
use scenarios::*;

fn quantity(cfg: &SimConfig, flow: usize) -> dropless_sim::PathReport {
    let r = Simulation::new(cfg.clone()).unwrap().run();
    path_report(cfg, &r, flow, 0.5).expect("Madison exports its estimates")
}

#[test]
fn startup_measures_the_path_and_enters_avoidance() {
    let cfg = fig2(&FIG2[0], 2 * SECOND, 1);
    let r = Simulation::new(cfg).unwrap().run();
    let f = &r.series.flows[0];
    let phase = f.var("phase").unwrap();
    // Start-up (two pairs, eight probes at 15 ms spacing) ends within
    // about one RTT (144 ms) plus the first slots.
    let first = r
        .series
        .t
        .iter()
        .zip(phase)
        .find(|(_, &p)| p == 1.0)
        .map(|(t, _)| *t)
        .unwrap();
    assert!(first <= 0.3, "avoidance from {first} s");
    let c = *f.var("est_c_mbps").unwrap().last().unwrap();
    assert!((c - 98.0).abs() < 0.1 * 98.0, "C {c}");
    let rtt_min = *f.var("est_rtt_min_ms").unwrap().last().unwrap();
    assert!((rtt_min - 144.0).abs() < 1.0, "RTT_min {rtt_min}");
}

#[test]
fn probe_only_acks_still_recover_every_loss() {
    // A finite Madison transfer over a link with 1% random loss: the
    // transport learns of losses only from probe ACKs (SACK state), and
    // must still retransmit everything.
    let rtt = 60 * MILLISECOND;
    let mut link = LinkSpec::new(50e6, rtt / 2, Buffer::Packets(1000));
    link.loss = 0.01;
    let mut f = madison(rtt);
    f.size = Some(5_000_000);
    let cfg = SimConfig {
        seed: 9,
        duration: 30 * SECOND,
        topology: Topology::Dumbbell {
            bottleneck: link,
            access_rate_bps: None,
        },
        flows: vec![f],
        cross: vec![],
        sample_interval: 100 * MILLISECOND,
        flow_series: true,
    };
    let r = Simulation::new(cfg).unwrap().run();
    let fr = &r.flows[0];
    assert!(fr.completion_s.is_some(), "transfer did not complete");
    assert_eq!(fr.bytes_delivered, 5_000_000);
    assert!(fr.retransmits > 0 && fr.congestion_events > 0);
    // The loss estimate moved away from p_init toward the 1% loss rate.
    let p = *r.series.flows[0].var("est_p").unwrap().last().unwrap();
    assert!(p > 1e-3, "p {p}");
}

/// The probe-only receiver's SACK state reaches the sender complete: every
/// packet the sender declares lost was dropped at the queue (before the
/// fix: 27,804 declared lost for 2,138 queue drops on this path).
#[test]
fn declared_losses_are_queue_drops() {
    for seed in [6, 7] {
        let mut f = madison(0);
        f.stop = Some(s(25.0));
        let r = Simulation::new(fig8(&FIG8[0], f, s(30.0), seed))
            .unwrap()
            .run();
        let fs = &r.series.flows[0];
        let drops = *fs.drops.last().unwrap() as u64;
        // Drops up to 1 s before the stop have all been detected by then;
        // a drop in the flow's last RTTs may never be (a stopped flow sends
        // nothing and runs no timers: seed 7 has an episode at 25.0 s).
        let settled = r
            .series
            .t
            .iter()
            .zip(&fs.drops)
            .take_while(|(t, _)| **t <= 24.0)
            .last()
            .map_or(0, |(_, d)| *d as u64);
        let fr = &r.flows[0];
        assert!(settled > 0, "seed {seed}: no drops, nothing tested");
        for (what, n) in [
            ("declared", fr.packets_lost),
            ("retransmitted", fr.retransmits),
        ] {
            assert!(
                (settled..=drops).contains(&n),
                "seed {seed}: {what} {n}, drops {settled} by 24 s, {drops} in all"
            );
        }
    }
}

/// Each named estimate's error within its bound, and B_size within 20%
/// once the buffer has filled (the tolerances).
fn assert_within(name: &str, rep: &dropless_sim::PathReport, bounds: &[(&str, f64)]) {
    let mut bounds = bounds.to_vec();
    if rep.buffer_filled {
        bounds.push(("B_size", 0.20));
    }
    for (q, tol) in bounds {
        let e = rep.get(q).unwrap();
        assert!(e.error.abs() <= tol, "{name}: {q} {e:?}");
    }
}

fn single_flow_paths(flow: fn(dropless_cc::Time) -> FlowSpec) -> Vec<(&'static str, SimConfig)> {
    let mut v = Vec::new();
    for (i, p) in FIG2.iter().enumerate() {
        let mut cfg = fig2(p, 30 * SECOND, 11 + i as u64);
        let mut f = flow(p.rtt_ms * MILLISECOND);
        f.rtt = cfg.flows[0].rtt;
        cfg.flows[0] = f;
        v.push((p.label, cfg));
    }
    for (i, p) in FIG8.iter().enumerate() {
        v.push((p.label, fig8(p, flow(0), 30 * SECOND, 14 + i as u64)));
    }
    v
}

/// Estimator accuracy under Poisson cross traffic on the six single-flow
/// paths (Figs. 2 and 8): C within 10%, n within 30%, RTT_min within 1%,
/// B_size within 20% once the buffer has filled — with eq. (8) as printed.
/// (`n` is marginal on Fig. 2(b), where the flow sits at the rate floor and
/// `n` is ~1,000: +35% in the report's run with seed 2.)
#[test]
fn estimator_accuracy_under_poisson_cross_traffic() {
    for (name, cfg) in single_flow_paths(madison) {
        let rep = quantity(&cfg, 0);
        assert_within(name, &rep, &[("C", 0.10), ("n", 0.30), ("RTT_min", 0.01)]);
    }
}

/// With the precautions, all four measures, U included, are within the
/// issue's tolerances on the six single-flow paths.
#[test]
fn estimator_accuracy_with_precautions_u_within_005() {
    for (name, cfg) in single_flow_paths(madison_prec) {
        let rep = quantity(&cfg, 0);
        assert_within(name, &rep, &[("U", 0.05), ("C", 0.10), ("n", 0.30)]);
    }
}

/// U within 0.05 of the truth with eq. (8) as printed.
#[test]
#[ignore = "not reproduced: eq. (8) inverts the M/D/1 wait; the flow's own paced packets queue far less than Poisson arrivals, so U is 0.13-0.35 low where the flow carries much of the load (2a, 8a, 8c; see docs/reports/madison.md)"]
fn utilization_estimate_within_005_with_eq8() {
    for (name, cfg) in single_flow_paths(madison) {
        let rep = quantity(&cfg, 0);
        let u = rep.get("U").unwrap();
        assert!(u.error.abs() <= 0.05, "{name}: U {u:?}");
    }
}

/// The four measures within the tolerances (U within 0.05, C 10%,
/// n 30%, B_size 20% once the buffer has filled while the flow was active)
/// for each of the three Fig. 6 Madison flows, with the precautions (seed
/// 3, the report's run). Before `busy_u` (with `paced_u` alone, which
/// counts the other Madison flows' paced packets as Poisson) U was
/// 0.065-0.075 low here.
#[test]
fn fig6_utilization_estimates_within_005_with_precautions() {
    let mut cfg = fig6(&[60, 140, 246], 1.0, s(150.0), 3);
    for f in cfg.flows.iter_mut() {
        let (rtt, start) = (f.rtt, f.start);
        *f = madison_prec(0);
        f.rtt = rtt;
        f.start = start;
    }
    let r = Simulation::new(cfg.clone()).unwrap().run();
    let mut filled = Vec::new();
    for flow in 0..3 {
        let rep = dropless_sim::path_report(&cfg, &r, flow, 0.5).unwrap();
        assert_within(
            &format!("fig6 flow {flow}"),
            &rep,
            &[("U", 0.05), ("C", 0.10), ("n", 0.30)],
        );
        filled.push(rep.buffer_filled);
    }
    // In this run the buffer overflows only when the second flow starts
    // (32.5-32.9 s), 26 s before the third flow does: the third flow never
    // sees it full, and its B_size is not held to the buffer.
    assert_eq!(filled, vec![true, true, false]);
}

fn fig6_jains(flow: fn(dropless_cc::Time) -> FlowSpec) -> Vec<f64> {
    SEEDS
        .iter()
        .map(|&seed| {
            let mut cfg = fig6(&[60, 140, 246], 1.0, s(150.0), seed);
            for f in cfg.flows.iter_mut() {
                let rtt = f.rtt;
                let start = f.start;
                *f = flow(0);
                f.rtt = rtt;
                f.start = start;
            }
            let r = Simulation::new(cfg).unwrap().run();
            fig6_share(&r, 150.0, 1.0).0
        })
        .collect()
}

/// Fig. 6: three Madison flows (RTT 60, 140, 246 ms) share within a Jain
/// index of 0.95 (median over the seeds), with the precautions.
#[test]
fn fig6_madison_flows_share_equally_with_precautions() {
    let j = fig6_jains(madison_prec);
    assert!(median(&j) >= 0.95, "Jain indices {j:?}");
}

/// Fig. 6 with the protocol as printed.
#[test]
#[ignore = "not reproduced: eq. (8) underestimates U, increases overshoot, the 484 KB buffer overflows every few seconds and the slower flows' loss estimates ratchet up; Jain 0.654-0.871, median 0.670 (see docs/reports/madison.md)"]
fn fig6_madison_flows_share_equally_paper() {
    let j = fig6_jains(madison);
    assert!(median(&j) >= 0.95, "Jain indices {j:?}");
}

fn fig7_ratios(flow: fn(dropless_cc::Time) -> FlowSpec, buffer: u64) -> Vec<[f64; 4]> {
    let (reno_fair, other_fair) = fig7_fair();
    SEEDS
        .iter()
        .map(|&seed| {
            let r = Simulation::new(fig7(flow(0), buffer, 1.0, seed))
                .unwrap()
                .run();
            let sh = fig7_shares(&r, 1.0);
            [
                sh[0] / reno_fair,
                sh[1] / other_fair,
                sh[2] / reno_fair,
                sh[3] / other_fair,
            ]
        })
        .collect()
}

fn assert_neither_starves(ratios: &[[f64; 4]]) {
    for k in 0..4 {
        let m = median(&ratios.iter().map(|r| r[k]).collect::<Vec<_>>());
        assert!(
            (1.0 / 1.5..=1.5).contains(&m),
            "ratio {k} (Reno 1, other, Reno 2, other): median {m}, all {ratios:?}"
        );
    }
}

/// Fig. 7(a) (1320 KB buffer): against Reno (W_max 172 KB), neither starves
/// nor is starved: each within a factor 1.5 of its max-min fair share
/// (median over the seeds), for the protocol as printed and with the
/// precautions.
#[test]
fn fig7a_madison_and_reno_neither_starves() {
    assert_neither_starves(&fig7_ratios(madison, 1_320_000));
    assert_neither_starves(&fig7_ratios(madison_prec, 1_320_000));
}

/// Fig. 7(b) (140 KB buffer), with the precautions. Before `busy_u` the
/// medians were 0.71, 0.90, 0.66, 0.93 (Reno 2 just under 1/1.5): rate
/// increases from noisy six-probe `U` readings overflowed the 93-packet
/// buffer and halved Reno.
#[test]
fn fig7b_madison_and_reno_neither_starves() {
    assert_neither_starves(&fig7_ratios(madison_prec, 140_000));
}

/// Fig. 7(b) with the protocol as printed.
#[test]
#[ignore = "not reproduced: eq. (8) underestimates U, Madison overshoots and the 93-packet buffer overflows repeatedly; Reno medians 0.28 and 0.39 of its share (see docs/reports/madison.md)"]
fn fig7b_madison_and_reno_neither_starves_paper() {
    assert_neither_starves(&fig7_ratios(madison, 140_000));
}

/// Fig. 8: on all three paths Madison's throughput is at least FAST's (with
/// the paper's alpha rule, calibrated on a shortened run) and Reno's.
#[test]
fn fig8_madison_outperforms_fast_and_reno() {
    for p in &FIG8 {
        let cal = Simulation::new(fig8(p, fast(0, 8.0), 40 * SECOND, 5))
            .unwrap()
            .run();
        let alpha = fast_alpha_from(&cal.series.flows[0].goodput_bps, &cal.series.t, 1500.0);
        let g = |flow| {
            Simulation::new(fig8(p, flow, 10 * SECOND, 6))
                .unwrap()
                .run()
                .flows[0]
                .goodput_bps
        };
        let (m, mp, f, r) = (
            g(madison(0)),
            g(madison_prec(0)),
            g(fast(0, alpha)),
            g(reno(0)),
        );
        eprintln!(
            "{}: Madison {:.1} (precautions {:.1}) FAST(a={alpha:.0}) {:.1} Reno {:.1} Mb/s",
            p.label,
            m / 1e6,
            mp / 1e6,
            f / 1e6,
            r / 1e6
        );
        for x in [m, mp] {
            assert!(x >= f && x >= r, "{}: {x} {f} {r}", p.label);
        }
    }
}

/// (median loss per 10^4, median backlog) over the seeds, 30 s runs.
fn fig8_loss_backlog(
    p: &Fig8,
    flow: fn(dropless_cc::Time) -> FlowSpec,
) -> (f64, f64, Vec<(f64, f64)>) {
    let v: Vec<(f64, f64)> = SEEDS
        .iter()
        .map(|&seed| {
            let r = Simulation::new(fig8(p, flow(0), 30 * SECOND, seed))
                .unwrap()
                .run();
            (r.flows[0].loss_per_10k, r.flows[0].avg_backlog_pkts)
        })
        .collect();
    let l = median(&v.iter().map(|x| x.0).collect::<Vec<_>>());
    let b = median(&v.iter().map(|x| x.1).collect::<Vec<_>>());
    (l, b, v)
}

/// Fig. 8(a) and 8(b): losses per 10,000 and average backlog of the order
/// the paper reports (8a: 3.9 and 2.7 packets; 8b: 2.5 and 3.5): median
/// loss at most 3x the paper's, median backlog within a factor 3, with the
/// precautions.
#[test]
fn fig8_loss_and_backlog_of_the_papers_order_with_precautions() {
    for (p, loss, backlog) in [(&FIG8[0], 3.9, 2.7), (&FIG8[1], 2.5, 3.5)] {
        let (l, b, all) = fig8_loss_backlog(p, madison_prec);
        assert!(l <= 3.0 * loss, "{}: loss {l}, all {all:?}", p.label);
        assert!(
            b <= 3.0 * backlog && b >= backlog / 3.0,
            "{}: backlog {b}, all {all:?}",
            p.label
        );
    }
}

/// The same with the protocol as printed.
#[test]
#[ignore = "not reproduced: eq. (8) underestimates U and the first rate after start-up overshoots; 8a median 56 losses per 10^4 (paper 3.9), 8b 33 (paper 2.5) (see docs/reports/madison.md)"]
fn fig8_loss_and_backlog_of_the_papers_order_paper() {
    for (p, loss, backlog) in [(&FIG8[0], 3.9, 2.7), (&FIG8[1], 2.5, 3.5)] {
        let (l, b, all) = fig8_loss_backlog(p, madison);
        assert!(l <= 3.0 * loss, "{}: loss {l}, all {all:?}", p.label);
        assert!(
            b <= 3.0 * backlog && b >= backlog / 3.0,
            "{}: backlog {b}, all {all:?}",
            p.label
        );
    }
}
