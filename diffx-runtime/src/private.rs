//! Support for the code that `#[autodiff]` writes. Not a public API: names may change at any time.
//!
//! Derivative functions of different `#[autodiff]` functions call each other through one uniform
//! interface, whatever the callee's constant parameters are:
//! - `__diffx_jvp_g(args…, tangents…)` takes a tangent for *every* argument; the caller passes
//!   [`Zero`] for arguments that do not depend on its inputs, and the callee ignores the tangents of
//!   its constant parameters.
//! - `__diffx_vjp_g(args…, ct)` returns `(value, (one gradient per argument))`, with [`Zero`] for the
//!   callee's constant parameters.
//!
//! Adjoints of tensors are accumulated with [`fit`] and [`accumulate`], which sum a contribution
//! over the axes that broadcasting added, so a bias `[1, n]` receives the column sums of a
//! `[batch, n]` cotangent.

use core::borrow::Borrow;
use core::ops::AddAssign;

pub use crate::checkpoint::{trip_count, Action, Schedule};
pub use crate::params::{Leaves, Params};
pub use crate::scalar::{relu, sigmoid, softplus, stop_gradient};
pub use crate::tensor::Tensor;
use crate::Float;
use num_traits::Float as NumFloat;

/// The zero tangent or gradient of something that is constant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Zero;

/// A copy of a constant that a loop body changes in place (`stack.pop()`, `rng.next()`): each
/// iteration changes a copy, so that reverse mode can replay it from where it started.
#[diagnostic::on_unimplemented(
    message = "`{Self}` changes in a loop here, and reverse mode replays each iteration from its value at the start: it needs `Clone`",
    label = "changed here, in a loop",
    note = "derive `Clone` for it, or move the call out of the loop"
)]
pub trait Replayed {
    fn replayed(&self) -> Self;
}

impl<T: Clone> Replayed for T {
    #[inline]
    fn replayed(&self) -> Self {
        self.clone()
    }
}

/// See [`Replayed`].
#[inline]
pub fn replayed<T: Replayed>(x: &T) -> T {
    x.replayed()
}

/// The value inside an optional parameter, as a place: `#[autodiff]` reads `if let Some(b) =
/// p.offset { … }` as `p.offset[Inner]` in the arm, which the gradient's `p_bar.offset[Inner]`
/// receives (an index is a place to read and to write alike).
#[derive(Clone, Copy, Debug)]
pub struct Inner;

impl<T> core::ops::Index<Inner> for Option<T> {
    type Output = T;
    #[track_caller]
    fn index(&self, _: Inner) -> &T {
        self.as_ref()
            .expect("`#[autodiff]`: an optional parameter read as `Some` is `None` (or is in a gradient or tangent, which has the shape of its parameters)")
    }
}

impl<T> core::ops::IndexMut<Inner> for Option<T> {
    #[track_caller]
    fn index_mut(&mut self, _: Inner) -> &mut T {
        self.as_mut()
            .expect("`#[autodiff]`: an optional parameter read as `Some` is `None` in its gradient (a gradient has the shape of its parameters)")
    }
}

/// The bound of the `grad_g` that `#[autodiff]` writes for a vector-valued `g`: no type has it, so
/// a call fails to compile with this message, at the call.
#[diagnostic::on_unimplemented(
    message = "`grad_` is only for functions with a scalar result, and this one returns a vector",
    label = "called on a vector-valued `#[autodiff]` function",
    note = "for all the partial derivatives call its `jacobian_` function; for one pullback, its `vjp_` function with a cotangent of the output's type"
)]
pub trait ScalarResult: sealed::Never {
    fn never(self) -> !;
}

/// The bound of the `__diffx_hvp_g` that `#[autodiff]` writes for a `g` without second-order
/// derivatives: a caller's `hvp_` fails to compile with this message, at the call.
#[diagnostic::on_unimplemented(
    message = "this `#[autodiff]` function has no second-order derivatives, so a caller's `hvp_` cannot go through it",
    label = "called here from a function with `#[autodiff(order = 2)]`",
    note = "second order is written only on request: the callee needs `#[autodiff(order = 2)]` too; functions of tensors and vector-valued functions have no second order yet"
)]
pub trait SecondOrder: sealed::Never {
    fn never(self) -> !;
}

/// The bound of the `hvp_g` and `hessian_g` that `#[autodiff]` writes for a `g` without
/// `order = 2`: second order is written on request (it is most of what the macro would write, and
/// every build compiles it), so a call fails to compile with this message, at the call, rather
/// than as a function that does not exist.
#[diagnostic::on_unimplemented(
    message = "`hvp_`, `grad_and_hvp_` and `hessian_` are written only for functions with `#[autodiff(order = 2)]`",
    label = "called on an `#[autodiff]` function without `order = 2`",
    note = "write `#[autodiff(order = 2)]` on the function: second order is opt-in, since it is most of the code the macro writes and every build compiles it"
)]
pub trait OrderTwo: sealed::Never {
    fn never(self) -> !;
}

/// The bound of the hidden functions through which a caller would differentiate its call of
/// `grad_g` or `jvp_g` (nested AD), for a `g` without `order = 2`: they are `g`'s second
/// derivatives, so the call fails to compile with this message, at the call.
#[diagnostic::on_unimplemented(
    message = "a call of another function's `grad_` or `jvp_` is differentiated through that function's second derivatives, which it does not have",
    label = "called here from an `#[autodiff]` function",
    note = "write `#[autodiff(order = 2)]` on the function whose `grad_` or `jvp_` this is"
)]
pub trait NestedOrderTwo: sealed::Never {
    fn never(self) -> !;
}

/// Functions of every arity up to 32 whose calls are compile errors (their first parameter has a
/// bound no type has): `#[autodiff]` names them (`use … as __diffx_vjp_grad_g;`) where a caller
/// would find the functions nested AD needs, which costs no compile time until one is called.
pub mod missing {
    use super::{NestedOrderTwo, NestedThirdOrder};

    // `two_k` and `three_k` take k arguments; each step adds a parameter type `Bk`.
    macro_rules! arities {
        ([$($b:ident)*] $two:ident $three:ident $next:ident $($rest:ident)*) => {
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments)]
            pub fn $two<A: NestedOrderTwo, R, $($b),*>(first: A, $(_: $b),*) -> R {
                first.never()
            }
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments)]
            pub fn $three<A: NestedThirdOrder, R, $($b),*>(first: A, $(_: $b),*) -> R {
                first.never()
            }
            arities!([$($b)* $next] $($rest)*);
        };
        ([$($b:ident)*]) => {};
    }
    arities!([] two_1 three_1 B1 two_2 three_2 B2 two_3 three_3 B3 two_4 three_4 B4 two_5 three_5 B5 two_6 three_6 B6 two_7 three_7 B7 two_8 three_8 B8 two_9 three_9 B9 two_10 three_10 B10 two_11 three_11 B11 two_12 three_12 B12 two_13 three_13 B13 two_14 three_14 B14 two_15 three_15 B15 two_16 three_16 B16 two_17 three_17 B17 two_18 three_18 B18 two_19 three_19 B19 two_20 three_20 B20 two_21 three_21 B21 two_22 three_22 B22 two_23 three_23 B23 two_24 three_24 B24 two_25 three_25 B25 two_26 three_26 B26 two_27 three_27 B27 two_28 three_28 B28 two_29 three_29 B29 two_30 three_30 B30 two_31 three_31 B31 two_32 three_32 B32);
}

