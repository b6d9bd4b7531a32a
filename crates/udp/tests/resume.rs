//! Resumed transfers ([`dropless_udp::SendOptions::resume`],
//! [`dropless_udp::RecvOptions::resume`]) over 127.0.0.1: an interrupted
//! transfer continues from what the receiver holds and arrives whole; a
//! different file starts over; a damaged part file is caught by the
//! whole-file hash and nothing is saved. (Killing either side with SIGKILL
//! is tested through the command line, crates/cli/tests/transfer.rs.)

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use common::*;
use dropless_udp::secure::{Keys, Psk, HASH_LEN};
use dropless_udp::{recv_file_on, send_file, RecvOptions, SendOptions, StopFlag, DEFAULT_MSS};

fn opts(k: u8) -> (SendOptions, RecvOptions) {
    let psk = Keys::shared(Psk::from_bytes([k; 32]));
    (
        SendOptions {
            key: Some(psk.clone()),
            resume: true,
            timeout: Duration::from_secs(2),
            ..Default::default()
        },
        RecvOptions {
            key: Some(psk),
            resume: true,
            start_timeout: Some(Duration::from_secs(3)),
            idle_timeout: Duration::from_secs(2),
            ..recv_opts()
        },
    )
}

fn total(ranges: &[(u64, u64)]) -> u64 {
    ranges.iter().map(|(a, b)| b - a).sum()
}

/// Blocks of `mss` bytes of `part` that equal the source's (what the
/// receiver had received), and of those, how many lie outside the `held`
/// ranges (which the resumed sender sends again). (The source is random,
/// so a block that was never written, zeros, never matches.)
fn received_blocks(src: &Path, part: &Path, held: &[(u64, u64)]) -> (u64, u64) {
    let a = std::fs::read(src).unwrap();
    let b = std::fs::read(part).unwrap();
    let mss = DEFAULT_MSS as usize;
    let (mut beyond, mut all) = (0, 0);
    for (k, blk) in a.chunks(mss).enumerate() {
        let at = k * mss;
        if b.get(at..at + blk.len()) == Some(blk) {
            all += 1;
            let (s, e) = (at as u64, (at + blk.len()) as u64);
            if !held.iter().any(|&(hs, he)| hs <= s && e <= he) {
                beyond += 1;
            }
        }
    }
    (beyond, all)
}

/// Runs a receiver on a thread and sends `src` at `rate` bytes/s; the
/// receiver is stopped (as by SIGINT) after `stop_after` if given.
fn attempt(
    src: &Path,
    dst: &Path,
    k: u8,
    rate: f64,
    stop_after: Option<Duration>,
    drop_every: Option<u64>,
) -> (
    anyhow::Result<dropless_udp::TransferReport>,
    anyhow::Result<dropless_udp::TransferReport>,
) {
    let (mut s, mut r) = opts(k);
    s.debug_drop_every = drop_every;
    let stop = StopFlag::default();
    r.stop = Some(stop.clone());
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer: SocketAddr = sock.local_addr().unwrap();
    let d = dst.to_path_buf();
    let h = std::thread::spawn(move || recv_file_on(sock, &d, &r));
    let stopper = stop_after.map(|t| {
        std::thread::spawn(move || {
            std::thread::sleep(t);
            stop.flag()
                .store(true, std::sync::atomic::Ordering::Relaxed);
        })
    });
    let tx = send_file(src, peer, Box::new(FixedRate { cwnd: 1000.0, rate }), &s);
    let rx = h.join().unwrap();
    if let Some(t) = stopper {
        t.join().unwrap();
    }
    (tx, rx)
}

#[test]
fn an_interrupted_transfer_resumes_from_what_the_receiver_holds() {
    let _g = serial();
    let dir = TempDir::new("resume");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    let size = 12_000_003u64;
    write_random_file(&src, size as usize, 41);
    // 12 MB at 24 MB/s, stopped at about 40 %, with every 40th datagram
    // lost (the receiver holds data beyond holes until they are repaired).
    let (tx, rx) = attempt(
        &src,
        &dst,
        41,
        24e6,
        Some(Duration::from_millis(200)),
        Some(40),
    );
    assert!(format!("{:#}", rx.unwrap_err()).contains("interrupted"));
    assert!(tx.is_err(), "the sender is left unanswered");
    assert!(!dst.exists());
    let part = dir.path(".out.bin.dropless-part");
    let ranges = held(&dir, "out.bin");
    let at = total(&ranges);
    assert!(at > 0 && at < size, "held {at} of {size}");
    let (beyond, all) = received_blocks(&src, &part, &ranges);
    // Resumed: the rest only, and the file whole.
    let (tx, rx) = attempt(&src, &dst, 41, 200e6, None, None);
    let (tx, rx) = (tx.unwrap(), rx.unwrap());
    assert_same_file(&src, &dst);
    assert_eq!((tx.resumed_held, rx.resumed_held), (at, at));
    assert_eq!(rx.bytes, size - at);
    let mss = DEFAULT_MSS as u64;
    assert_eq!(
        tx.packets_sent - tx.retransmits,
        (size - at + HASH_LEN).div_ceil(mss),
        "every packet of the rest once"
    );
    // Of what had arrived, nothing is sent again (an interrupt records
    // every range that arrived, in order or not).
    assert!(
        beyond == 0 && all > 0,
        "re-sent {beyond} of {all} blocks already received"
    );
    assert_eq!(
        dir.list(),
        vec!["in.bin", "out.bin"],
        "no part or record left"
    );
}

