//! Tuple results (issue 14, item 3): a function returning `(f64, f64)` is vector-valued;
//! `jvp_` returns the tangent tuple, `vjp_` takes a tuple cotangent and `jacobian_` has a row per
//! component, checked against analytic Jacobians and central differences.

use diffx::autodiff;
use diffx::check::central_difference;
use diffx::num_traits::Float;

use crate::common;
use common::assert_close;

/// Polar to Cartesian coordinates.
#[autodiff]
fn polar(r: f64, t: f64) -> (f64, f64) {
    let c = t.cos();
    (r * c, r * t.sin())
}

/// An early `return` of a tuple.
#[autodiff]
fn clamped(r: f64, t: f64) -> (f64, f64) {
    if r < 0.0 {
        return (0.0, r * t);
    }
    (r * t.cos(), r * t.sin())
}

#[test]
fn early_return_of_a_tuple() {
    assert_eq!(
        jacobian_clamped(-1.0, 0.5),
        vec![vec![0.0, 0.0], vec![0.5, -1.0]]
    );
    let (v, d) = jvp_clamped(2.0, 0.5, 1.0, 0.0);
    assert_eq!(v, clamped(2.0, 0.5));
    assert_eq!(d, (0.5f64.cos(), 0.5f64.sin()));
}

/// A tuple chosen in arms, three parts, and a generic float type.
#[autodiff]
fn folded<T: Float>(a: T, b: T, k: usize) -> (T, T, T) {
    let s = a * b;
    if k == 0 {
        (s, a.exp(), s * s)
    } else {
        (b, s.sin(), a + b)
    }
}

#[test]
fn polar_by_both_modes() {
    for (r, t) in [(2.0, 0.5), (0.7, -1.3), (1.5, 2.9)] {
        let want = [[t.cos(), -r * t.sin()], [t.sin(), r * t.cos()]];
        assert_eq!(jacobian_polar(r, t), want.map(|row| row.to_vec()).to_vec());
        let (v, d) = jvp_polar(r, t, 0.3, -0.2);
        assert_eq!(v, polar(r, t));
        assert_close(d.0, 0.3 * want[0][0] - 0.2 * want[0][1], 1e-14, "jvp x");
        assert_close(d.1, 0.3 * want[1][0] - 0.2 * want[1][1], 1e-14, "jvp y");
        let (gr, gt) = vjp_polar(r, t, (1.5, -0.5));
        assert_close(gr, 1.5 * want[0][0] - 0.5 * want[1][0], 1e-14, "vjp r");
        assert_close(gt, 1.5 * want[0][1] - 0.5 * want[1][1], 1e-14, "vjp t");
    }
}

#[test]
fn tuples_from_arms_generic_against_differences() {
    for k in [0, 1] {
        for x in [[0.4, 1.3], [-0.8, 0.6]] {
            let j = jacobian_folded(x[0], x[1], k);
            let parts = [
                |v: (f64, f64, f64)| v.0,
                |v: (f64, f64, f64)| v.1,
                |v: (f64, f64, f64)| v.2,
            ];
            for (row, part) in j.iter().zip(parts) {
                let fd = central_difference(|v| part(folded(v[0], v[1], k)), &x);
                for i in 0..2 {
                    assert_close(row[i], fd[i], 1e-6, "jacobian vs differences");
                }
            }
            let g = vjp_folded(x[0], x[1], k, (1.0, 0.0, 0.0));
            assert_eq!([g.0, g.1].to_vec(), j[0]);
            let (_, d) = jvp_folded(x[0] as f32, x[1] as f32, k, 1.0, 0.0);
            assert_close(f64::from(d.2), j[2][0], 1e-5, "jvp at f32");
        }
    }
}

/// A tuple parameter of a number and an array: its gradient is a tuple of the same shape.
#[autodiff]
fn tuple_param(p: &(f64, [f64; 2]), x: &[f64]) -> f64 {
    let (a, w) = p;
    let mut s = 0.0;
    for &xi in x {
        s += a * (w[0] * xi + w[1]).tanh() + p.0.sin();
    }
    s
}

