//! Dual numbers: `re + du·ε` with `ε² = 0`.
//!
//! Evaluating `f(x + ε)` gives `f(x) + f'(x)·ε`: the derivative rides along with the value. This is
//! forward-mode AD; the `jvp_*` functions that `#[autodiff]` writes are this arithmetic unrolled into
//! plain code (a value and a tangent per intermediate), with the derivative of each elementary
//! function taken from the macro's rule table.

use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::Float;

/// A dual number `re + du·ε`, `ε² = 0`.
///
/// ```
/// use diffx::Dual;
/// // f(x) = x·x + 3x at x = 2: value 10, derivative 2x + 3 = 7.
/// let x = Dual::variable(2.0_f64);
/// let y = x * x + Dual::constant(3.0) * x;
/// assert_eq!((y.re, y.du), (10.0, 7.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dual<F> {
    /// The value.
    pub re: F,
    /// The tangent (derivative along the seed direction).
    pub du: F,
}

impl<F: Float> Dual<F> {
    /// `re + du·ε`.
    pub fn new(re: F, du: F) -> Self {
        Dual { re, du }
    }
    /// The independent variable `x + 1·ε`.
    pub fn variable(x: F) -> Self {
        Dual { re: x, du: F::ONE }
    }
    /// A constant `c + 0·ε`.
    pub fn constant(c: F) -> Self {
        Dual { re: c, du: F::ZERO }
    }
}

impl<F: Float> From<F> for Dual<F> {
    fn from(c: F) -> Self {
        Dual::constant(c)
    }
}

impl<F: Float> Add for Dual<F> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Dual::new(self.re + o.re, self.du + o.du)
    }
}

impl<F: Float> Sub for Dual<F> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Dual::new(self.re - o.re, self.du - o.du)
    }
}

impl<F: Float> Mul for Dual<F> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Dual::new(self.re * o.re, self.du * o.re + self.re * o.du)
    }
}

impl<F: Float> Div for Dual<F> {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        let q = self.re / o.re;
        Dual::new(q, (self.du - q * o.du) / o.re)
    }
}

impl<F: Float> Neg for Dual<F> {
    type Output = Self;
    fn neg(self) -> Self {
        Dual::new(-self.re, -self.du)
    }
}

impl<F: Float> AddAssign for Dual<F> {
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl<F: Float> SubAssign for Dual<F> {
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}

impl<F: Float> MulAssign for Dual<F> {
    fn mul_assign(&mut self, o: Self) {
        *self = *self * o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotient_rule() {
        // (x / (x + 1))' = 1 / (x + 1)² = 1/9 at x = 2.
        let x = Dual::variable(2.0_f64);
        let y = x / (x + Dual::constant(1.0));
        assert!((y.re - 2.0 / 3.0).abs() < 1e-15);
        assert!((y.du - 1.0 / 9.0).abs() < 1e-15);
    }
}
