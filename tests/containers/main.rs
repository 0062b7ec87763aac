//! Containers as parameters and results: slices, `Vec`s and arrays (`slices`), local vectors
//! written element by element (`vectors`), nested containers (`nested`), parameter structs
//! (`structs`), `Option` fields and `if let` (`options`), tuple results (`tuples`),
//! vector-valued functions' Jacobians (`jacobians`), and reverse mode's loops that record against
//! loops that recompute on the same inputs (`recording`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/loop_functions.rs"]
mod loop_functions;

mod jacobians;
mod nested;
mod options;
mod recording;
mod slices;
mod structs;
mod tuples;
mod vectors;
