//! The DWDM trunk ([`dropless_sim::trunk`]): a K-channel link sharing one
//! buffer, checked against queueing theory, and TCP over it.

use dropless_cc::{MILLISECOND, SECOND};
use dropless_sim::{
    Buffer, CrossKind, CrossSpec, FlowSpec, LinkSpec, SimConfig, Simulation, Topology,
};

/// Erlang's loss formula B(K, A) by its recursion (exact for any service
/// time distribution: Poisson arrivals, K servers, no waiting room).
fn erlang_b(k: u32, a: f64) -> f64 {
    (1..=k).fold(1.0, |b, n| a * b / (n as f64 + a * b))
}

fn trunk(k: u32, buffer: u64, rate: f64) -> LinkSpec {
    let mut l = LinkSpec::new(rate, MILLISECOND, Buffer::Packets(buffer));
    l.channels = k;
    l
}

fn poisson_into(k: u32, buffer: u64, load_erlangs: f64, seed: u64) -> dropless_sim::LinkResult {
    poisson_run(trunk(k, buffer, 1e9), load_erlangs, seed).links[0].clone()
}

/// Poisson packets at `load_erlangs` times a channel's 1 Gb/s into trunk `t`.
fn poisson_run(t: LinkSpec, load_erlangs: f64, seed: u64) -> dropless_sim::SimResult {
    let rate = t.rate_bps;
    let cfg = SimConfig {
        seed,
        duration: 20 * SECOND,
        topology: Topology::Trunk {
            groups: vec![t],
            inputs: 1,
            input_rate_bps: rate,
            input_buffer: Buffer::Packets(u64::MAX),
            access_rate_bps: None,
            access_buffer: None,
        },
        flows: vec![],
        cross: vec![CrossSpec {
            kind: CrossKind::Poisson,
            rate_bps: load_erlangs * rate,
            packet_size: 1000,
            link: 0,
            start: 0,
            stop: None,
        }],
        sample_interval: 0,
        flow_series: false,
    };
    Simulation::new(cfg).expect("valid").run()
}

#[test]
fn bufferless_trunk_loses_what_erlangs_formula_says() {
    // 4 channels offered 3 Erlangs of Poisson packets of fixed size: B(4, 3) = 0.2061.
    let l = poisson_into(4, 0, 3.0, 7);
    let want = erlang_b(4, 3.0);
    assert!((want - 0.2061).abs() < 1e-4);
    assert!(
        (l.loss - want).abs() < 0.01,
        "loss {} against Erlang B {want}",
        l.loss
    );
    assert_eq!(l.channels, 4);
    // Carried load A (1 - B) spread over the channels; the first ones busiest
    // (an idle channel is taken lowest index first).
    let carried: f64 = l.channel_busy.iter().sum();
    assert!((carried - 3.0 * (1.0 - want)).abs() < 0.05, "{carried}");
    assert!(l.channel_busy[0] > l.channel_busy[3]);
    assert!((l.utilization - carried / 4.0).abs() < 0.01);
}

#[test]
fn one_channel_per_trunk_is_an_ordinary_queue() {
    // K = 1, Poisson into M/D/1/(1+B): with B = 0 the loss is A/(1+A).
    let l = poisson_into(1, 0, 0.5, 3);
    assert!((l.loss - 1.0 / 3.0).abs() < 0.01, "{}", l.loss);
    // A buffer lowers the loss.
    let b = poisson_into(1, 5, 0.5, 3);
    assert!(b.loss < 0.01, "{}", b.loss);
}

#[test]
fn a_buffer_shared_by_more_channels_loses_less() {
    // The same load per channel (0.9 Erlang), the same shared buffer: more
    // channels pool better.
    let few = poisson_into(2, 4, 1.8, 5);
    let many = poisson_into(16, 4, 14.4, 5);
    assert!(many.loss < few.loss, "{} vs {}", many.loss, few.loss);
}

fn tcp_over_trunk(groups: Vec<LinkSpec>, inputs: u32, flows: usize) -> dropless_sim::SimResult {
    let g = groups.len();
    let mut fs = Vec::new();
    for i in 0..flows {
        let rtt = (60 + (i as u64 * 37) % 121) * MILLISECOND;
        let mut f = FlowSpec::bulk("newreno", rtt).param("paced", 1.0);
        f.mss = 1000;
        let grp = (i % inputs as usize) % g;
        f.path = (grp, grp);
        fs.push(f);
    }
    let cfg = SimConfig {
        seed: 1,
        duration: 10 * SECOND,
        topology: Topology::Trunk {
            groups,
            inputs,
            input_rate_bps: 1e9,
            input_buffer: Buffer::Packets(u64::MAX),
            access_rate_bps: Some(100e6),
            access_buffer: None,
        },
        flows: fs,
        cross: vec![],
        sample_interval: 0,
        flow_series: false,
    };
    Simulation::new(cfg).expect("valid").run()
}

#[test]
fn paced_tcp_fills_a_trunk_and_every_channel_works() {
    let r = tcp_over_trunk(vec![trunk(4, 10, 1e9)], 8, 80);
    let l = &r.links[0];
    assert!(
        l.utilization > 0.5 && l.utilization <= 1.0,
        "{}",
        l.utilization
    );
    assert!(l.drops > 0, "TCP finds the trunk's limit");
    assert!(l.max_queue_pkts <= 10);
    for b in &l.channel_busy {
        assert!(*b > 0.3 && *b <= 1.0, "{:?}", l.channel_busy);
    }
    // Determinism: the same run twice.
    let again = tcp_over_trunk(vec![trunk(4, 10, 1e9)], 8, 80);
    assert_eq!(r.links[0].drops, again.links[0].drops);
    assert_eq!(r.data_packets, again.data_packets);
}

