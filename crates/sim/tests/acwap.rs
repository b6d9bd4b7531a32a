//! ACWAP (seed 004), shortened: the packet-level loss mechanism of HighSpeed
//! TCP behind a drop-tail queue, what ACWAP changes, Tables 1 and 2 and the
//! beta trade-off. The full-length runs are `examples/acwap_tables.rs`;
//! the scenario choices are documented in `tests/common/acwap.rs`.

#[path = "common/acwap.rs"]
mod scenarios;
use dropless_cc::highspeed::hstcp_a;
use scenarios::*;

/// Seed 004 §3.2, Figs. 3-4: one HSTCP flow loses about a(W_c) packets per
/// congestion event, W_c/a(W_c) sequence numbers apart, and each dropped
/// packet is the second of a back-to-back pair.
#[test]
fn single_hstcp_drops_a_of_w_packets_w_over_a_apart() {
    let m = run(single(flow("highspeed", 120), 100), 40.0, 100.0);
    let events: Vec<_> = m.losses.events.iter().filter(|e| e.flow == 0).collect();
    eprintln!("{} events", events.len());
    // The paper counts 6 events in 40-100 s (Fig. 3a).
    assert!(events.len() >= 4, "{} events", events.len());
    // BDP + buffer at 500 Mb/s, 120 ms, 1040-byte packets: 7212 + 1000.
    let pipe = 500e6 * 0.120 / 8.0 / 1040.0 + BUFFER_PKTS as f64;
    for e in &events {
        let a = hstcp_a(e.cwnd);
        let gap = e.mean_gap.expect("several drops");
        eprintln!(
            "W_c {:.0} lost {} a(W_c) {a:.1} gap {gap:.1} W_c/a {:.1} back-to-back {}/{}",
            e.cwnd,
            e.lost,
            e.cwnd / a,
            e.back_to_back,
            e.recorded
        );
        assert!(!e.rto);
        assert!(
            (e.cwnd / pipe - 1.0).abs() < 0.05,
            "W_c {} vs {pipe}",
            e.cwnd
        );
        assert!(
            (e.lost as f64 / a - 1.0).abs() < 0.15,
            "lost {} vs a(W_c) {a}",
            e.lost
        );
        assert!(
            (gap / (e.cwnd / a) - 1.0).abs() < 0.05,
            "gap {gap} vs W_c/a(W_c) {}",
            e.cwnd / a
        );
        // The gaps are regular, not just right on average.
        assert!(e.gaps.iter().all(|&g| (g as f64 - gap).abs() <= 0.05 * gap));
        assert!(e.back_to_back as f64 >= 0.9 * e.recorded as f64);
    }
    // The sender's declared losses are the queue's drops.
    let w = &m.rows[0].window;
    assert!(w.lost_pkts > 0);
    assert_eq!(w.lost_pkts as f64, w.queue_drops);
}

/// Seed 004 Fig. 6: ACWAP-HSTCP (beta = 0.8) alone loses one packet per
/// event, none of them from a back-to-back pair, with fewer events and no
/// less throughput.
#[test]
fn single_acwap_drops_one_packet_per_event_with_fewer_events() {
    let hs = run(single(flow("highspeed", 120), 100), 40.0, 100.0);
    let ac = run(single(acwap(120, BETA), 100), 40.0, 100.0);
    let (h, a) = (&hs.rows[0], &ac.rows[0]);
    eprintln!(
        "HSTCP: {} events, {:.2}/event, share {:.3}; ACWAP: {} events, {:.2}/event, share {:.3}, a=1 {:.2} of the time",
        h.loss.loss_events,
        h.loss.drops_per_event,
        h.util,
        a.loss.loss_events,
        a.loss.drops_per_event,
        a.util,
        limiting_fraction(&ac, 0, 40.0, 100.0)
    );
    assert!(a.loss.loss_events >= 1);
    assert!(a.loss.loss_events < h.loss.loss_events);
    for e in ac.losses.events.iter() {
        assert!(e.lost <= 2, "ACWAP event with {} drops", e.lost);
        assert_eq!(e.back_to_back, 0, "paced: no back-to-back drops");
    }
    assert!(a.util >= h.util - 0.02, "{} vs {}", a.util, h.util);
    assert!(limiting_fraction(&ac, 0, 40.0, 100.0) > 0.2);
    assert_eq!(limiting_fraction(&hs, 0, 40.0, 100.0), 0.0);
}

