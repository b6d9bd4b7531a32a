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

/// The TCP-Madison Fig. 8(a) path (`experiments/madison/fig8a.toml`):
/// 100 Mb/s, 278 ms, 158 KB buffer, 42% Poisson cross traffic of
/// 1500-byte packets, one flow.
pub fn fig8a(mut flow: FlowSpec, duration: Time, seed: u64) -> SimConfig {
    let rtt = 278 * MILLISECOND;
    flow.rtt = Some(rtt);
    SimConfig {
        seed,
        duration,
        topology: Topology::Dumbbell {
            bottleneck: LinkSpec::new(100e6, rtt / 2, Buffer::Bytes(158_000)),
            access_rate_bps: None,
        },
        flows: vec![flow],
        cross: vec![dropless_sim::CrossSpec {
            kind: dropless_sim::CrossKind::Poisson,
            rate_bps: 42e6,
            packet_size: 1500,
            link: 0,
            start: 0,
            stop: None,
        }],
        sample_interval: 100 * MILLISECOND,
        flow_series: true,
    }
}
