//! Runtime of [diffx](https://docs.rs/diffx): what the code written by `#[autodiff]` calls, and what
//! users train with.
//!
//! - [`Dual`]: dual numbers `a + b·ε` (ε² = 0), forward-mode AD by operator overloading.
//! - [`sigmoid`], [`relu`], [`softplus`], [`stop_gradient`]: scalar functions the macro knows the
//!   derivatives of.
//! - [`check`]: central finite differences, to test any gradient against an independent reference.
//! - [`explain`]: the evaluation trace of an `#[autodiff]` function at a point (values, tangents,
//!   adjoints, local partials, the derivative code), as a table and as a Graphviz graph.
//!
//! Users depend on the `diffx` crate, which re-exports everything here.

pub mod check;
mod dual;
pub mod explain;
mod scalar;

#[doc(hidden)]
pub mod private;

pub use dual::Dual;
pub use scalar::{relu, sigmoid, softplus, stop_gradient, Float};
