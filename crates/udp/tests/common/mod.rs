//! Shared helpers for the loopback tests.
#![allow(dead_code)]

use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dropless_cc::{AckSample, CongestionEvent, Control, Controller, Time};
use dropless_udp::{recv_file_on, send_file, RecvOptions, SendOptions, TransferReport};

/// Big transfers take the lock so that they do not compete for the two cores.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);
impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("dropless-udp-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// Names of the files in the directory, sorted.
    pub fn list(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `len` pseudo-random bytes (xorshift64*) to `path`.
pub fn write_random_file(path: &Path, len: usize, seed: u64) {
    let mut x = seed | 1;
    let mut data = Vec::with_capacity(len + 8);
    while data.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        data.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    data.truncate(len);
    std::fs::write(path, data).unwrap();
}

pub fn assert_same_file(a: &Path, b: &Path) {
    let x = std::fs::read(a).unwrap();
    let y = std::fs::read(b).unwrap();
    assert_eq!(x.len(), y.len(), "lengths differ");
    if let Some(i) = x.iter().zip(&y).position(|(p, q)| p != q) {
        panic!("files differ first at byte {i}");
    }
}

/// A fixed-window controller (for tests that are about the socket plumbing,
/// not congestion control).
pub struct FixedWindow(pub f64);
impl Controller for FixedWindow {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn control(&self) -> Control {
        Control {
            cwnd: Some(self.0),
            ..Default::default()
        }
    }
    fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _now: Time) {}
}

/// A fixed window with a fixed pacing rate in bytes per second.
pub struct FixedRate {
    pub cwnd: f64,
    pub rate: f64,
}
impl Controller for FixedRate {
    fn name(&self) -> &'static str {
        "fixed-rate"
    }
    fn control(&self) -> Control {
        Control {
            cwnd: Some(self.cwnd),
            pacing_rate: Some(self.rate),
            max_burst: None,
        }
    }
    fn on_ack(&mut self, _now: Time, _ack: &AckSample) {}
    fn on_congestion_event(&mut self, _now: Time, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _now: Time) {}
}

pub struct Outcome {
    pub send: anyhow::Result<TransferReport>,
    pub recv: anyhow::Result<TransferReport>,
    pub wall: Duration,
}

/// Runs a receiver on a thread (bound to 127.0.0.1:0) and the sender on this thread.
pub fn transfer(
    src: &Path,
    dst: &Path,
    cc: Box<dyn Controller>,
    sopts: &SendOptions,
    ropts: &RecvOptions,
) -> Outcome {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let peer: SocketAddr = sock.local_addr().unwrap();
    let dst2 = dst.to_path_buf();
    let ropts2 = ropts.clone();
    let t0 = Instant::now();
    let h = std::thread::spawn(move || recv_file_on(sock, &dst2, &ropts2));
    let send = send_file(src, peer, cc, sopts);
    let recv = h.join().unwrap();
    Outcome {
        send,
        recv,
        wall: t0.elapsed(),
    }
}

/// Test receiver options: gives up quickly instead of waiting forever.
pub fn recv_opts() -> RecvOptions {
    RecvOptions {
        start_timeout: Some(Duration::from_secs(10)),
        idle_timeout: Duration::from_secs(5),
        sync: false,
        ..Default::default()
    }
}

/// A key holder sending `bytes` of generated data to `to` with a fixed
/// window; its byte count, or the error it ended with.
pub fn real_sender(
    psk: &dropless_udp::secure::Keys,
    bytes: u64,
    to: SocketAddr,
    timeout: Duration,
) -> anyhow::Result<u64> {
    let opts = SendOptions {
        key: Some(psk.clone()),
        timeout,
        ..Default::default()
    };
    dropless_udp::send(
        dropless_udp::Source::Bytes(bytes),
        to,
        Box::new(FixedWindow(64.0)),
        &opts,
        &mut |_| {},
    )
    .map(|r| r.bytes)
}

/// The resume record's `held` ranges (`A-B C-D ...`) of the receiver's
/// output `name` in `dir`.
pub fn held(dir: &TempDir, name: &str) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(dir.path(&format!(".{name}.dropless-resume"))).unwrap();
    assert!(text.starts_with("dropless resume 2\n"), "{text}");
    text.lines()
        .find_map(|l| l.strip_prefix("held "))
        .unwrap()
        .split_whitespace()
        .map(|r| {
            let (a, b) = r.split_once('-').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}
