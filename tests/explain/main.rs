//! `explain_f` (the `explain` feature): traces against the tutorials' tables and the chain rule,
//! DOT graphs and snapshots of printed code for functions of scalars, loops and slices
//! (`scalars`), and for tensors, parameter structs, vector-valued functions and calls (`tensors`).
//!
//! The snapshots are `tests/snapshots/*.txt`; after a deliberate change of the generated code,
//! regenerate them with `DIFFX_BLESS=1 cargo test --features explain --test explain` and review
//! the diff.

#[path = "../common/trace.rs"]
mod trace_checks;

mod scalars;
mod tensors;
