//! `--set KEY=VALUE` overrides on the quick-start scenario: any lines are
//! applied or refused with a one-line error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

const BASE: &str = include_str!("../../scenarios/quickstart.toml");

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let sets: Vec<String> = text.lines().take(8).map(str::to_string).collect();
        if let Err(e) = dropless_scenario::from_str(BASE, "quickstart.toml", &sets) {
            assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
        }
    }
});