/// The bound of the `__diffx_hvp_grad_g` and `__diffx_hvp_jvp_g` that `#[autodiff(order = 2)]`
/// writes: a caller's second order through a call of `grad_g` would be third derivatives of `g`,
/// which are not written for it.
#[diagnostic::on_unimplemented(
    message = "a function with `#[autodiff(order = 2)]` cannot call another function's `grad_` or `jvp_`: its `hvp_` would need that function's third derivatives",
    label = "called here from a function with `#[autodiff(order = 2)]`",
    note = "take `order = 2` off the caller (its `grad_` and `jvp_` go through this call), or compute what the call returns in the caller's own code"
)]
pub trait NestedThirdOrder: sealed::Never {
    fn never(self) -> !;
}

/// The bound of the `__diffx_hvp_g` that `#[custom_derivative]` writes for a `g` without an
/// `hvp` rule: a caller's `hvp_` fails to compile with this message, at the call.
#[diagnostic::on_unimplemented(
    message = "this `#[custom_derivative]` function has no second-order rule, so a caller's `hvp_` cannot go through it",
    label = "called here from a function with `#[autodiff(order = 2)]`",
    note = "add `hvp = g_hvp` to its `#[custom_derivative(…)]`: `fn g_hvp(args…, tangents…)`, the Hessian times the tangents, shaped like the gradient"
)]
pub trait HvpRule: sealed::Never {
    fn never(self) -> !;
}

/// `a·x + b·y` for a gradient `x`, `y` of a scalar, slice, `Vec` or array parameter: the
/// `__diffx_hvp_` of a hand-written rule scales its gradient and Hessian-vector product by the
/// cotangent and its tangent.
pub trait Combine<F> {
    fn combine(a: F, x: &Self, b: F, y: &Self) -> Self;
    /// `x·y`, summed over the elements.
    fn dot(x: &Self, y: &Self) -> F;
}

/// `a·x + b·y`, for generated code.
#[inline]
pub fn combine<F, G: Combine<F>>(a: F, x: &G, b: F, y: &G) -> G {
    G::combine(a, x, b, y)
}

/// `x·y` for gradients or tangents of one parameter: the derivative of another function's
/// `jvp_` along its own tangent argument (nested AD).
#[inline]
pub fn dot<F, G: Combine<F>>(x: &G, y: &G) -> F {
    G::dot(x, y)
}

impl<F: NumFloat> Combine<F> for F {
    #[inline(always)]
    fn combine(a: F, x: &F, b: F, y: &F) -> F {
        a * *x + b * *y
    }
    #[inline(always)]
    fn dot(x: &F, y: &F) -> F {
        *x * *y
    }
}

impl<F: NumFloat> Combine<F> for Vec<F> {
    #[inline]
    fn combine(a: F, x: &Vec<F>, b: F, y: &Vec<F>) -> Vec<F> {
        x.iter().zip(y).map(|(&x, &y)| a * x + b * y).collect()
    }
    #[inline]
    fn dot(x: &Vec<F>, y: &Vec<F>) -> F {
        x.iter().zip(y).fold(F::zero(), |s, (&x, &y)| s + x * y)
    }
}

impl<F: NumFloat, const N: usize> Combine<F> for [F; N] {
    #[inline]
    fn combine(a: F, x: &[F; N], b: F, y: &[F; N]) -> [F; N] {
        ::core::array::from_fn(|i| a * x[i] + b * y[i])
    }
    #[inline]
    fn dot(x: &[F; N], y: &[F; N]) -> F {
        x.iter().zip(y).fold(F::zero(), |s, (&x, &y)| s + x * y)
    }
}

mod sealed {
    /// Implemented by nothing, so `ScalarResult` stays unimplemented.
    pub trait Never {}
}

/// A tangent passed to a differentiable parameter: the tangent itself (or a reference to it) or
/// [`Zero`]. `like` is the parameter's value (an `L`, e.g. the `[f64]` behind a `Vec<f64>` tangent),
/// which gives a zero tangent its shape.
pub trait IntoTangent<T, L: ?Sized = T> {
    /// The tangent as a `T`.
    fn into_tangent(self, like: &L) -> T;
}

/// The zero gradient of a slice, vector or array parameter, shaped like it.
pub trait ZerosFor<X: ?Sized> {
    fn zeros_for(x: &X) -> Self;
}

/// `Self::zeros_for(x)`, for generated code.
#[inline]
pub fn zeros_for<G: ZerosFor<X>, X: ?Sized>(x: &X) -> G {
    G::zeros_for(x)
}

// Slices, `Vec`s and arrays of any float type: a function generic over its float type uses
// these too. A sequence parameter's tangent is read against the parameter as a slice (`L = [F]`),
// which keeps these impls apart from the blanket ones of `Params`.
impl<F: NumFloat> ZerosFor<[F]> for Vec<F> {
    #[inline]
    fn zeros_for(x: &[F]) -> Self {
        vec![F::zero(); x.len()]
    }
}
impl<F: NumFloat> ZerosFor<Vec<F>> for Vec<F> {
    #[inline]
    fn zeros_for(x: &Vec<F>) -> Self {
        vec![F::zero(); x.len()]
    }
}
impl<F: NumFloat, const N: usize> ZerosFor<[F; N]> for [F; N] {
    #[inline]
    fn zeros_for(_: &[F; N]) -> Self {
        [F::zero(); N]
    }
}
/// A sequence tangent has as many elements as its parameter.
#[inline]
#[track_caller]
fn tangent_fits(tangent: usize, param: usize) {
    assert_eq!(
        tangent, param,
        "jvp: the tangent has {tangent} elements, the parameter {param}"
    );
}

impl<F: NumFloat> IntoTangent<Vec<F>, [F]> for &[F] {
    #[inline]
    #[track_caller]
    fn into_tangent(self, like: &[F]) -> Vec<F> {
        tangent_fits(self.len(), like.len());
        self.to_vec()
    }
}
impl<F: NumFloat> IntoTangent<Vec<F>, [F]> for &Vec<F> {
    #[inline]
    #[track_caller]
    fn into_tangent(self, like: &[F]) -> Vec<F> {
        self.as_slice().into_tangent(like)
    }
}
impl<F: NumFloat> IntoTangent<Vec<F>, [F]> for Vec<F> {
    #[inline]
    #[track_caller]
    fn into_tangent(self, like: &[F]) -> Vec<F> {
        tangent_fits(self.len(), like.len());
        self
    }
}
impl<F: NumFloat, const N: usize> IntoTangent<Vec<F>, [F]> for &[F; N] {
    #[inline]
    #[track_caller]
    fn into_tangent(self, like: &[F]) -> Vec<F> {
        self.as_slice().into_tangent(like)
    }
}
impl<F: NumFloat> IntoTangent<Vec<F>, [F]> for Zero {
    #[inline]
    fn into_tangent(self, like: &[F]) -> Vec<F> {
        vec![F::zero(); like.len()]
    }
}
impl<F: NumFloat, const N: usize> IntoTangent<[F; N], [F]> for [F; N] {
    #[inline]
    fn into_tangent(self, _: &[F]) -> [F; N] {
        self
    }
}
impl<F: NumFloat, const N: usize> IntoTangent<[F; N], [F]> for &[F; N] {
    #[inline]
    fn into_tangent(self, _: &[F]) -> [F; N] {
        *self
    }
}
impl<F: NumFloat, const N: usize> IntoTangent<[F; N], [F]> for Zero {
    #[inline]
    fn into_tangent(self, _: &[F]) -> [F; N] {
        [F::zero(); N]
    }
}

