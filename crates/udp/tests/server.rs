//! The server (`recv --keep`, [`dropless_udp::serve_on`]) over 127.0.0.1:
//! several senders at once, so that a slow or hostile sender holds up no
//! other; a cap on senders served at once; address validation before any
//! state. Each of the first two tests fails on a server that serves one
//! transfer after another (the sender times out behind the hostile one).

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::*;
use dropless_cc::PacketFlags;
use dropless_transport::{DataPacket, Ecn};
use dropless_udp::secure::{self, Channel, Initiator, Keys, Psk};
use dropless_udp::{
    pattern, serve_on, server_socket, RecvOptions, ServeStats, Sink, StopFlag, DEFAULT_MSS,
};
use dropless_wire::{encode_data, DATA_HEADER_LEN};

/// Each transfer's sender and outcome (its bytes, or its error).
type Outcome = (SocketAddr, Result<u64, String>);
type Outcomes = Arc<Mutex<Vec<Outcome>>>;

struct Server {
    addr: SocketAddr,
    stop: StopFlag,
    outcomes: Outcomes,
    handle: JoinHandle<ServeStats>,
}

impl Server {
    fn start(psk: &Keys, max_clients: usize, idle: Duration) -> Server {
        let sock = server_socket("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = sock.local_addr().unwrap();
        let stop = StopFlag::default();
        let opts = RecvOptions {
            key: Some(psk.clone()),
            idle_timeout: idle,
            linger: Duration::from_millis(200),
            stop: Some(stop.clone()),
            ..recv_opts()
        };
        let outcomes: Outcomes = Arc::default();
        let out = outcomes.clone();
        let handle = std::thread::spawn(move || {
            serve_on(sock, Sink::Check, &opts, max_clients, &mut |src, r| {
                out.lock()
                    .unwrap()
                    .push((src, r.map(|r| r.bytes).map_err(|e| format!("{e:#}"))))
            })
            .unwrap()
        });
        Server {
            addr,
            stop,
            outcomes,
            handle,
        }
    }

    fn outcome(&self, from: SocketAddr) -> Option<Result<u64, String>> {
        let o = self.outcomes.lock().unwrap();
        o.iter().find(|(s, _)| *s == from).map(|(_, r)| r.clone())
    }

    fn stop(self) -> (ServeStats, Vec<Outcome>) {
        self.stop.flag().store(true, Ordering::Relaxed);
        let stats = self.handle.join().unwrap();
        let o = self.outcomes.lock().unwrap().clone();
        (stats, o)
    }
}

/// A sender that holds the key but sends one valid data packet now and
/// then: it keeps its transfer open for as long as it likes.
struct SlowSender {
    sock: UdpSocket,
    chan: Channel,
    seq: u64,
}

impl SlowSender {
    fn connect(psk: &Keys, server: SocketAddr) -> SlowSender {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        sock.connect(server).unwrap();
        sock.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut init = Initiator::new(psk).unwrap();
        let mut buf = [0u8; 2048];
        for _ in 0..50 {
            sock.send(init.datagram()).unwrap();
            while let Ok(n) = sock.recv(&mut buf) {
                if init.on_retry(&buf[..n]) {
                    break;
                }
                if let Some(chan) = init.on_response(&buf[..n]) {
                    // Its first sealed datagram proves the key: only now
                    // is it admitted (before anything sent after this).
                    let mut s = SlowSender { sock, chan, seq: 0 };
                    s.trickle();
                    return s;
                }
            }
        }
        panic!("the server never answered the handshake");
    }

    /// One full-size packet of the generated stream.
    fn trickle(&mut self) {
        let mss = DEFAULT_MSS as usize;
        let mut payload = vec![0u8; mss];
        pattern::fill(self.seq * mss as u64, &mut payload);
        let p = DataPacket {
            conn: 77,
            seq: self.seq,
            len: mss as u32,
            flags: PacketFlags::NONE,
            ecn: Ecn::NotEct,
            ts: 0,
        };
        let mut plain = vec![0u8; DATA_HEADER_LEN + mss];
        let n = encode_data(&p, &payload, &mut plain).unwrap();
        let mut sealed = vec![0u8; n + secure::SEAL_OVERHEAD];
        let m = self.chan.seal(&plain[..n], &mut sealed).unwrap();
        self.sock.send(&sealed[..m]).unwrap();
        self.seq += 1;
    }

    fn addr(&self) -> SocketAddr {
        self.sock.local_addr().unwrap()
    }
}

/// Keeps `slow` trickling every 300 ms until the flag is set.
fn keep_trickling(mut slow: SlowSender, done: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(Ordering::Relaxed) {
            slow.trickle();
            std::thread::sleep(Duration::from_millis(300));
        }
    })
}

