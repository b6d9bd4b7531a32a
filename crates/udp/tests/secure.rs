//! Authenticated encryption over 127.0.0.1 ([`dropless_udp::secure`]):
//! encrypted transfers arrive intact, and the attacks of issue 21 fail: a
//! forged plaintext datagram, replayed and altered datagrams, a sender
//! without the key. Each attack test fails on a plaintext receiver.

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dropless_cc::PacketFlags;
use dropless_transport::{DataPacket, Ecn};
use dropless_udp::secure::{Keys, Psk};
use dropless_udp::{recv_file_on, send_file, RecvOptions, SendOptions};
use dropless_wire::{encode_data, DATA_HEADER_LEN};

fn keyed(k: u8) -> (SendOptions, RecvOptions) {
    let psk = Keys::shared(Psk::from_bytes([k; 32]));
    (
        SendOptions {
            key: Some(psk.clone()),
            timeout: Duration::from_secs(3),
            ..Default::default()
        },
        RecvOptions {
            key: Some(psk),
            start_timeout: Some(Duration::from_secs(3)),
            ..recv_opts()
        },
    )
}

/// The attack of issue 21: `data(conn=1, seq=0, FIN, "EVIL")` as the first
/// datagram a receiver gets.
fn evil() -> Vec<u8> {
    let p = DataPacket {
        conn: 1,
        seq: 0,
        len: 4,
        flags: PacketFlags::FIN,
        ecn: Ecn::NotEct,
        ts: 0,
    };
    let mut buf = vec![0u8; DATA_HEADER_LEN + 4];
    let n = encode_data(&p, b"EVIL", &mut buf).unwrap();
    buf.truncate(n);
    buf
}

#[test]
fn an_encrypted_file_arrives_intact_and_says_so() {
    let _g = serial();
    let dir = TempDir::new("secure-file");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 3_000_001, 5);
    let (s, r) = keyed(1);
    let o = transfer(&src, &dst, Box::new(FixedWindow(64.0)), &s, &r);
    let (tx, rx) = (o.send.unwrap(), o.recv.unwrap());
    assert_same_file(&src, &dst);
    assert!(tx.encrypted && rx.encrypted);
    assert_eq!((tx.rejected, rx.rejected), (0, 0));
}

/// A forged plaintext datagram reaches an encrypted receiver first: it is
/// dropped and counted, and the real file arrives. (A plaintext receiver
/// writes "EVIL" and reports success: checked below too.)
#[test]
fn a_forged_first_datagram_neither_writes_nor_hijacks() {
    let _g = serial();
    let dir = TempDir::new("secure-forged");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 500_000, 6);
    let (s, r) = keyed(2);
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    let d2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &d2, &r));
    let attacker = UdpSocket::bind("127.0.0.1:0").unwrap();
    attacker.send_to(&evil(), peer).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let tx = send_file(&src, peer, Box::new(FixedWindow(32.0)), &s).unwrap();
    let rx = h.join().unwrap().unwrap();
    assert_same_file(&src, &dst);
    assert!(rx.rejected >= 1, "{rx}");
    assert!(tx.encrypted);

    // The same attack on a plaintext receiver succeeds: that is what the
    // key prevents.
    let _ = std::fs::remove_file(&dst);
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    let d2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &d2, &recv_opts()));
    attacker.send_to(&evil(), peer).unwrap();
    let rx = h.join().unwrap().unwrap();
    assert_eq!(std::fs::read(&dst).unwrap(), b"EVIL");
    assert!(!rx.encrypted);
}