#[test]
fn another_file_under_the_same_name_starts_over() {
    let _g = serial();
    let dir = TempDir::new("resume-other");
    let (a, b, dst) = (dir.path("a.bin"), dir.path("b.bin"), dir.path("out.bin"));
    write_random_file(&a, 6_000_000, 42);
    write_random_file(&b, 6_000_000, 46); // (seeds 42 and 43 give the same bytes)
    let (_, rx) = attempt(&a, &dst, 42, 24e6, Some(Duration::from_millis(100)), None);
    assert!(rx.is_err());
    assert!(total(&held(&dir, "out.bin")) > 0);
    let (tx, rx) = attempt(&b, &dst, 42, 400e6, None, None);
    let (tx, rx) = (tx.unwrap(), rx.unwrap());
    assert_eq!((tx.resumed_held, rx.resumed_held), (0, 0));
    assert_same_file(&b, &dst);
}

#[test]
fn a_damaged_part_file_is_caught_and_nothing_is_saved() {
    let _g = serial();
    let dir = TempDir::new("resume-damaged");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    write_random_file(&src, 6_000_000, 44);
    let (_, rx) = attempt(&src, &dst, 44, 24e6, Some(Duration::from_millis(100)), None);
    assert!(rx.is_err());
    let ranges = held(&dir, "out.bin");
    assert!(ranges[0].0 == 0 && ranges[0].1 > 1000, "{ranges:?}");
    let at = ranges[0].1;
    // A byte of what the receiver holds changes on its disk.
    let part = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path(".out.bin.dropless-part"))
        .unwrap();
    part.write_all_at(b"\xff\x00\xff", at / 2).unwrap();
    drop(part);
    let (_, rx) = attempt(&src, &dst, 44, 400e6, None, None);
    let e = format!("{:#}", rx.unwrap_err());
    assert!(e.contains("BLAKE3"), "{e}");
    assert!(!dst.exists());
    assert_eq!(dir.list(), vec!["in.bin"], "part and record removed");
    // ... so that the next attempt sends the whole file.
    let (tx, _) = attempt(&src, &dst, 44, 400e6, None, None);
    assert_eq!(tx.unwrap().resumed_held, 0);
    assert_same_file(&src, &dst);
}

/// A part that holds several ranges (as a transfer interrupted with data
/// beyond its holes leaves it), none aligned to packets: the resumed
/// sender sends the holes only, each byte once, and the file arrives
/// whole. (Planted by hand, so that no timing decides where the holes
/// are.)
#[test]
fn a_part_with_holes_is_resumed_by_sending_only_the_holes() {
    let _g = serial();
    let dir = TempDir::new("resume-holes");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    let size = 5_000_017u64;
    write_random_file(&src, size as usize, 47);
    let bytes = std::fs::read(&src).unwrap();
    let ranges = [
        (0u64, 1_000_001u64),
        (1_500_000, 1_500_100),
        (2_000_003, 3_999_999),
        (4_999_000, size),
    ];
    let mut part = vec![0u8; size as usize];
    for &(a, b) in &ranges {
        part[a as usize..b as usize].copy_from_slice(&bytes[a as usize..b as usize]);
    }
    std::fs::write(dir.path(".out.bin.dropless-part"), &part).unwrap();
    let hex: String = blake3::hash(&bytes)
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let list: Vec<String> = ranges.iter().map(|(a, b)| format!("{a}-{b}")).collect();
    std::fs::write(
        dir.path(".out.bin.dropless-resume"),
        format!(
            "dropless resume 2\nsize {size}\nblake3 {hex}\nheld {}\n",
            list.join(" ")
        ),
    )
    .unwrap();
    let at = total(&ranges);
    let (tx, rx) = attempt(&src, &dst, 47, 200e6, None, None);
    let (tx, rx) = (tx.unwrap(), rx.unwrap());
    assert_same_file(&src, &dst);
    assert_eq!((tx.resumed_held, rx.resumed_held), (at, at));
    assert_eq!(rx.bytes, size - at);
    assert_eq!(
        tx.packets_sent - tx.retransmits,
        (size - at + HASH_LEN).div_ceil(DEFAULT_MSS as u64),
        "every byte of the holes once, nothing held"
    );
    assert_eq!(dir.list(), vec!["in.bin", "out.bin"]);
}

/// The progress record a display reads ([`SendOptions::progress`]): its
/// total is the stream the handshake settled (a resumed file less what
/// the receiver held, plus the hash), and at the end all of it is done.
#[test]
fn progress_counts_the_stream_to_its_end() {
    let _g = serial();
    let dir = TempDir::new("resume-progress");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    let size = 3_000_001u64;
    write_random_file(&src, size as usize, 48);
    let (mut s, r) = opts(48);
    let p = dropless_udp::Progress::default();
    s.progress = Some(p.clone());
    assert_eq!((p.done(), p.total()), (0, None));
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer = sock.local_addr().unwrap();
    let d = dst.clone();
    let h = std::thread::spawn(move || recv_file_on(sock, &d, &r));
    let tx = send_file(
        &src,
        peer,
        Box::new(FixedRate {
            cwnd: 1000.0,
            rate: 400e6,
        }),
        &s,
    );
    h.join().unwrap().unwrap();
    tx.unwrap();
    assert_same_file(&src, &dst);
    assert_eq!(p.total(), Some(size + HASH_LEN));
    assert_eq!(p.done(), size + HASH_LEN);
}
