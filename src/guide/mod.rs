//! The guide: how to use diffx, chapter by chapter. Every example in it is a doc test.
//!
//! 1. [Generated functions](generated_functions): what `#[autodiff]` writes beside a function,
//!    which parameters are differentiated, vector and tuple results, methods, generic float types.
//! 2. [What a body may contain](what_a_body_may_contain): expressions, control flow, slices and
//!    vectors, iterator chains, closures, calls, and the conventions where no derivative exists.
//! 3. [Tensors and parameter structs](tensors_and_params): [`Tensor`](crate::Tensor),
//!    `#[derive(Params)]`, networks from [`nn`](crate::nn).
//! 4. [Your own types](your_own_types): `#[autodiff]` on `impl` blocks and trait impls.
//! 5. [Training](training): the Iris job, optimizers, data, gradient checks.
//! 6. [Second and third order](second_order): `hvp_`, `hessian_`, `dhvp_`, `d3_`, Newton's method,
//!    nested derivatives.
//! 7. [Hand-written derivative rules](custom_rules): `#[custom_derivative]`.
//! 8. [Seeing inside](explain): `explain_`, the evaluation trace of a function at a point.
//! 9. [Errors](errors): what the macro refuses, and what the runtime checks.
//! 10. [Random generators, saving and loading](saving_and_loading): `&mut impl rand::Rng`,
//!     serde (feature `serde`).
//! 11. [Optimization with argmin](argmin): an `#[autodiff]` function handed to argmin's solvers
//!     (feature `argmin`).

#[doc = include_str!("generated_functions.md")]
pub mod generated_functions {}

#[doc = include_str!("what_a_body_may_contain.md")]
pub mod what_a_body_may_contain {}

#[doc = include_str!("tensors_and_params.md")]
pub mod tensors_and_params {}

#[doc = include_str!("your_own_types.md")]
pub mod your_own_types {}

#[doc = include_str!("training.md")]
pub mod training {}

#[doc = include_str!("second_order.md")]
pub mod second_order {}

#[doc = include_str!("custom_rules.md")]
pub mod custom_rules {}

#[doc = include_str!("explain.md")]
pub mod explain {}

#[doc = include_str!("errors.md")]
pub mod errors {}

#[doc = include_str!("saving_and_loading.md")]
pub mod saving_and_loading {}

#[doc = include_str!("argmin.md")]
pub mod argmin {}
