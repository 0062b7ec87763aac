//! Every elementary function of the rule table: reverse mode against the derivative worked out by
//! hand and against central finite differences at several points; forward mode against reverse
//! mode; linearity of jvp and vjp.

use crate::common;

use common::{check_binary, check_unary};
use diffx::autodiff;

/// `name: |x| f(x), f'(x) by hand, [points]` → a module with the function and its test.
macro_rules! unary {
    ($($m:ident: |$x:ident| $body:expr, $d:expr, [$($p:expr),*];)*) => {$(
        mod $m {
            use super::*;
            #[autodiff]
            pub fn f($x: f64) -> f64 {
                $body
            }
            #[allow(unused_variables)]
            fn analytic($x: f64) -> f64 {
                $d
            }
            #[test]
            fn matches_analytic_and_finite_differences() {
                for p in [$($p),*] {
                    check_unary(p, analytic(p), f, grad_f, jvp_f, vjp_f);
                }
            }
        }
    )*};
}

/// `name: |x, y| f(x, y), (∂f/∂x, ∂f/∂y) by hand, [points]`.
macro_rules! binary {
    ($($m:ident: |$x:ident, $y:ident| $body:expr, $d:expr, [$($p:expr),*];)*) => {$(
        mod $m {
            use super::*;
            #[autodiff]
            pub fn f($x: f64, $y: f64) -> f64 {
                $body
            }
            #[allow(unused_variables)]
            fn analytic($x: f64, $y: f64) -> [f64; 2] {
                $d
            }
            #[test]
            fn matches_analytic_and_finite_differences() {
                for p in [$($p),*] {
                    check_binary(p, analytic(p[0], p[1]), f, grad_f, jvp_f, vjp_f);
                }
            }
        }
    )*};
}

unary! {
    neg: |x| -x, -1.0, [0.3, -2.0];
    powi3: |x| x.powi(3), 3.0 * x * x, [0.5, -1.7, 2.0];
    powi_neg2: |x| x.powi(-2), -2.0 / (x * x * x), [0.5, -1.7];
    powi0: |x| x.powi(0) * x, 1.0, [0.0, 2.0];
    sqrt: |x| x.sqrt(), 0.5 / x.sqrt(), [0.25, 2.0, 9.0];
    cbrt: |x| x.cbrt(), 1.0 / (3.0 * x.cbrt().powi(2)), [0.3, -8.0, 27.0];
    recip: |x| x.recip(), -1.0 / (x * x), [0.5, -3.0];
    exp: |x| x.exp(), x.exp(), [0.0, 1.3, -2.0];
    exp2: |x| x.exp2(), x.exp2() * std::f64::consts::LN_2, [0.0, 1.3, -2.0];
    exp_m1: |x| x.exp_m1(), x.exp(), [1e-3, 1.3];
    ln: |x| x.ln(), 1.0 / x, [0.5, 2.0, 10.0];
    ln_1p: |x| x.ln_1p(), 1.0 / (1.0 + x), [1e-4, 0.5, 3.0];
    log2: |x| x.log2(), 1.0 / (x * std::f64::consts::LN_2), [0.5, 8.0];
    log10: |x| x.log10(), 1.0 / (x * std::f64::consts::LN_10), [0.5, 100.0];
    sin: |x| x.sin(), x.cos(), [0.0, 1.0, -2.5];
    cos: |x| x.cos(), -x.sin(), [0.0, 1.0, -2.5];
    tan: |x| x.tan(), 1.0 / (x.cos() * x.cos()), [0.0, 1.0, -0.7];
    asin: |x| x.asin(), 1.0 / (1.0 - x * x).sqrt(), [0.0, 0.5, -0.9];
    acos: |x| x.acos(), -1.0 / (1.0 - x * x).sqrt(), [0.0, 0.5, -0.9];
    atan: |x| x.atan(), 1.0 / (1.0 + x * x), [0.0, 2.0, -7.0];
    sinh: |x| x.sinh(), x.cosh(), [0.0, 1.5, -2.0];
    cosh: |x| x.cosh(), x.sinh(), [0.0, 1.5, -2.0];
    tanh: |x| x.tanh(), 1.0 / (x.cosh() * x.cosh()), [0.0, 0.8, -3.0];
    asinh: |x| x.asinh(), 1.0 / (x * x + 1.0).sqrt(), [0.0, 2.0, -5.0];
    acosh: |x| x.acosh(), 1.0 / (x * x - 1.0).sqrt(), [1.5, 4.0];
    atanh: |x| x.atanh(), 1.0 / (1.0 - x * x), [0.0, 0.5, -0.9];
    abs: |x| x.abs(), x.signum(), [-2.0, 3.0];
    to_degrees: |x| x.to_degrees(), 180.0 / std::f64::consts::PI, [1.0];
    to_radians: |x| x.to_radians(), std::f64::consts::PI / 180.0, [90.0];
    fract: |x| x.fract(), 1.0, [1.25, -3.5];
    sigmoid: |x| diffx::sigmoid(x), diffx::sigmoid(x) * (1.0 - diffx::sigmoid(x)), [0.0, 2.0, -30.0];
    relu: |x| diffx::relu(x), if x > 0.0 { 1.0 } else { 0.0 }, [-1.0, 2.0];
    softplus: |x| diffx::softplus(x), 1.0 / (1.0 + (-x).exp()), [0.0, 3.0, -40.0];
    path_form_sin: |x| f64::sin(x) * f64::exp(x), x.exp() * (x.sin() + x.cos()), [0.0, 1.0];
    piecewise_constant: |x| x.floor() + x.ceil() * x.round() + x.trunc() + x.signum() + x, 1.0, [0.3, -2.6];
}

