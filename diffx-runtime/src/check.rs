//! Central finite differences: an independent reference for any gradient.
//!
//! The derivative of `f` along coordinate `i` is estimated by
//! `(f(x + h·eᵢ) − f(x − h·eᵢ)) / 2h` with `h = ε^(1/3)·max(1, |xᵢ|)`, the step that balances the
//! truncation error (O(h²)) against rounding (O(ε/h)); the estimate is good to about 1e-10 relative
//! for smooth `f` in `f64`.
//!
//! ```
//! use diffx::check::{central_difference, check_gradient};
//! // f(x, y) = x²·y has gradient (2xy, x²).
//! let f = |v: &[f64]| v[0] * v[0] * v[1];
//! let fd = central_difference(f, &[3.0, 2.0]);
//! assert!((fd[0] - 12.0).abs() < 1e-8 && (fd[1] - 9.0).abs() < 1e-8);
//! check_gradient(f, &[3.0, 2.0], &[12.0, 9.0]).assert_close(1e-8);
//! ```

use core::fmt;

use crate::Params;

/// The step for coordinate value `x`.
fn step(x: f64) -> f64 {
    f64::EPSILON.cbrt() * x.abs().max(1.0)
}

/// Estimates the gradient of `f` at `x` by central differences (2·n evaluations of `f`).
pub fn central_difference(mut f: impl FnMut(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let mut probe = x.to_vec();
    (0..x.len())
        .map(|i| {
            let h = step(x[i]);
            probe[i] = x[i] + h;
            let up = f(&probe);
            probe[i] = x[i] - h;
            let down = f(&probe);
            probe[i] = x[i];
            (up - down) / (2.0 * h)
        })
        .collect()
}

/// Estimates the derivative of a scalar function of one variable by central differences.
///
/// ```
/// let d = diffx::check::derivative(f64::sin, 0.5);
/// assert!((d - 0.5_f64.cos()).abs() < 1e-9);
/// ```
pub fn derivative(mut f: impl FnMut(f64) -> f64, x: f64) -> f64 {
    central_difference(|v| f(v[0]), &[x])[0]
}

/// The comparison of a gradient with its finite-difference estimate, coordinate by coordinate.
#[derive(Clone, Debug, PartialEq)]
pub struct GradCheck {
    /// The point.
    pub x: Vec<f64>,
    /// The gradient under test.
    pub analytic: Vec<f64>,
    /// The central-difference estimate.
    pub numeric: Vec<f64>,
}

impl GradCheck {
    /// The largest error over the coordinates, each relative to `max(1, |numeric|)`
    /// (absolute near zero, relative for large values). NaN anywhere gives NaN.
    pub fn max_error(&self) -> f64 {
        self.analytic
            .iter()
            .zip(&self.numeric)
            .map(|(a, n)| (a - n).abs() / n.abs().max(1.0))
            .fold(0.0, |m, e| {
                if e.is_nan() || m.is_nan() {
                    f64::NAN
                } else {
                    m.max(e)
                }
            })
    }

    /// Panics with a coordinate-by-coordinate table unless [`GradCheck::max_error`] is at most `tol`.
    #[track_caller]
    pub fn assert_close(&self, tol: f64) {
        let err = self.max_error();
        assert!(
            err <= tol,
            "gradient check failed (max error {err:e} > {tol:e}):\n{self}"
        );
    }
}

impl fmt::Display for GradCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>4} {:>14} {:>22} {:>22}",
            "i", "x", "analytic", "finite difference"
        )?;
        for i in 0..self.x.len() {
            let (x, a, n) = (self.x[i], self.analytic[i], self.numeric[i]);
            writeln!(f, "{i:>4} {x:>14.6e} {a:>22.14e} {n:>22.14e}")?;
        }
        Ok(())
    }
}

/// Compares `analytic`, a gradient of `f` at the parameter struct `p` (a value of the same type),
/// with central differences over every element of `p`, in [`Params::to_flat_vec`] order.
///
/// ```
/// use diffx::check::check_params;
/// use diffx::Params;
/// // f(p) = p₀² + 3p₁ over a `Vec` of two numbers held in tensors.
/// let p = vec![diffx::Tensor::from_vec(vec![2.0_f64, 5.0], &[2])];
/// let f = |p: &Vec<diffx::Tensor<f64>>| p[0].data()[0].powi(2) + 3.0 * p[0].data()[1];
/// let g = vec![diffx::Tensor::from_vec(vec![4.0, 3.0], &[2])];
/// check_params(f, &p, &g).assert_close(1e-8);
/// ```
///
/// # Panics
/// If `analytic` does not have the leaves of `p`.
#[track_caller]
pub fn check_params<P: Params<Elem = f64>>(
    mut f: impl FnMut(&P) -> f64,
    p: &P,
    analytic: &P,
) -> GradCheck {
    let x = p.to_flat_vec();
    check_gradient(|v| f(&p.from_flat(v)), &x, &analytic.to_flat_vec())
}

/// Compares `analytic`, a gradient of `f` at `x`, with central differences.
///
/// # Panics
/// If `analytic` and `x` differ in length.
#[track_caller]
pub fn check_gradient(f: impl FnMut(&[f64]) -> f64, x: &[f64], analytic: &[f64]) -> GradCheck {
    assert_eq!(
        x.len(),
        analytic.len(),
        "check_gradient: the point has {} coordinates but the gradient {}",
        x.len(),
        analytic.len()
    );
    GradCheck {
        x: x.to_vec(),
        analytic: analytic.to_vec(),
        numeric: central_difference(f, x),
    }
}
