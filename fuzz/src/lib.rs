//! A random-program tester for `#[autodiff]` (issue 15).
//!
//! [`gen`] writes random `#[autodiff]` functions over what the README says a body may contain,
//! from a seed; [`check`] runs each one's derivative functions at random points against finite
//! differences and against each other, under a watchdog. Two drivers:
//! - `tests/random_programs.rs` and `tests/random_programs_second_half.rs`: the build script
//!   writes `DIFFX_FUZZ_COUNT` functions (300) of `DIFFX_FUZZ_SEED` into the two tests, half each,
//!   so `cargo test --workspace` checks them;
//! - `src/main.rs` (`cargo run -p diffx-fuzz --release -- --seed S --count N`): long runs, in
//!   batches built as scratch crates, isolating each function that fails to compile and saving
//!   every finding under `target/diffx-fuzz/findings/`.

pub mod check;
pub mod gen;