/// A relay between sender and receiver sends every data datagram twice,
/// flips one byte of every 50th, and at the end replays the first 20 it
/// saw: the receiver drops the duplicates, the altered and the replayed
/// (all counted), and the file arrives intact.
#[test]
fn replayed_and_altered_datagrams_are_dropped() {
    let _g = serial();
    let dir = TempDir::new("secure-relay");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 2_000_000, 7);
    let (s, r) = keyed(3);
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let rx_addr = rsock.local_addr().unwrap();
    let d2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(rsock, &d2, &r));
    let relay = UdpSocket::bind("127.0.0.1:0").unwrap();
    relay
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let relay_addr = relay.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let relay_thread = std::thread::spawn(move || {
        let mut sender: Option<SocketAddr> = None;
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let mut n = 0u64;
        let mut buf = vec![0u8; 65536];
        while !stop2.load(Ordering::Relaxed) {
            let Ok((len, from)) = relay.recv_from(&mut buf) else {
                continue;
            };
            let d = &buf[..len];
            if from == rx_addr {
                if let Some(s) = sender {
                    let _ = relay.send_to(d, s);
                }
                continue;
            }
            sender = Some(from);
            n += 1;
            if seen.len() < 20 {
                seen.push(d.to_vec());
            }
            if n % 50 == 0 && len > 40 {
                let mut bad = d.to_vec();
                bad[len / 2] ^= 0x01;
                let _ = relay.send_to(&bad, rx_addr);
            } else {
                let _ = relay.send_to(d, rx_addr);
                let _ = relay.send_to(d, rx_addr);
            }
        }
        for d in &seen {
            let _ = relay.send_to(d, rx_addr);
        }
        n
    });
    let tx = send_file(&src, relay_addr, Box::new(FixedWindow(32.0)), &s).unwrap();
    stop.store(true, Ordering::Relaxed);
    let relayed = relay_thread.join().unwrap();
    let rx = h.join().unwrap().unwrap();
    assert_same_file(&src, &dst);
    assert!(
        tx.retransmits > 0,
        "the altered datagrams were lost and resent: {tx}"
    );
    // Every duplicate and every altered datagram was refused.
    assert!(
        rx.rejected >= relayed - relayed / 50,
        "{relayed} relayed; {rx}"
    );
    assert_eq!(rx.duplicates, 0, "no duplicate reached the transport: {rx}");
}

/// A sender with another key gets no answer: it fails with a message that
/// names the handshake, and the receiver writes nothing.
#[test]
fn another_key_gets_no_answer_and_no_file() {
    let _g = serial();
    let dir = TempDir::new("secure-wrong-key");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 10_000, 8);
    let (_, r) = keyed(4);
    let (s, _) = keyed(5);
    let o = transfer(&src, &dst, Box::new(FixedWindow(8.0)), &s, &r);
    let e = o.send.unwrap_err().to_string();
    assert!(e.contains("handshake") && e.contains("same key"), "{e}");
    assert!(o.recv.is_err());
    assert_eq!(dir.list(), ["in.bin"], "no output and no part file");
}

/// A peer that acknowledges data never sent (a plaintext transfer: an
/// encrypted one cannot be fed a forged ACK) ends the transfer at once
/// with a message, instead of a sender that ignores it and stalls.
#[test]
fn an_ack_beyond_what_was_sent_ends_the_transfer() {
    use dropless_transport::AckPacket;
    use dropless_wire::{decode, encode_ack, Decoded, MAX_ACK_LEN};
    let fake = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = fake.local_addr().unwrap();
    let h = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let (n, from) = fake.recv_from(&mut buf).unwrap();
        let Ok(Decoded::Data(p, _)) = decode(&buf[..n]) else {
            panic!("expected a data packet");
        };
        let a = AckPacket {
            conn: p.conn,
            cum_ack: 1_000_000,
            ..Default::default()
        };
        let mut out = [0u8; MAX_ACK_LEN];
        let m = encode_ack(&a, &mut out).unwrap();
        fake.send_to(&out[..m], from).unwrap();
    });
    let t = std::time::Instant::now();
    let e = dropless_udp::send(
        dropless_udp::Source::Bytes(10_000_000),
        peer,
        Box::new(FixedWindow(4.0)),
        &SendOptions::default(),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    h.join().unwrap();
    assert!(
        e.contains("acknowledged packet 1000000") && e.contains("only 4 were sent"),
        "{e}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "ended at once: {:?}",
        t.elapsed()
    );
}

/// One data packet far beyond what has arrived (seq 6e9: an 8.4 TB offset)
/// is dropped by the receive window: the output never grows past what was
/// sent in order. (Plaintext: the window holds for any sender, even one
/// with the key.)
#[test]
fn a_packet_beyond_the_receive_window_does_not_grow_the_file() {
    let dir = TempDir::new("recv-window");
    let dst = dir.path("out.bin");
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    let ropts = RecvOptions {
        idle_timeout: Duration::from_millis(800),
        ..recv_opts()
    };
    let d2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &d2, &ropts));
    let attacker = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mss = dropless_udp::DEFAULT_MSS;
    let send = |seq: u64, len: u32, flags: PacketFlags| {
        let p = DataPacket {
            conn: 9,
            seq,
            len,
            flags,
            ecn: Ecn::NotEct,
            ts: 0,
        };
        let payload = vec![1u8; len as usize];
        let mut buf = vec![0u8; DATA_HEADER_LEN + len as usize];
        let n = encode_data(&p, &payload, &mut buf).unwrap();
        attacker.send_to(&buf[..n], peer).unwrap();
    };
    send(0, mss, PacketFlags::NONE);
    send(6_000_000_000, 1, PacketFlags::FIN);
    std::thread::sleep(Duration::from_millis(300));
    let largest = std::fs::read_dir(dir.path(""))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .max()
        .unwrap_or(0);
    assert!(largest <= mss as u64, "a part file of {largest} bytes");
    let e = h.join().unwrap().unwrap_err().to_string();
    assert!(e.contains("silent"), "{e}");
    assert!(dir.list().is_empty(), "no part file left: {:?}", dir.list());
}

