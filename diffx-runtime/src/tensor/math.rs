//! Elementwise functions. Each is a slice loop over a branch-free scalar function, so it vectorizes;
//! `exp`, `ln`, `tanh` and `sigmoid` use the vectorizable `f32` functions of `crate::fastmath` (a
//! few ulp) and the standard library for `f64`.

use super::Tensor;
use super::{ok, ShapeError};
use crate::fastmath::{exp_in_place, ln_in_place, sigmoid_in_place, tanh_in_place};
use crate::Float;

impl<F: Float> Tensor<F> {
    /// `eᵡ` elementwise.
    pub fn exp(&self) -> Tensor<F> {
        self.map_vec(exp_in_place)
    }

    /// A copy of the data transformed by an in-place slice kernel.
    fn map_vec(&self, kernel: fn(&mut Vec<F>)) -> Tensor<F> {
        self.clone().into_map_vec(kernel)
    }

    /// The data transformed by an in-place slice kernel, in its own buffer.
    fn into_map_vec(mut self, kernel: fn(&mut Vec<F>)) -> Tensor<F> {
        kernel(&mut self.data);
        self
    }

    /// Natural logarithm elementwise (vectorized on `f32`, within 1 ulp).
    pub fn ln(&self) -> Tensor<F> {
        self.map_vec(ln_in_place)
    }

    /// Square root elementwise.
    pub fn sqrt(&self) -> Tensor<F> {
        self.map(F::sqrt)
    }

    /// `xⁿ` elementwise.
    pub fn powi(&self, n: i32) -> Tensor<F> {
        self.map(|x| x.powi(n))
    }

    /// `x²` elementwise.
    pub fn square(&self) -> Tensor<F> {
        self.map(|x| x * x)
    }

    /// `1/x` elementwise.
    pub fn recip(&self) -> Tensor<F> {
        self.map(|x| F::ONE / x)
    }

    /// `|x|` elementwise.
    pub fn abs(&self) -> Tensor<F> {
        self.map(F::abs)
    }

    /// `tanh(x)` elementwise (its derivative is `1 − y²`, from the output `y`).
    pub fn tanh(&self) -> Tensor<F> {
        self.map_vec(tanh_in_place)
    }

    /// The logistic function `1/(1 + e^−x)` elementwise, exactly 0 or 1 far out (its derivative is
    /// `y·(1 − y)`, from the output `y`).
    pub fn sigmoid(&self) -> Tensor<F> {
        // No cancellation anywhere: for x → −∞ the denominator is large and exact to a few ulp.
        self.map_vec(sigmoid_in_place)
    }

    /// `max(x, 0)` elementwise.
    pub fn relu(&self) -> Tensor<F> {
        self.map(relu)
    }

    /// 1 where `x > 0`, else 0: the derivative of [`Tensor::relu`], with `relu'(0) = 0`.
    pub fn relu_mask(&self) -> Tensor<F> {
        self.map(|x| if x > F::ZERO { F::ONE } else { F::ZERO })
    }
}

#[inline(always)]
fn relu<F: Float>(x: F) -> F {
    if x > F::ZERO {
        x
    } else {
        F::ZERO
    }
}

/// The same maps on a tensor given by value, written in its own buffer: what generated code calls
/// on a value it reads for the last time (`crate::private::owned`).
impl<F: Float> Tensor<F> {
    pub(crate) fn into_exp(self) -> Tensor<F> {
        self.into_map_vec(exp_in_place)
    }

    pub(crate) fn into_ln(self) -> Tensor<F> {
        self.into_map_vec(ln_in_place)
    }

    pub(crate) fn into_tanh(self) -> Tensor<F> {
        self.into_map_vec(tanh_in_place)
    }

    pub(crate) fn into_sigmoid(self) -> Tensor<F> {
        self.into_map_vec(sigmoid_in_place)
    }

    pub(crate) fn into_map(mut self, f: impl Fn(F) -> F) -> Tensor<F> {
        self.map_inplace(f);
        self
    }

    pub(crate) fn into_relu(self) -> Tensor<F> {
        self.into_map(relu)
    }
}

/// The activations' derivatives times a tangent or cotangent, each in one pass: `g·(1 − y²)` as
/// three tensor operations would be three passes and two temporaries. The derivative rules of
/// `tanh`, `sigmoid` and `relu` call them in both modes, with the activation's output `y`.
impl<F: Float> Tensor<F> {
    /// `self · tanh′(x)` elementwise, from `y = tanh(x)`: `self · (1 − y²)`.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let y = Tensor::from_vec(vec![0.0, 0.5], &[2]);
    /// let g = Tensor::from_vec(vec![2.0, 2.0], &[2]);
    /// assert_eq!(g.mul_dtanh(&y).data(), &[2.0, 1.5]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast; [`Tensor::try_mul_dtanh`] returns the error.
    #[track_caller]
    pub fn mul_dtanh(&self, y: &Tensor<F>) -> Tensor<F> {
        ok(self.try_mul_dtanh(y))
    }

    /// [`Tensor::mul_dtanh`], returning an error if the shapes do not broadcast.
    pub fn try_mul_dtanh(&self, y: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
        self.broadcast_with("mul_dtanh", y, |g, y| g * (F::ONE - y * y))
    }

    /// `self · σ′(x)` elementwise, from `y = σ(x)`: `self · y·(1 − y)`.
    ///
    /// # Panics
    /// If the shapes do not broadcast; [`Tensor::try_mul_dsigmoid`] returns the error.
    #[track_caller]
    pub fn mul_dsigmoid(&self, y: &Tensor<F>) -> Tensor<F> {
        ok(self.try_mul_dsigmoid(y))
    }

    /// [`Tensor::mul_dsigmoid`], returning an error if the shapes do not broadcast.
    pub fn try_mul_dsigmoid(&self, y: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
        self.broadcast_with("mul_dsigmoid", y, |g, y| g * (y * (F::ONE - y)))
    }

    /// `self · relu′(x)` elementwise, from `y = relu(x)` (or `x`): `self` where `y > 0`, else 0,
    /// with `relu′(0) = 0`.
    ///
    /// # Panics
    /// If the shapes do not broadcast; [`Tensor::try_mul_drelu`] returns the error.
    #[track_caller]
    pub fn mul_drelu(&self, y: &Tensor<F>) -> Tensor<F> {
        ok(self.try_mul_drelu(y))
    }

    /// [`Tensor::mul_drelu`], returning an error if the shapes do not broadcast.
    pub fn try_mul_drelu(&self, y: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
        // A select, not `g · [y > 0]`: 0·∞ would be NaN where relu′ is 0.
        self.broadcast_with("mul_drelu", y, |g, y| if y > F::ZERO { g } else { F::ZERO })
    }
}