#[test]
fn a_slow_sender_and_a_flood_do_not_hold_up_a_real_sender() {
    let _g = serial();
    let psk = Keys::shared(Psk::from_bytes([31; 32]));
    let server = Server::start(&psk, 4, Duration::from_secs(5));
    // A hostile sender with the key keeps its transfer open...
    let slow = SlowSender::connect(&psk, server.addr);
    let slow_addr = slow.addr();
    let done = Arc::new(AtomicBool::new(false));
    let trickler = keep_trickling(slow, done.clone());
    // ... and another floods the port with garbage.
    let flood_done = done.clone();
    let to = server.addr;
    let flooder = std::thread::spawn(move || {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut k = 0u64;
        while !flood_done.load(Ordering::Relaxed) {
            let junk: Vec<u8> = (0..200).map(|i| (k * 31 + i * 7) as u8).collect();
            let _ = s.send_to(&junk, to);
            k += 1;
            std::thread::sleep(Duration::from_micros(200));
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    // A real sender is served meanwhile, in full and checked.
    let t0 = Instant::now();
    let got = real_sender(&psk, 8_000_000, server.addr, Duration::from_secs(3));
    assert_eq!(got.unwrap(), 8_000_000, "the real sender was served");
    assert!(t0.elapsed() < Duration::from_secs(3));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        server.outcome(slow_addr),
        None,
        "the slow sender is still connected"
    );
    done.store(true, Ordering::Relaxed);
    trickler.join().unwrap();
    flooder.join().unwrap();
    let (stats, outcomes) = server.stop();
    let ok: Vec<_> = outcomes.iter().filter(|(_, r)| r.is_ok()).collect();
    assert_eq!(ok.len(), 1, "{outcomes:?}");
    assert_eq!(ok[0].1, Ok(8_000_000));
    assert_eq!(stats.admitted, 2, "{stats:?}");
    assert!(stats.dropped > 100, "the flood opened nothing: {stats:?}");
}

#[test]
fn the_cap_turns_senders_away_until_a_slot_frees() {
    let _g = serial();
    let psk = Keys::shared(Psk::from_bytes([32; 32]));
    let server = Server::start(&psk, 1, Duration::from_millis(1500));
    let slow = SlowSender::connect(&psk, server.addr);
    let slow_addr = slow.addr();
    let done = Arc::new(AtomicBool::new(false));
    let trickler = keep_trickling(slow, done.clone());
    // The only slot is taken: the handshake goes unanswered.
    let r = real_sender(&psk, 1_000_000, server.addr, Duration::from_secs(2));
    let e = r.unwrap_err();
    assert!(format!("{e:#}").contains("the receiver is busy"), "{e:#}");
    // The slow sender goes quiet; its idle timeout frees the slot.
    done.store(true, Ordering::Relaxed);
    trickler.join().unwrap();
    let got = real_sender(&psk, 1_000_000, server.addr, Duration::from_secs(5));
    assert_eq!(got.unwrap(), 1_000_000);
    let (stats, outcomes) = server.stop();
    assert!(stats.busy > 0, "{stats:?}");
    assert_eq!(stats.admitted, 2, "{stats:?}");
    let slow = outcomes
        .iter()
        .find(|(s, _)| *s == slow_addr)
        .map(|(_, r)| r);
    assert!(
        matches!(slow, Some(Err(e)) if e.contains("silent")),
        "the slow sender was dropped by its idle timeout: {slow:?}"
    );
}

#[test]
fn a_first_message_needs_a_cookie_for_its_own_address() {
    let _g = serial();
    let psk = Keys::shared(Psk::from_bytes([33; 32]));
    let server = Server::start(&psk, 4, Duration::from_secs(2));
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    for s in [&a, &b] {
        s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    }
    let mut init = Initiator::new(&psk).unwrap();
    let mut buf = [0u8; 2048];
    // Without a cookie: a retry, nothing kept.
    a.send_to(init.datagram(), server.addr).unwrap();
    let n = a.recv(&mut buf).unwrap();
    assert_eq!(
        secure::peek(&buf[..n]).map(|(t, _)| t),
        Some(secure::TYPE_RETRY)
    );
    assert!(init.on_retry(&buf[..n]));
    // The message with a's cookie, replayed from another address: another
    // retry, not a session.
    b.send_to(init.datagram(), server.addr).unwrap();
    let n = b.recv(&mut buf).unwrap();
    assert_eq!(
        secure::peek(&buf[..n]).map(|(t, _)| t),
        Some(secure::TYPE_RETRY)
    );
    // From a: the session's response; its first sealed datagram (the
    // proof that it holds the key) admits it.
    a.send_to(init.datagram(), server.addr).unwrap();
    let n = a.recv(&mut buf).unwrap();
    let mut chan = init.on_response(&buf[..n]).unwrap();
    let m = chan.seal(b"not a data packet", &mut buf).unwrap();
    a.send_to(&buf[..m], server.addr).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (stats, _) = server.stop();
    assert_eq!((stats.admitted, stats.retries), (1, 2), "{stats:?}");
}
