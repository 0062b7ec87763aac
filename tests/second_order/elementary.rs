//! Every elementary function of the rule table at second order: `hessian_` against the second
//! derivative worked out by hand and against central differences of `grad_`, `hvp_` against
//! `hessian_`, at several points where the function is twice differentiable.

use diffx::autodiff;
use diffx::check::central_difference;

#[track_caller]
fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

/// `name: |x| f(x), f''(x) by hand, [points]`.
macro_rules! unary {
    ($($m:ident: |$x:ident| $body:expr, $d2:expr, [$($p:expr),*];)*) => {$(
        mod $m {
            use super::*;
            #[autodiff(order = 2)]
            pub fn f($x: f64) -> f64 {
                $body
            }
            #[allow(unused_variables)]
            fn analytic($x: f64) -> f64 {
                $d2
            }
            #[test]
            fn second_derivative_matches_analytic_and_differences_of_the_gradient() {
                for p in [$($p),*] {
                    let h = hessian_f(p)[0][0];
                    assert_close(h, analytic(p), 1e-10, &format!("hessian vs analytic at {p}"));
                    let fd = central_difference(|v| grad_f(v[0]), &[p])[0];
                    assert_close(h, fd, 1e-6, &format!("hessian vs differences at {p}"));
                    assert_close(hvp_f(p, -1.5), -1.5 * h, 1e-14, &format!("hvp at {p}"));
                }
            }
        }
    )*};
}

/// `name: |x, y| f(x, y), [[∂²f/∂x², ∂²f/∂x∂y], [∂²f/∂y∂x, ∂²f/∂y²]] by hand, [points]`.
macro_rules! binary {
    ($($m:ident: |$x:ident, $y:ident| $body:expr, $d2:expr, [$($p:expr),*];)*) => {$(
        mod $m {
            use super::*;
            #[autodiff(order = 2)]
            pub fn f($x: f64, $y: f64) -> f64 {
                $body
            }
            #[allow(unused_variables)]
            fn analytic($x: f64, $y: f64) -> [[f64; 2]; 2] {
                $d2
            }
            #[test]
            fn hessian_matches_analytic_and_differences_of_the_gradient() {
                for p in [$($p),*] {
                    let p: [f64; 2] = p;
                    let h = hessian_f(p[0], p[1]);
                    let by_hand = analytic(p[0], p[1]);
                    for i in 0..2 {
                        let row = central_difference(
                            |v| { let g = grad_f(v[0], v[1]); [g.0, g.1][i] },
                            &p,
                        );
                        for j in 0..2 {
                            let at = format!("({i}, {j}) at {p:?}");
                            assert_close(h[i][j], by_hand[i][j], 1e-10, &format!("analytic {at}"));
                            assert_close(h[i][j], row[j], 1e-6, &format!("differences {at}"));
                        }
                    }
                    let (t, s) = (0.75, -1.5);
                    let hv = hvp_f(p[0], p[1], t, s);
                    assert_close(hv.0, h[0][0] * t + h[0][1] * s, 1e-13, "hvp, first");
                    assert_close(hv.1, h[1][0] * t + h[1][1] * s, 1e-13, "hvp, second");
                }
            }
        }
    )*};
}

