//! FAST TCP equilibria (thesis eqs. (4.3)-(4.6)).

mod common;
use common::*;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, Simulation};

fn fast(alpha: f64, rtt: u64) -> FlowSpec {
    FlowSpec::bulk("fast", rtt).param("alpha", alpha)
}

fn tail_mean(v: &[f64], t: &[f64], from: f64) -> f64 {
    let x: Vec<f64> = v
        .iter()
        .zip(t)
        .filter(|(_, &t)| t >= from)
        .map(|(v, _)| *v)
        .collect();
    mean(&x)
}

#[test]
fn one_fast_flow_keeps_alpha_packets_queued() {
    let rtt = 100 * MILLISECOND;
    let mut cfg = dumbbell(
        100e6,
        rtt / 2,
        Buffer::Packets(100_000),
        vec![fast(200.0, rtt)],
    );
    cfg.duration = 40 * SECOND;
    let r = Simulation::new(cfg).unwrap().run();
    let q = tail_mean(&r.series.links[0].avg_queue_pkts, &r.series.t, 20.0);
    eprintln!("queue {q}, util {}", r.links[0].utilization);
    assert!((q - 200.0).abs() <= 10.0, "queue {q} not within 5% of 200");
    assert_eq!(r.links[0].drops, 0);
}

#[test]
fn three_fast_flows_started_together_share_equally() {
    let rtt = 100 * MILLISECOND;
    let flows = (0..3).map(|_| fast(200.0, rtt)).collect();
    let mut cfg = dumbbell(100e6, rtt / 2, Buffer::Packets(100_000), flows);
    cfg.duration = 60 * SECOND;
    let r = Simulation::new(cfg).unwrap().run();
    let q = tail_mean(&r.series.links[0].avg_queue_pkts, &r.series.t, 30.0);
    let rates: Vec<f64> = r
        .series
        .flows
        .iter()
        .map(|f| tail_mean(&f.goodput_bps, &r.series.t, 30.0))
        .collect();
    let j = dropless_sim::jain(&rates);
    eprintln!("queue {q}, rates {rates:?}, jain {j}");
    assert!(j > 0.99, "Jain {j}");
    assert!((q - 600.0).abs() <= 30.0, "queue {q} not near 600");
}
