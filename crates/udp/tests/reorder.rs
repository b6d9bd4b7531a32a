//! Reordering over 127.0.0.1 (the sender's test hook holds every tenth
//! datagram back behind the three that follow it, as in issue 21's
//! measurement: "10 % of packets reordered by 3 positions produced 220
//! congestion events for 36 real drops"): with RACK (RFC 8985, the
//! default) reordering is not loss; with three duplicate ACKs every
//! reordered packet is a congestion event.

mod common;

use common::*;
use dropless_udp::{RecvOptions, SendOptions};

fn run(rack: bool) -> dropless_udp::TransferReport {
    let dir = TempDir::new(if rack { "reorder-rack" } else { "reorder-dup" });
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 10_000_000, 51);
    let s = SendOptions {
        rack,
        // Loss detection alone is compared: no tail loss probes, whose
        // timer a stalled process can fire in either run.
        tlp: false,
        debug_reorder_every: Some(10),
        ..Default::default()
    };
    let o = transfer(
        &src,
        &dst,
        Box::new(FixedWindow(64.0)),
        &s,
        &RecvOptions { ..recv_opts() },
    );
    let tx = o.send.unwrap();
    o.recv.unwrap();
    assert_same_file(&src, &dst);
    tx
}

#[test]
fn reordering_is_not_loss_under_rack() {
    let _g = serial();
    let dup = run(false);
    let rack = run(true);
    eprintln!(
        "dupthresh: {} events, {} retransmits; RACK: {} events, {} retransmits ({} packets)",
        dup.congestion_events,
        dup.retransmits,
        rack.congestion_events,
        rack.retransmits,
        rack.packets_sent
    );
    // About 700 packets are reordered, each by some 20-30 us on loopback,
    // which is about a quarter of the minimum RTT there: RACK's window has
    // to grow past it (RACK.reo_wnd_mult), one spurious loss per round
    // trip, before it holds. (A first bound of 3 events failed at 5; the
    // multiplier's growth takes a few round trips here. Retransmissions
    // are not bounded: a loaded machine that stalls a process for longer
    // than the window makes RACK's timer declare the flight lost.)
    // How many reorderings loopback turns into dupthresh losses depends on
    // the machine's load (85 idle; 25 in a CI run beside two builds), so
    // only enough of them to compare is required.
    // (Issue 34 asked for a hook that reorders by sequence so that load
    // cannot change the outcome. One that held the datagram until exactly
    // three more had gone, across batches, made the dupthresh side steady
    // (83-159 events) but the RACK side load-dependent: under a load
    // average of 8 on 2 cores the held datagram could wait a whole send
    // round, a delay in time that RACK rightly takes for loss (23-32
    // events, failing the bound below in 2 of 3 runs, where this hook gave
    // 6-8 against 93-107 in 3 of 3). RACK's tolerance is a time, so a
    // load-proof version of this comparison needs virtual time: the
    // transport's own test, `rack_takes_reordering_for_what_it_is_and_
    // finds_loss_by_time`, is that; this one stays a loopback check.)
    assert!(dup.congestion_events >= 10, "{}", dup.congestion_events);
    assert!(
        rack.congestion_events * 5 <= dup.congestion_events,
        "{} against {}",
        rack.congestion_events,
        dup.congestion_events
    );
}
