//! Calls of `#[autodiff]` functions in reverse mode, split into value and pullback: at top level
//! the callee's forward sweep runs once, and in loops the body's run keeps each call's value and
//! pullback on a tape for the backward sweep. Each form against its analytic gradient (where it is
//! short) and central differences at several points, in both modes.

use diffx::autodiff;
use diffx::check::central_difference;

use crate::common;
use common::assert_close;

/// `exp`'s pullback reads its result, which is also the callee's value.
#[autodiff]
fn grow(x: f64) -> f64 {
    x.exp()
}

/// A callee with a loop: its split function recomputes (its tape may borrow the argument).
#[autodiff]
fn sum_squares(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v {
        s += x * x;
    }
    s
}

/// A callee returning an array built in place.
#[autodiff]
fn rotate(p: [f64; 2], a: f64) -> [f64; 2] {
    [
        p[0] * a.cos() - p[1] * a.sin(),
        p[0] * a.sin() + p[1] * a.cos(),
    ]
}

/// A callee generic over its float type (its split function's closure names `T`).
#[autodiff]
fn damp<T: diffx::Float>(x: T, c: T) -> T {
    x * (-c * x * x).exp()
}

mod helpers {
    use diffx::autodiff;

    /// A callee through a module path, with a const generic parameter.
    #[autodiff]
    pub fn first_times_last<const N: usize>(v: [f64; N]) -> f64 {
        v[0] * v[N - 1]
    }
}

/// Straight-line calls, one result used twice, one call made twice alike.
#[autodiff]
fn straight(x: f64, y: f64) -> f64 {
    let a = grow(x * y);
    let b = grow(x * y) * a;
    b + sum_squares(&[a, y]) + helpers::first_times_last([x, a, y])
}

/// Calls in a loop, in an `if` arm inside it, and in a loop nested in it that breaks early; a
/// local vector written between a call and the next.
#[autodiff]
fn looped(x: f64, y: f64) -> f64 {
    let mut p = [x, y];
    let mut s = 0.0;
    for i in 0..6 {
        p = rotate(p, 0.3 * x);
        if p[0] > 0.0 {
            s += grow(0.1 * p[0]);
        } else {
            s -= sum_squares(&[p[1], s]);
        }
        let mut v = [damp(p[1], 0.2), s];
        for j in 0..4 {
            if j > i {
                break;
            }
            v[0] = helpers::first_times_last([v[0], y, 0.5]) + grow(0.05 * v[1]);
        }
        s += v[0];
    }
    s * p[1]
}

/// Reverse and forward mode against central differences at several points, and against each other.
#[track_caller]
fn check(
    f: fn(f64, f64) -> f64,
    grad: fn(f64, f64) -> (f64, f64),
    jvp: fn(f64, f64, f64, f64) -> (f64, f64),
    points: &[[f64; 2]],
) {
    for x in points {
        let (gx, gy) = grad(x[0], x[1]);
        let fd = central_difference(|v| f(v[0], v[1]), x);
        assert_close(
            gx,
            fd[0],
            1e-6,
            &format!("∂x vs finite differences at {x:?}"),
        );
        assert_close(
            gy,
            fd[1],
            1e-6,
            &format!("∂y vs finite differences at {x:?}"),
        );
        let (value, t) = jvp(x[0], x[1], 0.5, -2.0);
        assert_eq!(value, f(x[0], x[1]), "jvp value at {x:?}");
        assert_close(
            t,
            0.5 * gx - 2.0 * gy,
            1e-12,
            &format!("jvp vs grad at {x:?}"),
        );
    }
}

#[test]
fn straight_line_calls() {
    check(
        straight,
        grad_straight,
        jvp_straight,
        &[[0.3, 0.7], [-0.4, 1.1], [1.2, -0.5]],
    );
    // b = e^{2xy}, a = e^{xy}: ∂/∂x of b + a² + y² + x·y (first_times_last of [x, a, y]).
    let (x, y): (f64, f64) = (0.3, 0.7);
    let e = (x * y).exp();
    let analytic_x = 2.0 * y * e * e + 2.0 * e * e * y + y;
    assert_close(grad_straight(x, y).0, analytic_x, 1e-12, "∂x vs analytic");
}

#[test]
fn calls_in_loops_arms_and_nested_loops() {
    check(
        looped,
        grad_looped,
        jvp_looped,
        &[[0.3, 0.7], [-0.4, 1.1], [1.2, -0.5], [2.0, 0.1]],
    );
}

/// The callee's own derivative functions, used by the split calls, match its analytic ones.
#[test]
fn callees_alone() {
    for a in [0.2, -1.3] {
        let (p, ct) = ([0.5, -0.25], [1.0, 0.0]);
        let (gp, ga) = vjp_rotate(p, a, ct);
        // First component: p0·cos a − p1·sin a.
        assert_close(gp[0], a.cos(), 1e-14, "∂p0");
        assert_close(gp[1], -a.sin(), 1e-14, "∂p1");
        assert_close(ga, -p[0] * a.sin() - p[1] * a.cos(), 1e-14, "∂a");
    }
    assert_close(grad_grow(0.4), 0.4f64.exp(), 1e-14, "grow");
}

/// A `Vec`-valued callee, its result replacing a local `Vec` in a loop.
#[autodiff]
fn smooth(v: &[f64], w: f64) -> Vec<f64> {
    vec![v[0] * w + v[1] * (1.0 - w), v[1] * w - v[0] * (1.0 - w)]
}

#[autodiff]
fn smoothed(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y];
    for _ in 0..5 {
        v = smooth(&v, 0.25 * x);
    }
    v[0] * v[1]
}

/// A callee whose `Vec` is one element longer than the local it replaces.
#[autodiff]
fn longer(v: &[f64]) -> Vec<f64> {
    vec![v[0], v[1], v[0] * v[1]]
}

#[autodiff]
fn grows_in_loop(x: f64) -> f64 {
    let mut v = vec![x, x];
    for _ in 0..2 {
        v = longer(&v);
    }
    v[0]
}

#[test]
fn a_call_replaces_a_local_vector_in_a_loop() {
    check(
        smoothed,
        grad_smoothed,
        jvp_smoothed,
        &[[0.3, 0.7], [-0.4, 1.1], [1.2, -0.5]],
    );
}

#[test]
#[should_panic(expected = "keeps its length here (2 elements replaced by 3)")]
fn a_vector_replaced_by_a_longer_one_stops() {
    grad_grows_in_loop(0.5);
}

/// One local array passed by value to one callee (`rotate(p, …)`) and by reference to another
/// (`sum_squares(&p)`): the by-value call gets a copy of its own, the other a reference.
#[autodiff]
fn both_ways(x: f64, y: f64) -> f64 {
    let mut p = [x, y];
    let mut s = 0.0;
    for _ in 0..6 {
        p = rotate(p, 0.3 * x);
        s -= sum_squares(&p) * p[0];
    }
    s * p[1]
}

#[test]
fn an_array_passed_by_value_and_by_reference() {
    check(
        both_ways,
        grad_both_ways,
        jvp_both_ways,
        &[[0.4, 0.9], [-0.7, 0.2], [1.3, -1.1]],
    );
}
