//! The faults users meet in their first hours, each pinned: the kind of failure (a panic, an
//! `Err`, a documented result), the key words of its message and, for panics, that it is reported
//! at the caller's file and line, not inside the library.
//!
//! - `shapes`: tensor, layer and loss operations on shapes that do not fit, and `Debug`.
//! - `empty`: empty tensors, with the documented results.
//! - `invariants`: property tests that a tensor's data length is the product of its shape after
//!   every operation, empty shapes included.
//! - `optimizers`: gradients and optimizer state that do not match the parameters.
//! - `data`: CSV and IDX files.
//! - `examples`: the Iris and digits examples' arguments and error reports.

#[macro_use]
mod support;

mod data;
mod empty;
mod examples;
mod invariants;
mod optimizers;
mod shapes;
