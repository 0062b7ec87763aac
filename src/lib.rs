//! # diffx — automatic differentiation for Rust, done at compile time
//!
//! [`#[autodiff]`](macro@autodiff) reads an ordinary numeric function and writes its derivative
//! functions beside it as Rust source: reverse mode (`grad_f`, `value_and_grad_f`, `vjp_f`) and
//! forward mode (`jvp_f`), with second and third order on request. There is no graph of nodes at
//! run time; a gradient costs what hand-written derivative code costs.
//!
//! ```
//! use diffx::autodiff;
//!
//! // The worked example of the AD tutorials: y = ln x1 + x1·x2 − sin x2.
//! #[autodiff]
//! fn f(x1: f64, x2: f64) -> f64 {
//!     x1.ln() + x1 * x2 - x2.sin()
//! }
//!
//! let (y, (d1, d2)) = value_and_grad_f(2.0, 5.0);
//! assert!((y - 11.652).abs() < 1e-3);
//! assert!((d1 - 5.5).abs() < 1e-12 && (d2 - 1.716).abs() < 1e-3);
//!
//! // Forward mode: the derivative along the tangent (1, 0) is ∂y/∂x1.
//! let (_, dy) = jvp_f(2.0, 5.0, 1.0, 0.0);
//! assert!((dy - 5.5).abs() < 1e-12);
//! ```
//!
//! The package is `diffx-ad` (`cargo add diffx-ad`); the library is `diffx`, so code writes
//! `use diffx::autodiff;`.
//!
//! ## The guide
//!
//! - [Generated functions](guide::generated_functions): `grad_f`, `value_and_grad_f`, `vjp_f`,
//!   `jvp_f`, `jacobian_f`; `wrt(…)`; vector and tuple results; methods; generic float types.
//! - [What a body may contain](guide::what_a_body_may_contain): loops, branches, `match`, early
//!   `return`, slices and local vectors, iterator chains, closures, calls, conventions at kinks.
//! - [Tensors and parameter structs](guide::tensors_and_params): [`Tensor`],
//!   [`#[derive(Params)]`](derive@Params), [`nn::Mlp`].
//! - [Training](guide::training): the Iris job, [`optim`], [`data`], [`check`].
//! - [Second and third order](guide::second_order): `#[autodiff(order = 2)]` for `hvp_f`,
//!   `grad_and_hvp_f` and `hessian_f`, `order = 3` for `dhvp_f` and `d3_f`; nested derivatives.
//! - [Hand-written derivative rules](guide::custom_rules):
//!   [`#[custom_derivative]`](macro@custom_derivative).
//! - [Seeing inside](guide::explain): `explain_f` and [`explain::Trace`] (feature `explain`).
//! - [Errors](guide::errors): what the macro refuses, and what the runtime checks.
//!
//! ## Crate features
//!
//! - `explain`: `explain_f` beside every `#[autodiff]` function. Off by default: it is about half
//!   of the macro's output, which every build compiles; the other generated functions are the
//!   same either way.
//!
//! ## The runtime
//!
//! Everything of the `diffx-runtime` crate is re-exported here: [`Tensor`], [`Params`](trait@Params),
//! [`Dual`], [`Float`], the scalar functions [`sigmoid`], [`relu`], [`softplus`] and
//! [`stop_gradient`], and the modules [`nn`], [`optim`], [`data`], [`check`] and [`explain`].

#![warn(missing_docs)]

// Lets `::diffx::…` paths written by the macro resolve inside this crate's own doc tests and tests.
extern crate self as diffx;

#[doc = include_str!("guide/attribute_autodiff.md")]
#[doc(inline)]
pub use diffx_macros::autodiff;
#[doc = include_str!("guide/attribute_custom_derivative.md")]
#[doc(inline)]
pub use diffx_macros::custom_derivative;
#[doc = include_str!("guide/derive_params.md")]
#[doc(inline)]
pub use diffx_macros::Params;
pub use diffx_runtime::*;

pub mod guide;

#[doc(hidden)]
pub mod __private {
    pub use diffx_runtime::private::*;
}

/// Desugaring's check before each iteration of a `for` holding a `break` (lowering reads it;
/// code kept as written, with no differentiable value in it, runs it as this).
#[doc(hidden)]
#[macro_export]
macro_rules! __diffx_exit_if {
    ($stop:expr) => {
        if $stop {
            break;
        }
    };
}
