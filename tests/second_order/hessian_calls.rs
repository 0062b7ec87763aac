//! Second order through calls (`#[autodiff(order = 2)]` on the caller and on every `#[autodiff]`
//! callee): the caller's `hvp_` calls each callee's forward-over-reverse function `__diffx_hvp_`
//! (written by `#[autodiff(order = 2)]`, or from an `hvp` rule by `#[custom_derivative]`) — against analytic Hessians and central differences of `grad_`.

use diffx::{autodiff, custom_derivative};

use crate::common;
use common::{check_hessian, close};

#[autodiff(order = 2)]
fn g(t: f64) -> f64 {
    t.sin() * t
}

/// f(x, y) = g(x·y) + x with g(t) = t·sin t.
#[autodiff(order = 2)]
fn f(x: f64, y: f64) -> f64 {
    g(x * y) + x
}

/// ∇²f = g″(xy)·[[y², xy], [xy, x²]] + g′(xy)·[[0, 1], [1, 0]], with g′(t) = sin t + t cos t and
/// g″(t) = 2 cos t − t sin t.
fn f_hessian(x: f64, y: f64) -> [[f64; 2]; 2] {
    let t = x * y;
    let (d1, d2) = (t.sin() + t * t.cos(), 2.0 * t.cos() - t * t.sin());
    [[d2 * y * y, d2 * t + d1], [d2 * t + d1, d2 * x * x]]
}

#[test]
fn hessian_of_a_caller_is_analytic_and_matches_differences_of_the_gradient() {
    for (x, y) in [(0.7, -1.2), (1.5, 0.4), (-2.0, 0.3)] {
        let h = hessian_f(x, y);
        let want = f_hessian(x, y);
        for i in 0..2 {
            for j in 0..2 {
                assert!(close(h[i][j], want[i][j], 1e-12), "{h:?} vs {want:?}");
            }
        }
        check_hessian(
            &h,
            |p| {
                let g = grad_f(p[0], p[1]);
                vec![g.0, g.1]
            },
            &[x, y],
        );
        let (a, b) = hvp_f(x, y, 0.3, -2.0);
        assert!(close(a, h[0][0] * 0.3 - h[0][1] * 2.0, 1e-12));
        assert!(close(b, h[1][0] * 0.3 - h[1][1] * 2.0, 1e-12));
    }
}

/// A callee of two arguments, one of them a constant of the caller, and a constant parameter.
#[autodiff(order = 2)]
fn weighted(a: f64, b: f64, k: u32) -> f64 {
    (a * b).exp() * f64::from(k) + a * a * a
}

/// A loop that calls, and a callee that calls.
#[autodiff(order = 2)]
fn inner(a: f64, b: f64) -> f64 {
    weighted(a, b, 2) - g(b)
}

#[autodiff(order = 2)]
fn looped(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut p = x;
    for i in 0..n {
        // `inner`'s cotangent p·s̄ has a tangent of its own: `__diffx_hvp_inner` gets a `ct_dot`.
        s += inner(p, y) * p + weighted(p, 0.3, i as u32);
        p = g(p) * 0.25 + y;
    }
    s
}

#[test]
fn hessian_through_a_loop_that_calls() {
    for (x, y) in [(0.4, 0.2), (-0.3, 0.5), (0.9, -0.1)] {
        for n in [1, 3] {
            let h = hessian_looped(x, y, n);
            check_hessian(
                &h,
                |p| {
                    let g = grad_looped(p[0], p[1], n);
                    vec![g.0, g.1]
                },
                &[x, y],
            );
        }
    }
}

/// A slice parameter passed on, element by element, to a scalar callee whose result is squared
/// (so the callee's cotangent has a tangent).
#[autodiff(order = 2)]
fn sum_of_g(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = g(x[i] * x[i + 1]);
        s += t * t;
    }
    s
}

#[test]
fn hessian_of_a_slice_function_that_calls() {
    let x = [0.3, -0.8, 1.1, 0.5];
    let h = hessian_sum_of_g(&x);
    check_hessian(&h, grad_sum_of_g, &x);
}

