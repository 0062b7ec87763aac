//! Derivatives at the edges of their domains: every mode follows the one convention of the rule
//! table (JAX's, and PyTorch's where it has one), so `grad_`, `jvp_`, `vjp_`, `hvp_` and
//! `hessian_` agree there instead of mixing values with NaN.
//!
//! For `x.powf(y)` at `x = 0`: `∂/∂y = xʸ·ln x` is 0 (not 0·(−∞) = NaN), and `∂/∂x = y·xʸ⁻¹` is 0
//! where `y = 0` (not 0·0⁻¹).

use diffx::autodiff;

#[autodiff(order = 2)]
fn power(x: f64, y: f64) -> f64 {
    x.powf(y)
}

#[autodiff(order = 2)]
fn log(x: f64) -> f64 {
    x.ln()
}

#[autodiff(order = 2)]
fn root(x: f64) -> f64 {
    x.sqrt()
}

/// `∂(xʸ)/∂x` at `x = 0` by the convention: `y·0ʸ⁻¹`, with 0 for `y = 0`.
fn d_dx_at_zero(y: f64) -> f64 {
    if y == 0.0 {
        0.0
    } else {
        y * 0f64.powf(y - 1.0)
    }
}

/// First order: the gradient, both directional derivatives and the pullback are one vector.
#[test]
fn powf_at_zero_base_agrees_across_first_order_modes() {
    for y in [0.0, 1.0, 2.0, 3.0, 0.5] {
        let want = (d_dx_at_zero(y), 0.0);
        assert_eq!(grad_power(0.0, y), want, "grad_ at (0, {y})");
        assert_eq!(
            jvp_power(0.0, y, 1.0, 0.0).1,
            want.0,
            "jvp_ along x at (0, {y})"
        );
        assert_eq!(
            vjp_power(0.0, y, 2.0),
            (2.0 * want.0, 0.0),
            "vjp_ at (0, {y})"
        );
        if want.0.is_finite() {
            // Along y the x-partial is multiplied by a zero tangent: fine while it is finite.
            assert_eq!(
                jvp_power(0.0, y, 0.0, 1.0).1,
                0.0,
                "jvp_ along y at (0, {y})"
            );
            assert_eq!(
                jvp_power(0.0, y, 1.5, -2.0).1,
                1.5 * want.0,
                "jvp_ at (0, {y})"
            );
        }
    }
    assert_eq!(grad_power(0.0, 0.5).0, f64::INFINITY);
}

#[test]
fn powf_with_zero_exponent_has_no_x_derivative_but_keeps_ln_x() {
    // x⁰ = 1 for every x: ∂/∂x = 0; ∂/∂y = x⁰·ln x = ln x.
    for x in [0.5, 2.0, 7.0] {
        let (dx, dy) = grad_power(x, 0.0);
        assert_eq!(dx, 0.0);
        assert!((dy - f64::ln(x)).abs() < 1e-15, "{dy} at x = {x}");
        assert_eq!(jvp_power(x, 0.0, 1.0, 1.0).1, dy);
    }
}

/// Second order: the Hessian is finite and symmetric, equals its analytic limit, and its columns
/// are the Hessian-vector products along the axes.
#[test]
fn powf_at_zero_base_has_a_finite_symmetric_hessian() {
    // ∂²/∂x² = y(y − 1)·xʸ⁻², ∂²/∂x∂y = xʸ⁻¹(1 + y·ln x), ∂²/∂y² = xʸ·ln²x: at x = 0 their limits
    // are 2, 0, 0 for y = 2 and 0, 0, 0 for y = 3.
    for (y, want) in [(2.0, [[2.0, 0.0], [0.0, 0.0]]), (3.0, [[0.0; 2]; 2])] {
        let h = hessian_power(0.0, y);
        assert_eq!(h, vec![want[0].to_vec(), want[1].to_vec()], "at (0, {y})");
    }
    for y in [0.0, 2.0, 3.0] {
        let h = hessian_power(0.0, y);
        assert!(
            h.iter().flatten().all(|v| v.is_finite()),
            "{h:?} at (0, {y})"
        );
        assert_eq!(h[0][1], h[1][0], "symmetric at (0, {y})");
        let (ex, ey) = (hvp_power(0.0, y, 1.0, 0.0), hvp_power(0.0, y, 0.0, 1.0));
        assert_eq!((ex.0, ey.0), (h[0][0], h[0][1]), "hvp_ at (0, {y})");
        assert_eq!((ex.1, ey.1), (h[1][0], h[1][1]), "hvp_ at (0, {y})");
    }
}

