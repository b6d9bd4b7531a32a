//! The receiver's side of the replay-proof handshake (issue 34): any bytes
//! through [`Responder::on_init`] and [`Channel::authenticates`], from
//! a fixed address. A crash is a panic, a retry larger than its input, an
//! accepted first message that the fuzzer wrote (it does not hold the key,
//! and the one real first message is accepted once, before the run), or a
//! pending session confirmed by bytes the key holder did not seal. The
//! full server's reply ([`busy_reply`]) is checked on the same bytes: never
//! larger than its input.
#![no_main]
use std::cell::RefCell;
use std::net::SocketAddr;

use dropless_udp::held::Held;
use dropless_udp::secure::{busy_reply, Keys, Channel, InitOutcome, Initiator, Psk, Responder};
use libfuzzer_sys::fuzz_target;

struct End {
    psk: Keys,
    responder: Responder,
    pending: Channel,
}

const NOW: u64 = 1_000_000_000_000;

thread_local! {
    static END: RefCell<End> = RefCell::new({
        let psk = Keys::shared(Psk::from_bytes([9; 32]));
        let src: SocketAddr = "192.0.2.1:9000".parse().unwrap();
        let mut r = Responder::generate().unwrap();
        let mut i = Initiator::new(&psk).unwrap();
        let InitOutcome::Retry(retry) = r.on_init(&psk, src, i.datagram(), NOW, &mut |_| Held::none()) else {
            panic!("a retry first");
        };
        assert!(i.on_retry(&retry));
        let InitOutcome::Accepted { channel, .. } = r.on_init(&psk, src, i.datagram(), NOW, &mut |_| Held::none())
        else {
            panic!("the real first message is accepted");
        };
        End { psk, responder: r, pending: *channel }
    });
}

fuzz_target!(|data: &[u8]| {
    END.with(|e| {
        let e = &mut *e.borrow_mut();
        let src: SocketAddr = "192.0.2.1:9000".parse().unwrap();
        // A full server's answer (`busy_reply`): never larger than its input.
        if let Some(b) = busy_reply(data) {
            assert!(b.len() <= data.len(), "amplification by a busy reply");
        }
        match e.responder.on_init(&e.psk, src, data, NOW, &mut |_| Held::none()) {
            InitOutcome::Retry(r) => assert!(r.len() <= data.len(), "amplification"),
            InitOutcome::Accepted { .. } => panic!("accepted a first message without the key"),
            InitOutcome::Repeated(_) | InitOutcome::Dropped => {}
        }
        assert!(!e.pending.authenticates(data), "confirmed by forged bytes");
    });
});
