//! A file (or directory) split over parallel streams (`send -P N FILE`,
//! issue 34 item 4): one session, the stream dealt out block by block, the
//! receiver writing every stream into the one part file, one hash check at
//! the end; resume counts ranges from any stream. No assertion depends on
//! timing: the interrupted transfer is cut by a relay that counts
//! datagrams.

mod common;

use std::fs;
use std::net::{SocketAddr, UdpSocket};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dropless_udp::secure::{Keys, Psk, HASH_LEN};
use dropless_udp::{
    recv_file_on, send_streams, RecvOptions, SendOptions, Source, TransferReport, DEFAULT_MSS,
};

fn keyed(k: u8, resume: bool) -> (SendOptions, RecvOptions) {
    let psk = Keys::shared(Psk::from_bytes([k; 32]));
    (
        SendOptions {
            key: Some(psk.clone()),
            resume,
            timeout: Duration::from_secs(3),
            ..Default::default()
        },
        RecvOptions {
            key: Some(psk),
            resume,
            start_timeout: Some(Duration::from_secs(5)),
            idle_timeout: Duration::from_secs(3),
            ..recv_opts()
        },
    )
}

/// Sends `src` over `n` streams to a receiver into `dst` (through
/// `via`, a relay, when given: the address the sender sends to).
fn run(
    n: usize,
    src: &Path,
    dst: &Path,
    s: &SendOptions,
    r: &RecvOptions,
    via: Option<&dyn Fn(SocketAddr) -> SocketAddr>,
) -> (
    anyhow::Result<Vec<TransferReport>>,
    anyhow::Result<TransferReport>,
) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut peer = sock.local_addr().unwrap();
    if let Some(f) = via {
        peer = f(peer);
    }
    let (d, r) = (dst.to_path_buf(), r.clone());
    let h = std::thread::spawn(move || recv_file_on(sock, &d, &r));
    let ccs = (0..n)
        .map(|_| Box::new(FixedWindow(32.0)) as Box<dyn dropless_udp::Controller>)
        .collect();
    let tx = send_streams(Source::File(src), peer, ccs, s, &mut |_| {});
    (tx, h.join().unwrap())
}

#[test]
fn a_file_over_four_streams_arrives_byte_for_byte() {
    let _g = serial();
    let dir = TempDir::new("pfile");
    let mss = DEFAULT_MSS as u64;
    // Not a multiple of the block, fewer blocks than streams (with the
    // hash: 2 blocks), exactly N blocks of stream, and empty.
    for (k, size) in [1_000_003u64, mss + 5, 4 * mss - HASH_LEN, 0]
        .into_iter()
        .enumerate()
    {
        let (src, dst) = (dir.path(&format!("in{k}")), dir.path(&format!("out{k}")));
        write_random_file(&src, size as usize, 7 + k as u64);
        let (s, r) = keyed(60 + k as u8, false);
        let (tx, rx) = run(4, &src, &dst, &s, &r, None);
        let (tx, rx) = (tx.unwrap(), rx.unwrap());
        assert_same_file(&src, &dst);
        assert_eq!(tx.len(), 4);
        // The streams' shares of the file add up to it, on both ends.
        assert_eq!(tx.iter().map(|r| r.bytes).sum::<u64>(), size, "size {size}");
        assert_eq!((rx.bytes, rx.streams), (size, 4), "size {size}");
        // Every block of the stream (file and hash) was sent once beside
        // retransmissions, plus one empty FIN for each stream with
        // nothing to carry.
        let blocks = (size + HASH_LEN).div_ceil(mss);
        let sent: u64 = tx.iter().map(|r| r.packets_sent - r.retransmits).sum();
        assert_eq!(sent, blocks + 4u64.saturating_sub(blocks), "size {size}");
    }
    let mut names = dir.list();
    names.retain(|n| n.starts_with('.'));
    assert!(names.is_empty(), "part files left: {names:?}");
}