#[test]
fn powf_away_from_the_edge_is_unchanged() {
    // The convention only applies at x = 0 and y = 0: elsewhere y·xʸ⁻¹ and xʸ·ln x.
    let (x, y) = (1.7_f64, 2.3_f64);
    let (dx, dy) = grad_power(x, y);
    assert!((dx - y * x.powf(y - 1.0)).abs() < 1e-14);
    assert!((dy - x.powf(y) * x.ln()).abs() < 1e-14);
    let h = hessian_power(x, y);
    let mixed = x.powf(y - 1.0) * (1.0 + y * x.ln());
    assert!((h[0][1] - mixed).abs() < 1e-12 && (h[1][0] - mixed).abs() < 1e-12);
}

#[test]
fn ln_and_sqrt_at_zero_agree_across_first_order_modes() {
    // The derivative is +∞ at 0 in both modes (1/x and 1/(2√x)), not NaN in either.
    assert_eq!(grad_log(0.0), f64::INFINITY);
    assert_eq!(jvp_log(0.0, 1.0), (f64::NEG_INFINITY, f64::INFINITY));
    assert_eq!(vjp_log(0.0, 1.0), f64::INFINITY);
    assert_eq!(grad_root(0.0), f64::INFINITY);
    assert_eq!(jvp_root(0.0, 1.0), (0.0, f64::INFINITY));
    assert_eq!(vjp_root(0.0, 1.0), f64::INFINITY);
}

#[test]
fn ln_and_sqrt_at_zero_have_infinite_second_derivatives_not_nan() {
    // (ln x)″ = −1/x² and (√x)″ = −1/(4x^{3/2}): −∞ at 0, as JAX's hessian gives, where the
    // cotangent's zero tangent times the infinite first partial was NaN.
    assert_eq!(hessian_log(0.0), vec![vec![f64::NEG_INFINITY]]);
    assert_eq!(hvp_log(0.0, 1.0), f64::NEG_INFINITY);
    assert_eq!(hessian_root(0.0), vec![vec![f64::NEG_INFINITY]]);
    // Away from the edge the product is the ordinary one.
    assert_eq!(hessian_log(2.0), vec![vec![-0.25]]);
    // (√x)″ at 4 is −1/(4·8), along 2.
    assert_eq!(hvp_root(4.0, 2.0), -2.0 / (4.0 * 8.0));
}

#[autodiff(order = 2)]
fn hypot_of(x: f64, y: f64) -> f64 {
    x.hypot(y)
}

/// A point where `s` is exactly 0 on one branch: `s.hypot(s.sin())` sits at the origin whatever
/// the input (finding s3839-f238 of the random-program tester: `jvp_` gave NaN, 0/0 times a zero
/// tangent).
#[autodiff(order = 2)]
fn hypot_on_a_branch(x: f64) -> f64 {
    let s = if x > 10.0 { x } else { 0.0 * x };
    s.hypot(s.sin()) + x
}

#[test]
fn hypot_at_the_origin_is_zero_in_every_mode() {
    assert_eq!(grad_hypot_of(0.0, 0.0), (0.0, 0.0));
    assert_eq!(jvp_hypot_of(0.0, 0.0, 1.0, -2.0), (0.0, 0.0));
    assert_eq!(grad_hypot_on_a_branch(1.0), 1.0);
    assert_eq!(jvp_hypot_on_a_branch(1.0, 1.0), (1.0, 1.0));
    assert_eq!(hessian_hypot_on_a_branch(1.0), vec![vec![0.0]]);
    // Away from the origin, the usual partials x/r and y/r and the Hessian [y², −xy; −xy, x²]/r³.
    assert_eq!(grad_hypot_of(3.0, 4.0), (0.6, 0.8));
    let h = hessian_hypot_of(3.0, 4.0);
    let expect = [[0.128, -0.096], [-0.096, 0.072]];
    for (row, e) in h.iter().zip(expect) {
        for (a, b) in row.iter().zip(e) {
            assert!((a - b).abs() < 1e-15, "{h:?}");
        }
    }
}
