//! A random-program tester for `#[autodiff]` (issue 15).
//!
//! [`gen`] writes random `#[autodiff]` functions over what the README says a body may contain,
//! from a seed; [`check`] runs each one's derivative functions at random points against finite
//! differences and against each other, under a watchdog. `tests/random_programs.rs` checks
//! `DIFFX_FUZZ_COUNT` functions (300) of `DIFFX_FUZZ_SEED`, which the build script writes.

pub mod check;
pub mod gen;