#[test]
fn tuple_parameters() {
    use diffx::check::check_params;
    use diffx::Params;
    let x = [1.0, -2.0, 0.5];
    for p in [(2.0, [0.5, -1.0]), (-0.7, [1.5, 0.25])] {
        let (gp, gx) = grad_tuple_param(&p, &x);
        let (a, w) = p;
        let th = |xi: f64| (w[0] * xi + w[1]).tanh();
        let da: f64 = x.iter().map(|&xi| th(xi) + a.cos()).sum();
        let dw0: f64 = x.iter().map(|&xi| a * (1.0 - th(xi).powi(2)) * xi).sum();
        let dw1: f64 = x.iter().map(|&xi| a * (1.0 - th(xi).powi(2))).sum();
        assert!((gp.0 - da).abs() < 1e-12 && (gp.1[0] - dw0).abs() < 1e-12);
        assert!((gp.1[1] - dw1).abs() < 1e-12);
        assert!((gx[1] - a * (1.0 - th(x[1]).powi(2)) * w[0]).abs() < 1e-12);
        check_params(|q: &(f64, [f64; 2])| tuple_param(q, &x), &p, &gp).assert_close(1e-7);
        let dir = (1.0, [0.5, -2.0]);
        let (_, t) = jvp_tuple_param(&p, &x, &dir, &[0.0; 3]);
        assert!((t - gp.dot(&dir)).abs() < 1e-12);
    }
}

/// A pair of numbers taken by value.
#[autodiff]
fn pair_param(p: (f64, f64)) -> f64 {
    (p.0 * p.1).exp() + p.1.tanh()
}

#[test]
fn pair_by_value() {
    let g = grad_pair_param((0.5, -1.0));
    let e = (-0.5_f64).exp();
    assert!((g.0 - -e).abs() < 1e-14);
    assert!((g.1 - (0.5 * e + 1.0 - (-1.0_f64).tanh().powi(2))).abs() < 1e-14);
    let (_, t) = jvp_pair_param((0.5, -1.0), (1.0, 1.0));
    assert!((t - (g.0 + g.1)).abs() < 1e-14);
}

/// A plain helper returning a tuple: called with constants, it stays a constant call.
fn scale_pair(a: f64) -> (f64, f64) {
    (a, 2.0 * a)
}

/// Calls of a tuple-valued `#[autodiff]` function: destructured, read by component, inside a
/// loop and an `if`, in a kept statement.
#[autodiff]
fn calls_polar(r: f64, t: f64) -> f64 {
    let (x, y) = polar(r, t);
    let h = scale_pair(3.0);
    let mut s = x * y + polar(r, 2.0 * t).0 + h.1;
    for k in 0..3 {
        let p = polar(r + k as f64, t * s.min(1.0));
        assert!(p.0.is_finite(), "{}", p.1);
        if p.0 > 0.0 {
            s += p.0 * p.1;
        } else {
            let (u, v) = polar(s, 0.5);
            s -= u + v;
        }
    }
    s
}

#[test]
fn calls_returning_tuples() {
    for (r, t) in [(1.5, 0.3), (0.8, 2.5), (2.0, -1.2)] {
        let g = grad_calls_polar(r, t);
        let fd = central_difference(|v| calls_polar(v[0], v[1]), &[r, t]);
        assert_close(g.0, fd[0], 1e-6, "∂/∂r");
        assert_close(g.1, fd[1], 1e-6, "∂/∂t");
        let (_, tangent) = jvp_calls_polar(r, t, 1.0, 0.5);
        assert_close(tangent, g.0 + 0.5 * g.1, 1e-10, "jvp");
    }
}

#[autodiff]
fn product(x: f64, y: f64) -> f64 {
    x * y
}

/// A nested call of a number-valued function in a function of a tuple (random-program tester
/// finding s4545-f27: with a tuple parameter the calls were taken to return tensors, passed by
/// reference).
#[autodiff]
fn nested_call_in_tuple_function(xy: (f64, f64)) -> f64 {
    let (y, x) = xy;
    let mut s = 0.0;
    for i in 0..3 {
        if x > 0.5 && i > 0 {
            s += product(0.5, product(0.7, x)) * y;
        }
    }
    s
}

#[test]
fn nested_calls_in_a_function_of_a_tuple() {
    let g = grad_nested_call_in_tuple_function((2.0, 1.5));
    // s = 2 · 0.35·x·y: ∂/∂y = 0.7·x, ∂/∂x = 0.7·y.
    assert_close(g.0, 0.7 * 1.5, 1e-14, "∂/∂y");
    assert_close(g.1, 0.7 * 2.0, 1e-14, "∂/∂x");
}