/// A zero shaped like a slice, `Vec` or array of numbers (a `Vec` for a slice): the tangent of an
/// `if` arm that does not depend on the inputs.
pub trait ZeroElems {
    type Out;
    fn zero_elems(&self) -> Self::Out;
}

impl<F: NumFloat> ZeroElems for [F] {
    type Out = Vec<F>;
    #[inline]
    fn zero_elems(&self) -> Vec<F> {
        vec![F::zero(); self.len()]
    }
}

impl<F: NumFloat> ZeroElems for Vec<F> {
    type Out = Vec<F>;
    #[inline]
    fn zero_elems(&self) -> Vec<F> {
        vec![F::zero(); self.len()]
    }
}

impl<F: NumFloat, const N: usize> ZeroElems for [F; N] {
    type Out = [F; N];
    #[inline]
    fn zero_elems(&self) -> [F; N] {
        [F::zero(); N]
    }
}

/// [`ZeroElems::zero_elems`], for generated code.
#[inline]
pub fn zero_elems<S: ZeroElems + ?Sized>(x: &S) -> S::Out {
    x.zero_elems()
}

/// How many windows `x.windows(size)` yields for `len` elements; panics on a zero size as
/// `windows` does. For the loops iterator chains become.
#[inline]
#[track_caller]
pub fn window_count(len: usize, size: usize) -> usize {
    assert!(size != 0, "window size must be non-zero");
    (len + 1).saturating_sub(size)
}

/// How many chunks `x.chunks(size)` yields for `len` elements (the last may be shorter); panics
/// on a zero size as `chunks` does.
#[inline]
#[track_caller]
pub fn chunk_count(len: usize, size: usize) -> usize {
    assert!(size != 0, "chunk size must be non-zero");
    len.div_ceil(size)
}

/// The tangent passed for a scalar parameter: a number, a reference to one, or [`Zero`]. (A trait
/// of its own: a blanket impl over every float type would overlap `IntoTangent`'s over `Params`.)
pub trait ScalarTangent<F> {
    /// The tangent as an `F`.
    fn into_scalar(self) -> F;
}

impl<F: NumFloat> ScalarTangent<F> for F {
    #[inline(always)]
    fn into_scalar(self) -> F {
        self
    }
}

impl<F: NumFloat> ScalarTangent<F> for &F {
    #[inline(always)]
    fn into_scalar(self) -> F {
        *self
    }
}

impl<F: NumFloat> ScalarTangent<F> for Zero {
    #[inline(always)]
    fn into_scalar(self) -> F {
        F::zero()
    }
}

/// The bound the derivative functions of a method put on the type it computes in when that type
/// is the `impl`'s (`impl<T: Float> Well<T> { fn potential(&self, x: T) -> T }`): taken from the
/// method's signature, it may be a struct, which this reports at the method.
#[diagnostic::on_unimplemented(
    message = "`#[autodiff]` took `{Self}` for the float type this method computes in, but it is not a float type",
    label = "the type this method returns",
    note = "a method of an `impl` generic over its float type (`impl<T: Float> S<T>`) computes in that type; other methods return `f64`, `f32`, `[f64; M]`, `Vec<f64>` or a `Tensor`"
)]
pub trait FloatType {}

impl<F: NumFloat> FloatType for F {}

/// The bound the derivative functions of a generic function that converts a differentiable value
/// to `f64` and back (`let x: f64 = v.into(); … T::from_f64(…)`) put on its float type: they
/// compute in `T` what the function computes in `f64`, which is the same computation at `f64`
/// alone (at `f32` a value may overflow, or a branch go the other way, where the function's
/// `f64` does not).
#[diagnostic::on_unimplemented(
    message = "this `#[autodiff]` function converts to `f64` and back, and its derivative functions are written for `f64` only",
    label = "called with another float type",
    note = "they compute the function's `f64` part in its float type, which is exact at `f64` alone: call them with `f64` (`grad_f::<f64>`)"
)]
pub trait ThroughF64 {}

impl ThroughF64 for f64 {}

/// Stands first in the derivative functions of a function that converts to `f64` and back: see
/// [`ThroughF64`].
#[inline(always)]
pub fn through_f64<F: ThroughF64>() {}

/// A float literal of generated code as a value of the function's float type: `lit::<T>(0.5)`
/// where the function is generic over `T` and `0.5` alone would be an `f64`. Folds to the
/// constant at `f64` and `f32`.
#[inline(always)]
pub fn lit<F: NumFloat>(x: f64) -> F {
    match <F as num_traits::NumCast>::from(x) {
        Some(v) => v,
        None => panic!("the constant {x} has no value in this float type"),
    }
}

/// `1` or `0` of the float type: `f64::from(a > 0.0)` of a rule, for any float type.
#[inline(always)]
pub fn from_bool<F: NumFloat>(b: bool) -> F {
    if b {
        F::one()
    } else {
        F::zero()
    }
}

/// A count or an integer exponent as a value of the float type: `n as F` of a rule, for any
/// float type.
#[inline(always)]
pub fn cast<F: NumFloat, N: num_traits::ToPrimitive + Copy + core::fmt::Display>(n: N) -> F {
    match <F as num_traits::NumCast>::from(n) {
        Some(v) => v,
        None => panic!("{n} has no value in this float type"),
    }
}

/// A contribution to an adjoint of type `L`, summed to `L`'s shape where it was broadcast.
pub trait Fit<L> {
    /// The contribution as a value shaped like `like`.
    fn fit(&self, like: &L) -> L;
    /// `acc += self`, summed to the shape of `like`.
    fn accumulate_into(&self, acc: &mut L, like: &L);
    /// [`Fit::fit`] of a contribution that is not needed afterwards: no copy where shapes agree.
    #[inline]
    fn fit_owned(self, like: &L) -> L
    where
        Self: Sized,
    {
        self.fit(like)
    }
}

/// `c` summed to the shape of `like`: the first contribution to an adjoint. `c` is a reference, or
/// the contribution itself when it is not read again.
#[inline(always)]
pub fn fit<C: FitArg<L>, L>(c: C, like: &L) -> L {
    c.fit_arg(like)
}

/// A contribution passed to [`fit`] by value or by reference.
pub trait FitArg<L> {
    fn fit_arg(self, like: &L) -> L;
}

impl<L, C: Fit<L>> FitArg<L> for &C {
    #[inline(always)]
    fn fit_arg(self, like: &L) -> L {
        self.fit(like)
    }
}

impl<F: Float> FitArg<Tensor<F>> for Tensor<F> {
    #[inline(always)]
    fn fit_arg(self, like: &Tensor<F>) -> Tensor<F> {
        self.fit_owned(like)
    }
}

/// A zero passed by value, as reverse mode hands over a contribution at its last read.
impl<L> FitArg<L> for Zero
where
    Zero: Fit<L>,
{
    #[inline(always)]
    fn fit_arg(self, like: &L) -> L {
        self.fit(like)
    }
}

