//! The key-pair handshake (Noise IK, issue 34): any bytes through a
//! receiver with an allowed-peers list ([`Responder::on_init`],
//! [`authentic_init`], [`Channel::authenticates`]) and through a sender's
//! [`Initiator`]. The receiver admits one sender's key, whose real first
//! message is accepted once before the run. A crash is a panic, a retry
//! larger than its input, a first message accepted from bytes the fuzzer
//! wrote (it holds neither private key), a pending session confirmed by
//! bytes the sender did not seal, or an initiator completed by a forged
//! response.
#![no_main]
use std::cell::RefCell;
use std::net::SocketAddr;

use dropless_udp::held::Held;
use dropless_udp::secure::{
    authentic_init, AllowedPeers, Channel, InitOutcome, Initiator, Keys, PrivateKey, Responder,
};
use libfuzzer_sys::fuzz_target;

struct Ends {
    keys: Keys,
    responder: Responder,
    pending: Channel,
    init: Initiator,
}

const NOW: u64 = 1_000_000_000_000;

thread_local! {
    static ENDS: RefCell<Ends> = RefCell::new({
        let recv = PrivateKey::from_bytes([9; 32]);
        let alice = PrivateKey::from_bytes([10; 32]);
        let keys = Keys::from_peers(recv.clone(), AllowedPeers::new(vec![alice.public()]), None);
        let sender = Keys::to_peer(alice, recv.public(), None);
        let src: SocketAddr = "192.0.2.1:9000".parse().unwrap();
        let mut r = Responder::generate().unwrap();
        let mut i = Initiator::new(&sender).unwrap();
        let InitOutcome::Retry(retry) = r.on_init(&keys, src, i.datagram(), NOW, &mut |_| Held::none()) else {
            panic!("a retry first");
        };
        assert!(i.on_retry(&retry));
        let InitOutcome::Accepted { channel, .. } = r.on_init(&keys, src, i.datagram(), NOW, &mut |_| Held::none())
        else {
            panic!("the real first message is accepted");
        };
        Ends { keys, responder: r, pending: *channel, init: Initiator::new(&sender).unwrap() }
    });
}

fuzz_target!(|data: &[u8]| {
    ENDS.with(|e| {
        let e = &mut *e.borrow_mut();
        let src: SocketAddr = "192.0.2.1:9000".parse().unwrap();
        match e.responder.on_init(&e.keys, src, data, NOW, &mut |_| Held::none()) {
            InitOutcome::Retry(r) => assert!(r.len() <= data.len(), "amplification"),
            InitOutcome::Accepted { .. } => panic!("accepted a first message without a key"),
            InitOutcome::Repeated(_) | InitOutcome::Dropped => {}
        }
        assert!(!authentic_init(&e.keys, data));
        assert!(!e.pending.authenticates(data), "confirmed by forged bytes");
        let _ = e.init.on_retry(data);
        assert!(
            e.init.on_response(data).is_none(),
            "a forged response completed"
        );
    });
});
