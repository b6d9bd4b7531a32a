//! The scenario reader: any text is a scenario or a one-line error, never a
//! panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = dropless_scenario::from_str(text, "fuzz.toml", &[]) {
            assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
        }
    }
});