/// log(eᵃ + eᵇ) with hand-written first and second derivatives: its Hessian is
/// (diag(s) − s·sᵀ) with s = softmax(a, b).
#[custom_derivative(jvp = lse_jvp, vjp = lse_vjp, hvp = lse_hvp)]
fn lse(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn softmax(a: f64, b: f64) -> (f64, f64) {
    let v = lse(a, b);
    ((a - v).exp(), (b - v).exp())
}

fn lse_jvp(a: f64, b: f64, ta: f64, tb: f64) -> (f64, f64) {
    let (sa, sb) = softmax(a, b);
    (lse(a, b), sa * ta + sb * tb)
}

fn lse_vjp(a: f64, b: f64, ct: f64) -> (f64, (f64, f64)) {
    let (sa, sb) = softmax(a, b);
    (lse(a, b), (ct * sa, ct * sb))
}

fn lse_hvp(a: f64, b: f64, ta: f64, tb: f64) -> (f64, f64) {
    let (sa, sb) = softmax(a, b);
    let st = sa * ta + sb * tb;
    (sa * (ta - st), sb * (tb - st))
}

#[test]
fn a_custom_hvp_rule_gives_hvp_and_hessian() {
    let h = hessian_lse(0.3, -0.4);
    let (sa, sb) = softmax(0.3, -0.4);
    let want = [[sa - sa * sa, -sa * sb], [-sa * sb, sb - sb * sb]];
    for i in 0..2 {
        for j in 0..2 {
            assert!(close(h[i][j], want[i][j], 1e-14), "{h:?}");
        }
    }
    // Stable where exp overflows: the softmax is (1, 0), the Hessian zero.
    assert_eq!(hvp_lse(1000.0, -1000.0, 1.0, 1.0), (0.0, 0.0));
    // The gradient (by the `vjp` rule) with the product (by the `hvp` rule).
    let (g, hv) = grad_and_hvp_lse(0.3, -0.4, 1.0, 0.5);
    assert_eq!(g, (sa, sb));
    assert_eq!(hv, hvp_lse(0.3, -0.4, 1.0, 0.5));
}

/// The custom rule under a caller, with its cotangent and the cotangent's tangent non-trivial.
#[autodiff(order = 2)]
fn uses_lse(x: f64, y: f64) -> f64 {
    lse(2.0 * x, y * y) * x.sin() + lse(x, 1.0)
}

#[test]
fn a_caller_of_a_custom_rule_gets_its_hessian() {
    for (x, y) in [(0.3, -1.2), (2.0, 0.5), (-0.7, 0.9)] {
        let h = hessian_uses_lse(x, y);
        check_hessian(
            &h,
            |p| {
                let g = grad_uses_lse(p[0], p[1]);
                vec![g.0, g.1]
            },
            &[x, y],
        );
    }
}

mod helpers {
    use diffx::autodiff;

    /// A callee in another module (calling itself): xⁿ by recursion.
    #[autodiff(order = 2)]
    pub fn pow_rec(x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            x * pow_rec(x, n - 1)
        }
    }
}

/// A call through a module path of a recursive callee.
#[autodiff(order = 2)]
fn poly_rec(x: f64, y: f64) -> f64 {
    helpers::pow_rec(x, 4) * y + helpers::pow_rec(y, 3)
}

#[test]
fn hessian_through_recursion_and_a_module_path() {
    for x in [0.7_f64, -1.3] {
        // (xⁿ)″ = n(n − 1)xⁿ⁻².
        assert!(close(
            helpers::hessian_pow_rec(x, 5)[0][0],
            20.0 * x.powi(3),
            1e-13
        ));
    }
    for (x, y) in [(0.7_f64, -1.2_f64), (1.5, 0.4)] {
        // f = x⁴y + y³: ∇²f = [[12x²y, 4x³], [4x³, 6y]].
        let want = [
            [12.0 * x * x * y, 4.0 * x.powi(3)],
            [4.0 * x.powi(3), 6.0 * y],
        ];
        let h = hessian_poly_rec(x, y);
        for i in 0..2 {
            for j in 0..2 {
                assert!(close(h[i][j], want[i][j], 1e-12), "{h:?} vs {want:?}");
            }
        }
    }
}

/// A callee returning a vector, and one returning a matrix (an array of arrays): their hidden
/// `__diffx_hvp_` takes the cotangent's tangent as a vector (or matrix), and they have no `hvp_`
/// of their own.
#[autodiff(order = 2)]
fn polar(x: &[f64]) -> [f64; 2] {
    let r = (x[0] * x[0] + x[1] * x[1]).sqrt();
    [r, x[1].atan2(x[0])]
}

#[autodiff(order = 2)]
fn rotation(t: f64, s: f64) -> [[f64; 2]; 2] {
    [[s * t.cos(), -t.sin()], [t.sin(), s * t.cos()]]
}

/// r²·θ + tr(R(θ, r)) · r, through both.
#[autodiff(order = 2)]
fn through_vectors(x: &[f64]) -> f64 {
    let p = polar(x);
    let m = rotation(p[1], p[0]);
    p[0] * p[0] * p[1] + (m[0][0] + m[1][1]) * p[0]
}

#[test]
fn hessian_through_callees_returning_a_vector_and_a_matrix() {
    let grad = |v: &[f64]| grad_through_vectors(v);
    for x in [[1.0, 0.5], [-0.3, 1.2], [2.0, -1.5]] {
        check_hessian(&hessian_through_vectors(&x), grad, &x);
        // ∂²/∂x² against the closed form in polar coordinates, at one entry: f = r²θ + 2r² cos θ
        // is, along the ray θ fixed, r²(θ + 2 cos θ): ∂²f/∂r² = 2(θ + 2 cos θ).
        let (r, theta) = ((x[0] * x[0] + x[1] * x[1]).sqrt(), x[1].atan2(x[0]));
        let u = [x[0] / r, x[1] / r];
        let hu = hvp_through_vectors(&x, &u);
        let radial: f64 = hu.iter().zip(u).map(|(a, b)| a * b).sum();
        assert!(
            close(radial, 2.0 * (theta + 2.0 * theta.cos()), 1e-10),
            "{radial}"
        );
    }
}

#[test]
fn the_jacobian_of_a_matrix_has_a_row_per_element_row_after_row() {
    let (t, s) = (0.4, 1.7);
    let j = jacobian_rotation(t, s);
    let want = [
        [-s * t.sin(), t.cos()],
        [-t.cos(), 0.0],
        [t.cos(), 0.0],
        [-s * t.sin(), t.cos()],
    ];
    assert_eq!(j.len(), 4);
    for (row, w) in j.iter().zip(want) {
        assert_eq!(row.as_slice(), w.as_slice());
    }
}
