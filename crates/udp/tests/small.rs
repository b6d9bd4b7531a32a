//! Quick loopback tests: edge-case sizes, error paths, ACK loss, strangers.

mod common;

use std::net::UdpSocket;
use std::time::Duration;

use common::*;
use dropless_transport::AckPolicy;
use dropless_udp::{recv_file, recv_file_on, RecvOptions, SendOptions};

#[test]
fn edge_case_sizes_arrive_intact() {
    let dir = TempDir::new("sizes");
    let mss = 1000u32;
    for (i, len) in [0usize, 1, 999, 1000, 1001, 2000, 64 * 1000 + 7]
        .into_iter()
        .enumerate()
    {
        for policy in [AckPolicy::EveryPacket, AckPolicy::DELAYED] {
            let src = dir.path(&format!("in{i}"));
            let dst = dir.path(&format!("out{i}"));
            write_random_file(&src, len, i as u64 + 1);
            let sopts = SendOptions {
                mss,
                ..Default::default()
            };
            let ropts = RecvOptions {
                mss,
                ack_policy: policy,
                linger: Duration::from_millis(50),
                ..recv_opts()
            };
            let o = transfer(&src, &dst, Box::new(FixedWindow(8.0)), &sopts, &ropts);
            let s = o.send.unwrap();
            let r = o.recv.unwrap();
            assert_eq!(s.bytes, len as u64);
            assert_eq!(r.bytes, len as u64);
            assert_same_file(&src, &dst);
            std::fs::remove_file(&dst).unwrap();
        }
    }
    // no temporary files left behind
    assert!(
        dir.list().iter().all(|n| n.starts_with("in")),
        "{:?}",
        dir.list()
    );
}

#[test]
fn mss_mismatch_fails_cleanly_and_leaves_no_file() {
    let dir = TempDir::new("mismatch");
    let src = dir.path("in");
    let dst = dir.path("out");
    write_random_file(&src, 100_000, 7);
    let sopts = SendOptions {
        mss: 1000,
        timeout: Duration::from_secs(1),
        ..Default::default()
    };
    let o = transfer(&src, &dst, Box::new(FixedWindow(4.0)), &sopts, &recv_opts());
    let re = o.recv.unwrap_err().to_string();
    assert!(re.contains("same mss"), "{re}");
    let se = o.send.unwrap_err().to_string();
    assert!(se.contains("no progress"), "{se}");
    assert_eq!(dir.list(), vec!["in".to_string()]);
}

#[test]
fn receiver_start_timeout_leaves_no_file() {
    let dir = TempDir::new("start");
    let dst = dir.path("out");
    let opts = RecvOptions {
        start_timeout: Some(Duration::from_millis(100)),
        ..Default::default()
    };
    let e = recv_file("127.0.0.1:0".parse().unwrap(), &dst, &opts).unwrap_err();
    assert!(e.to_string().contains("no data packet"), "{e}");
    assert!(dir.list().is_empty(), "{:?}", dir.list());
}

#[test]
fn sender_without_receiver_times_out() {
    let dir = TempDir::new("nopeer");
    let src = dir.path("in");
    write_random_file(&src, 10_000, 3);
    // a port nobody listens on: bind and drop
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let sopts = SendOptions {
        timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let e = dropless_udp::send_file(&src, port, Box::new(FixedWindow(4.0)), &sopts).unwrap_err();
    assert!(e.to_string().contains("no progress"), "{e}");
}

#[test]
fn ack_loss_and_strangers_are_survived() {
    let dir = TempDir::new("ackloss");
    let src = dir.path("in");
    let dst = dir.path("out");
    write_random_file(&src, 3_000_000, 11);
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    // garbage and a foreign "ACK" before the real sender starts: ignored
    let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
    stranger.send_to(b"hello", peer).unwrap();
    stranger.send_to(b"DL\x04\x01rest", peer).unwrap();
    let ropts = RecvOptions {
        ack_policy: AckPolicy::EveryPacket,
        debug_drop_ack_every: Some(5),
        ..recv_opts()
    };
    let dst2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &dst2, &ropts));
    let s = dropless_udp::send_file(
        &src,
        peer,
        Box::new(FixedWindow(32.0)),
        &SendOptions::default(),
    )
    .unwrap();
    let r = h.join().unwrap().unwrap();
    assert!(r.debug_dropped > 0);
    assert_eq!(s.bytes, 3_000_000);
    assert_same_file(&src, &dst);
    eprintln!("sender: {s}\nreceiver: {r}");
}

/// Two packets of 1,000 bytes whose final ACK (the second) the receiver
/// drops, sent with this RTO floor and tail loss probes on or off; the file
/// arrives whole and the receiver saw the one duplicate that repaired it.
fn lost_final_ack(tag: &str, min_rto: Duration, tlp: bool) -> dropless_udp::TransferReport {
    let dir = TempDir::new(tag);
    let src = dir.path("in");
    let dst = dir.path("out");
    write_random_file(&src, 1500, 5); // two packets of mss 1000
    let sopts = SendOptions {
        mss: 1000,
        min_rto,
        tlp,
        ..Default::default()
    };
    let ropts = RecvOptions {
        mss: 1000,
        ack_policy: AckPolicy::EveryPacket,
        debug_drop_ack_every: Some(2), // the second ACK, the one for the FIN, is lost
        ..recv_opts()
    };
    let o = transfer(&src, &dst, Box::new(FixedWindow(8.0)), &sopts, &ropts);
    let s = o.send.unwrap();
    let r = o.recv.unwrap();
    assert_same_file(&src, &dst);
    assert_eq!(r.debug_dropped, 1);
    assert_eq!(r.duplicates, 1, "{r}");
    s
}

/// The RTO repairs a lost final ACK while the receiver lingers (tail loss
/// probes off, so that the timeout is what repairs it).
#[test]
fn lost_final_ack_is_repaired_during_linger() {
    let s = lost_final_ack("linger", Duration::from_millis(50), false);
    assert_eq!(s.rtos, 1, "{s}");
}

/// With tail loss probes (the default), the same lost final ACK is repaired
/// by the probe, one retransmission of the last packet about 2 SRTT + 2 ms
/// after it, and no RTO (the RTO's floor is 1 s here, so that a loaded
/// machine's late timers cannot let it fire first).
#[test]
fn lost_final_ack_is_repaired_by_a_tail_loss_probe() {
    assert!(
        SendOptions::default().tlp,
        "TLP is on by default in dropless send"
    );
    let s = lost_final_ack("linger-tlp", Duration::from_secs(1), true);
    assert_eq!(s.rtos, 0, "{s}");
    assert_eq!(s.retransmits, 1, "{s}");
}

#[test]
fn heavy_loss_small_file_needs_timeouts_and_still_arrives() {
    let dir = TempDir::new("heavy");
    let src = dir.path("in");
    let dst = dir.path("out");
    write_random_file(&src, 200_000, 9);
    let sopts = SendOptions {
        debug_drop_every: Some(3),
        min_rto: Duration::from_millis(20),
        ..Default::default()
    };
    let o = transfer(&src, &dst, Box::new(FixedWindow(6.0)), &sopts, &recv_opts());
    let s = o.send.unwrap();
    o.recv.unwrap();
    assert_same_file(&src, &dst);
    assert!(
        s.debug_dropped > 0 && s.retransmits >= s.debug_dropped,
        "{s}"
    );
    eprintln!("{s}");
}
