//! Nested AD: `#[autodiff]` functions that call another function's `grad_` or `jvp_`,
//! differentiated through that function's second derivatives (`#[autodiff(order = 2)]` on it):
//! both modes against hand derivatives and central differences at several points.

use diffx::autodiff;
use diffx::check::central_difference;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// Checks `grad_` and `jvp_` (along each unit direction) of a two-parameter function against
/// `hand` and central differences of `f`.
fn check2(
    f: impl Fn(f64, f64) -> f64,
    grad: impl Fn(f64, f64) -> (f64, f64),
    jvp: impl Fn(f64, f64, f64, f64) -> (f64, f64),
    hand: impl Fn(f64, f64) -> (f64, f64),
) {
    for (x, y) in [(0.7, 1.3), (-1.1, 0.4), (1.9, -0.8)] {
        let g = grad(x, y);
        let h = hand(x, y);
        let fd = central_difference(|p| f(p[0], p[1]), &[x, y]);
        for (k, (a, b)) in [(g.0, h.0), (g.1, h.1)].into_iter().enumerate() {
            assert!(close(a, b, 1e-12), "grad[{k}] at ({x}, {y}): {a} vs {b}");
            assert!(
                close(a, fd[k], 1e-6),
                "grad[{k}] at ({x}, {y}): {a} vs fd {}",
                fd[k]
            );
        }
        let (vx, dx) = jvp(x, y, 1.0, 0.0);
        let (_, dy) = jvp(x, y, 0.0, 1.0);
        assert_eq!(vx, f(x, y));
        assert!(
            close(dx, h.0, 1e-12) && close(dy, h.1, 1e-12),
            "jvp at ({x}, {y})"
        );
    }
}

/// g(x, y) = x³y + y², ∇g = (3x²y, x³ + 2y).
#[autodiff(order = 2)]
fn g(x: f64, y: f64) -> f64 {
    x.powi(3) * y + y * y
}

/// ∂g/∂x · ∂g/∂y, through `grad_g`.
#[autodiff]
fn gradient_product(x: f64, y: f64) -> f64 {
    let (gx, gy) = grad_g(x, y);
    gx * gy
}

#[test]
fn a_gradient_called_is_differentiated_in_both_modes() {
    // d/dx [3x²y(x³ + 2y)] = 6xy(x³ + 2y) + 9x⁴y, d/dy = 3x²(x³ + 2y) + 6x²y.
    let hand = |x: f64, y: f64| {
        let s = x.powi(3) + 2.0 * y;
        (
            6.0 * x * y * s + 9.0 * x.powi(4) * y,
            3.0 * x * x * s + 6.0 * x * x * y,
        )
    };
    check2(
        gradient_product,
        grad_gradient_product,
        jvp_gradient_product,
        hand,
    );
}

/// g · ∂g/∂v along a direction that depends on the inputs, through `jvp_g`.
#[autodiff]
fn along(x: f64, y: f64) -> f64 {
    let (v, d) = jvp_g(x, y, y, x);
    v * d
}

#[test]
fn a_directional_derivative_called_is_differentiated_in_both_modes() {
    // d = 3x²y·y + (x³ + 2y)·x = 4x³y... written out: d = 3x²y² + x⁴ + 2xy.
    let hand = |x: f64, y: f64| {
        let v = x.powi(3) * y + y * y;
        let d = 3.0 * x * x * y * y + x.powi(4) + 2.0 * x * y;
        let (vx, vy) = (3.0 * x * x * y, x.powi(3) + 2.0 * y);
        let (dx, dy) = (
            6.0 * x * y * y + 4.0 * x.powi(3) + 2.0 * y,
            6.0 * x * x * y + 2.0 * x,
        );
        (vx * d + v * dx, vy * d + v * dy)
    };
    check2(along, grad_along, jvp_along, hand);
}

/// A function of an array and a constant: its gradient is an array.
#[autodiff(order = 2)]
fn spring(p: [f64; 2], n: usize) -> f64 {
    let r = (p[0] * p[0] + p[1] * p[1]).sqrt();
    (n as f64) * (r - 1.0).powi(2)
}

/// The work of the spring's force along the direction (1, s): −∇spring(s·q)·(1, s).
#[autodiff]
fn work(q: [f64; 2], s: f64) -> f64 {
    let force = grad_spring([s * q[0], s * q[1]], 3);
    -(force[0] + s * force[1])
}

#[test]
fn an_array_gradient_called_with_a_constant_argument() {
    let q = [0.8, -0.3];
    for s in [0.5, 1.5, 2.5] {
        let (gq, gs) = grad_work(q, s);
        let fd = central_difference(|p| work([p[0], p[1]], p[2]), &[q[0], q[1], s]);
        for (k, a) in [gq[0], gq[1], gs].into_iter().enumerate() {
            assert!(
                close(a, fd[k], 1e-6),
                "grad[{k}] at s = {s}: {a} vs {}",
                fd[k]
            );
        }
        let (v, t) = jvp_work(q, s, [0.0, 0.0], 1.0);
        assert_eq!(v, work(q, s));
        assert!(close(t, gs, 1e-12), "{t} vs {gs}");
    }
}

/// Σ vᵢ² · v₀: the gradient of a slice is a `Vec`.
#[autodiff(order = 2)]
fn weighted(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v {
        s += x * x;
    }
    s * v[0]
}

#[autodiff]
fn gradient_norm(v: &[f64]) -> f64 {
    let g = grad_weighted(v);
    let mut s = 0.0;
    for x in &g {
        s += x * x;
    }
    s.sqrt()
}