/// A tuple holding an array and a number, the array built in place and as a local, chosen in an
/// `if`: differentiated as the array of its three numbers.
#[autodiff]
fn point_and_size(r: f64, t: f64) -> ([f64; 2], f64) {
    if r < 0.0 {
        let p = [0.0, r * t];
        return (p, t);
    }
    ([r * t.cos(), r * t.sin()], r * r)
}

#[test]
fn a_tuple_holding_an_array() {
    for (r, t) in [(1.5, 0.4), (0.7, -1.2), (-0.5, 0.9)] {
        let (p, s) = point_and_size(r, t);
        // The Jacobian, a row per number: d[p0, p1, s]/d(r, t).
        let analytic = match r < 0.0 {
            true => [[0.0, 0.0], [t, r], [0.0, 1.0]],
            false => [
                [t.cos(), -r * t.sin()],
                [t.sin(), r * t.cos()],
                [2.0 * r, 0.0],
            ],
        };
        let jac = jacobian_point_and_size(r, t);
        let numbers = |r: f64, t: f64| {
            let (p, s) = point_and_size(r, t);
            [p[0], p[1], s]
        };
        for (i, row) in analytic.iter().enumerate() {
            let fd = central_difference(|v| numbers(v[0], v[1])[i], &[r, t]);
            for j in 0..2 {
                assert_close(
                    jac[i][j],
                    row[j],
                    1e-14,
                    &format!("J[{i}][{j}] at ({r}, {t})"),
                );
                assert_close(
                    jac[i][j],
                    fd[j],
                    1e-7,
                    &format!("J[{i}][{j}] vs differences"),
                );
            }
        }
        // `jvp_` returns the tangent in the tuple's shape; `vjp_` takes a cotangent in it.
        let ((vp, vs), (dp, ds)) = jvp_point_and_size(r, t, 1.0, 0.0);
        assert_eq!((vp, vs), (p, s));
        assert_eq!([dp[0], dp[1], ds], [jac[0][0], jac[1][0], jac[2][0]]);
        let (gr, gt) = vjp_point_and_size(r, t, ([0.5, -1.0], 2.0));
        assert_close(
            gr,
            0.5 * jac[0][0] - jac[1][0] + 2.0 * jac[2][0],
            1e-14,
            "vjp r",
        );
        assert_close(
            gt,
            0.5 * jac[0][1] - jac[1][1] + 2.0 * jac[2][1],
            1e-14,
            "vjp t",
        );
    }
}

#[cfg(feature = "explain")]
#[test]
fn explain_of_a_tuple_holding_an_array() {
    let (r, t) = (1.5, 0.4);
    let trace = explain_point_and_size(r, t, 1.0, 0.0, ([0.0, 1.0], 0.5));
    let (gr, gt) = vjp_point_and_size(r, t, ([0.0, 1.0], 0.5));
    assert_close(trace.adjoint("r").unwrap(), gr, 1e-14, "r");
    assert_close(trace.adjoint("t").unwrap(), gt, 1e-14, "t");
}

/// A rotation of `p` by `a` and a number: a tuple holding an array, called below.
#[autodiff]
fn step(p: [f64; 2], a: f64) -> ([f64; 2], f64) {
    let (c, s) = (a.cos(), a.sin());
    ([c * p[0] - s * p[1], s * p[0] + c * p[1]], p[0] * p[1] * a)
}

/// Calls of `step` in a loop: destructured, its array part copied into the state (`p = q;`) and
/// written after, read by `.0[1]` on the call itself and by `r.0[0]`, `r.1` on a bound result.
#[autodiff]
fn walk(x: f64, y: f64, a: f64) -> f64 {
    let mut p = [x, y];
    let mut acc = 0.0;
    for i in 0..3 {
        let (q, e) = step(p, a);
        p = q;
        if i == 1 {
            p[0] = 2.0 * p[0] + e;
        }
        acc += p[0] * p[1] + step(p, a * 0.5).0[1];
    }
    let r = step(p, a);
    acc + r.0[0] * r.1 + p[1]
}

/// `walk` written without the call: `step` inlined.
fn walk_inlined(x: f64, y: f64, a: f64) -> f64 {
    let rot = |p: [f64; 2], a: f64| {
        let (c, s) = (a.cos(), a.sin());
        [c * p[0] - s * p[1], s * p[0] + c * p[1]]
    };
    let mut p = [x, y];
    let mut acc = 0.0;
    for i in 0..3 {
        let e = p[0] * p[1] * a;
        p = rot(p, a);
        if i == 1 {
            p[0] = 2.0 * p[0] + e;
        }
        acc += p[0] * p[1] + rot(p, a * 0.5)[1];
    }
    let (q, e) = (rot(p, a), p[0] * p[1] * a);
    acc + q[0] * e + p[1]
}

