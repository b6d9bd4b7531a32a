//! `FlowSpec::send_jitter` (ns-2's `overhead_`): a random host delay before
//! each send, drawn from the run's seed.

mod common;
use common::*;
use dropless_cc::{Time, MILLISECOND, SECOND};
use dropless_sim::{jain, Buffer, FlowSpec, SimConfig, SimResult, Simulation};

/// Two NewReno flows (RTT 40 and 47 ms) through a 10 Mb/s drop-tail
/// bottleneck with a 20-packet buffer and no other traffic, 60 s; with
/// `jitter`, every send is delayed by up to one packet time
/// ([`SimConfig::with_packet_time_jitter`]).
fn two_reno(jitter: bool, seed: u64) -> SimConfig {
    let flows = vec![
        FlowSpec::bulk("newreno", 40 * MILLISECOND),
        FlowSpec::bulk("newreno", 47 * MILLISECOND),
    ];
    let mut c = dumbbell(10e6, 10 * MILLISECOND, Buffer::Packets(20), flows);
    c.duration = 60 * SECOND;
    c.seed = seed;
    if jitter {
        c = c.with_packet_time_jitter();
    }
    c
}

#[test]
fn packet_time_jitter_is_one_full_packet_on_the_first_shared_link() {
    // 1500-byte packets on 10 Mb/s: 1.2 ms.
    let c = two_reno(true, 1);
    assert!(c.flows.iter().all(|f| f.send_jitter == 1_200_000));
    assert!(two_reno(false, 1).flows.iter().all(|f| f.send_jitter == 0));
}

fn run(c: SimConfig) -> SimResult {
    Simulation::new(c).unwrap().run()
}

fn fairness(r: &SimResult) -> f64 {
    jain(&r.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>())
}

/// Floyd and Jacobson's phase effect: in an exactly deterministic run,
/// which flow finds the queue full is decided by where its ACK-clocked
/// arrivals fall within a packet time, and one flow keeps losing. A random
/// send delay of up to one bottleneck packet time (their remedy) leaves
/// only the RTT bias of Reno: throughput about 1/RTT gives shares
/// 47:40 and a Jain index of 0.993. Measured: 0.671 deterministic; 0.995,
/// 1.000 and 0.999 with the jitter (seeds 1-3).
#[test]
fn send_jitter_breaks_the_drop_tail_phase_lock() {
    let locked = fairness(&run(two_reno(false, 1)));
    assert!(locked < 0.8, "deterministic run: Jain {locked:.3}");
    for seed in [1, 2, 3] {
        let j = fairness(&run(two_reno(true, seed)));
        assert!(
            j > 0.95,
            "seed {seed}: Jain {j:.3} (deterministic {locked:.3})"
        );
    }
}

#[test]
fn send_jitter_is_reproducible_per_seed() {
    let json = |r: &SimResult| {
        serde_json::to_string(r).unwrap() + &serde_json::to_string(&r.series).unwrap()
    };
    let a = run(two_reno(true, 7));
    let b = run(two_reno(true, 7));
    assert_eq!(json(&a), json(&b));
    let c = run(two_reno(true, 8));
    assert_ne!(json(&a), json(&c));
}

/// One packet per round trip (window capped at 1) on an idle path: every
/// round trip is the base RTT plus one delay, uniform in [0, jitter), so
/// goodput falls by RTT / (RTT + jitter / 2).
#[test]
fn each_send_waits_half_the_jitter_on_average() {
    let one = |jitter: Time| {
        let mut f = FlowSpec::bulk("newreno", 40 * MILLISECOND);
        f.max_window = Some(1);
        f.send_jitter = jitter;
        let mut c = dumbbell(100e6, 10 * MILLISECOND, Buffer::Packets(100), vec![f]);
        c.duration = 60 * SECOND;
        run(c).flows[0].goodput_bps
    };
    let plain = one(0);
    let jittered = one(10 * MILLISECOND);
    // Round trip with the 1500-byte packet's serialisation (100 Mb/s
    // bottleneck, 1 Gb/s access) and the 40-byte ACK: 40.132 ms.
    let rtt = 40.132;
    let expected = rtt / (rtt + 5.0);
    let ratio = jittered / plain; // measured 0.8883 (expected 0.8892)
    assert!(
        (ratio - expected).abs() < 0.01,
        "goodput ratio {ratio:.4}, expected {expected:.4}"
    );
}

