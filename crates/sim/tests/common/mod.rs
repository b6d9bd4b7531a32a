//! Shared helpers for the simulator's integration tests.
#![allow(dead_code)]

use dropless_cc::{Time, MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, LinkSpec, SimConfig, Topology};

/// A dumbbell with the given bottleneck and flows.
pub fn dumbbell(rate_bps: f64, one_way: Time, buffer: Buffer, flows: Vec<FlowSpec>) -> SimConfig {
    SimConfig {
        seed: 1,
        duration: 10 * SECOND,
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(rate_bps, one_way, buffer),
            access_rate_bps: None,
        },
        flows,
        cross: vec![],
        sample_interval: 10 * MILLISECOND,
        flow_series: true,
    }
}

/// Bandwidth-delay product in packets of `wire` bytes.
pub fn bdp_pkts(rate_bps: f64, rtt: Time, wire: u32) -> u64 {
    (rate_bps * dropless_cc::secs(rtt) / 8.0 / wire as f64).round() as u64
}

/// Mean of `v[a..b]`, skipping NaN.
pub fn mean(v: &[f64]) -> f64 {
    let x: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    x.iter().sum::<f64>() / x.len() as f64
}
