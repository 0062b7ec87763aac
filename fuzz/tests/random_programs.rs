//! The random-program test: every function the build script generated (`DIFFX_FUZZ_COUNT`, 300 by
//! default, of `DIFFX_FUZZ_SEED`) checked at random points (see `diffx_fuzz::check`), the first
//! half here and the second in `random_programs_second_half.rs`. Every failure is reported with
//! the function's source before the test fails.

mod halves;

#[allow(unused, clippy::all)]
mod generated {
    use diffx::autodiff;
    use diffx_fuzz::check;
    include!(concat!(env!("OUT_DIR"), "/generated_0.rs"));
}

#[test]
fn random_programs_agree_with_finite_differences_and_each_other() {
    halves::check_all(generated::subjects());
}
