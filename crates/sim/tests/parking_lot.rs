//! Parking lot (thesis Appendix B2 shape): FAST converges to proportional
//! fairness across several bottlenecks.

mod common;
use common::mean;
use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{Buffer, FlowSpec, LinkSpec, SimConfig, Simulation, Topology};

#[test]
fn fast_on_a_three_link_parking_lot_is_proportionally_fair() {
    // Three 100 Mb/s links, 10 ms each; one flow crosses all three, one
    // flow crosses each link alone. FAST's equilibrium x_i = alpha / q_i
    // (thesis eq. (4.3) with q = D - d) gives the long flow C/4 and each
    // one-link flow 3C/4 (proportional fairness).
    let link = LinkSpec::new(100e6, 10 * MILLISECOND, Buffer::Packets(100_000));
    let mut flows = vec![];
    let mut long = FlowSpec::bulk("fast", 60 * MILLISECOND).param("alpha", 100.0);
    long.path = (0, 2);
    flows.push(long);
    for l in 0..3 {
        let mut f = FlowSpec::bulk("fast", 20 * MILLISECOND).param("alpha", 100.0);
        f.path = (l, l);
        flows.push(f);
    }
    let cfg = SimConfig {
        seed: 1,
        duration: 40 * SECOND,
        topology: Topology::ParkingLot {
            links: vec![link; 3],
            access_rate_bps: None,
        },
        flows,
        cross: vec![],
        sample_interval: 100 * MILLISECOND,
        flow_series: true,
    };
    let r = Simulation::new(cfg).unwrap().run();
    let tail = |v: &[f64]| {
        let x: Vec<f64> = v
            .iter()
            .zip(&r.series.t)
            .filter(|(_, &t)| t >= 20.0)
            .map(|(v, _)| *v)
            .collect();
        mean(&x)
    };
    let rates: Vec<f64> = r
        .series
        .flows
        .iter()
        .map(|f| tail(&f.goodput_bps))
        .collect();
    eprintln!(
        "rates (Mb/s): {:?}",
        rates.iter().map(|x| x / 1e6).collect::<Vec<_>>()
    );
    let c = 100e6 * 1460.0 / 1500.0; // goodput capacity
    assert!(
        (rates[0] / (c / 4.0) - 1.0).abs() < 0.1,
        "long flow {}",
        rates[0]
    );
    for &x in &rates[1..] {
        assert!((x / (0.75 * c) - 1.0).abs() < 0.1, "short flow {x}");
    }
    for l in &r.links {
        assert!(
            l.utilization > 0.95,
            "link {} utilization {}",
            l.id,
            l.utilization
        );
    }
}
