//! Compile-fail tests: each unsupported construct is an error at its span that says what to write
//! instead (`tests/ui/*.stderr`), and compile-pass tests of the generated signatures.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