/// An encrypted file transfer ends in the file's BLAKE3 hash, taken before
/// the first packet: a file that changes while it is sent arrives as the
/// sender read it, the hash no longer matches, and the receiver saves
/// nothing (the sender, unanswered, fails after its timeout).
#[test]
fn a_file_changed_while_sent_fails_the_whole_file_hash() {
    use std::os::unix::fs::FileExt;
    let _g = serial();
    let dir = TempDir::new("secure-hash");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 2_000_000, 9);
    let (s, r) = keyed(6);
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    let d2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &d2, &r));
    let src2 = src.clone();
    let writer = std::thread::spawn(move || {
        // The transfer takes about 0.5 s at 4 MB/s; change the last byte
        // early on, long before it is read.
        std::thread::sleep(Duration::from_millis(100));
        let f = std::fs::OpenOptions::new().write(true).open(&src2).unwrap();
        f.write_all_at(b"!", 1_999_999).unwrap();
    });
    let cc = FixedRate {
        cwnd: 64.0,
        rate: 4e6,
    };
    // The receiver refuses the file at its end and stops answering (the
    // protocol has no rejection message), so the sender fails by timeout.
    let tx = send_file(&src, peer, Box::new(cc), &s);
    writer.join().unwrap();
    assert!(tx.is_err());
    let e = h.join().unwrap().unwrap_err().to_string();
    assert!(e.contains("BLAKE3"), "{e}");
    assert_eq!(dir.list(), ["in.bin"], "nothing saved, no part file");
}

/// 20,000 random datagrams (noise, and noise behind valid-looking headers
/// of every type) hit an encrypted receiver from another address while a
/// real transfer runs: the file arrives intact and the noise is counted,
/// none of it accepted.
#[test]
fn a_flood_of_random_datagrams_changes_nothing() {
    let _g = serial();
    let dir = TempDir::new("secure-flood");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 3_000_000, 10);
    let (s, r) = keyed(7);
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    let d2 = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &d2, &r));
    let flood = std::thread::spawn(move || {
        let attacker = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let mut buf = vec![0u8; 1500];
        for k in 0..20_000u32 {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            let len = 8 + (r % 1400) as usize;
            for (i, b) in buf[..len].iter_mut().enumerate() {
                *b = (r >> (i % 56)) as u8 ^ i as u8;
            }
            if k % 2 == 0 {
                buf[..2].copy_from_slice(b"DL");
                buf[2] = dropless_wire::VERSION;
                buf[3] = 1 + (k / 2 % 5) as u8;
            }
            let _ = attacker.send_to(&buf[..len], peer);
            if k % 64 == 0 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    });
    std::thread::sleep(Duration::from_millis(5));
    let tx = send_file(&src, peer, Box::new(FixedWindow(64.0)), &s).unwrap();
    flood.join().unwrap();
    let rx = h.join().unwrap().unwrap();
    assert_same_file(&src, &dst);
    assert!(tx.encrypted && rx.encrypted);
    assert!(rx.rejected > 1000, "{rx}");
}

/// Issue 34: `--insecure` on one end only is named as the cause when the
/// receiver gives up, in both directions.
#[test]
fn a_key_on_one_end_only_is_named_as_the_cause() {
    let dir = TempDir::new("secure-mismatch");
    let src = dir.path("src");
    write_random_file(&src, 20_000, 4);
    for receiver_keyed in [true, false] {
        let (mut s, mut r) = keyed(61);
        s.timeout = Duration::from_secs(1);
        r.start_timeout = Some(Duration::from_secs(2));
        if receiver_keyed {
            s.key = None;
        } else {
            r.key = None;
        }
        let out = transfer(&src, &dir.path("out"), Box::new(FixedWindow(16.0)), &s, &r);
        let e = format!("{:#}", out.recv.unwrap_err());
        let want = if receiver_keyed {
            "--insecure"
        } else {
            "--key"
        };
        assert!(e.contains(want), "receiver keyed {receiver_keyed}: {e}");
        assert!(out.send.is_err());
    }
}
