//! Compile-fail tests: each unsupported construct is an error at its span that says what to write
//! instead (`tests/ui/*.stderr`). The compile-pass checks of the generated signatures are plain
//! tests (the facade's `tests/scalar/signatures.rs`): with a pass test, trybuild builds (not just checks) every
//! dependency, a minute of the test suite.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