/// ACWAP is a modifier: around Scalable TCP and BIC it also brings the
/// drops per event down to about one.
#[test]
fn acwap_wraps_scalable_and_bic() {
    for cc in ["scalable", "bic"] {
        let mk = |name: &str| dumbbell(200e6, vec![flow(name, 120)], 80, Background::None);
        let plain = run(mk(cc), 20.0, 80.0);
        let wrapped = run(mk(&format!("acwap-{cc}")), 20.0, 80.0);
        let (p, w) = (&plain.rows[0], &wrapped.rows[0]);
        eprintln!(
            "{cc}: {} events {:.2}/event share {:.3}; acwap-{cc}: {} events {:.2}/event share {:.3}",
            p.loss.loss_events,
            p.loss.drops_per_event,
            p.util,
            w.loss.loss_events,
            w.loss.drops_per_event,
            w.util
        );
        assert_eq!(w.cc, format!("acwap-{cc}"));
        assert!(w.loss.loss_events >= 1 && w.loss.loss_events < p.loss.loss_events);
        assert!(w.loss.drops_per_event <= 2.0);
        assert!(p.loss.drops_per_event >= 5.0 * w.loss.drops_per_event);
        assert!(w.util >= p.util - 0.03);
    }
}

fn show(name: &str, m: &Measured) {
    for r in &m.rows {
        eprintln!(
            "{name} {} {:.0} ms: share {:.4} events {} dropped/event {:.2} cwnd {:.0}-{:.0} timeouts {} sync {:.2}",
            r.cc,
            r.rtt_ms,
            r.util,
            r.loss.loss_events,
            r.loss.drops_per_event,
            r.loss.cwnd_min,
            r.loss.cwnd_max,
            r.loss.timeouts,
            r.loss.synchronised_fraction
        );
    }
    eprintln!(
        "{name}: FI {:.3}, episodes {}, synchronised {:.2}, total share {:.3}",
        m.fairness("highspeed"),
        m.losses.episodes.len(),
        m.losses.sync_ratio,
        m.total_util()
    );
}