#[test]
fn without_conversion_each_wavelength_is_its_own_trunk() {
    // 2 wavelengths of 2 fibres each: flows on even inputs use group 0.
    let r = tcp_over_trunk(vec![trunk(2, 10, 1e9), trunk(2, 10, 1e9)], 4, 40);
    assert_eq!(r.links.len(), 2);
    for l in &r.links {
        assert!(l.utilization > 0.4, "{}", l.utilization);
    }
}

#[test]
fn bad_trunks_are_refused() {
    let mut cfg = SimConfig {
        seed: 1,
        duration: SECOND,
        topology: Topology::Trunk {
            groups: vec![trunk(0, 10, 1e9)],
            inputs: 2,
            input_rate_bps: 1e9,
            input_buffer: Buffer::Packets(u64::MAX),
            access_rate_bps: None,
            access_buffer: None,
        },
        flows: vec![],
        cross: vec![],
        sample_interval: 0,
        flow_series: false,
    };
    let e = Simulation::new(cfg.clone()).err().expect("K = 0 refused");
    assert!(e.field.ends_with("channels"), "{}", e.field);
    cfg.topology = Topology::Trunk {
        groups: vec![trunk(2, 10, 1e9)],
        inputs: 0,
        input_rate_bps: 1e9,
        input_buffer: Buffer::Packets(u64::MAX),
        access_rate_bps: None,
        access_buffer: None,
    };
    let e = Simulation::new(cfg).err().expect("M = 0 refused");
    assert_eq!(e.field, "topology.inputs");
}

/// One NewReno flow whose 10 Mb/s access link is its bottleneck, into an
/// idle 1 Gb/s trunk, with the access link's buffer as given.
fn access_limited(access_buffer: Option<Buffer>) -> dropless_sim::SimResult {
    let mut f = FlowSpec::bulk("newreno", 100 * MILLISECOND);
    f.mss = 1000;
    let cfg = SimConfig {
        seed: 1,
        duration: 20 * SECOND,
        topology: Topology::Trunk {
            groups: vec![trunk(2, 100, 1e9)],
            inputs: 2,
            input_rate_bps: 1e9,
            input_buffer: Buffer::Packets(1000),
            access_rate_bps: Some(10e6),
            access_buffer,
        },
        flows: vec![f],
        cross: vec![],
        sample_interval: 0,
        flow_series: false,
    };
    Simulation::new(cfg).expect("valid").run()
}

#[test]
fn a_bounded_access_buffer_drops_where_an_unbounded_one_queues() {
    // Unbounded: the window grows into the access queue, nothing is lost
    // after slow start, and the RTT grows far beyond the base 100 ms.
    let open = access_limited(None);
    // Bounded at 20 packets: the access link drops; the trunk never does.
    // A window cycles between about 70 and 140 packets (BDP 120 + 20), 70
    // round trips or about 8 s: slow start's loss and two or three more.
    let bounded = access_limited(Some(Buffer::Packets(20)));
    assert_eq!(bounded.links[0].drops, 0);
    assert!(
        bounded.flows[0].congestion_events >= 3,
        "{}",
        bounded.flows[0].congestion_events
    );
    assert!(
        open.flows[0].congestion_events < bounded.flows[0].congestion_events,
        "{} against {}",
        open.flows[0].congestion_events,
        bounded.flows[0].congestion_events
    );
    // Unbounded, the flow fills its access link (10 Mb/s of 1040-byte
    // packets, 9.6 Mb/s of payload); bounded at a sixth of the BDP, the
    // sawtooth leaves it idle part of the time.
    let (o, b) = (
        open.flows[0].throughput_bps,
        bounded.flows[0].throughput_bps,
    );
    assert!(o > 9e6, "{o}");
    assert!(b > 6e6 && b < o, "{b} against {o}");
    // The queue the bounded flow keeps is at most 20 packets deep: its
    // mean RTT stays under 100 ms + 20 packet times (16 ms) + slack.
    assert!(
        bounded.flows[0].mean_rtt_s < 0.125,
        "{}",
        bounded.flows[0].mean_rtt_s
    );
    assert!(open.flows[0].mean_rtt_s > bounded.flows[0].mean_rtt_s);
}

/// [`poisson_into`] with the trunk recording interarrival times from 1 s.
fn poisson_recorded(k: u32, buffer: u64, load_erlangs: f64, seed: u64) -> dropless_sim::SimResult {
    let mut t = trunk(k, buffer, 1e9);
    t.interarrivals_from = Some(SECOND);
    poisson_run(t, load_erlangs, seed)
}

#[test]
fn interarrival_times_of_poisson_arrivals_and_nothing_else_changes() {
    for k in [1, 4] {
        let plain = poisson_into(k, 5, 0.5 * k as f64, 11);
        let rec = poisson_recorded(k, 5, 0.5 * k as f64, 11);
        let mut l = rec.links[0].clone();
        let ia = l.interarrival.take().expect("recorded");
        // Recording takes the slow arrival path (for K = 1 the only
        // difference) and changes nothing else.
        assert_eq!(l, plain, "K = {k}");
        assert!(plain.interarrival.is_none());
        // Poisson arrivals at 0.5 K of 1 Gb/s in 1000-byte packets, over
        // 19 s: mean 1/(62500 K) s, std/mean near 1 (a little under: the
        // input link spaces packets at least one packet time apart).
        let lambda = 62_500.0 * k as f64;
        assert!(
            (ia.intervals as f64 / (19.0 * lambda) - 1.0).abs() < 0.01,
            "{ia:?}"
        );
        assert!((ia.mean_s * lambda - 1.0).abs() < 0.01, "{ia:?}");
        assert!(ia.cv > 0.8 && ia.cv < 1.02, "{ia:?}");
    }
}
