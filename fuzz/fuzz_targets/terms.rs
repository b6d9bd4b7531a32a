//! The terms of a first message ([`Terms::decode`], reverse mode's request
//! among them) and the payload of the response to them
//! ([`Terms::read_answer`]): both arrive from the network (decrypted, but
//! from any holder of the key). No input panics; every accepted terms
//! encode back to their bytes, a reverse request stands alone and asks for
//! a time above zero; every accepted answer is what a receiver writes for
//! those terms, grants only a reverse request and holds ranges only for a
//! resume.
//!
//! Input: one byte `k`, then `k` bytes of terms (or what is left), then the
//! response's payload.
#![no_main]
use dropless_udp::secure::{Amount, Terms, TERMS_MAX};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let (t, answer) = rest.split_at(usize::from(k).min(rest.len()));
    let Some(terms) = Terms::decode(t) else {
        return;
    };
    let mut b = [0u8; TERMS_MAX];
    let n = terms.encode(&mut b);
    assert_eq!(&b[..n], t, "decode and encode disagree");
    if let Some(a) = terms.reverse {
        assert!(
            !terms.hashed && !terms.tree && terms.resume.is_none(),
            "a reverse request with other terms"
        );
        if let Amount::Time(ns) = a {
            assert!(ns > 0, "a reverse request for no time");
        }
    }
    let Some((held, granted)) = terms.read_answer(answer) else {
        return;
    };
    assert!(
        !granted || terms.reverse.is_some(),
        "granted without a request"
    );
    match terms.resume {
        None => assert!(held.is_empty(), "ranges held without a resume"),
        Some(id) => assert!(held.ranges().iter().all(|&(s, e)| s < e && e <= id.size)),
    }
    let held = terms.resume.map(|_| held);
    assert_eq!(
        terms.answer(held.as_ref(), granted),
        answer,
        "read and write disagree"
    );
});
