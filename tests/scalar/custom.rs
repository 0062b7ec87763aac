//! Hand-written derivative rules (`#[custom_derivative]`): used by both modes and by the
//! `#[autodiff]` functions that call them, instead of differentiating the body.

use diffx::check::{central_difference, derivative};
use diffx::{autodiff, custom_derivative};

/// log(eᵃ + eᵇ), stable for large arguments; its derivative is the softmax of (a, b).
#[custom_derivative(jvp = lse_jvp, vjp = lse_vjp)]
fn lse(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn lse_jvp(a: f64, b: f64, ta: f64, tb: f64) -> (f64, f64) {
    let v = lse(a, b);
    (v, (a - v).exp() * ta + (b - v).exp() * tb)
}

fn lse_vjp(a: f64, b: f64, ct: f64) -> (f64, (f64, f64)) {
    let v = lse(a, b);
    (v, (ct * (a - v).exp(), ct * (b - v).exp()))
}

#[test]
fn stable_logsumexp_at_large_arguments() {
    let (ga, gb) = grad_lse(1000.0, 1000.0);
    assert!(
        (ga - 0.5).abs() < 1e-12 && (gb - 0.5).abs() < 1e-12,
        "{ga} {gb}"
    );
    let (v, d) = jvp_lse(1000.0, -1000.0, 1.0, 1.0);
    assert_eq!((v, d), (1000.0, 1.0));
}

/// The rule composes with `#[autodiff]` code, in both modes.
#[autodiff]
fn uses_lse(x: f64, y: f64) -> f64 {
    lse(2.0 * x, y * y) * x.sin()
}

#[test]
fn rules_compose_with_differentiated_code() {
    for p in [[0.3, -1.2], [2.0, 0.5]] {
        let fd = central_difference(|v| uses_lse(v[0], v[1]), &p);
        let (gx, gy) = grad_uses_lse(p[0], p[1]);
        assert!(
            (gx - fd[0]).abs() < 1e-7 && (gy - fd[1]).abs() < 1e-7,
            "{gx} {gy} vs {fd:?}"
        );
        let tx = jvp_uses_lse(p[0], p[1], 1.0, 0.0).1;
        assert!((tx - gx).abs() < 1e-12);
    }
}

/// The root of y = ½·cos y + p, by iteration; the derivative by the implicit-function theorem,
/// dy/dp = 1 / (1 + ½ sin y), not by differentiating the iterations.
#[custom_derivative(jvp = root_jvp, vjp = root_vjp)]
fn root(p: f64) -> f64 {
    let mut y = p;
    loop {
        let next = 0.5 * y.cos() + p;
        if (next - y).abs() < 1e-15 {
            break next;
        }
        y = next;
    }
}

fn root_jvp(p: f64, tp: f64) -> (f64, f64) {
    let y = root(p);
    (y, tp / (1.0 + 0.5 * y.sin()))
}

fn root_vjp(p: f64, ct: f64) -> (f64, f64) {
    let y = root(p);
    (y, ct / (1.0 + 0.5 * y.sin()))
}

#[test]
fn implicit_function_derivative_of_a_solver() {
    for p in [0.1, 1.0, 3.0] {
        let fd = derivative(root, p);
        assert!((grad_root(p) - fd).abs() < 1e-7, "{} vs {fd}", grad_root(p));
        assert_eq!(jvp_root(p, 1.0).1, grad_root(p));
    }
}

/// Code the macro cannot differentiate (an unsupported method): the rule supplies the derivative
/// (the sawtooth x − ⌊x⌋ has slope 1 between its jumps).
#[custom_derivative(jvp = saw_jvp, vjp = saw_vjp)]
fn saw(x: f64) -> f64 {
    x.rem_euclid(1.0)
}

fn saw_jvp(x: f64, t: f64) -> (f64, f64) {
    (saw(x), t)
}

fn saw_vjp(x: f64, ct: f64) -> (f64, f64) {
    (saw(x), ct)
}

#[autodiff]
fn wave(x: f64) -> f64 {
    saw(3.0 * x) * x
}

#[test]
fn rules_for_external_code() {
    let x: f64 = 0.4;
    // d/dx [saw(3x)·x] = 3x + saw(3x) away from the jumps.
    let want = 3.0 * x + (3.0 * x).rem_euclid(1.0);
    assert!((grad_wave(x) - want).abs() < 1e-15);
    assert!((jvp_wave(x, 1.0).1 - want).abs() < 1e-15);
}
