//! Reverse mode (`dropless send -R`, as iperf3's `-R`): the end that
//! connects asks the listening receiver to send, and the listener sends
//! only if it opted in ([`RecvOptions::reverse`]) and only after the asker
//! proved the key.

mod common;

use std::net::UdpSocket;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dropless_udp::secure::{Amount, Keys, Psk};
use dropless_udp::{recv_on, recv_reverse, RecvOptions, ReverseServe, SendOptions, Sink};

fn keys(k: u8) -> Keys {
    Keys::shared(Psk::from_bytes([k; 32]))
}

/// A listener on 127.0.0.1 with key `k`, serving reverse requests with a
/// fixed window when `serve`; its thread returns what it did.
fn listener(
    k: u8,
    serve: bool,
) -> (
    std::net::SocketAddr,
    std::thread::JoinHandle<anyhow::Result<dropless_udp::TransferReport>>,
) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = sock.local_addr().unwrap();
    let opts = RecvOptions {
        key: Some(keys(k)),
        start_timeout: Some(Duration::from_secs(5)),
        reverse: serve.then(|| ReverseServe {
            controller: Arc::new(|| Box::new(FixedWindow(64.0))),
            send: SendOptions::default(),
        }),
        ..recv_opts()
    };
    (
        addr,
        std::thread::spawn(move || recv_on(sock, Sink::Check, &opts)),
    )
}

fn asker(k: u8) -> RecvOptions {
    RecvOptions {
        key: Some(keys(k)),
        idle_timeout: Duration::from_secs(5),
        ..recv_opts()
    }
}

#[test]
fn the_listener_sends_generated_bytes_that_the_asker_checks_byte_for_byte() {
    let _g = serial();
    let (addr, h) = listener(7, true);
    let n = 3_000_001;
    let got = recv_reverse(addr, Amount::Bytes(n), Sink::Check, &asker(7)).unwrap();
    let sent = h.join().unwrap().unwrap();
    // The asker checked every byte against the generated stream (a wrong
    // byte fails it) and got all of them; the listener ran a sender.
    assert_eq!(got.bytes, n);
    assert!(got.encrypted && sent.encrypted);
    assert_eq!(sent.bytes, n);
    assert_eq!(sent.controller, "fixed");
    assert!(got.packets_received >= n.div_ceil(dropless_udp::DEFAULT_MSS as u64));
    assert!(sent.acks > 0);
}

#[test]
fn a_timed_reverse_transfer_ends() {
    let _g = serial();
    let (addr, h) = listener(8, true);
    let got = recv_reverse(addr, Amount::Time(200_000_000), Sink::Check, &asker(8)).unwrap();
    let sent = h.join().unwrap().unwrap();
    assert!(got.bytes > 0);
    assert_eq!(got.bytes, sent.bytes);
}

#[test]
fn a_listener_that_did_not_opt_in_refuses_with_a_clear_error_and_sends_nothing() {
    let _g = serial();
    let (addr, h) = listener(9, false);
    let e = recv_reverse(addr, Amount::Bytes(1_000_000), Sink::Check, &asker(9))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("refuses to send") && e.contains("--allow-reverse"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
    // It received no data and sent none: it times out waiting for data.
    let r = h.join().unwrap();
    let e = r.unwrap_err().to_string();
    assert!(e.contains("no data packet arrived"), "{e}");
}

#[test]
fn an_asker_without_the_key_gets_nothing() {
    let _g = serial();
    let (addr, h) = listener(10, true);
    let o = RecvOptions {
        idle_timeout: Duration::from_secs(1),
        start_timeout: Some(Duration::from_secs(1)),
        ..asker(11)
    };
    let e = recv_reverse(addr, Amount::Bytes(1_000_000), Sink::Check, &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no answer to the handshake"), "{e}");
    assert!(
        h.join().unwrap().is_err(),
        "the listener sent nothing and timed out"
    );
    // Without a key there is no reverse mode at all.
    let e = recv_reverse(addr, Amount::Bytes(1), Sink::Check, &recv_opts()).unwrap_err();
    assert!(e.to_string().contains("needs a key"), "{e}");
}
