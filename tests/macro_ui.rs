//! Compile-time behaviour of `#[humming_gemm]`: every error class with its message and span
//! (`tests/ui/*.rs` with the expected compiler output in `*.stderr`), and valid uses that must
//! compile and run (`tests/ui/pass/*.rs`).
//!
//! Regenerate the snapshots after a deliberate message change with
//! `TRYBUILD=overwrite cargo test -p humming --test macro_ui`, then read every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
