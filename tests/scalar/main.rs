//! Functions of scalars, first order: every elementary function of the rule table, the Rust that
//! bodies may contain (branches, loops, the syntax forms), calls between `#[autodiff]` functions
//! and hand-written rules, derivatives at the edges of their domains, the seed papers' examples,
//! property tests at random points, and the generated functions' signatures.

#[path = "../common/mod.rs"]
mod common;

mod branches;
mod custom;
mod domain_edges;
mod elementary;
mod loops;
mod properties;
mod pullbacks;
mod seeds;
mod signatures;
mod syntax;
