//! The plaintext wire decoder: any bytes decode or fail, never panic; what
//! decodes encodes back to the same bytes.
#![no_main]
use dropless_wire::{decode, encode_ack, encode_data, Decoded};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut out = vec![0u8; data.len() + 64];
    match decode(data) {
        Ok(Decoded::Data(p, payload)) => {
            let n = encode_data(&p, payload, &mut out).expect("a decoded packet encodes");
            assert!(n <= data.len());
            // (The decoder ignores trailing bytes after a full datagram.)
            let again = decode(&out[..n]).expect("re-decodes");
            assert!(matches!(again, Decoded::Data(q, pl) if q == p && pl == payload));
        }
        Ok(Decoded::Ack(a)) => {
            let n = encode_ack(&a, &mut out).expect("a decoded ACK encodes");
            let again = decode(&out[..n]).expect("re-decodes");
            assert!(matches!(again, Decoded::Ack(b) if b == a));
        }
        Err(_) => {}
    }
});
