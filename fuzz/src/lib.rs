//! A random-program tester for `#[autodiff]` (issue 15).
//!
//! [`gen`] writes random `#[autodiff]` functions over what the README says a body may contain,
//! from a seed.

pub mod gen;
