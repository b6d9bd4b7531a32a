//! Reordering over 127.0.0.1 (the sender's test hook holds every tenth
//! datagram back behind the three that follow it in the same send, as in issue 21's
//! measurement: "10 % of packets reordered by 3 positions produced 220
//! congestion events for 36 real drops"): with RACK (RFC 8985, the
//! default) reordering is not loss; with three duplicate ACKs every
//! reordered packet is a congestion event.

mod common;

use common::*;
use dropless_cc::{AckSample, CongestionEvent, Control, Controller, Time};
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
        Box::new(Trains),
        &s,
        &RecvOptions { ..recv_opts() },
    );
    let tx = o.send.unwrap();
    o.recv.unwrap();
    assert_same_file(&src, &dst);
    tx
}

/// Trains of 8 packets back to back at 400 Mb/s (one every 0.22 ms), a
/// window of 64: each train is one send of the sender's loop, so every
/// held datagram in the first five places of a train is reordered behind
/// three others, however fast or loaded the machine is.
struct Trains;
impl Controller for Trains {
    fn name(&self) -> &'static str {
        "trains"
    }
    fn control(&self) -> Control {
        Control {
            cwnd: Some(64.0),
            pacing_rate: Some(50e6),
            max_burst: Some(8),
        }
    }
    fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _now: Time) {}
}

#[test]
fn reordering_is_not_loss_under_rack() {
    let _g = serial();
    let dup = run(false);
    let rack = run(true);
    eprintln!(
        "dupthresh: {} events, {} retransmits, {} RTOs; RACK: {} events, {} retransmits, \
         {} RTOs ({} packets; min RTT {:?}, srtt {:?})",
        dup.congestion_events,
        dup.retransmits,
        dup.rtos,
        rack.congestion_events,
        rack.retransmits,
        rack.rtos,
        rack.packets_sent,
        rack.min_rtt,
        rack.srtt
    );
    // About 700 datagrams are held (every tenth), and the 5 in 8 of them
    // that open a train are reordered behind three others within one
    // send, microseconds apart. Under three duplicate ACKs each of those
    // is a loss (the receiver ACKs every out-of-order arrival at once and
    // the sender takes the ACKs one by one, so this count does not depend
    // on timing). RACK takes the first for loss (reo_wnd is 0 before any
    // reordering was seen, RFC 8985 sec. 6.2) and then, with the window
    // grown past it and Linux's 2 ms on its timer, only a receiver
    // descheduled between two ACKs for longer than that can make one
    // count. Measured: 246-358 against 1-3, idle and with four busy loops
    // on the two cores; without the 2 ms (reo_timer_extra 0), RACK gave
    // 16-171 with the four loops.
    // (History: with a fixed window and no pacing the sender's sends were
    // as large as the ACKs it had just read, which load and the machine's
    // speed decide: dupthresh gave 85 events idle, 25 and then 12 in CI
    // runs, and RACK 4 in the latter, failing the ratio below. A hook that
    // held the datagram across sends for exactly three followers delayed
    // it by up to a round trip, which RACK rightly takes for loss. The
    // trains fix the reordering in sequence and keep it short in time;
    // the bounds are the ones those runs had.)
    assert!(dup.congestion_events >= 10, "{}", dup.congestion_events);
    assert!(
        rack.congestion_events * 5 <= dup.congestion_events,
        "{} against {}",
        rack.congestion_events,
        dup.congestion_events
    );
}