/// A tensor contribution to a scalar (a scale factor used across a tensor) is summed.
impl<F: Float> FitArg<F> for Tensor<F> {
    #[inline(always)]
    fn fit_arg(self, like: &F) -> F {
        self.fit(like)
    }
}

/// The tangent passed for a parameter the function does not differentiate (a constant, or one
/// left out by `wrt(…)`): only [`Zero`]. A caller passing a differentiable value there would lose
/// its derivative silently, so it is a compile error instead.
#[diagnostic::on_unimplemented(
    message = "this argument carries a derivative, but the called `#[autodiff]` function does not differentiate this parameter",
    label = "its derivative would be lost here",
    note = "add the parameter to the callee's `wrt(…)`, or pass `diffx::stop_gradient(…)` to use the value without its derivative"
)]
pub trait NoTangent {}

impl NoTangent for Zero {}

/// The value of a block that stopped early (a `return` inside it): generated code never reads
/// it, since everything after the block is guarded by the same flag.
#[inline(always)]
pub fn never<T: Default>() -> T {
    T::default()
}

/// `partial · tangent` in forward mode over reverse mode (`hvp_`, `hessian_`): an exact zero
/// tangent gives 0 whatever the partial, as JAX's symbolic zeros do, so the cotangent's zero
/// tangent does not turn an infinite partial (`ln` at 0) into NaN.
#[inline(always)]
pub fn tangent_product<F: NumFloat>(partial: F, tangent: F) -> F {
    if tangent == F::zero() {
        F::zero()
    } else {
        partial * tangent
    }
}

/// `acc += c` element by element: a callee's gradient of a slice, `Vec` or array argument added
/// into the caller's adjoint of it. An empty `c` adds nothing: the callee added its gradient into
/// `acc` itself (the caller offered `acc` as its [`Slot`], see [`slice_adjoint`]).
#[inline]
#[track_caller]
pub fn add_elems<F: Copy + core::ops::Add<Output = F>>(acc: &mut [F], c: &[F]) {
    if c.is_empty() {
        return;
    }
    assert_eq!(
        acc.len(),
        c.len(),
        "a gradient of {} elements added to one of {}",
        c.len(),
        acc.len()
    );
    for (a, c) in acc.iter_mut().zip(c) {
        *a = *a + *c;
    }
}

/// `acc += c`, summed to the shape of `like`.
#[inline(always)]
pub fn accumulate<C: Fit<L>, L>(acc: &mut L, c: &C, like: &L) {
    c.accumulate_into(acc, like);
}

/// A callee's gradient of a layer struct added into the caller's gradient of the layer passed
/// (`#[derive(Params)]` writes the same for user structs).
macro_rules! params_support {
    ($($t:ident),*) => {$(
        impl<F: Float> Fit<crate::nn::$t<F>> for crate::nn::$t<F> {
            #[inline]
            fn fit(&self, _: &Self) -> Self {
                self.clone()
            }
            #[inline]
            fn fit_owned(self, _: &Self) -> Self {
                self
            }
            #[inline]
            fn accumulate_into(&self, acc: &mut Self, _: &Self) {
                acc.accumulate(self);
            }
        }
        impl<F: Float> FitArg<crate::nn::$t<F>> for crate::nn::$t<F> {
            #[inline]
            fn fit_arg(self, _: &Self) -> Self {
                self
            }
        }
    )*};
}
params_support!(Linear, Mlp);

/// `self · f'(x)` for an activation `f` given its output `z = f(x)`, on numbers: what the tensor
/// kernels `Tensor::mul_dtanh` … compute elementwise. The tensor rows of the rule table call
/// these methods; a parameter struct's field read there may be a number.
pub trait ScaledDerivative: Sized {
    /// `self · (1 − z²)`.
    fn mul_dtanh(self, z: &Self) -> Self;
    /// `self · z·(1 − z)`.
    fn mul_dsigmoid(self, z: &Self) -> Self;
    /// `self` where `z > 0`, else 0.
    fn mul_drelu(self, z: &Self) -> Self;
}

impl<F: Float> ScaledDerivative for F {
    #[inline]
    fn mul_dtanh(self, z: &F) -> F {
        self * (F::ONE - *z * *z)
    }
    #[inline]
    fn mul_dsigmoid(self, z: &F) -> F {
        self * *z * (F::ONE - *z)
    }
    #[inline]
    fn mul_drelu(self, z: &F) -> F {
        if *z > F::ZERO {
            self
        } else {
            F::ZERO
        }
    }
}

macro_rules! scalar_support {
    ($($t:ty),*) => {$(
        impl AddAssign<Zero> for $t {
            #[inline(always)]
            fn add_assign(&mut self, _: Zero) {}
        }
        // A number passed by value, as reverse mode hands over a contribution at its last read.
        impl FitArg<$t> for $t {
            #[inline(always)]
            fn fit_arg(self, _: &$t) -> $t {
                self
            }
        }
    )*};
}
scalar_support!(f32, f64);

// (Any float, so that a function generic over its float type adds into adjoints of `T`.)
impl<F: Float> Fit<F> for F {
    #[inline(always)]
    fn fit(&self, _: &F) -> F {
        *self
    }
    #[inline(always)]
    fn accumulate_into(&self, acc: &mut F, _: &F) {
        *acc += *self;
    }
}

/// A `Vec` (a struct's `Vec` field copied into a local vector the body writes): added element by
/// element.
impl<F: Float> Fit<Vec<F>> for Vec<F> {
    #[inline]
    fn fit(&self, _: &Self) -> Self {
        self.clone()
    }
    #[inline]
    fn fit_owned(self, _: &Self) -> Self {
        self
    }
    #[inline]
    fn accumulate_into(&self, acc: &mut Self, _: &Self) {
        for (a, c) in acc.iter_mut().zip(self) {
            *a += *c;
        }
    }
}

impl<F: Float> FitArg<Vec<F>> for Vec<F> {
    #[inline(always)]
    fn fit_arg(self, _: &Self) -> Self {
        self
    }
}

/// An array (a struct's array field copied into a local vector, `self.vals.map(…)`): added
/// element by element.
impl<F: Float, const N: usize> Fit<[F; N]> for [F; N] {
    #[inline]
    fn fit(&self, _: &Self) -> Self {
        *self
    }
    #[inline]
    fn accumulate_into(&self, acc: &mut Self, _: &Self) {
        for (a, c) in acc.iter_mut().zip(self) {
            *a += *c;
        }
    }
}

impl<F: Float, const N: usize> FitArg<[F; N]> for [F; N] {
    #[inline(always)]
    fn fit_arg(self, _: &Self) -> Self {
        self
    }
}

/// An array of arrays (a `[[f64; 3]; 3]` parameter passed to a callee, or the cotangent of a
/// function returning one): added element by element.
impl<F: Float, const N: usize, const M: usize> Fit<[[F; N]; M]> for [[F; N]; M] {
    #[inline]
    fn fit(&self, _: &Self) -> Self {
        *self
    }
    #[inline]
    fn accumulate_into(&self, acc: &mut Self, _: &Self) {
        for (a, c) in acc.iter_mut().zip(self) {
            for (a, c) in a.iter_mut().zip(c) {
                *a += *c;
            }
        }
    }
}

