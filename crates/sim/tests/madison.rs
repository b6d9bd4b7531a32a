//! TCP-Madison (seed 002): shortened versions of the Fig. 2, 6, 7 and 8
//! experiments, checking the "must show" claims. The full-length
//! runs and the comparison with the paper's numbers are in
//! `examples/madison_figs.rs` and `docs/reports/madison.md`.
//!
//! Claims the simulation does not reproduce are kept as `#[ignore]`d tests
//! that state the claim, with the reason in the attribute; run them with
//! `cargo test --release -p dropless-sim --test madison -- --ignored`.

#[path = "common/madison.rs"]
mod scenarios;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{jain, path_report, Buffer, LinkSpec, SimConfig, Simulation, Topology};
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

/// Estimator accuracy under Poisson cross traffic, for C, n, B_size and
/// RTT_min (the thresholds), on the Fig. 2 and Fig. 8(b) paths.
#[test]
fn estimator_accuracy_under_poisson_cross_traffic() {
    let cases = [
        ("2a", fig2(&FIG2[0], 15 * SECOND, 11)),
        ("2b", fig2(&FIG2[1], 15 * SECOND, 12)),
        ("2c", fig2(&FIG2[2], 15 * SECOND, 13)),
        ("8b", fig8(&FIG8[1], madison(0), 10 * SECOND, 14)),
    ];
    for (name, cfg) in cases {
        let rep = quantity(&cfg, 0);
        let q = |n: &str| rep.get(n).unwrap().clone();
        eprintln!("{name}: {:?}", rep.quantities);
        assert!(q("C").error.abs() <= 0.10, "{name}: C {:?}", q("C"));
        assert!(q("n").error.abs() <= 0.30, "{name}: n {:?}", q("n"));
        assert!(
            q("RTT_min").error.abs() <= 0.01,
            "{name}: RTT_min {:?}",
            q("RTT_min")
        );
        if rep.buffer_filled {
            assert!(
                q("B_size").error.abs() <= 0.20,
                "{name}: B_size {:?}",
                q("B_size")
            );
        }
    }
}

/// U within 0.05 of the truth: eq. (8) inverts the M/D/1 waiting time,
/// exact for Poisson arrivals but an underestimate when the flow's own
/// traffic is paced (deterministic), which queues far less.
#[test]
#[ignore = "not reproduced: eq. (8) underestimates U by up to 0.31 when the flow's own paced traffic dominates the link (see docs/reports/madison.md)"]
fn utilization_estimate_within_005() {
    for (name, cfg) in [
        ("2a", fig2(&FIG2[0], 15 * SECOND, 11)),
        ("2c", fig2(&FIG2[2], 15 * SECOND, 13)),
        ("8a", fig8(&FIG8[0], madison(0), 10 * SECOND, 15)),
        ("8c", fig8(&FIG8[2], madison(0), 10 * SECOND, 16)),
    ] {
        let rep = quantity(&cfg, 0);
        let u = rep.get("U").unwrap();
        assert!(u.error.abs() <= 0.05, "{name}: U {u:?}");
    }
}

/// Fig. 6: Madison flows with different RTTs share within Jain 0.95.
#[test]
#[ignore = "not reproduced: the rate controller oscillates (queue swings of hundreds of packets) and shares drift; Jain 0.39-0.77 (see docs/reports/madison.md)"]
fn madison_flows_with_different_rtts_share_equally() {
    let k = 0.3;
    let dur = 150.0 * k;
    let cfg = fig6(&[60, 140, 246], k, s(dur), 3);
    let r = Simulation::new(cfg).unwrap().run();
    let from = 59.0 * k + (dur - 59.0 * k) / 2.0;
    let g: Vec<f64> = r
        .series
        .flows
        .iter()
        .map(|f| window_mean(&f.goodput_bps, &r.series.t, from, dur))
        .collect();
    let j = jain(&g);
    assert!(j >= 0.95, "Jain {j}, goodputs {g:?}");
}

/// Fig. 7: against Reno, neither starves (each within a factor 1.5 of its
/// max-min fair share; Reno is capped by W_max at about 5.3 Mb/s).
#[test]
#[ignore = "not reproduced at full length: Madison's overshoots overflow the buffer and the W_max-limited Reno falls to 10-50% of its share (this 0.3x run happens to pass; see docs/reports/madison.md)"]
fn madison_and_reno_neither_starves() {
    let k = 0.3;
    let cfg = fig7(madison(0), 1_320_000, k, 4);
    let r = Simulation::new(cfg).unwrap().run();
    let t = &r.series.t;
    let (a, b) = (40.0 * k, 60.0 * k);
    let reno = window_mean(&r.series.flows[0].goodput_bps, t, a, b);
    let mad = window_mean(&r.series.flows[1].goodput_bps, t, a, b);
    let reno_fair = 114.0 * 1500.0 * 8.0 / 0.26;
    let mad_fair = 30e6 - reno_fair;
    for (x, fair) in [(reno, reno_fair), (mad, mad_fair)] {
        assert!(x >= fair / 1.5 && x <= fair * 1.5, "{x} vs {fair}");
    }
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
        let (m, f, r) = (g(madison(0)), g(fast(0, alpha)), g(reno(0)));
        eprintln!(
            "{}: Madison {:.1} FAST(a={alpha:.0}) {:.1} Reno {:.1} Mb/s",
            p.label,
            m / 1e6,
            f / 1e6,
            r / 1e6
        );
        assert!(m >= f && m >= r, "{}: {m} {f} {r}", p.label);
    }
}

/// Fig. 8(a): losses per 10,000 and average backlog of the order the paper
/// reports (3.9 and 2.7 packets): within a factor 3.
#[test]
#[ignore = "not reproduced: Madison's own overshoots overflow the 158 KB buffer; hundreds of losses per 10^4 and ~10 packets of backlog (see docs/reports/madison.md)"]
fn fig8a_loss_and_backlog_of_the_papers_order() {
    let r = Simulation::new(fig8(&FIG8[0], madison(0), 30 * SECOND, 6))
        .unwrap()
        .run();
    let f = &r.flows[0];
    assert!(f.loss_per_10k <= 3.0 * 3.9, "loss {}", f.loss_per_10k);
    assert!(
        f.avg_backlog_pkts <= 3.0 * 2.7,
        "backlog {}",
        f.avg_backlog_pkts
    );
}
