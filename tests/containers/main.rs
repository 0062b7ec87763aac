//! Containers as parameters and results: slices, `Vec`s and arrays (`slices`), local vectors
//! written element by element (`vectors`), nested containers (`nested`), parameter structs
//! (`structs`), `Option` fields and `if let` (`options`), tuple results (`tuples`),
//! vector-valued functions' Jacobians (`jacobians`), reverse mode's loops and `if`s that record
//! against ones that recompute on the same inputs (`recording`), checkpointed loops against recording
//! ones (`checkpoint`), calls whose pullbacks add
//! into their caller's adjoint of a slice in place (`in_place`), and `&mut` outputs (`outputs`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/loop_functions.rs"]
mod loop_functions;
#[path = "../common/ode.rs"]
mod ode;

mod checkpoint;
mod in_place;
mod jacobians;
mod nested;
mod options;
mod outputs;
mod recording;
mod slices;
mod structs;
mod tuples;
mod vectors;
