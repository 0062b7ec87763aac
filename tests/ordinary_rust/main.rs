//! Ordinary Rust as numeric crates write it: iterator chains, closures and destructuring patterns
//! (`ordinary`), functions generic over their float type and const generics (`generic`), and a
//! corpus of classic optimization test functions with hand gradients and Hessians (`corpus`); the
//! user's own types (`impls`, `own_types`, `own_shapes`, `functions_and_fields`).

#[path = "../common/mod.rs"]
mod common;

mod corpus;
mod functions_and_fields;
mod generic;
mod impls;
mod ordinary;
mod own_operators;
mod own_shapes;
mod own_types;
