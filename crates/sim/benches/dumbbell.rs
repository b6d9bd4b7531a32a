//! Speed of the simulator: simulated data packets per wall-clock second.
//!
//! `cargo bench -p dropless-sim` runs 100 NewReno flows over a 10 Gb/s,
//! 20 ms dumbbell with a one-BDP buffer for 10 simulated seconds, five times,
//! and prints the median. Set `DROPLESS_BENCH_RUNS` to change the count.

use std::time::Instant;

use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, LinkSpec, SimConfig, Simulation, Topology};

fn main() {
    let runs: usize = std::env::var("DROPLESS_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let rtt = 20 * MILLISECOND;
    let bdp = (10e9 * 0.02 / 8.0 / 1500.0) as u64;
    let mut rates = vec![];
    let mut events = vec![];
    for _ in 0..runs {
        let cfg = SimConfig {
            seed: 1,
            duration: 10 * SECOND,
            topology: Topology::Dumbbell {
                bottleneck: LinkSpec::new(10e9, rtt / 2, Buffer::Packets(bdp)),
                access_rate_bps: None,
            },
            flows: (0..100).map(|_| FlowSpec::bulk("newreno", rtt)).collect(),
            cross: vec![],
            sample_interval: 0,
            flow_series: false,
        };
        let t0 = Instant::now();
        let r = Simulation::new(cfg).unwrap().run();
        let wall = t0.elapsed().as_secs_f64();
        rates.push(r.data_packets as f64 / wall);
        events.push(r.events as f64 / wall);
        eprintln!(
            "run: {:.2} s wall, {} data packets, {:.2} M pkt/s, {:.2} M events/s, utilization {:.3}",
            wall,
            r.data_packets,
            r.data_packets as f64 / wall / 1e6,
            r.events as f64 / wall / 1e6,
            r.links[0].utilization
        );
    }
    rates.sort_by(f64::total_cmp);
    events.sort_by(f64::total_cmp);
    println!(
        "dumbbell_100_newreno_10G: median {:.2} M data packets/s, {:.2} M events/s over {} runs",
        rates[runs / 2] / 1e6,
        events[runs / 2] / 1e6,
        runs
    );
}