#[test]
fn calls_of_a_function_returning_a_tuple_that_holds_an_array() {
    for (x, y, a) in [(0.3, -0.7, 0.9), (1.1, 0.4, -0.3), (-0.6, 0.2, 2.1)] {
        assert_close(walk(x, y, a), walk_inlined(x, y, a), 1e-14, "value");
        let g = grad_walk(x, y, a);
        let fd = central_difference(|v| walk_inlined(v[0], v[1], v[2]), &[x, y, a]);
        for (k, gk) in [g.0, g.1, g.2].into_iter().enumerate() {
            assert_close(gk, fd[k], 1e-7, &format!("∂walk[{k}] at ({x}, {y}, {a})"));
        }
        for (k, t) in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            .into_iter()
            .enumerate()
        {
            let (_, d) = jvp_walk(x, y, a, t[0], t[1], t[2]);
            assert_close(d, fd[k], 1e-7, &format!("jvp_walk[{k}]"));
        }
    }
}

/// A body whose methods return tuples: one of numbers, one holding an array.
struct Body {
    mass: f64,
}

impl Body {
    /// (m·x, sin x).
    #[autodiff]
    fn pair(&self, x: f64) -> (f64, f64) {
        (x * self.mass, x.sin())
    }

    /// ([m·x, x²], sin x).
    #[autodiff]
    fn state(&self, x: f64) -> ([f64; 2], f64) {
        ([x * self.mass, x * x], x.sin())
    }

    /// p₀·p₁ + s + a·b = m·x³ + sin x + m·x·sin x, through both methods.
    #[autodiff]
    fn energy(&self, x: f64) -> f64 {
        let (p, s) = self.state(x);
        let (a, b) = self.pair(x);
        p[0] * p[1] + s + a * b
    }
}

#[test]
fn methods_returning_tuples() {
    let body = Body { mass: 2.0 };
    for x in [0.3, -0.7, 1.4] {
        let m = body.mass;
        // Every derivative function of the methods, against the hand derivatives.
        assert_eq!(
            body.jacobian_state(x),
            vec![vec![m], vec![2.0 * x], vec![x.cos()]]
        );
        assert_eq!(body.jacobian_pair(x), vec![vec![m], vec![x.cos()]]);
        let (v, t) = body.jvp_state(x, 0.5);
        assert_eq!(v, body.state(x));
        assert_close(t.0[1], x, 1e-15, "jvp_state");
        let g = body.vjp_state(x, ([1.0, 0.0], 1.0));
        assert_close(g, m + x.cos(), 1e-15, "vjp_state");
        assert_close(
            body.vjp_pair(x, (0.0, 2.0)),
            2.0 * x.cos(),
            1e-15,
            "vjp_pair",
        );
        // A method calling them, by both modes, against the hand derivative and differences.
        let hand = 3.0 * m * x * x + x.cos() + m * x.sin() + m * x * x.cos();
        let fd = central_difference(|p: &[f64]| body.energy(p[0]), &[x])[0];
        assert_close(body.grad_energy(x), hand, 1e-12, "grad_energy");
        assert_close(fd, hand, 1e-6, "differences");
        assert_close(body.jvp_energy(x, 1.0).1, hand, 1e-12, "jvp_energy");
    }
}

#[cfg(feature = "explain")]
#[test]
fn explain_of_methods_returning_tuples() {
    let body = Body { mass: 2.0 };
    let t = body.explain_energy(0.7, 1.0);
    assert_close(t.adjoint("x").unwrap(), body.grad_energy(0.7), 1e-12, "∂x");
    // The calls as written, their parts named as bound, their reads as the user wrote them.
    assert_eq!(t.row("(p, s)").unwrap().expr, "self.state(x)");
    assert_eq!(t.row("p[1]").unwrap().expr, "(p, s).0[1]");
    assert_eq!(t.row("s").unwrap().expr, "(p, s).1");
    assert!(t.rows().iter().any(|r| r.expr == "p[0] * p[1]"), "{t}");
    assert!(t.rows().iter().any(|r| r.expr == "a * b"), "{t}");
}