impl<F: Float, const N: usize, const M: usize> FitArg<[[F; N]; M]> for [[F; N]; M] {
    #[inline(always)]
    fn fit_arg(self, _: &Self) -> Self {
        self
    }
}

impl<F: Float, const N: usize, const M: usize> Fit<[[F; N]; M]> for Zero {
    #[inline]
    fn fit(&self, _: &[[F; N]; M]) -> [[F; N]; M] {
        [[F::ZERO; N]; M]
    }
    #[inline(always)]
    fn accumulate_into(&self, _: &mut [[F; N]; M], _: &[[F; N]; M]) {}
}

impl<F: Float> Fit<F> for Zero {
    #[inline(always)]
    fn fit(&self, _: &F) -> F {
        F::ZERO
    }
    #[inline(always)]
    fn accumulate_into(&self, _: &mut F, _: &F) {}
}

/// The shape of `t` as a tensor without elements: what the backward sweep needs of a value it reads
/// only to sum a contribution to its shape (the `like` of [`fit`] and [`accumulate`]), so that the
/// value itself need not be kept.
#[inline]
pub fn shape_of<T: ShapeOf>(t: &T) -> T {
    t.shape_of()
}

/// A value without its elements, standing for its shape (see [`shape_of`]); a number is its own.
pub trait ShapeOf {
    fn shape_of(&self) -> Self;
}

impl<F: Float> ShapeOf for Tensor<F> {
    #[inline]
    fn shape_of(&self) -> Self {
        Tensor::unset(self.shape())
    }
}

impl<F: Float> ShapeOf for F {
    #[inline]
    fn shape_of(&self) -> Self {
        *self
    }
}

/// Elementwise maps of a tensor that generated code reads for the last time, written in its own
/// buffer (`t2.tanh()` would allocate a new one).
pub mod owned {
    use crate::{Float, Tensor};

    /// The maps below on a value read for the last time, in its own storage: a tensor's buffer
    /// (the vectorized kernels), or a number (a parameter struct's field, whose kind the macro
    /// cannot see).
    pub trait InPlace {
        fn exp_in_place(self) -> Self;
        fn ln_in_place(self) -> Self;
        fn tanh_in_place(self) -> Self;
        fn sigmoid_in_place(self) -> Self;
        fn relu_in_place(self) -> Self;
        fn sqrt_in_place(self) -> Self;
        fn square_in_place(self) -> Self;
    }

    impl<F: Float> InPlace for Tensor<F> {
        fn exp_in_place(self) -> Self {
            self.into_exp()
        }
        fn ln_in_place(self) -> Self {
            self.into_ln()
        }
        fn tanh_in_place(self) -> Self {
            self.into_tanh()
        }
        fn sigmoid_in_place(self) -> Self {
            self.into_sigmoid()
        }
        fn relu_in_place(self) -> Self {
            self.into_relu()
        }
        fn sqrt_in_place(self) -> Self {
            self.into_map(F::sqrt)
        }
        fn square_in_place(self) -> Self {
            self.into_map(|x| x * x)
        }
    }

    impl<F: Float> InPlace for F {
        fn exp_in_place(self) -> Self {
            self.exp()
        }
        fn ln_in_place(self) -> Self {
            self.ln()
        }
        fn tanh_in_place(self) -> Self {
            self.tanh()
        }
        fn sigmoid_in_place(self) -> Self {
            crate::sigmoid(self)
        }
        fn relu_in_place(self) -> Self {
            crate::relu(self)
        }
        fn sqrt_in_place(self) -> Self {
            self.sqrt()
        }
        fn square_in_place(self) -> Self {
            self * self
        }
    }

    #[inline]
    pub fn exp<T: InPlace>(t: T) -> T {
        t.exp_in_place()
    }

    #[inline]
    pub fn ln<T: InPlace>(t: T) -> T {
        t.ln_in_place()
    }

    #[inline]
    pub fn tanh<T: InPlace>(t: T) -> T {
        t.tanh_in_place()
    }

    #[inline]
    pub fn sigmoid<T: InPlace>(t: T) -> T {
        t.sigmoid_in_place()
    }

    #[inline]
    pub fn relu<T: InPlace>(t: T) -> T {
        t.relu_in_place()
    }

    #[inline]
    pub fn sqrt<T: InPlace>(t: T) -> T {
        t.sqrt_in_place()
    }

    #[inline]
    pub fn square<T: InPlace>(t: T) -> T {
        t.square_in_place()
    }
}

/// `g · t`, in place; no pass at all for the cotangent 1 of `grad_`. The pullback of a rule whose
/// forward sweep computed its gradient already (`cross_entropy_with_grad`).
#[inline]
pub fn scaled<F: Float>(mut t: Tensor<F>, g: F) -> Tensor<F> {
    if g != F::ONE {
        t.scale(g);
    }
    t
}

/// A zero of the type and shape of `like`.
#[inline]
pub fn zeros_like<P: Params, B: Borrow<P>>(like: &B) -> P {
    like.borrow().zeros_like()
}

/// The adjoint a parameter struct starts from: every tensor unset ([`Params::unset_like`]), so a
/// field's first contribution is moved in; [`settled`] zeroes what no contribution reached.
#[inline]
pub fn unset_like<P: Params, B: UnsetFrom<P> + ?Sized>(like: &B) -> P {
    like.unset()
}

/// The placeholder of a value a pullback computes only for gradients its caller did not ask for
/// (the gradient of a layer's input, when the input is data): an unset tensor holds no elements.
pub trait NotWanted {
    fn not_wanted() -> Self;
}

impl<F: Float> NotWanted for Tensor<F> {
    #[inline]
    fn not_wanted() -> Self {
        Tensor::unset(&[])
    }
}

impl<F: NumFloat> NotWanted for F {
    #[inline]
    fn not_wanted() -> Self {
        F::zero()
    }
}

/// Undoes a logged write into a local vector: puts the old element back, or, for a push (logged
/// at index `usize::MAX`), pops the element.
pub trait Restore<T> {
    fn restore(&mut self, k: usize, old: T);
}

impl<T, const N: usize> Restore<T> for [T; N] {
    #[inline(always)]
    fn restore(&mut self, k: usize, old: T) {
        self[k] = old;
    }
}

impl<T> Restore<T> for Vec<T> {
    #[inline(always)]
    fn restore(&mut self, k: usize, old: T) {
        if k == usize::MAX {
            self.pop();
        } else {
            self[k] = old;
        }
    }
}

/// What a parameter's unset adjoint is made from: the parameter (or a reference to it), or a slice
/// of parameters (`&[[f64; 2]]`), whose adjoint is a `Vec`.
pub trait UnsetFrom<P> {
    fn unset(&self) -> P;
}

impl<P: Params> UnsetFrom<P> for P {
    #[inline]
    fn unset(&self) -> P {
        self.unset_like()
    }
}

impl<P: Params> UnsetFrom<P> for &P {
    #[inline]
    fn unset(&self) -> P {
        (**self).unset_like()
    }
}

impl<T: Params> UnsetFrom<Vec<T>> for [T] {
    #[inline]
    fn unset(&self) -> Vec<T> {
        self.iter().map(Params::unset_like).collect()
    }
}

