//! diffx as a GradBench tool: the protocol (`protocol`) and one module per eval (`evals`), each
//! objective written as plain Rust with `#[autodiff]`, every derivative from the functions the
//! macro writes.

pub mod evals;
pub mod memory;
pub mod protocol;
