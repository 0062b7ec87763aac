//! Scalar functions with known derivatives, usable inside `#[autodiff]` functions.
//!
//! Conventions at the points where a derivative does not exist (the same as PyTorch and JAX):
//! `relu'(0) = 0`, `abs'(0) = 0`, and on a tie `max`/`min` send half of the gradient to each argument.

use core::ops::{AddAssign, DivAssign, MulAssign, SubAssign};

mod small_gemm;

/// The two float types diffx computes in: `f32` and `f64`.
///
/// It extends num-traits' [`Float`](num_traits::Float) (with `FromPrimitive`, `Sum`, `Product` and
/// the assignment operators), so it is also a bound for a function generic over its float type:
/// `#[autodiff] fn f<T: diffx::Float>(x: &[T]) -> T` may call `x[0].sin()`, `T::from_f64(0.5)`
/// and `.sum()`, and its generated functions work at `f64` and `f32`.
pub trait Float:
    num_traits::Float
    + num_traits::FromPrimitive
    + core::iter::Sum
    + core::iter::Product
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Send
    + Sync
    + core::fmt::Debug
    + core::fmt::Display
    + Default
    + 'static
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Converts from `f64`, rounding for `f32` (num-traits' `from_f64` returns an `Option`).
    fn of_f64(x: f64) -> Self;
    /// Converts to `f64`, exactly.
    fn as_f64(self) -> f64;
    /// `ln(1 + e^self)`, computed without overflow.
    fn ln_1p_exp(self) -> Self;

    // Elementary functions used by the tensor kernels (`crate::Tensor`); the others are
    // num-traits' (`exp`, `ln`, `sqrt`, `tanh`, `abs`, `powi`, `max`, `min`, …).

    /// −∞.
    const NEG_INFINITY: Self;
    /// Machine epsilon.
    const EPSILON: Self;
    /// `e^self` as the tensor kernels compute it: a branch-free approximation for `f32` (at most a
    /// few ulp off, see `crate::fastmath`), the standard library's `exp` for `f64`.
    fn fast_exp(self) -> Self;
    /// `tanh(self)` as the tensor kernels compute it: a branch-free approximation for `f32` (at most
    /// a few ulp off, see `crate::fastmath`), the standard library's `tanh` for `f64`.
    fn fast_tanh(self) -> Self;
    /// `C ← α·A·B + β·C` by `matrixmultiply` (`sgemm` or `dgemm`), strides in elements.
    ///
    /// # Safety
    /// The pointers and strides must describe valid `m×k`, `k×n` and `m×n` matrices, `c` writable
    /// and not overlapping `a` or `b`. Use the safe `Tensor::matmul` family instead.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        alpha: Self,
        a: (*const Self, isize, isize),
        b: (*const Self, isize, isize),
        beta: Self,
        c: (*mut Self, isize, isize),
    );
    /// `C ← A·B` by nano-gemm's small-matrix kernels, which skip the packing that dominates
    /// `matrixmultiply` below a few dozen rows and columns. Strides in elements; `c` is written
    /// without being read, so it may be uninitialized.
    ///
    /// # Safety
    /// As for [`Float::gemm`].
    #[doc(hidden)]
    unsafe fn small_gemm(
        m: usize,
        k: usize,
        n: usize,
        a: (*const Self, isize, isize),
        b: (*const Self, isize, isize),
        c: (*mut Self, isize, isize),
    );
}

macro_rules! impl_float {
    ($t:ident, $gemm:path, $fast_exp:expr, $fast_tanh:expr) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline]
            fn of_f64(x: f64) -> Self {
                x as $t
            }
            #[inline]
            fn as_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn ln_1p_exp(self) -> Self {
                // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large |x|.
                self.max(0.0) + (-self.abs()).exp().ln_1p()
            }

            const NEG_INFINITY: Self = <$t>::NEG_INFINITY;
            const EPSILON: Self = <$t>::EPSILON;
            #[inline(always)]
            fn fast_exp(self) -> Self {
                $fast_exp(self)
            }
            #[inline(always)]
            fn fast_tanh(self) -> Self {
                $fast_tanh(self)
            }
            #[inline]
            unsafe fn gemm(
                m: usize,
                k: usize,
                n: usize,
                alpha: Self,
                a: (*const Self, isize, isize),
                b: (*const Self, isize, isize),
                beta: Self,
                c: (*mut Self, isize, isize),
            ) {
                // SAFETY: forwarded from the caller's contract.
                unsafe {
                    $gemm(
                        m, k, n, alpha, a.0, a.1, a.2, b.0, b.1, b.2, beta, c.0, c.1, c.2,
                    )
                }
            }
            #[inline]
            unsafe fn small_gemm(
                m: usize,
                k: usize,
                n: usize,
                a: (*const Self, isize, isize),
                b: (*const Self, isize, isize),
                c: (*mut Self, isize, isize),
            ) {
                // SAFETY: forwarded from the caller's contract.
                unsafe { small_gemm::matmul(m, k, n, a, b, c) }
            }
        }
    };
}
impl_float!(
    f32,
    matrixmultiply::sgemm,
    crate::fastmath::exp_f32,
    crate::fastmath::tanh_f32
);
impl_float!(f64, matrixmultiply::dgemm, f64::exp, f64::tanh);

/// The logistic function `1 / (1 + e^-x)`, computed without overflow for large `|x|`.
///
/// ```
/// assert_eq!(diffx_runtime::sigmoid(0.0_f64), 0.5);
/// assert_eq!(diffx_runtime::sigmoid(-1000.0_f64), 0.0);
/// ```
#[inline]
pub fn sigmoid<F: Float>(x: F) -> F {
    if x >= F::ZERO {
        F::ONE / (F::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (F::ONE + e)
    }
}

/// The rectified linear unit `max(x, 0)`; its derivative at 0 is taken to be 0.
///
/// ```
/// assert_eq!(diffx_runtime::relu(-2.0_f64), 0.0);
/// assert_eq!(diffx_runtime::relu(3.0_f32), 3.0);
/// ```
#[inline]
pub fn relu<F: Float>(x: F) -> F {
    if x > F::ZERO {
        x
    } else {
        F::ZERO
    }
}

/// `ln(1 + e^x)`, a smooth relu whose derivative is [`sigmoid`]; exact for large `|x|`.
///
/// ```
/// assert!((diffx_runtime::softplus(0.0_f64) - 2f64.ln()).abs() < 1e-15);
/// assert_eq!(diffx_runtime::softplus(1000.0_f64), 1000.0);
/// ```
#[inline]
pub fn softplus<F: Float>(x: F) -> F {
    x.ln_1p_exp()
}

/// The identity, whose derivative `#[autodiff]` takes to be zero: the value is used, but no gradient
/// flows back through it (JAX's `stop_gradient`, PyTorch's `detach`).
///
/// ```
/// use diffx_runtime::stop_gradient;
/// assert_eq!(stop_gradient(2.5_f64), 2.5);
/// ```
#[inline]
pub fn stop_gradient<T>(x: T) -> T {
    x
}