impl<T: Params> UnsetFrom<Vec<T>> for &[T] {
    #[inline]
    fn unset(&self) -> Vec<T> {
        self.iter().map(Params::unset_like).collect()
    }
}

/// The tangent passed for a slice of arrays or rows (`&[[f64; 2]]`, `&[Vec<f64>]`): a slice or
/// `Vec` of the same, or [`Zero`]; as a `Vec`.
pub trait RowsTangent<T> {
    fn into_rows(self, like: &[T]) -> Vec<T>;
}

impl<T: Params> RowsTangent<T> for &[T] {
    #[inline]
    #[track_caller]
    fn into_rows(self, like: &[T]) -> Vec<T> {
        tangent_fits(self.len(), like.len());
        self.to_vec()
    }
}

impl<T: Params> RowsTangent<T> for &Vec<T> {
    #[inline]
    #[track_caller]
    fn into_rows(self, like: &[T]) -> Vec<T> {
        tangent_fits(self.len(), like.len());
        self.clone()
    }
}

impl<T: Params> RowsTangent<T> for Vec<T> {
    #[inline]
    #[track_caller]
    fn into_rows(self, like: &[T]) -> Vec<T> {
        tangent_fits(self.len(), like.len());
        self
    }
}

impl<T: Params> RowsTangent<T> for Zero {
    #[inline]
    fn into_rows(self, like: &[T]) -> Vec<T> {
        like.iter().map(Params::zeros_like).collect()
    }
}

/// `p` with every tensor that is still unset made zeros: a gradient as it is returned.
#[inline]
pub fn settled<P: Params>(mut p: P) -> P {
    p.settle();
    p
}

/// Tangents of tensors and parameter structs: owned, borrowed, or zero.
impl<P: Params> IntoTangent<P> for P {
    #[inline]
    fn into_tangent(self, _: &P) -> P {
        self
    }
}

impl<P: Params> IntoTangent<P> for &P {
    #[inline]
    fn into_tangent(self, _: &P) -> P {
        self.clone()
    }
}

impl<P: Params> IntoTangent<P> for Zero {
    #[inline]
    fn into_tangent(self, like: &P) -> P {
        like.zeros_like()
    }
}

/// A tensor contribution to a tensor adjoint: summed over broadcast axes when shapes differ.
impl<F: Float> Fit<Tensor<F>> for Tensor<F> {
    #[inline]
    fn fit(&self, like: &Tensor<F>) -> Tensor<F> {
        if self.same_shape(like) {
            self.clone()
        } else {
            self.sum_to(like.shape())
        }
    }
    #[inline]
    fn fit_owned(self, like: &Tensor<F>) -> Tensor<F> {
        if self.same_shape(like) {
            self
        } else {
            self.sum_to(like.shape())
        }
    }
    #[inline]
    fn accumulate_into(&self, acc: &mut Tensor<F>, like: &Tensor<F>) {
        if acc.is_unset() {
            *acc = self.fit(like);
        } else if self.same_shape(like) {
            acc.add_assign(self);
        } else {
            acc.add_assign(&self.sum_to(like.shape()));
        }
    }
}

/// A tensor contribution to a scalar adjoint (a scalar broadcast over a tensor): the sum.
impl<F: Float> Fit<F> for Tensor<F> {
    #[inline]
    fn fit(&self, _: &F) -> F {
        self.sum()
    }
    #[inline]
    fn accumulate_into(&self, acc: &mut F, _: &F) {
        *acc += self.sum();
    }
}

impl<F: Float> Fit<Tensor<F>> for Zero {
    #[inline]
    fn fit(&self, like: &Tensor<F>) -> Tensor<F> {
        like.zeros_like()
    }
    #[inline]
    fn accumulate_into(&self, _: &mut Tensor<F>, _: &Tensor<F>) {}
}

/// A zero of the type and shape of `x`: the tangent of an `if` arm that does not depend on the
/// inputs, or the adjoint of a value an arm reads.
#[inline]
pub fn zero_like<T: ZeroLike>(x: &T) -> T {
    x.zero_like()
}

/// Things with a zero of their own shape.
pub trait ZeroLike {
    fn zero_like(&self) -> Self;
}

impl<P: Params> ZeroLike for P {
    #[inline]
    fn zero_like(&self) -> Self {
        self.zeros_like()
    }
}

/// The adjoint of a slice or `Vec` parameter at the start of a pullback: the buffer its caller
/// offered (checked against the parameter's length), added into in place, or `own`, filled
/// with zeros. A call in a loop then accumulates into the caller's adjoint instead of allocating,
/// zeroing and returning a gradient as long as the argument (GradBench's `det`: every minor's
/// pullback adds into the whole matrix's adjoint). `own` stays empty, unallocated, when the offer
/// is taken: it is what the pullback returns, and what the caller's addition then skips.
#[inline(always)]
#[track_caller]
pub fn slice_adjoint<'a, F: NumFloat>(
    offer: Option<&'a mut [F]>,
    own: &'a mut Vec<F>,
    x: &[F],
) -> &'a mut [F] {
    match offer {
        Some(buf) => {
            assert_eq!(
                buf.len(),
                x.len(),
                "a gradient of {} elements added into one of {}",
                x.len(),
                buf.len()
            );
            buf
        }
        None => {
            *own = vec![F::zero(); x.len()];
            own
        }
    }
}

/// What a caller offers a pullback for one parameter's gradient: its own adjoint to add into
/// (`Option<&mut [F]>`, for a slice or `Vec` parameter), or nothing (`()`, for the others, whose
/// gradients are returned). The pullback's signature picks the impl.
pub trait Slot<'a, A: ?Sized> {
    /// The caller's adjoint `a`, offered.
    fn slot(a: &'a mut A) -> Self;
}

/// The empty offer, for a parameter whose gradient the caller wants returned.
pub trait NoSlot {
    fn none() -> Self;
}

impl<'a, F> Slot<'a, Vec<F>> for Option<&'a mut [F]> {
    #[inline(always)]
    fn slot(a: &'a mut Vec<F>) -> Self {
        Some(a)
    }
}

impl<'a, F, const N: usize> Slot<'a, [F; N]> for Option<&'a mut [F]> {
    #[inline(always)]
    fn slot(a: &'a mut [F; N]) -> Self {
        Some(a)
    }
}

impl<'a, 'b, F> Slot<'a, &'b mut [F]> for Option<&'a mut [F]> {
    #[inline(always)]
    fn slot(a: &'a mut &'b mut [F]) -> Self {
        Some(a)
    }
}

impl<'a, A: ?Sized> Slot<'a, A> for () {
    #[inline(always)]
    fn slot(_: &'a mut A) -> Self {}
}

impl<F> NoSlot for Option<&mut [F]> {
    #[inline(always)]
    fn none() -> Self {
        None
    }
}

impl NoSlot for () {
    #[inline(always)]
    fn none() -> Self {}
}

/// `op(a)` of a function parameter in derivative code: the value `p.0` that `op` computed with
/// its partials `p.1` (`DiffFn::value_and_partials`); the derivative table's `linear1` row
/// carries the partial to `a`.
#[inline(always)]
pub fn linear1<F>(p: (F, [F; 1]), _a: F) -> F {
    p.0
}

/// `op(a, b)` of a function parameter in derivative code, as [`linear1`].
#[inline(always)]
pub fn linear2<F>(p: (F, [F; 2]), _a: F, _b: F) -> F {
    p.0
}

// Marker traits of the operator impls `#[autodiff]` differentiated, and the identity functions
// derivative code passes an operator's receiver through before it calls the impl's derivative
// methods: an operator whose impl has no `#[autodiff]` is then reported by the impl's name.

/// `+` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} + …` has no derivative functions: the `impl Add` for `{Self}` is not `#[autodiff]`",
    label = "this `+` goes through the type's `impl Add`",
    note = "put `#[autodiff]` on `impl Add for {Self}`"
)]
pub trait DifferentiableAdd {}

