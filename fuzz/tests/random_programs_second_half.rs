//! The second half of the random-program test (see `random_programs.rs`).

mod halves;

#[allow(unused, clippy::all)]
mod generated {
    use diffx::autodiff;
    use diffx_fuzz::check;
    include!(concat!(env!("OUT_DIR"), "/generated_1.rs"));
}

#[test]
fn random_programs_agree_with_finite_differences_and_each_other() {
    halves::check_all(generated::subjects());
}