unary! {
    neg: |x| -x * x, -2.0, [0.3, -2.0];
    powi: |x| x.powi(4), 12.0 * x * x, [0.5, -1.7];
    sqrt: |x| x.sqrt(), -0.25 / (x * x.sqrt()), [0.25, 2.0];
    cbrt: |x| x.cbrt(), -2.0 / (9.0 * x.cbrt().powi(5)), [0.3, -8.0];
    recip: |x| x.recip(), 2.0 / (x * x * x), [0.5, -3.0];
    exp: |x| x.exp(), x.exp(), [0.0, 1.3];
    exp2: |x| x.exp2(), x.exp2() * std::f64::consts::LN_2.powi(2), [0.0, 1.3];
    exp_m1: |x| x.exp_m1(), x.exp(), [1e-3, 1.3];
    ln: |x| x.ln(), -1.0 / (x * x), [0.5, 2.0];
    ln_1p: |x| x.ln_1p(), -1.0 / ((1.0 + x) * (1.0 + x)), [0.5, 3.0];
    log2: |x| x.log2(), -1.0 / (x * x * std::f64::consts::LN_2), [0.5, 8.0];
    log10: |x| x.log10(), -1.0 / (x * x * std::f64::consts::LN_10), [0.5, 100.0];
    sin: |x| x.sin(), -x.sin(), [0.0, 1.0, -2.5];
    cos: |x| x.cos(), -x.cos(), [0.0, 1.0, -2.5];
    tan: |x| x.tan(), 2.0 * x.tan() / (x.cos() * x.cos()), [0.0, 1.0, -0.7];
    asin: |x| x.asin(), x / (1.0 - x * x).powf(1.5), [0.0, 0.5, -0.9];
    acos: |x| x.acos(), -x / (1.0 - x * x).powf(1.5), [0.0, 0.5, -0.9];
    atan: |x| x.atan(), -2.0 * x / (1.0 + x * x).powi(2), [0.0, 2.0, -7.0];
    sinh: |x| x.sinh(), x.sinh(), [0.0, 1.5];
    cosh: |x| x.cosh(), x.cosh(), [0.0, 1.5];
    tanh: |x| x.tanh(), -2.0 * x.tanh() / (x.cosh() * x.cosh()), [0.0, 0.8, -3.0];
    asinh: |x| x.asinh(), -x / (x * x + 1.0).powf(1.5), [0.0, 2.0];
    acosh: |x| x.acosh(), -x / (x * x - 1.0).powf(1.5), [1.5, 4.0];
    atanh: |x| x.atanh(), 2.0 * x / (1.0 - x * x).powi(2), [0.0, 0.5];
    abs: |x| x.abs() * x, 2.0 * x.signum(), [-2.0, 3.0];
    to_degrees: |x| x.to_degrees() * x, 360.0 / std::f64::consts::PI, [1.0];
    to_radians: |x| x.to_radians() * x, std::f64::consts::PI / 90.0, [90.0];
    fract: |x| x.fract() * x, 2.0, [1.25, -3.5];
    sigmoid: |x| diffx::sigmoid(x), {
        let s = diffx::sigmoid(x);
        s * (1.0 - s) * (1.0 - 2.0 * s)
    }, [0.0, 2.0, -3.0];
    relu: |x| diffx::relu(x) * x, if x > 0.0 { 2.0 } else { 0.0 }, [-1.0, 2.0];
    softplus: |x| diffx::softplus(x), {
        let s = diffx::sigmoid(x);
        s * (1.0 - s)
    }, [0.0, 3.0, -4.0];
}

binary! {
    add: |x, y| (x + y) * (x + y), [[2.0, 2.0], [2.0, 2.0]], [[1.0, 2.0]];
    sub: |x, y| (x - y) * (x - y), [[2.0, -2.0], [-2.0, 2.0]], [[1.0, 2.0]];
    mul: |x, y| x * y * y, [[0.0, 2.0 * y], [2.0 * y, 2.0 * x]], [[1.5, -2.0]];
    div: |x, y| x / y, [[0.0, -1.0 / (y * y)], [-1.0 / (y * y), 2.0 * x / (y * y * y)]],
        [[1.5, -2.0], [3.0, 0.5]];
    powf: |x, y| x.powf(y), {
        let (z, l) = (x.powf(y), x.ln());
        [[y * (y - 1.0) * x.powf(y - 2.0), x.powf(y - 1.0) * (1.0 + y * l)],
         [x.powf(y - 1.0) * (1.0 + y * l), z * l * l]]
    }, [[2.0, 3.0], [0.5, -1.5]];
    log: |x, y| x.log(y), {
        let (lx, ly) = (x.ln(), y.ln());
        [[-1.0 / (x * x * ly), -1.0 / (x * y * ly * ly)],
         [-1.0 / (x * y * ly * ly), lx * (ly + 2.0) / (y * y * ly.powi(3))]]
    }, [[8.0, 2.0], [5.0, 10.0]];
    atan2: |y, x| y.atan2(x), {
        let r = (x * x + y * y).powi(2);
        [[-2.0 * x * y / r, (y * y - x * x) / r], [(y * y - x * x) / r, 2.0 * x * y / r]]
    }, [[1.0, 2.0], [-1.0, -0.5]];
    hypot: |x, y| x.hypot(y), {
        let r3 = x.hypot(y).powi(3);
        [[y * y / r3, -x * y / r3], [-x * y / r3, x * x / r3]]
    }, [[3.0, 4.0], [-1.0, 0.5]];
    max: |x, y| x.max(y) * x, if x > y { [[2.0, 0.0], [0.0, 0.0]] } else { [[0.0, 1.0], [1.0, 0.0]] },
        [[1.0, 2.0], [3.0, -1.0]];
    min: |x, y| x.min(y) * x, if x < y { [[2.0, 0.0], [0.0, 0.0]] } else { [[0.0, 1.0], [1.0, 0.0]] },
        [[1.0, 2.0], [3.0, -1.0]];
    mul_add: |x, y| x.mul_add(y, x * x), [[2.0, 1.0], [1.0, 0.0]], [[1.5, -2.0]];
}
