//! Inputs the fuzzer (fuzz/fuzz_targets/scenario.rs) once crashed on, kept
//! so that stable Rust checks them too: each is a scenario or a one-line
//! error, never a panic.

#[test]
fn fuzz_cases_give_a_scenario_or_a_one_line_error() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_cases");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = dropless_scenario::from_str(&text, "fuzz.toml", &[]) {
            let msg = e.to_string();
            assert!(
                !msg.contains('\n'),
                "{}: a multi-line error: {msg}",
                path.display()
            );
        }
        n += 1;
    }
    assert!(n > 0);
}
