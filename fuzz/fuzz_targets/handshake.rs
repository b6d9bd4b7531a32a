//! The handshake and address validation on both ends: no bytes open a
//! session, pass a cookie check or complete an initiator without the key,
//! and none panic.
#![no_main]
use std::cell::RefCell;
use std::net::SocketAddr;

use dropless_udp::held::Held;
use dropless_udp::secure::{Keys, authentic_init, peek, respond, CookieKey, Initiator, Psk};
use libfuzzer_sys::fuzz_target;

struct Ends {
    psk: Keys,
    cookies: CookieKey,
    init: Initiator,
}

thread_local! {
    static ENDS: RefCell<Ends> = RefCell::new({
        let psk = Keys::shared(Psk::from_bytes([9; 32]));
        Ends {
            cookies: CookieKey::generate().unwrap(),
            init: Initiator::new(&psk).unwrap(),
            psk,
        }
    });
}

fuzz_target!(|data: &[u8]| {
    ENDS.with(|e| {
        let e = &mut *e.borrow_mut();
        let _ = peek(data);
        assert!(!authentic_init(&e.psk, data));
        assert!(respond(&e.psk, data, &mut |_| Held::none()).is_none());
        let src: SocketAddr = "192.0.2.1:9000".parse().unwrap();
        assert!(!e.cookies.valid(src, data, 1));
        let _ = e.cookies.retry(src, data, 1);
        let _ = e.init.on_retry(data);
        assert!(e.init.on_response(data).is_none());
    });
});
