//! BBR v1 in the simulator (`crates/cc/src/bbr.rs`): the model it builds
//! from the transport's delivery-rate samples, and its steady state.

mod common;
use common::*;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, Simulation};

fn tail_mean(v: &[f64], t: &[f64], from: f64) -> f64 {
    let x: Vec<f64> = v
        .iter()
        .zip(t)
        .filter(|(v, &t)| t >= from && v.is_finite())
        .map(|(v, _)| *v)
        .collect();
    mean(&x)
}

/// Alone on 100 Mb/s with a deep buffer: BtlBw is the link's rate, the
/// link stays busy and the queue Startup built is drained (ProbeBW keeps
/// the RTT near RTprop). Alone, the 0.75 phase empties the queue and
/// re-measures RTprop, so ProbeRTT is not needed (as in Linux).
#[test]
fn one_flow_measures_the_bottleneck_and_keeps_the_queue_small() {
    let rtt = 40 * MILLISECOND;
    let mut cfg = dumbbell(
        100e6,
        rtt / 2,
        Buffer::Packets(100_000),
        vec![FlowSpec::bulk("bbr", rtt)],
    );
    cfg.duration = 25 * SECOND;
    let r = Simulation::new(cfg).unwrap().run();
    let f = &r.series.flows[0];
    let t = &r.series.t;
    let bw = tail_mean(f.var("btl_bw_bps").unwrap(), t, 5.0);
    let rtt_s = tail_mean(&f.rtt_s, t, 5.0);
    eprintln!(
        "btl_bw {bw}, rtt {rtt_s}, util {}, drops {}",
        r.links[0].utilization, r.links[0].drops
    );
    assert!(
        (bw - 100e6).abs() < 2e6,
        "BtlBw {bw} not within 2% of 100 Mb/s"
    );
    assert!(r.links[0].utilization > 0.95);
    assert_eq!(r.links[0].drops, 0);
    assert!(
        rtt_s < 0.040 * 1.25,
        "mean RTT {rtt_s} s: the queue is not drained"
    );
}

/// Two BBR flows with equal RTTs started together share the link; the
/// queue the other flow keeps hides RTprop, so ProbeRTT comes after 10 s.
#[test]
fn two_flows_share() {
    let rtt = 40 * MILLISECOND;
    let bdp = bdp_pkts(100e6, rtt, 1500);
    let mut cfg = dumbbell(
        100e6,
        rtt / 2,
        Buffer::Packets(2 * bdp),
        vec![FlowSpec::bulk("bbr", rtt), FlowSpec::bulk("bbr", rtt)],
    );
    cfg.duration = 40 * SECOND;
    let r = Simulation::new(cfg).unwrap().run();
    let rates: Vec<f64> = r
        .series
        .flows
        .iter()
        .map(|f| tail_mean(&f.goodput_bps, &r.series.t, 10.0))
        .collect();
    let j = dropless_sim::jain(&rates);
    eprintln!("rates {rates:?}, jain {j}, util {}", r.links[0].utilization);
    assert!(j > 0.95, "Jain {j}");
    assert!(r.links[0].utilization > 0.9);
    for f in &r.series.flows {
        let first = r
            .series
            .t
            .iter()
            .zip(f.var("mode").unwrap())
            .find(|(_, &m)| m == 3.0)
            .map(|(t, _)| *t);
        eprintln!("first ProbeRTT at {first:?}");
        assert!(first.is_some_and(|t| t > 9.5 && t < 12.0), "{first:?}");
    }
}