/// A paced sender asks to be woken at its next departure; while a delayed
/// send is pending that time is already past, and the engine must not
/// wake the flow at every nanosecond until the delayed send fires.
#[test]
fn a_paced_sender_with_jitter_does_not_spin() {
    let events = |jitter: Time| {
        let mut f = FlowSpec::bulk("newreno", 50 * MILLISECOND).param("paced", 1.0);
        f.send_jitter = jitter;
        let mut c = dumbbell(50e6, 10 * MILLISECOND, Buffer::Packets(50), vec![f]);
        c.duration = 10 * SECOND;
        let mut sim = Simulation::new(c).unwrap();
        sim.run_until(10 * SECOND);
        (sim.events_processed(), sim.data_packets())
    };
    let (e0, p0) = events(0);
    let (e1, p1) = events(100_000);
    // One delayed-send event per release at most: well under twice the
    // events (measured 1.3x on scenarios/paced.toml).
    assert!(
        (e1 as f64) < 2.0 * e0 as f64,
        "{e1} events with jitter, {e0} without"
    );
    assert!((p1 as f64) > 0.9 * p0 as f64, "{p1} packets vs {p0}");
}

/// `FlowSpec::ack_jitter`: one packet per round trip on an idle path, so
/// one ACK at a time on the return path; each round trip gains a delay
/// uniform in [0, jitter): the mean RTT grows by half the jitter and the
/// goodput falls by RTT / (RTT + jitter / 2), as for `send_jitter`, but the
/// RTT samples now carry the noise (a delayed send is timed when it leaves,
/// a delayed ACK is not).
#[test]
fn ack_jitter_adds_half_its_width_to_each_round_trip() {
    let one = |ack_jitter: Time, send_jitter: Time| {
        let mut f = FlowSpec::bulk("newreno", 40 * MILLISECOND);
        f.max_window = Some(1);
        f.ack_jitter = ack_jitter;
        f.send_jitter = send_jitter;
        let mut c = dumbbell(100e6, 10 * MILLISECOND, Buffer::Packets(100), vec![f]);
        c.duration = 60 * SECOND;
        let r = run(c);
        (r.flows[0].goodput_bps, r.flows[0].mean_rtt_s * 1e3)
    };
    let (g0, rtt0) = one(0, 0);
    let (g1, rtt1) = one(10 * MILLISECOND, 0);
    let (_, rtt_send) = one(0, 10 * MILLISECOND);
    let rtt = 40.132; // as in each_send_waits_half_the_jitter_on_average
    assert!((rtt0 - rtt).abs() < 0.01, "base RTT {rtt0:.3} ms");
    assert!(
        (rtt1 - rtt0 - 5.0).abs() < 0.15,
        "mean RTT {rtt1:.3} ms against {rtt0:.3} + 5"
    );
    let expected = rtt / (rtt + 5.0);
    assert!(
        (g1 / g0 - expected).abs() < 0.01,
        "goodput ratio {:.4}, expected {expected:.4}",
        g1 / g0
    );
    // A send delay does not show in the RTT samples.
    assert!((rtt_send - rtt0).abs() < 0.01, "{rtt_send:.3} ms");
}

#[test]
fn ack_jitter_is_reproducible_per_seed_and_combines_with_send_jitter() {
    let cfg = |seed: u64, send: bool| {
        let mut c = two_reno(send, seed);
        for f in &mut c.flows {
            f.ack_jitter = 2 * MILLISECOND;
        }
        c
    };
    let json = |r: &SimResult| {
        serde_json::to_string(r).unwrap() + &serde_json::to_string(&r.series).unwrap()
    };
    let a = run(cfg(7, false));
    assert_eq!(json(&a), json(&run(cfg(7, false))));
    assert_ne!(json(&a), json(&run(cfg(8, false))));
    // Both together differ from each alone.
    let both = run(cfg(7, true));
    assert_ne!(json(&both), json(&a));
    assert_ne!(json(&both), json(&run(two_reno(true, 7))));
}
