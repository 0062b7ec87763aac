//! Runtime of [diffx](https://crates.io/crates/diffx-ad): what the code written by `#[autodiff]` calls, and what
//! users train with.
//!
//! - [`Dual`]: dual numbers `a + b·ε` (ε² = 0), forward-mode AD by operator overloading.
//! - [`sigmoid`], [`relu`], [`softplus`], [`stop_gradient`]: scalar functions the macro knows the
//!   derivatives of.
//! - [`DiffFn`], [`with_partials`]: a function passed to an `#[autodiff]` function's parameter
//!   `op: impl Fn(f64, f64) -> f64`, with its partial derivatives.
//! - [`check`]: central finite differences, to test any gradient against an independent reference.
//! - [`Tensor`]: dense row-major `f32`/`f64` arrays with broadcasting arithmetic, matmul, reductions,
//!   softmax and losses (forward kernels only: `#[autodiff]` owns every derivative rule).
//! - [`Params`]: a struct of tensors treated as one differentiable value (a JAX pytree); the
//!   gradient of a model is a value of the model's own type.
//! - [`nn`] (layers, MLP), [`optim`] (SGD, momentum, Adam, RMSprop), [`data`] (CSV and IDX loading,
//!   splits, standardization, minibatches, and the bundled Iris set [`data::iris`]).
//! - Random draws (initial weights, splits, batch orders) take a seed or any `&mut impl rand::Rng`
//!   (`Mlp::with_rng`, `Tensor::randn_with_rng`, `Dataset::batches_with_rng`, …).
//! - Feature `serde`: `Serialize`/`Deserialize` for [`Tensor`], layers, models, optimizer state
//!   and data sets. Feature `argmin`: `argmin::Problem`, an `#[autodiff]` function as an argmin
//!   problem.
//! - [`explain`]: the evaluation trace of an `#[autodiff]` function at a point (values, tangents,
//!   adjoints, local partials, the derivative code), as a table and as a Graphviz graph.
//!
//! Users depend on the `diffx-ad` package (library name `diffx`), which re-exports everything
//! here next to the macros.

#![warn(missing_docs)]

#[cfg(feature = "argmin")]
pub mod argmin;
pub mod check;
pub mod checkpoint;
pub mod data;
mod dual;
pub mod explain;
mod fastmath;
mod functions;
pub mod nn;
pub mod optim;
mod params;
mod rng;
mod scalar;
mod tensor;

#[doc(hidden)]
pub mod private;

pub use dual::Dual;
pub use functions::{with_partials, DiffFn, WithPartials};
// (What `#[autodiff]` writes for a call of a function parameter, in the function it differentiates.)
/// num-traits, whose [`Float`](num_traits::Float) a function generic over its float type names
/// as its bound: `#[autodiff] fn f<T: num_traits::Float>(x: &[T]) -> T`.
pub use num_traits;
pub use params::{Leaf, LeafMut, Params};
#[doc(hidden)]
pub use private::{linear1, linear2};
pub use scalar::{relu, sigmoid, softplus, stop_gradient, Float};
pub use tensor::{ShapeError, Tensor};
