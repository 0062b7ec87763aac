//! Elementwise functions. Each is a slice loop over a branch-free scalar function, so it vectorizes;
//! `exp`, `tanh` and `sigmoid` use the fast `f32` approximations of [`Float::fast_exp`] and
//! [`Float::fast_tanh`] (a few ulp) and the standard library for `f64`.

use super::Tensor;
use crate::fastmath::{exp_in_place, sigmoid_in_place, tanh_in_place};
use crate::Float;

impl<F: Float> Tensor<F> {
    /// `eᵡ` elementwise.
    pub fn exp(&self) -> Tensor<F> {
        self.map_vec(exp_in_place)
    }

    /// A copy of the data transformed by an in-place slice kernel.
    fn map_vec(&self, kernel: fn(&mut Vec<F>)) -> Tensor<F> {
        let mut data = self.data().to_vec();
        kernel(&mut data);
        self.with_data(data)
    }

    /// Natural logarithm elementwise.
    pub fn ln(&self) -> Tensor<F> {
        self.map(F::ln)
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
        self.map(|x| if x > F::ZERO { x } else { F::ZERO })
    }

    /// 1 where `x > 0`, else 0: the derivative of [`Tensor::relu`], with `relu'(0) = 0`.
    pub fn relu_mask(&self) -> Tensor<F> {
        self.map(|x| if x > F::ZERO { F::ONE } else { F::ZERO })
    }
}