impl<T: DifferentiableAdd + ?Sized> DifferentiableAdd for &T {}

/// The operand, asserted [`DifferentiableAdd`].
#[inline(always)]
pub fn differentiable_add<A: DifferentiableAdd>(a: A) -> A {
    a
}

/// `+` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} + number` has no derivative functions: the `impl Add<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `+` goes through the type's `impl Add` with a number",
    note = "put `#[autodiff]` on `impl Add<f64> for {Self}`"
)]
pub trait DifferentiableAddNumber {}

impl<T: DifferentiableAddNumber + ?Sized> DifferentiableAddNumber for &T {}

/// The operand, asserted [`DifferentiableAddNumber`].
#[inline(always)]
pub fn differentiable_add_number<A: DifferentiableAddNumber>(a: A) -> A {
    a
}

/// `+` of a number by the type, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`number + {Self}` has no derivative functions: the `impl Add<{Self}>` for `f64` (or `f32`) is not `#[autodiff]`",
    label = "this `+` goes through the number's `impl Add<{Self}>`",
    note = "put `#[autodiff]` on `impl Add<{Self}> for f64`"
)]
pub trait DifferentiableNumberAdd {}

impl<T: DifferentiableNumberAdd + ?Sized> DifferentiableNumberAdd for &T {}

/// The operand, asserted [`DifferentiableNumberAdd`].
#[inline(always)]
pub fn differentiable_number_add<A: DifferentiableNumberAdd>(a: A) -> A {
    a
}

/// `+=` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} += …` has no derivative functions: the `impl AddAssign` for `{Self}` is not `#[autodiff]`",
    label = "this `+=` goes through the type's `impl AddAssign`",
    note = "put `#[autodiff]` on `impl AddAssign for {Self}`"
)]
pub trait DifferentiableAddAssign {}

impl<T: DifferentiableAddAssign + ?Sized> DifferentiableAddAssign for &T {}

/// The operand, asserted [`DifferentiableAddAssign`].
#[inline(always)]
pub fn differentiable_add_assign<A: DifferentiableAddAssign>(a: A) -> A {
    a
}

/// `+=` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} += number` has no derivative functions: the `impl AddAssign<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `+=` goes through the type's `impl AddAssign` with a number",
    note = "put `#[autodiff]` on `impl AddAssign<f64> for {Self}`"
)]
pub trait DifferentiableAddAssignNumber {}

impl<T: DifferentiableAddAssignNumber + ?Sized> DifferentiableAddAssignNumber for &T {}

/// The operand, asserted [`DifferentiableAddAssignNumber`].
#[inline(always)]
pub fn differentiable_add_assign_number<A: DifferentiableAddAssignNumber>(a: A) -> A {
    a
}

/// `-` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} - …` has no derivative functions: the `impl Sub` for `{Self}` is not `#[autodiff]`",
    label = "this `-` goes through the type's `impl Sub`",
    note = "put `#[autodiff]` on `impl Sub for {Self}`"
)]
pub trait DifferentiableSub {}

impl<T: DifferentiableSub + ?Sized> DifferentiableSub for &T {}

/// The operand, asserted [`DifferentiableSub`].
#[inline(always)]
pub fn differentiable_sub<A: DifferentiableSub>(a: A) -> A {
    a
}

/// `-` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} - number` has no derivative functions: the `impl Sub<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `-` goes through the type's `impl Sub` with a number",
    note = "put `#[autodiff]` on `impl Sub<f64> for {Self}`"
)]
pub trait DifferentiableSubNumber {}

impl<T: DifferentiableSubNumber + ?Sized> DifferentiableSubNumber for &T {}

/// The operand, asserted [`DifferentiableSubNumber`].
#[inline(always)]
pub fn differentiable_sub_number<A: DifferentiableSubNumber>(a: A) -> A {
    a
}

/// `-` of a number by the type, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`number - {Self}` has no derivative functions: the `impl Sub<{Self}>` for `f64` (or `f32`) is not `#[autodiff]`",
    label = "this `-` goes through the number's `impl Sub<{Self}>`",
    note = "put `#[autodiff]` on `impl Sub<{Self}> for f64`"
)]
pub trait DifferentiableNumberSub {}

impl<T: DifferentiableNumberSub + ?Sized> DifferentiableNumberSub for &T {}

/// The operand, asserted [`DifferentiableNumberSub`].
#[inline(always)]
pub fn differentiable_number_sub<A: DifferentiableNumberSub>(a: A) -> A {
    a
}

/// `-=` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} -= …` has no derivative functions: the `impl SubAssign` for `{Self}` is not `#[autodiff]`",
    label = "this `-=` goes through the type's `impl SubAssign`",
    note = "put `#[autodiff]` on `impl SubAssign for {Self}`"
)]
pub trait DifferentiableSubAssign {}

impl<T: DifferentiableSubAssign + ?Sized> DifferentiableSubAssign for &T {}

/// The operand, asserted [`DifferentiableSubAssign`].
#[inline(always)]
pub fn differentiable_sub_assign<A: DifferentiableSubAssign>(a: A) -> A {
    a
}

/// `-=` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} -= number` has no derivative functions: the `impl SubAssign<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `-=` goes through the type's `impl SubAssign` with a number",
    note = "put `#[autodiff]` on `impl SubAssign<f64> for {Self}`"
)]
pub trait DifferentiableSubAssignNumber {}

impl<T: DifferentiableSubAssignNumber + ?Sized> DifferentiableSubAssignNumber for &T {}

/// The operand, asserted [`DifferentiableSubAssignNumber`].
#[inline(always)]
pub fn differentiable_sub_assign_number<A: DifferentiableSubAssignNumber>(a: A) -> A {
    a
}

/// `*` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} * …` has no derivative functions: the `impl Mul` for `{Self}` is not `#[autodiff]`",
    label = "this `*` goes through the type's `impl Mul`",
    note = "put `#[autodiff]` on `impl Mul for {Self}`"
)]
pub trait DifferentiableMul {}

impl<T: DifferentiableMul + ?Sized> DifferentiableMul for &T {}

/// The operand, asserted [`DifferentiableMul`].
#[inline(always)]
pub fn differentiable_mul<A: DifferentiableMul>(a: A) -> A {
    a
}

/// `*` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} * number` has no derivative functions: the `impl Mul<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `*` goes through the type's `impl Mul` with a number",
    note = "put `#[autodiff]` on `impl Mul<f64> for {Self}`"
)]
pub trait DifferentiableMulNumber {}

impl<T: DifferentiableMulNumber + ?Sized> DifferentiableMulNumber for &T {}

/// The operand, asserted [`DifferentiableMulNumber`].
#[inline(always)]
pub fn differentiable_mul_number<A: DifferentiableMulNumber>(a: A) -> A {
    a
}

