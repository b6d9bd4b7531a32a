//! The held ranges of a resume response ([`Held::decode`]): any bytes are
//! refused or decode to ranges that encode back to the same bytes, lie
//! within the file, and leave gaps that map the stream onto the file's
//! other bytes exactly once; nothing panics.
#![no_main]
use dropless_udp::held::{Gaps, Held};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let size = u64::from_be_bytes(data[..8].try_into().unwrap());
    let Some(h) = Held::decode(&data[8..], size) else {
        return;
    };
    assert_eq!(h.encode(), &data[8..]);
    assert!(h.ranges().iter().all(|&(s, e)| s < e && e <= size));
    let g = Gaps::new(&h, size);
    assert_eq!(g.len() + h.total(), size);
    // The gaps as file ranges: disjoint from the held ones, adding up.
    let mut out = vec![];
    g.file_ranges(0, g.len(), &mut out);
    assert_eq!(out.iter().map(|&(s, e)| e - s).sum::<u64>(), g.len());
    for &(s, e) in &out {
        assert!(h.ranges().iter().all(|&(a, b)| e <= a || b <= s));
    }
    if g.len() > 0 {
        let _ = g.file_offset(g.len() - 1);
    }
});