#[test]
fn a_plaintext_file_is_not_split() {
    let _g = serial();
    let dir = TempDir::new("pfile-plain");
    let (src, dst) = (dir.path("in"), dir.path("out"));
    write_random_file(&src, 10_000, 1);
    let s = SendOptions {
        timeout: Duration::from_secs(1),
        ..Default::default()
    };
    let ccs = (0..2)
        .map(|_| Box::new(FixedWindow(32.0)) as Box<dyn dropless_udp::Controller>)
        .collect();
    let e = send_streams(
        Source::File(&src),
        "127.0.0.1:9".parse().unwrap(),
        ccs,
        &s,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(format!("{e:#}").contains("encryption only"), "{e:#}");
    assert!(!dst.exists());
}

#[test]
fn a_directory_over_three_streams_arrives_with_modes_and_times() {
    let _g = serial();
    let dir = TempDir::new("pfile-tree");
    let src = dir.path("src");
    fs::create_dir_all(src.join("sub")).unwrap();
    write_random_file(&src.join("a.bin"), 300_001, 1);
    write_random_file(&src.join("sub/b"), 5, 2);
    fs::write(src.join("zero"), b"").unwrap();
    fs::set_permissions(src.join("sub/b"), fs::Permissions::from_mode(0o751)).unwrap();
    let dst = dir.path("dst");
    let (s, r) = keyed(70, false);
    let (tx, rx) = run(3, &src, &dst, &s, &r, None);
    tx.unwrap();
    assert_eq!(rx.unwrap().streams, 3);
    for name in ["a.bin", "sub/b", "zero"] {
        let (a, b) = (src.join(name), dst.join(name));
        assert_same_file(&a, &b);
        let (ma, mb) = (fs::metadata(&a).unwrap(), fs::metadata(&b).unwrap());
        assert_eq!(ma.mode(), mb.mode(), "{name}");
        assert_eq!(
            (ma.mtime(), ma.mtime_nsec()),
            (mb.mtime(), mb.mtime_nsec()),
            "{name}"
        );
    }
    assert_eq!(dir.list(), vec!["dst".to_string(), "src".to_string()]);
}

/// A relay in front of `to` on a thread: forwards the first `pass`
/// datagrams from the sender and drops every later one (the sender's side
/// of the path cut, by count, not by time); ACKs pass. Ends when `stop`.
fn relay(to: SocketAddr, pass: usize, stop: Arc<AtomicBool>) -> SocketAddr {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let addr = sock.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 65536];
        let mut sender: Option<SocketAddr> = None;
        let mut passed = 0;
        while !stop.load(Ordering::Relaxed) {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            if from == to {
                if let Some(s) = sender {
                    let _ = sock.send_to(&buf[..n], s);
                }
            } else {
                sender = Some(from);
                if passed < pass {
                    passed += 1;
                    let _ = sock.send_to(&buf[..n], to);
                }
            }
        }
    });
    addr
}

#[test]
fn a_cut_transfer_over_four_streams_resumes_to_the_whole_file() {
    let _g = serial();
    let dir = TempDir::new("pfile-resume");
    let (src, dst) = (dir.path("in.bin"), dir.path("out.bin"));
    let size = 2_000_003u64;
    let mss = DEFAULT_MSS as u64;
    write_random_file(&src, size as usize, 77);
    // The first attempt: 300 datagrams reach the receiver (the handshake
    // and about 400 kB of data, from all four streams), then nothing; both
    // ends give up, the receiver keeping the part and its record.
    let (s, r) = keyed(80, true);
    let stop = Arc::new(AtomicBool::new(false));
    let st = stop.clone();
    let cut = move |to: SocketAddr| relay(to, 300, st.clone());
    let (tx, rx) = run(4, &src, &dst, &s, &r, Some(&cut));
    stop.store(true, Ordering::Relaxed);
    assert!(tx.is_err() && rx.is_err(), "the cut transfer failed");
    assert!(!dst.exists());
    let ranges = held(&dir, "out.bin");
    let held: u64 = ranges.iter().map(|(a, b)| b - a).sum();
    assert!(held > 0 && held < size, "held {held} of {size}");
    // Ranges from streams other than the first: something held beyond
    // the first block of every four (stream 0 alone would hold blocks
    // 0, 4, 8, ...: never two adjacent).
    assert!(
        ranges.iter().any(|(a, b)| b - a > mss),
        "only one stream's blocks held: {ranges:?}"
    );
    // Resumed over four streams, directly: the rest only, the file whole.
    let (tx, rx) = run(4, &src, &dst, &s, &r, None);
    let (tx, rx) = (tx.unwrap(), rx.unwrap());
    assert_same_file(&src, &dst);
    assert_eq!(rx.resumed_held, held);
    assert_eq!(rx.bytes, size - held);
    let sent: u64 = tx.iter().map(|r| r.packets_sent - r.retransmits).sum();
    assert_eq!(sent, (size - held + HASH_LEN).div_ceil(mss).max(4));
    assert_eq!(
        dir.list(),
        vec!["in.bin".to_string(), "out.bin".to_string()],
        "no part or record left"
    );
}
