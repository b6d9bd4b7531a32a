//! Key-pair mode (issue 34, "Identities"), over 127.0.0.1: a receiver
//! with a list of allowed senders' public keys refuses a sender whose key
//! is not listed (it gets nothing larger than its own datagram, and takes
//! no slot), and admits one that is.

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use dropless_udp::secure::{AllowedPeers, Initiator, Keys, PrivateKey, Psk};
use dropless_udp::{recv_file_on, serve_on, server_socket, RecvOptions, Sink, StopFlag};

struct Ends {
    receiver: Keys,
    alice: Keys,
    mallory: Keys,
}

/// Alice is listed, Mallory is not; both know the receiver's public key
/// (and, with `psk`, the pre-shared key as well).
fn ends(psk: Option<u8>) -> Ends {
    let r = PrivateKey::generate().unwrap();
    let a = PrivateKey::generate().unwrap();
    let m = PrivateKey::generate().unwrap();
    let psk = psk.map(|k| Psk::from_bytes([k; 32]));
    Ends {
        alice: Keys::to_peer(a.clone(), r.public(), psk.clone()),
        mallory: Keys::to_peer(m, r.public(), psk.clone()),
        receiver: Keys::from_peers(r, AllowedPeers::new(vec![a.public()]), psk),
    }
}

/// Mallory's first message by hand: every answer is at most as large as
/// what it answers; the retry comes, then (with the cookie) nothing.
/// Returns the number of answers to the message with the cookie.
fn mallory_by_hand(mallory: &Keys, to: SocketAddr) -> usize {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    s.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut init = Initiator::new(mallory).unwrap();
    let mut buf = [0u8; 2048];
    let mut got_retry = false;
    for _ in 0..20 {
        s.send_to(init.datagram(), to).unwrap();
        if let Ok(n) = s.recv(&mut buf) {
            assert!(
                n <= init.datagram().len(),
                "{n} bytes answer {}",
                init.datagram().len()
            );
            if init.on_retry(&buf[..n]) {
                got_retry = true;
                break;
            }
        }
    }
    assert!(got_retry, "no retry from {to}");
    let mut answers = 0;
    for _ in 0..3 {
        s.send_to(init.datagram(), to).unwrap();
        if let Ok(n) = s.recv(&mut buf) {
            assert!(n <= init.datagram().len());
            answers += 1;
        }
    }
    answers
}

#[test]
fn a_server_with_allowed_peers_refuses_an_unlisted_key_and_admits_a_listed_one() {
    let _g = serial();
    for psk in [None, Some(61)] {
        let e = ends(psk);
        let sock = server_socket("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = sock.local_addr().unwrap();
        let stop = StopFlag::default();
        let opts = RecvOptions {
            key: Some(e.receiver.clone()),
            idle_timeout: Duration::from_secs(10),
            linger: Duration::from_millis(200),
            stop: Some(stop.clone()),
            ..recv_opts()
        };
        // One slot: were Mallory admitted, Alice would find it taken.
        let h = std::thread::spawn(move || {
            serve_on(sock, Sink::Check, &opts, 1, &mut |_, _| {}).unwrap()
        });
        assert_eq!(mallory_by_hand(&e.mallory, addr), 0, "Mallory answered");
        let err = real_sender(&e.mallory, 100_000, addr, Duration::from_secs(1))
            .expect_err("Mallory served");
        let err = format!("{err:#}");
        assert!(err.contains("--allowed-peers"), "{err}");
        assert_eq!(
            real_sender(&e.alice, 300_000, addr, Duration::from_secs(10)).unwrap(),
            300_000,
            "Alice served"
        );
        stop.flag().store(true, Ordering::Relaxed);
        let stats = h.join().unwrap();
        assert_eq!(stats.admitted, 1, "only Alice: {stats:?}");
        assert_eq!(stats.busy, 0, "{stats:?}");
    }
}

#[test]
fn a_one_shot_receiver_with_allowed_peers_writes_only_the_listed_senders_file() {
    let _g = serial();
    let dir = TempDir::new("identity");
    let e = ends(None);
    let src = dir.path("data");
    write_random_file(&src, 1_000_000, 7);
    let out = dir.path("copy");
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = sock.local_addr().unwrap();
    let opts = RecvOptions {
        key: Some(e.receiver.clone()),
        ..recv_opts()
    };
    let o = out.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &o, &opts));
    // (The receiver makes its hidden part file when it starts.)
    let part_len = |d: &TempDir| -> u64 {
        d.list()
            .iter()
            .filter(|n| n.ends_with(".dropless-part"))
            .map(|n| std::fs::metadata(d.path(n)).unwrap().len())
            .sum()
    };
    assert_eq!(mallory_by_hand(&e.mallory, addr), 0, "Mallory answered");
    let send = |keys: &Keys, timeout: Duration| {
        dropless_udp::send(
            dropless_udp::Source::File(&src),
            addr,
            Box::new(FixedWindow(64.0)),
            &dropless_udp::SendOptions {
                key: Some(keys.clone()),
                timeout,
                ..Default::default()
            },
            &mut |_| {},
        )
    };
    assert!(send(&e.mallory, Duration::from_secs(1)).is_err());
    assert_eq!(part_len(&dir), 0, "Mallory wrote nothing: {:?}", dir.list());
    assert!(!out.exists());
    let sent = send(&e.alice, Duration::from_secs(10)).unwrap();
    assert_eq!(sent.bytes, 1_000_000);
    let got = h.join().unwrap().unwrap();
    assert!(got.encrypted);
    assert_same_file(&src, &out);
}