/// Tables 1 and 2, shortened to 150 s (measured over 50-150 s instead of
/// 50-400 s).
#[test]
fn table2_acwap_drops_less_with_fewer_events_and_fairer_than_table1() {
    let (t1, t2) = tables();
    // Table 1: the 60 ms HSTCP flow takes most of the link and loses more
    // than a(w) packets per event (seed 004 §3.2: 31.61 at a(w) = 23-25).
    let h1 = &t1.rows[0];
    assert!(h1.util > 0.6, "H1 share {}", h1.util);
    assert!(t1.rows[2].util < 0.05, "H3 share {}", t1.rows[2].util);
    assert!(h1.loss.drops_per_event >= hstcp_a(h1.loss.cwnd_min));
    for k in 0..3 {
        let (h, a) = (&t1.rows[k], &t2.rows[k]);
        assert_eq!(h.rtt_ms, a.rtt_ms);
        // At most 3 drops per congestion event for every ACWAP flow ...
        assert!(a.loss.loss_events >= 1, "{} ms: no event", a.rtt_ms);
        assert!(
            a.loss.drops_per_event <= 3.0,
            "ACWAP {} ms: {:.2} drops/event",
            a.rtt_ms,
            a.loss.drops_per_event
        );
        // ... where HSTCP at the same RTT drops several times more (the
        // paper: 12.3x, 7.2x and 3.2x; the 180 ms flow is the tightest) ...
        assert!(
            h.loss.drops_per_event >= 2.5 * a.loss.drops_per_event,
            "{} ms: HSTCP {:.2} vs ACWAP {:.2}",
            h.rtt_ms,
            h.loss.drops_per_event,
            a.loss.drops_per_event
        );
        // ... and fewer congestion events.
        assert!(
            a.loss.loss_events < h.loss.loss_events,
            "{} ms: events ACWAP {} vs HSTCP {}",
            h.rtt_ms,
            a.loss.loss_events,
            h.loss.loss_events
        );
    }
    // The 60 ms flow: many times more.
    assert!(t1.rows[0].loss.drops_per_event >= 8.0 * t2.rows[0].loss.drops_per_event);
    // Better fairness across RTTs (paper: 0.409 -> 0.712), less synchronised
    // loss, and the link stays as busy.
    let (fi1, fi2) = (t1.fairness("highspeed"), t2.fairness("highspeed"));
    assert!(fi2 > fi1 + 0.15, "FI {fi1} -> {fi2}");
    assert!(t2.losses.sync_ratio < t1.losses.sync_ratio);
    assert!(t2.total_util() >= t1.total_util() - 0.02);
}

/// Tables 1 and 2 at the paper's full length (400 s, measured over
/// 50-400 s), run once on two threads. Not
/// shortened: at 150 s the 180 ms flows have only 4 congestion events each,
/// too few for a per-event ratio (HSTCP 4.36 against ACWAP 2.00 drops per
/// event there, 2.2x, against 4.25 and 1.53, 2.8x, over 50-400 s). The two
/// runs take about 35 s of CPU in release.
fn tables() -> &'static (Measured, Measured) {
    static T: std::sync::OnceLock<(Measured, Measured)> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let (t1, t2) = std::thread::scope(|s| {
            let a = s.spawn(|| run(table1(400, Background::Constant), 50.0, 400.0));
            let b = s.spawn(|| run(table2(400, false, Background::Constant), 50.0, 400.0));
            (a.join().unwrap(), b.join().unwrap())
        });
        show("T1", &t1);
        show("T2", &t2);
        (t1, t2)
    })
}

/// Figs. 7-9, shortened: against an HSTCP flow, a smaller beta gives the
/// ACWAP flow a smaller share and worse fairness.
#[test]
fn beta_sweep_smaller_beta_is_less_fair_to_acwap() {
    let lo = run(pair(0.2, 150, Background::Constant), 50.0, 150.0);
    let hi = run(pair(0.9, 150, Background::Constant), 50.0, 150.0);
    show("beta 0.2", &lo);
    show("beta 0.9", &hi);
    for m in [&lo, &hi] {
        eprintln!(
            "loss rate HSTCP {:.2e} ACWAP {:.2e}",
            m.rows[0].loss_rate, m.rows[1].loss_rate
        );
    }
    let fi = |m: &Measured| dropless_sim::jain(&[m.rows[0].util, m.rows[1].util]);
    assert!(lo.rows[1].util + 0.05 < hi.rows[1].util);
    assert!(fi(&lo) + 0.02 < fi(&hi), "FI {} vs {}", fi(&lo), fi(&hi));
    for m in [&lo, &hi] {
        // The HSTCP flow takes the larger share ...
        assert!(m.rows[0].util > m.rows[1].util);
        // ... and has the higher loss rate (its back-to-back pairs).
        assert!(m.rows[1].loss_rate < m.rows[0].loss_rate);
        // Both flows are hit in every congestion episode.
        assert!(m.losses.sync_ratio > 0.9);
    }
}

