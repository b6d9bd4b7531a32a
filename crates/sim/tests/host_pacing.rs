//! `FlowSpec::host`: flows of one host share one pacer (seed 001's "pacing
//! at layer 3").

mod common;
use common::*;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, SimConfig, SimResult, Simulation};

/// Two constant-rate streams of 100 Mb/s in bursts of 64 packets, started
/// together, into a 1 Gb/s bottleneck with a 100-packet buffer, 2 s; `host`
/// gives each its host.
fn two_streams(hosts: [Option<u32>; 2]) -> SimConfig {
    let flows = hosts
        .iter()
        .map(|&h| {
            let mut f = FlowSpec::bulk("cbr", 20 * MILLISECOND);
            f.params = vec![("rate".into(), 100e6), ("burst".into(), 64.0)];
            f.host = h;
            f
        })
        .collect();
    let mut c = dumbbell(1e9, 5 * MILLISECOND, Buffer::Packets(100), flows);
    c.duration = 2 * SECOND;
    c
}

fn run(c: SimConfig) -> SimResult {
    Simulation::new(c).unwrap().run()
}

/// Paced separately, the two streams' bursts leave at the same instants
/// and meet at the bottleneck: 128 packets into a 100-packet buffer. One
/// host pacer sends them one burst of 64 at a time at the sum of the
/// rates, taking the streams in turn: nothing is lost and each keeps its
/// 100 Mb/s.
#[test]
fn one_host_pacer_keeps_bursts_apart_and_each_flow_at_its_rate() {
    let own = run(two_streams([Some(0), Some(1)]));
    let lost_own: u64 = own.flows.iter().map(|f| f.packets_lost).sum();
    assert!(lost_own > 0, "separate pacers lost nothing");

    let shared = run(two_streams([Some(0), Some(0)]));
    for (f, g) in shared.flows.iter().zip(&own.flows) {
        assert_eq!(f.packets_lost, 0, "flow {} lost packets", f.id);
        // Each sends what it sends pacing itself (16,704 packets in 2 s).
        let ratio = f.packets_sent as f64 / g.packets_sent as f64;
        assert!(
            (ratio - 1.0).abs() < 0.01,
            "flow {}: {} packets sent against {} pacing itself",
            f.id,
            f.packets_sent,
            g.packets_sent
        );
    }
}

/// A host of one flow is that flow's own pacer: the same run, bit for bit,
/// as a flow without a host.
#[test]
fn a_host_of_one_flow_changes_nothing() {
    let a = run(two_streams([None, None]));
    let b = run(two_streams([Some(0), Some(1)]));
    for (x, y) in a.flows.iter().zip(&b.flows) {
        assert_eq!(x.bytes_delivered, y.bytes_delivered);
        assert_eq!(x.packets_lost, y.packets_lost);
    }
}
