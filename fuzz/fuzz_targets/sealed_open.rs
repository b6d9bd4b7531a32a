//! A session's receiving end: no bytes that were not sealed under its key
//! open (a forgery would be a crash here), and none panic.
#![no_main]
use std::cell::RefCell;

use dropless_udp::held::Held;
use dropless_udp::secure::{Keys, respond, Channel, Initiator, Psk};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static RX: RefCell<Channel> = RefCell::new({
        let psk = Keys::shared(Psk::from_bytes([7; 32]));
        let mut i = Initiator::new(&psk).unwrap();
        let (_, resp, rx) = respond(&psk, i.datagram(), &mut |_| Held::none()).unwrap();
        i.on_response(&resp).unwrap();
        rx
    });
}

fuzz_target!(|data: &[u8]| {
    let mut d = data.to_vec();
    RX.with(|rx| {
        assert!(rx.borrow_mut().open_in_place(&mut d).is_none(), "a forged datagram opened");
    });
});
