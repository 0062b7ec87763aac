//! Functions passed as arguments: what the derivative functions of an `#[autodiff]` function
//! take for a parameter `op: impl Fn(f64, f64) -> f64`. A function the macro cannot see brings
//! its partial derivatives with it.

/// A function of `N` numbers with its partial derivatives: what the derivative functions of an
/// `#[autodiff]` function take for a parameter `op: impl Fn(F, …) -> F` of one or two numbers.
///
/// Inside an `#[autodiff]` function, a path of a function the derivative table knows
/// (`f64::add`, `f64::max`, `f64::powf`, `f64::atan2`) passed to such a parameter is given its
/// partials by the macro. Calling the derivative functions yourself, wrap the function with
/// [`with_partials`].
///
/// ```
/// use diffx::{autodiff, DiffFn};
///
/// /// `op` applied elementwise, summed.
/// #[autodiff]
/// fn combine(x: &[f64], y: &[f64], op: impl Fn(f64, f64) -> f64) -> f64 {
///     let mut s = 0.0;
///     for i in 0..x.len() {
///         s += op(x[i], y[i]);
///     }
///     s
/// }
///
/// // ∂/∂x of Σ xᵢ·yᵢ is y.
/// let times = diffx::with_partials(|a: f64, b: f64| a * b, |a, b, _| [b, a]);
/// let (gx, gy) = grad_combine(&[1.0, 2.0], &[3.0, 4.0], &times);
/// assert_eq!(gx, vec![3.0, 4.0]);
/// assert_eq!(gy, vec![1.0, 2.0]);
/// assert_eq!(times.value_and_partials([2.0, 5.0]), (10.0, [5.0, 2.0]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not bring its partial derivatives",
    label = "a function passed to an `#[autodiff]` function's derivative needs its partials",
    note = "pass a path of a function of the derivative table (`f64::add`, `f64::max`) inside an `#[autodiff]` function, or wrap the function: `diffx::with_partials(f, |a, b, value| [∂f/∂a, ∂f/∂b])`"
)]
pub trait DiffFn<F, const N: usize> {
    /// The value at `x` and the partial derivative in each argument there.
    fn value_and_partials(&self, x: [F; N]) -> (F, [F; N]);
}

impl<F, const N: usize, T: DiffFn<F, N>> DiffFn<F, N> for &T {
    #[inline]
    fn value_and_partials(&self, x: [F; N]) -> (F, [F; N]) {
        (**self).value_and_partials(x)
    }
}

/// A function of one or two numbers with its partial derivatives, as [`DiffFn`].
#[derive(Clone, Copy)]
pub struct WithPartials<V, P> {
    value: V,
    partials: P,
}

/// `f` with its partial derivatives: `partials(a, b, f(a, b))` (or `partials(a, f(a))` for a
/// function of one number) returns `[∂f/∂a, ∂f/∂b]`.
///
/// ```
/// use diffx::DiffFn;
///
/// let hypot = diffx::with_partials(f64::hypot, |a, b, z| [a / z, b / z]);
/// assert_eq!(hypot.value_and_partials([3.0, 4.0]), (5.0, [0.6, 0.8]));
/// let exp = diffx::with_partials(f64::exp, |_, z| [z]);
/// assert_eq!(exp.value_and_partials([0.0]), (1.0, [1.0]));
/// ```
pub fn with_partials<V, P>(value: V, partials: P) -> WithPartials<V, P> {
    WithPartials { value, partials }
}

impl<F: Copy, V: Fn(F, F) -> F, P: Fn(F, F, F) -> [F; 2]> DiffFn<F, 2> for WithPartials<V, P> {
    #[inline]
    fn value_and_partials(&self, [a, b]: [F; 2]) -> (F, [F; 2]) {
        let z = (self.value)(a, b);
        (z, (self.partials)(a, b, z))
    }
}

impl<F: Copy, V: Fn(F) -> F, P: Fn(F, F) -> [F; 1]> DiffFn<F, 1> for WithPartials<V, P> {
    #[inline]
    fn value_and_partials(&self, [a]: [F; 1]) -> (F, [F; 1]) {
        let z = (self.value)(a);
        (z, (self.partials)(a, z))
    }
}