/// Seed 004 Fig. 7: "ACWAP-HSTCP flow with a small beta such as 0.2 has
/// low loss rate ... for a too large beta, such as 0.9, ... the loss rate
/// is high", Fig. 9: poorer fairness at 0.2. Fig. 7 plots the loss rate of
/// each of the two flows; the claim is about the ACWAP flow's (packets lost
/// / packets sent). R_C is standard TCP's smoothed RTT as ns-2 computes it
/// (one timed packet per RTT, gain 1/8, exact clock: our reading of the
/// "exponentially smoothed high accuracy RTT estimate that is supported by
/// standard TCP" behind Fig. 5); with it eq. (3) rarely fires before the
/// HSTCP-driven overflow at beta = 0.9, as the paper says ("it is possible
/// for the sender not to change a(w) to 1 before congestion"), and the
/// ACWAP flow loses more per event. The loss rate is pooled over three
/// packet-phase replicas (RTTs + 0, 1.1, 2.3 us per flow index, as in the
/// report's robustness table): a single deterministic phase decides who is
/// dropped in each overflow. Only the two ends: from 0.3 to 0.8 the ACWAP
/// flow loses less than at 0.2. With our default every-ACK estimator the
/// direction is reversed (docs/reports/acwap.md, beta sweep), and the
/// per-RTT estimate as the default breaks Table 2, so this test documents
/// the mechanism under one reading of Fig. 5; it is not a reproduction of
/// Fig. 7 in the configuration that reproduces the rest of the paper.
#[test]
fn beta_sweep_loss_direction_with_per_rtt_rtt_sampling() {
    let ns2 = [("rtt_sampling", 1.0)];
    let cfgs: Vec<_> = [0.2, 0.9]
        .iter()
        .flat_map(|&b| {
            [0.0, 1.1, 2.3].map(|us| {
                with_acwap_params(shift_phases(pair(b, 150, Background::Constant), us), &ns2)
            })
        })
        .collect();
    let runs: Vec<Measured> = std::thread::scope(|s| {
        let h: Vec<_> = cfgs
            .iter()
            .map(|c| s.spawn(|| run(c.clone(), 50.0, 150.0)))
            .collect();
        h.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Pooled over the replicas: ACWAP loss rate, ACWAP share, fairness.
    let pooled = |ms: &[Measured]| {
        let (mut lost, mut sent, mut share, mut fi) = (0.0, 0.0, 0.0, 0.0);
        for m in ms {
            let (h, a) = (&m.rows[0], &m.rows[1]);
            eprintln!(
                "loss rate HSTCP {:.2e} ACWAP {:.2e}, shares {:.3} / {:.3}, ACWAP {} events {:.2} per event, a(w) = 1 {:.2} of the time",
                h.loss_rate,
                a.loss_rate,
                h.util,
                a.util,
                a.loss.loss_events,
                a.loss.drops_per_event,
                limiting_fraction(m, 1, 50.0, 150.0)
            );
            lost += a.window.lost_pkts as f64;
            sent += a.window.lost_pkts as f64 + a.window.delivered_pkts;
            share += a.util / ms.len() as f64;
            fi += dropless_sim::jain(&[h.util, a.util]) / ms.len() as f64;
        }
        (lost / sent, share, fi)
    };
    let (lo, hi) = runs.split_at(3);
    let (loss_lo, share_lo, fi_lo) = pooled(lo);
    let (loss_hi, share_hi, fi_hi) = pooled(hi);
    eprintln!("beta 0.2: ACWAP loss rate {loss_lo:.3e}, share {share_lo:.3}, FI {fi_lo:.3}");
    eprintln!("beta 0.9: ACWAP loss rate {loss_hi:.3e}, share {share_hi:.3}, FI {fi_hi:.3}");
    assert!(
        loss_lo < loss_hi,
        "ACWAP loss rate {loss_lo:.2e} at beta 0.2, {loss_hi:.2e} at 0.9"
    );
    assert!(share_lo < share_hi);
    assert!(fi_lo < fi_hi, "FI {fi_lo} vs {fi_hi}");
}
