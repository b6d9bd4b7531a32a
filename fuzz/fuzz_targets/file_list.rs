//! The receiver's file-list decoder (a directory transfer's first bytes):
//! no input panics, and every list it accepts names only paths inside the
//! target directory and encodes back to the same bytes.
#![no_main]
use dropless_udp::tree::FileList;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(list) = FileList::decode(data) {
        for e in &list.entries {
            assert!(!e.name.is_empty() && e.name[0] != b'/', "absolute name accepted");
            assert!(
                e.name.split(|&b| b == b'/').all(|c| !c.is_empty() && c != b"." && c != b".."),
                "an escaping name accepted"
            );
        }
        assert_eq!(list.encode().unwrap(), data, "decode and encode disagree");
    }
});
