//! A session's receiving end: no bytes that were not sealed under its key
//! open (a forgery would be a crash here), and none panic.
//!
//! The session id is drawn at random per run, so no seed can carry it and
//! raw inputs stay in the framing (27 edges in ten million executions).
//! Inputs whose first byte is even therefore get this run's sealed-datagram
//! header (magic, version, type, session id) written over their next eight
//! bytes: the fuzzer then controls the nonce, the ciphertext and the tag,
//! and reaches the replay window and the AEAD. Odd first bytes keep the raw
//! framing path.
#![no_main]
use std::cell::RefCell;

use dropless_udp::held::Held;
use dropless_udp::secure::{peek, respond, Channel, Initiator, Keys, Psk, TYPE_SEALED};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static RX: RefCell<(Channel, [u8; 8])> = RefCell::new({
        let psk = Keys::shared(Psk::from_bytes([7; 32]));
        let mut i = Initiator::new(&psk).unwrap();
        // The first message's header carries the magic, version and session.
        let mut head = [0u8; 8];
        head.copy_from_slice(&i.datagram()[..8]);
        head[3] = TYPE_SEALED;
        assert_eq!(peek(&head).map(|(kind, _)| kind), Some(TYPE_SEALED));
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| Held::none()).unwrap();
        i.on_response(&resp).unwrap();
        (rx, head)
    });
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let mut d = rest.to_vec();
    RX.with(|rx| {
        let (rx, head) = &mut *rx.borrow_mut();
        if first & 1 == 0 && d.len() >= head.len() {
            d[..head.len()].copy_from_slice(head);
        }
        assert!(rx.open_in_place(&mut d).is_none(), "a forged datagram opened");
    });
});