binary! {
    add: |x, y| x + y, [1.0, 1.0], [[1.0, 2.0]];
    sub: |x, y| x - y, [1.0, -1.0], [[1.0, 2.0]];
    mul: |x, y| x * y, [y, x], [[1.5, -2.0]];
    div: |x, y| x / y, [1.0 / y, -x / (y * y)], [[1.5, -2.0], [3.0, 0.5]];
    powf: |x, y| x.powf(y), [y * x.powf(y - 1.0), x.powf(y) * x.ln()], [[2.0, 3.0], [0.5, -1.5]];
    log: |x, y| x.log(y), [1.0 / (x * y.ln()), -x.ln() / (y * y.ln() * y.ln())], [[8.0, 2.0], [5.0, 10.0]];
    atan2: |y, x| y.atan2(x), [x / (x * x + y * y), -y / (x * x + y * y)], [[1.0, 2.0], [-1.0, -0.5]];
    hypot: |x, y| x.hypot(y), [x / x.hypot(y), y / x.hypot(y)], [[3.0, 4.0], [-1.0, 0.5]];
    max: |x, y| x.max(y), if x > y { [1.0, 0.0] } else { [0.0, 1.0] }, [[1.0, 2.0], [3.0, -1.0]];
    min: |x, y| x.min(y), if x < y { [1.0, 0.0] } else { [0.0, 1.0] }, [[1.0, 2.0], [3.0, -1.0]];
    mul_add: |x, y| x.mul_add(y, x), [y + 1.0, x], [[1.5, -2.0]];
    f64_path_max: |x, y| f64::max(x * y, y), if x * y > y { [y, x] } else { [0.0, 1.0] }, [[2.0, 3.0]];
}

mod conventions {
    //! Derivatives at the points where none exists, as documented (PyTorch's and JAX's choices).
    use super::*;

    #[test]
    fn relu_and_abs_have_derivative_zero_at_zero() {
        assert_eq!(relu::grad_f(0.0), 0.0);
        assert_eq!(abs::grad_f(0.0), 0.0);
        assert_eq!(abs::jvp_f(0.0, 1.0).1, 0.0);
    }

    #[test]
    fn ties_in_max_and_min_split_the_gradient() {
        assert_eq!(max::grad_f(2.0, 2.0), (0.5, 0.5));
        assert_eq!(min::grad_f(2.0, 2.0), (0.5, 0.5));
        assert_eq!(max::jvp_f(2.0, 2.0, 1.0, 1.0).1, 1.0);
    }

    /// The gradient does not flow through `stop_gradient`: d/dx [sg(x²)·x] = x², not 3x².
    #[autodiff]
    fn stopped(x: f64) -> f64 {
        diffx::stop_gradient(x * x) * x
    }

    #[test]
    fn stop_gradient_blocks_the_gradient_in_both_modes() {
        assert_eq!(value_and_grad_stopped(1.5), (3.375, 2.25));
        assert_eq!(jvp_stopped(1.5, 1.0), (3.375, 2.25));
    }

    #[test]
    fn powi_zero_has_no_nan_at_zero() {
        assert_eq!(powi0::grad_f(0.0), 1.0);
    }
}