/// `*` of a number by the type, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`number * {Self}` has no derivative functions: the `impl Mul<{Self}>` for `f64` (or `f32`) is not `#[autodiff]`",
    label = "this `*` goes through the number's `impl Mul<{Self}>`",
    note = "put `#[autodiff]` on `impl Mul<{Self}> for f64`"
)]
pub trait DifferentiableNumberMul {}

impl<T: DifferentiableNumberMul + ?Sized> DifferentiableNumberMul for &T {}

/// The operand, asserted [`DifferentiableNumberMul`].
#[inline(always)]
pub fn differentiable_number_mul<A: DifferentiableNumberMul>(a: A) -> A {
    a
}

/// `*=` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} *= …` has no derivative functions: the `impl MulAssign` for `{Self}` is not `#[autodiff]`",
    label = "this `*=` goes through the type's `impl MulAssign`",
    note = "put `#[autodiff]` on `impl MulAssign for {Self}`"
)]
pub trait DifferentiableMulAssign {}

impl<T: DifferentiableMulAssign + ?Sized> DifferentiableMulAssign for &T {}

/// The operand, asserted [`DifferentiableMulAssign`].
#[inline(always)]
pub fn differentiable_mul_assign<A: DifferentiableMulAssign>(a: A) -> A {
    a
}

/// `*=` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} *= number` has no derivative functions: the `impl MulAssign<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `*=` goes through the type's `impl MulAssign` with a number",
    note = "put `#[autodiff]` on `impl MulAssign<f64> for {Self}`"
)]
pub trait DifferentiableMulAssignNumber {}

impl<T: DifferentiableMulAssignNumber + ?Sized> DifferentiableMulAssignNumber for &T {}

/// The operand, asserted [`DifferentiableMulAssignNumber`].
#[inline(always)]
pub fn differentiable_mul_assign_number<A: DifferentiableMulAssignNumber>(a: A) -> A {
    a
}

/// `/` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} / …` has no derivative functions: the `impl Div` for `{Self}` is not `#[autodiff]`",
    label = "this `/` goes through the type's `impl Div`",
    note = "put `#[autodiff]` on `impl Div for {Self}`"
)]
pub trait DifferentiableDiv {}

impl<T: DifferentiableDiv + ?Sized> DifferentiableDiv for &T {}

/// The operand, asserted [`DifferentiableDiv`].
#[inline(always)]
pub fn differentiable_div<A: DifferentiableDiv>(a: A) -> A {
    a
}

/// `/` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} / number` has no derivative functions: the `impl Div<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `/` goes through the type's `impl Div` with a number",
    note = "put `#[autodiff]` on `impl Div<f64> for {Self}`"
)]
pub trait DifferentiableDivNumber {}

impl<T: DifferentiableDivNumber + ?Sized> DifferentiableDivNumber for &T {}

/// The operand, asserted [`DifferentiableDivNumber`].
#[inline(always)]
pub fn differentiable_div_number<A: DifferentiableDivNumber>(a: A) -> A {
    a
}

/// `/` of a number by the type, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`number / {Self}` has no derivative functions: the `impl Div<{Self}>` for `f64` (or `f32`) is not `#[autodiff]`",
    label = "this `/` goes through the number's `impl Div<{Self}>`",
    note = "put `#[autodiff]` on `impl Div<{Self}> for f64`"
)]
pub trait DifferentiableNumberDiv {}

impl<T: DifferentiableNumberDiv + ?Sized> DifferentiableNumberDiv for &T {}

/// The operand, asserted [`DifferentiableNumberDiv`].
#[inline(always)]
pub fn differentiable_number_div<A: DifferentiableNumberDiv>(a: A) -> A {
    a
}

/// `/=` of the type by a value of it, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} /= …` has no derivative functions: the `impl DivAssign` for `{Self}` is not `#[autodiff]`",
    label = "this `/=` goes through the type's `impl DivAssign`",
    note = "put `#[autodiff]` on `impl DivAssign for {Self}`"
)]
pub trait DifferentiableDivAssign {}

impl<T: DifferentiableDivAssign + ?Sized> DifferentiableDivAssign for &T {}

/// The operand, asserted [`DifferentiableDivAssign`].
#[inline(always)]
pub fn differentiable_div_assign<A: DifferentiableDivAssign>(a: A) -> A {
    a
}

/// `/=` of the type by a number, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`{Self} /= number` has no derivative functions: the `impl DivAssign<f64>` (or `<f32>`) for `{Self}` is not `#[autodiff]`",
    label = "this `/=` goes through the type's `impl DivAssign` with a number",
    note = "put `#[autodiff]` on `impl DivAssign<f64> for {Self}`"
)]
pub trait DifferentiableDivAssignNumber {}

impl<T: DifferentiableDivAssignNumber + ?Sized> DifferentiableDivAssignNumber for &T {}

/// The operand, asserted [`DifferentiableDivAssignNumber`].
#[inline(always)]
pub fn differentiable_div_assign_number<A: DifferentiableDivAssignNumber>(a: A) -> A {
    a
}

/// `-` of the type, differentiated by `#[autodiff]`.
#[diagnostic::on_unimplemented(
    message = "`-{Self}` has no derivative functions: the `impl Neg` for `{Self}` is not `#[autodiff]`",
    label = "this `-` goes through the type's `impl Neg`",
    note = "put `#[autodiff]` on `impl Neg for {Self}`"
)]
pub trait DifferentiableNeg {}

impl<T: DifferentiableNeg + ?Sized> DifferentiableNeg for &T {}

/// The operand, asserted [`DifferentiableNeg`].
#[inline(always)]
pub fn differentiable_neg<A: DifferentiableNeg>(a: A) -> A {
    a
}

/// A struct or matrix result in `jacobian_`: its numbers in [`Params`]' order where its type
/// derives `Params` ([`ParamsNumbers`], which method resolution tries first), none otherwise
/// ([`NoNumbers`]): the Jacobian then takes the order the struct literal writes its fields in.
pub struct Numbers<'a, T>(pub &'a T);

/// See [`Numbers`].
pub trait ParamsNumbers<T, F> {
    /// The value's numbers.
    fn numbers(&self) -> Option<Vec<F>>;
    /// A value like this one with the numbers `flat`.
    fn shaped(&self, flat: &[F]) -> Option<T>;
}

impl<T: Params<Elem = F>, F: Copy> ParamsNumbers<T, F> for Numbers<'_, T> {
    #[inline]
    fn numbers(&self) -> Option<Vec<F>> {
        Some(self.0.to_flat_vec())
    }
    #[inline]
    fn shaped(&self, flat: &[F]) -> Option<T> {
        Some(self.0.from_flat(flat))
    }
}

/// See [`Numbers`].
pub trait NoNumbers<T, F> {
    /// None: the type does not derive `Params`.
    fn numbers(&self) -> Option<Vec<F>>;
    /// None: the type does not derive `Params`.
    fn shaped(&self, flat: &[F]) -> Option<T>;
}

impl<T, F> NoNumbers<T, F> for &Numbers<'_, T> {
    #[inline]
    fn numbers(&self) -> Option<Vec<F>> {
        None
    }
    #[inline]
    fn shaped(&self, _: &[F]) -> Option<T> {
        None
    }
}
