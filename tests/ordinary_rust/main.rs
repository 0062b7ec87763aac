//! Ordinary Rust as numeric crates write it: iterator chains, closures and destructuring patterns
//! (`ordinary`), functions generic over their float type and const generics (`generic`), and a
//! corpus of classic optimization test functions with hand gradients and Hessians (`corpus`).

#[path = "../common/mod.rs"]
mod common;

mod corpus;
mod generic;
mod impls;
mod ordinary;
mod own_shapes;
mod own_types;
