//! # diffx — automatic differentiation for Rust, done at compile time
//!
//! `#[autodiff]` reads an ordinary numeric function and writes its derivative functions beside it
//! as Rust source: reverse mode (`grad_f`, `value_and_grad_f`, `vjp_f`) and forward mode (`jvp_f`).
//! There is no graph of nodes at run time; a gradient costs what hand-written derivative code costs.
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
//! ## The generated functions
//! For `#[autodiff] fn f(x: f64, y: f64, n: usize) -> f64`, next to `f` and with its visibility:
//!
//! | function | returns | mode |
//! |---|---|---|
//! | `grad_f(x, y, n)` | `(f64, f64)`: one entry per differentiable parameter, bare if there is one | reverse |
//! | `value_and_grad_f(x, y, n)` | `(f64, (f64, f64))` | reverse |
//! | `vjp_f(x, y, n, ct)` | `ct` times the gradient | reverse |
//! | `jvp_f(x, y, n, tx, ty)` | `(value, directional derivative)` | forward |
//! | `explain_f(x, y, n, tx, ty)` | an [`explain::Trace`]: each value, tangent and adjoint | both |
//! | `explain_g(x, tx, ct)` (vector or tensor result) | the same, adjoints for the cotangent `ct` | both |
//!
//! Differentiable parameters are the `f64` and `f32` ones, slices, `Vec`s and arrays of them,
//! [`Tensor`]s and parameter structs deriving [`Params`](trait@crate::Params) (all of them, or those named in
//! `#[autodiff(wrt(x, y))]`); every other parameter is a constant. A function generic over its
//! float type (`fn f<T: Float>(x: &[T]) -> T`, with num-traits' `Float`, re-exported as
//! [`num_traits`], or [`Float`]) gets generic derivative functions that work at `f64` and `f32`. Bodies may use `let`,
//! reassignment, `if`/`else`, `match`, `for`/`while`/`loop` with `break`/`continue`, early `return`,
//! loops over a model's layers (`for layer in &model.layers`), calls of other `#[autodiff]`
//! functions and recursion; the README lists the details.
//!
//! ## Higher order
//! Second order is written on request: `#[autodiff(order = 2)]` (for `f64`/`f32` parameters and
//! their slices and a scalar result, without tensors) adds `hvp_f(x, y, n, tx, ty)`, the Hessian
//! times a direction shaped like the gradient (forward mode over the reverse program), and
//! `hessian_f(x, y, n)`, also through calls of other functions (each callee needs second order of
//! its own: `#[autodiff(order = 2)]`, or `#[custom_derivative]` with an `hvp` rule), and makes
//! whatever is in the way a compile error. Without it, a call of `hvp_f` or `hessian_f` is a
//! compile error that says to add it: second order is most of the code the macro would write, and
//! every build compiles it. `#[autodiff(order = 3)]` adds `dhvp_f(x, y, n, ux, uy, vx, vy)`, the
//! third derivative D³f[u, v, ·] shaped like the gradient (forward mode once more, over `hvp_f`),
//! and for a function of one scalar `d3_f(x, n)`; `order = 1`, the default, writes first order
//! only.
//! ```
//! # use diffx::autodiff;
//! #[autodiff(order = 3)]
//! fn quartic(x: f64) -> f64 {
//!     x * x * x * x
//! }
//! assert_eq!(hvp_quartic(2.0, 1.0), 48.0); // (x⁴)″ = 12x²
//! assert_eq!(d3_quartic(2.0), 48.0); // (x⁴)‴ = 24x
//! ```
//!
//! ## Seeing inside
//! `explain_f` (with the `explain` feature: `diffx = { …, features = ["explain"] }`) records the function as it runs: every
//! intermediate value (a row per executed iteration of a loop) with its tangent and adjoint, the
//! local partials, and the derivative code. Rows of tensors show their shape and norm, and keep
//! the tensors in full; a vector- or tensor-valued function takes the cotangent of its result as
//! last argument.
//! ```
//! # #[cfg(feature = "explain")] {
//! # use diffx::autodiff;
//! # #[autodiff]
//! # fn f(x1: f64, x2: f64) -> f64 {
//! #     x1.ln() + x1 * x2 - x2.sin()
//! # }
//! let trace = explain_f(2.0, 5.0, 1.0, 0.0);
//! assert_eq!(trace.row("t1").unwrap().expr, "x1.ln()");
//! assert_eq!(trace.adjoint("x2"), Some(grad_f(2.0, 5.0).1));
//! assert!(trace.reverse_code().contains("let t1 = x1.ln();"));
//! println!("{trace}\n{}", trace.to_dot());
//!
//! # #[autodiff]
//! # fn power(x: f64, n: u32) -> f64 {
//! #     let mut p = x;
//! #     for _ in 1..n {
//! #         p *= x;
//! #     }
//! #     p
//! # }
//! // x⁴ = x·x·x·x: one row per multiplication, x̄ collected from all three.
//! let trace = explain_power(2.0, 4, 1.0);
//! assert_eq!(trace.rows().len(), 5);
//! assert_eq!(trace.adjoint("x"), Some(grad_power(2.0, 4)));
//!
//! # use diffx::Tensor;
//! # #[autodiff]
//! # fn energy(x: &Tensor<f64>) -> f64 {
//! #     (x * x).sum()
//! # }
//! // A tensor row: its shape and norms in the table, its tensors in full.
//! let x = Tensor::from_rows(&[&[1.0, 2.0], &[3.0, 4.0]]);
//! let trace = explain_energy(&x, &Tensor::ones(&[2, 2]));
//! assert_eq!(trace.row("x").unwrap().shape, [2, 2]);
//! assert_eq!(trace.tensors("x").unwrap().adjoint, grad_energy(&x)); // 2x
//! # }
//! ```
//!
//! ## Conventions at non-differentiable points
//! As in PyTorch and JAX: `relu'(0) = 0`, `abs'(0) = 0`; on a tie, `max` and `min` send half of the
//! gradient to each operand; `signum`, `floor`, `ceil`, `round` and `trunc` have derivative 0;
//! [`stop_gradient`] blocks the gradient of its argument.

// Lets `::diffx::…` paths written by the macro resolve inside this crate's own doc tests and tests.
extern crate self as diffx;

pub use diffx_macros::{autodiff, custom_derivative, Params};
pub use diffx_runtime::*;

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
