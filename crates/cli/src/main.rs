//! The `dropless` command; everything it does lives in the library
//! (`crates/cli/src/lib.rs`), which the Python package also uses.

fn main() -> std::process::ExitCode {
    dropless::main()
}
