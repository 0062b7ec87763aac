//! Second and third order: every row of the rule table (`elementary`); `hvp_` and `hessian_` of
//! functions of scalars (`hessians`), of tuples
//! and nested containers (`hessians_nested`), through calls (`hessian_calls`); `dhvp_` and `d3_`
//! (`third`); and nested AD, functions that call another's `grad_` or `jvp_` (`nested_ad`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/vector_writes.rs"]
mod vector_writes;

mod elementary;
mod hessian_calls;
mod hessians;
mod hessians_nested;
mod nested_ad;
mod third;