#[test]
fn a_slice_gradient_called() {
    let v = [0.6, -1.2, 0.9];
    let g = grad_gradient_norm(&v);
    let fd = central_difference(gradient_norm, &v);
    for k in 0..3 {
        assert!(close(g[k], fd[k], 1e-6), "grad[{k}]: {} vs {}", g[k], fd[k]);
    }
    let (_, t) = jvp_gradient_norm(&v, &[0.0, 1.0, 0.0]);
    assert!(close(t, g[1], 1e-12));
}

/// The potential of unit charges at (10, 10 − w) and (10, 0).
#[autodiff(order = 2)]
fn potential(x: f64, y: f64, w: f64) -> f64 {
    let first = ((x - 10.0).powi(2) + (y - (10.0 - w)).powi(2)).sqrt();
    let second = ((x - 10.0).powi(2) + y.powi(2)).sqrt();
    1.0 / first + 1.0 / second
}

/// Siskind and Pearlmutter's charged particle: Euler steps under the force −∇ₓpotential until
/// the particle would cross the x axis, then the squared x of the crossing.
#[autodiff]
fn miss(w: f64) -> f64 {
    let (mut x, mut y) = (0.0, 8.0);
    let (mut vx, mut vy) = (0.75, 0.0);
    let dt = 0.1;
    loop {
        let (px, py, _) = grad_potential(x, y, w);
        let (nx, ny) = (x + dt * vx, y + dt * vy);
        if ny <= 0.0 {
            break;
        }
        (x, y) = (nx, ny);
        vx -= dt * px;
        vy -= dt * py;
    }
    let t = -y / vy;
    let xf = x + t * vx;
    xf * xf
}

#[test]
fn a_gradient_called_in_an_unbounded_loop() {
    for w in [0.0, 0.1, 0.3] {
        let g = grad_miss(w);
        let (v, t) = jvp_miss(w, 1.0);
        let fd = central_difference(|p| miss(p[0]), &[w])[0];
        assert_eq!(v, miss(w));
        assert!(close(g, fd, 1e-6), "at w = {w}: {g} vs fd {fd}");
        assert!(close(t, g, 1e-12), "at w = {w}: {t} vs {g}");
    }
}

/// The potential with the position as an array: its gradient is a tuple `([f64; 2], f64)`.
#[autodiff(order = 2)]
fn potential_at(x: [f64; 2], w: f64) -> f64 {
    let first = ((x[0] - 10.0).powi(2) + (x[1] - (10.0 - w)).powi(2)).sqrt();
    let second = ((x[0] - 10.0).powi(2) + x[1].powi(2)).sqrt();
    1.0 / first + 1.0 / second
}

/// `miss` with the state as arrays and the force as the array part of `grad_potential_at`.
#[autodiff]
fn miss_arrays(w: f64) -> f64 {
    let mut x = [0.0, 8.0];
    let mut v = [0.75, 0.0];
    let dt = 0.1;
    loop {
        let (force, _) = grad_potential_at(x, w);
        let x_new = [x[0] + dt * v[0], x[1] + dt * v[1]];
        if x_new[1] <= 0.0 {
            break;
        }
        x = x_new;
        v = [v[0] - dt * force[0], v[1] - dt * force[1]];
    }
    let t = -x[1] / v[1];
    let xf = x[0] + t * v[0];
    xf * xf
}

#[test]
fn a_gradient_holding_an_array_and_a_number() {
    for w in [0.0, 0.1, 0.3] {
        assert!(close(miss_arrays(w), miss(w), 1e-13));
        let (g, (_, t)) = (grad_miss_arrays(w), jvp_miss_arrays(w, 1.0));
        assert!(
            close(g, grad_miss(w), 1e-10),
            "at w = {w}: {g} vs {}",
            grad_miss(w)
        );
        assert!(close(t, g, 1e-12), "at w = {w}: {t} vs {g}");
    }
}

/// `explain_` of functions that call a gradient or a directional derivative: the call is one row
/// (a vector: the gradient, or the value and its tangent), split into the parts the code reads.
#[cfg(feature = "explain")]
#[test]
fn calls_of_gradients_are_explained() {
    let (x, y) = (0.7, -1.3);
    let t = explain_gradient_product(x, y, 1.0, 0.0);
    let g = grad_gradient_product(x, y);
    assert!((t.adjoint("x").unwrap() - g.0).abs() < 1e-12, "{t}");
    assert!((t.adjoint("y").unwrap() - g.1).abs() < 1e-12, "{t}");
    assert_eq!(t.row("(gx, gy)").unwrap().expr, "grad_g(x, y)");
    let tangent = jvp_gradient_product(x, y, 1.0, 0.0).1;
    assert!((t.tangent("gradient_product").unwrap() - tangent).abs() < 1e-12);
    let t = explain_along(x, y, 0.0, 1.0);
    let g = grad_along(x, y);
    assert!((t.adjoint("x").unwrap() - g.0).abs() < 1e-12, "{t}");
    assert!((t.adjoint("y").unwrap() - g.1).abs() < 1e-12, "{t}");
    assert_eq!(t.row("(v, d)").unwrap().expr, "jvp_g(x, y, y, x)");
    let v = [0.6, -1.2, 0.9];
    let t = explain_gradient_norm(&v, &[0.0, 0.0, 1.0]);
    let g = grad_gradient_norm(&v);
    for (k, gk) in g.iter().enumerate() {
        let a = t.adjoint(&format!("v[{k}]")).unwrap();
        assert!((a - gk).abs() < 1e-12, "∂v[{k}]: {a} vs {gk}\n{t}");
    }
}
