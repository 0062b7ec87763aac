//! Local vectors and arrays written element by element (`traj[i] = …`), in loops and in
//! straight-line code, including elements overwritten after they were read. Reverse mode logs each
//! overwritten element and restores it on the way back; both modes against finite differences.

use diffx::autodiff;
use diffx::check::central_difference;

use crate::loop_functions;
use loop_functions::{grad_rk4, jvp_rk4, rk4};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// A trajectory stored in a vector, then summed.
#[autodiff]
#[allow(clippy::needless_range_loop)]
fn trajectory(a: f64, x0: f64, n: usize) -> f64 {
    let mut traj = vec![0.0; n];
    traj[0] = x0;
    for i in 1..n {
        traj[i] = traj[i - 1] * a + 0.1 * (i as f64);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += traj[i] * traj[i];
    }
    s
}

/// Horner's rule in one element, overwritten (after being read) in every iteration.
#[autodiff]
fn horner(x: f64, n: u32) -> f64 {
    let mut acc = vec![0.0; 2];
    for k in 0..n {
        acc[0] = acc[0] * x + (k as f64 + 1.0);
        acc[1] += acc[0].sin();
    }
    acc[0] + acc[1]
}

/// Straight-line writes, an element overwritten after it was read.
#[autodiff]
fn shuffle(x: f64, y: f64) -> f64 {
    let mut v = [0.0; 3];
    v[0] = x * y;
    v[1] = v[0] + x;
    v[0] *= v[1];
    v[2] += v[0] - y;
    v[0] * v[2] + v[1]
}

/// Elements written in `if` arms inside a loop (a different rule per element), then overwritten
/// by a later arm after they were read.
#[autodiff]
#[allow(clippy::needless_range_loop)]
fn piecewise_writes(a: f64, b: f64, n: usize) -> f64 {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let t = a * (i as f64) - b;
        if t > 0.0 {
            y[i] = t * t;
        } else if i % 2 == 0 {
            y[i] = (2.0 * t).sin();
        } else {
            y[i] = b * t;
        }
    }
    let mut s = 0.0;
    for i in 1..n {
        if y[i - 1] > y[i] {
            s += y[i - 1] * a;
            y[i] *= y[i - 1];
        } else {
            s += y[i];
        }
    }
    s + y[n - 1]
}

/// Writes in the arms of an `if` outside any loop, into a vector that only the arms make
/// differentiable.
#[autodiff]
fn branch_writes(x: f64, y: f64) -> f64 {
    let mut v = [1.0, 2.0];
    if x > y {
        v[0] = x * y;
        v[1] = v[0] + y;
    } else {
        v[1] = x - y;
    }
    v[0] * v[1]
}

fn check(f: impl Fn(&[f64]) -> f64, grad: &[f64], jvp_units: &[f64], at: &[f64]) {
    let fd = central_difference(&f, at);
    for i in 0..at.len() {
        assert!(
            close(grad[i], fd[i], 1e-6),
            "∂{i} at {at:?}: reverse {} vs finite differences {}",
            grad[i],
            fd[i]
        );
        assert!(
            close(jvp_units[i], grad[i], 1e-12),
            "∂{i} at {at:?}: forward {} vs reverse {}",
            jvp_units[i],
            grad[i]
        );
    }
}

#[test]
fn trajectories_in_vectors() {
    for (a, x0, n) in [(0.9, 1.0, 10), (1.05, -0.5, 40), (0.5, 2.0, 2)] {
        let (ga, gx) = grad_trajectory(a, x0, n);
        let units = [
            jvp_trajectory(a, x0, n, 1.0, 0.0).1,
            jvp_trajectory(a, x0, n, 0.0, 1.0).1,
        ];
        check(|v| trajectory(v[0], v[1], n), &[ga, gx], &units, &[a, x0]);
    }
}

#[test]
fn elements_overwritten_in_every_iteration() {
    for (x, n) in [(0.5, 6), (-1.2, 9), (0.9, 1)] {
        let g = grad_horner(x, n);
        check(|v| horner(v[0], n), &[g], &[jvp_horner(x, n, 1.0).1], &[x]);
    }
}

#[test]
fn straight_line_writes_and_arrays() {
    for (x, y) in [(0.7, 1.3), (-2.0, 0.4)] {
        let (gx, gy) = grad_shuffle(x, y);
        let units = [jvp_shuffle(x, y, 1.0, 0.0).1, jvp_shuffle(x, y, 0.0, 1.0).1];
        check(|v| shuffle(v[0], v[1]), &[gx, gy], &units, &[x, y]);
    }
}

#[test]
fn writes_inside_if_arms() {
    for (a, b, n) in [(0.4, 1.0, 7), (-0.3, 0.2, 9), (1.1, -0.5, 5)] {
        let (ga, gb) = grad_piecewise_writes(a, b, n);
        let units = [
            jvp_piecewise_writes(a, b, n, 1.0, 0.0).1,
            jvp_piecewise_writes(a, b, n, 0.0, 1.0).1,
        ];
        check(
            |v| piecewise_writes(v[0], v[1], n),
            &[ga, gb],
            &units,
            &[a, b],
        );
    }
    // Both arms, against the derivatives by hand: x > y gives v = [xy, xy + y], f = xy(xy + y).
    let (x, y) = (2.0, 0.5);
    let (gx, gy) = grad_branch_writes(x, y);
    assert!(
        close(gx, 2.0 * x * y * y + y * y, 1e-12)
            && close(gy, 2.0 * x * x * y + 2.0 * x * y, 1e-12)
    );
    // x ≤ y gives v = [1, x − y], f = x − y.
    assert_eq!(grad_branch_writes(0.5, 2.0), (1.0, -1.0));
    for (x, y) in [(2.0, 0.5), (0.5, 2.0), (-1.0, -3.0)] {
        let (gx, gy) = grad_branch_writes(x, y);
        let units = [
            jvp_branch_writes(x, y, 1.0, 0.0).1,
            jvp_branch_writes(x, y, 0.0, 1.0).1,
        ];
        check(|v| branch_writes(v[0], v[1]), &[gx, gy], &units, &[x, y]);
    }
}

/// Running sums of squares written into a vector; the running sum itself is not read after the
/// loop. out[i] = Σ_{j ≤ i} x_j², so Σ_i w_i·out[i] has ∂/∂x_j = 2x_j·Σ_{i ≥ j} w_i.
#[autodiff]
#[allow(clippy::needless_range_loop)] // index writes are what this tests
fn weighted_prefix_sums(x: &[f64]) -> f64 {
    let mut out = vec![0.0; x.len()];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
        out[i] = s;
    }
    let mut total = 0.0;
    for i in 0..x.len() {
        total += (i + 1) as f64 * out[i];
    }
    total
}

#[test]
fn a_running_value_read_only_through_a_vector() {
    for x in [
        vec![1.0, 2.0],
        vec![1.0, -2.0, 0.5],
        vec![0.3, 0.1, -0.7, 2.0],
    ] {
        let n = x.len();
        let g = grad_weighted_prefix_sums(&x);
        let exact: Vec<f64> = (0..n)
            .map(|j| 2.0 * x[j] * (j + 1..=n).map(|w| w as f64).sum::<f64>())
            .collect();
        for (a, b) in g.iter().zip(&exact) {
            assert!(close(*a, *b, 1e-12), "{g:?} vs {exact:?}");
        }
        let units: Vec<f64> = (0..n)
            .map(|j| {
                let mut e = vec![0.0; n];
                e[j] = 1.0;
                jvp_weighted_prefix_sums(&x, &e).1
            })
            .collect();
        check(weighted_prefix_sums, &g, &units, &x);
    }
}

/// A state array replaced whole in each step of a loop (`s = [..]`), as integrators write it.
#[autodiff(order = 2)]
fn oscillator(x0: f64, v0: f64, k: f64) -> f64 {
    let mut s = [x0, v0];
    let h = 0.01;
    for _ in 0..200 {
        s = [s[0] + h * s[1], s[1] - h * k * s[0]];
    }
    s[0] * s[0] + s[1]
}

#[test]
fn arrays_replaced_whole_in_a_loop() {
    for p in [[1.0, 0.5, 4.0], [-0.3, 1.2, 0.7]] {
        let g = grad_oscillator(p[0], p[1], p[2]);
        let fd = central_difference(|v| oscillator(v[0], v[1], v[2]), &p);
        for (a, b) in [g.0, g.1, g.2].iter().zip(&fd) {
            assert!(close(*a, *b, 1e-6), "{a} vs {b}");
        }
        let (_, d) = jvp_oscillator(p[0], p[1], p[2], 0.0, 0.0, 1.0);
        assert!(close(d, g.2, 1e-12), "jvp {d} vs grad {}", g.2);
        let h = hessian_oscillator(p[0], p[1], p[2]);
        let row = central_difference(|v| grad_oscillator(v[0], v[1], v[2]).0, &p);
        for j in 0..3 {
            assert!(close(h[0][j], row[j], 1e-5), "H[0][{j}]");
        }
    }
}

/// An early `return` of an array: each branch's Jacobian.
#[autodiff]
fn clipped(r: f64, t: f64) -> [f64; 2] {
    if r < 0.0 {
        return [0.0, t];
    }
    [r * t.cos(), r * t.sin()]
}

#[test]
fn early_return_of_an_array() {
    assert_eq!(
        jacobian_clipped(-1.0, 0.5),
        vec![vec![0.0, 0.0], vec![0.0, 1.0]]
    );
    let j = jacobian_clipped(2.0, 0.5);
    assert!(close(j[0][0], 0.5f64.cos(), 1e-15) && close(j[1][1], 2.0 * 0.5f64.cos(), 1e-15));
}

/// A call indexed where it is made.
#[autodiff]
fn speed(x: f64, k: f64) -> f64 {
    loop_functions::pendulum([x, 2.0 * x], k)[1] * loop_functions::pendulum([x, x], k)[0]
}

#[test]
fn calls_returning_arrays_in_a_loop() {
    for p in [[1.0, 0.5, 4.0], [-0.4, 1.1, 2.5]] {
        let g = grad_rk4(p[0], p[1], p[2]);
        let fd = central_difference(|v| rk4(v[0], v[1], v[2]), &p);
        for (a, b) in [g.0, g.1, g.2].iter().zip(&fd) {
            assert!(close(*a, *b, 1e-6), "{a} vs {b}");
        }
        for (i, t) in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            .iter()
            .enumerate()
        {
            let (_, d) = jvp_rk4(p[0], p[1], p[2], t[0], t[1], t[2]);
            assert!(close(d, [g.0, g.1, g.2][i], 1e-10), "jvp {i}");
        }
    }
    let (x, k) = (0.7, 3.0);
    let (gx, gk) = grad_speed(x, k);
    // −k sin(x) · x: ∂x = −k (cos x · x + sin x), ∂k = −sin(x) · x.
    assert!(close(gx, -k * (x.cos() * x + x.sin()), 1e-14));
    assert!(close(gk, -x.sin() * x, 1e-14));
}

/// A `Vec` replaced whole by `vec![…]` inside a loop, as integrators write a state.
#[autodiff]
fn vec_state(x: &[f64]) -> f64 {
    let mut v = vec![0.0; x.len()];
    for k in 0..3 {
        v = vec![v[0] + x[0] * k as f64, v[1] * 0.5 + x[1] * v[0].sin()];
    }
    v[0] * v[1]
}

/// The same with a `Vec` of another length: the replacement cannot be followed element by element.
#[autodiff]
fn vec_state_resized(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 3];
    for _ in 0..2 {
        v = vec![v[0] + x[0], v[1] * x[1]];
    }
    v[0]
}

#[test]
fn vec_replaced_whole_in_a_loop() {
    for x in [[1.5, 2.0], [-0.5, 0.75]] {
        let g = grad_vec_state(&x);
        let fd = central_difference(vec_state, &x);
        for i in 0..2 {
            assert!(close(g[i], fd[i], 1e-7), "{g:?} vs {fd:?}");
        }
        let (_, t) = jvp_vec_state(&x, &[1.0, -1.0]);
        assert!(close(t, g[0] - g[1], 1e-12));
    }
    let err = std::panic::catch_unwind(|| grad_vec_state_resized(&[1.0, 2.0])).unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("keeps its length here (3 elements replaced by 2)"),
        "{msg}"
    );
    assert!(std::panic::catch_unwind(|| vec_state_resized(&[1.0, 2.0])).is_ok());
}

/// A local array of arrays from a literal: a 2×2 determinant.
#[autodiff]
fn local_matrix(x: f64, y: f64) -> f64 {
    let m = [[x, y], [y * x, 2.0]];
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

/// A local array of arrays of zeros, written and read in loops bounded by its lengths.
#[autodiff]
fn local_gram(x: &[f64]) -> f64 {
    let mut m: [[f64; 3]; 3] = [[0.0; 3]; 3];
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            m[i][j] = x[i] * x[j] + if i == j { 1.0 } else { 0.0 };
        }
    }
    let mut s = 0.0;
    for i in 0..3 {
        s += m[i][(i + 1) % 3] * m[i][i].sin();
    }
    s
}

#[test]
fn local_arrays_of_arrays() {
    assert_eq!(grad_local_matrix(1.5, 2.0), (2.0 - 4.0, -2.0 * 1.5 * 2.0));
    for x in [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]] {
        let g = grad_local_gram(&x);
        let fd = central_difference(local_gram, &x);
        for i in 0..3 {
            assert!(close(g[i], fd[i], 1e-7), "{g:?} vs {fd:?}");
        }
        let (_, t) = jvp_local_gram(&x, &[1.0, 0.0, -1.0]);
        assert!(close(t, g[0] - g[2], 1e-12));
    }
}

/// A function returning a `Vec`.
#[autodiff]
fn scaled_squares(x: &[f64], a: f64) -> Vec<f64> {
    let mut v = vec![0.0; x.len()];
    for i in 0..x.len() {
        v[i] = a * x[i] * x[i];
    }
    v
}

/// Calls returning `Vec`s: indexed inline, bound in a loop, read in arms, passed on to a call.
#[autodiff]
fn calls_returning_vecs(x: &[f64], a: f64) -> f64 {
    let mut s = scaled_squares(x, a)[1];
    for k in 0..3 {
        let v = scaled_squares(x, a * k as f64);
        if v[0] > 0.1 {
            s += v[0] * v[2].sin();
        } else {
            let w = scaled_squares(&v, 0.5);
            s -= w[1];
        }
    }
    s
}

#[test]
fn calls_returning_vecs_in_both_modes() {
    for (x, a) in [([0.5, 1.0, -2.0], 0.7), ([1.5, -0.25, 0.75], -1.3)] {
        let (gx, ga) = grad_calls_returning_vecs(&x, a);
        let fd = central_difference(
            |v| calls_returning_vecs(&v[..3], v[3]),
            &[x[0], x[1], x[2], a],
        );
        for i in 0..3 {
            assert!(close(gx[i], fd[i], 1e-7), "{gx:?} vs {fd:?}");
        }
        assert!(close(ga, fd[3], 1e-7));
        let (_, t) = jvp_calls_returning_vecs(&x, a, &[1.0, 0.0, -1.0], 0.5);
        assert!(close(t, gx[0] - gx[2] + 0.5 * ga, 1e-12));
    }
}

/// `Vec`s grown by `push`: in a loop, in an `if` arm, a vector made anew in each iteration, one
/// whose pushed elements are written again, and a result built by pushes. Reverse mode undoes each
/// push on the way back and takes the pushed element's adjoint off the end of the vector's.
#[autodiff(order = 2)]
#[allow(clippy::needless_range_loop, clippy::vec_init_then_push)]
fn pushed(x: f64, y: f64, n: usize) -> f64 {
    let mut v = Vec::new();
    for i in 0..n {
        v.push(x * (i as f64) + y);
        if v[i] > 1.0 {
            v.push(v[i].sin());
        }
    }
    v[0] += y * x;
    let mut s = 0.0;
    for i in 0..v.len() {
        let mut row = Vec::with_capacity(2);
        row.push(v[i] * y);
        row.push(v[i].exp());
        s += row[0] * row[1];
    }
    s
}

/// A push at top level whose value is also read another way: its adjoint is popped, then added to
/// (tester finding s7474-f288: the popped adjoint was not mutable).
#[autodiff(order = 2)]
fn pushed_once(x: f64, n: usize) -> f64 {
    let mut v = vec![(1.0 + x * x).ln(), x];
    v.push(x * x);
    v[v.len() - 1] + v[n % 2] * x
}

/// A vector-valued function whose result is built by pushes.
#[autodiff]
fn powers(x: f64, n: usize) -> Vec<f64> {
    let mut out = vec![];
    let mut p = 1.0;
    for _ in 0..n {
        p *= x;
        out.push(p);
    }
    out
}

#[test]
fn vectors_grown_by_push() {
    for (x, y, n) in [(0.35, 0.6, 4), (-0.8, 1.15, 6), (1.4, -0.2, 3)] {
        let (gx, gy) = grad_pushed(x, y, n);
        let fd = central_difference(|v| pushed(v[0], v[1], n), &[x, y]);
        assert!(
            close(gx, fd[0], 1e-6) && close(gy, fd[1], 1e-6),
            "{gx} {gy} vs {fd:?}"
        );
        let (value, t) = jvp_pushed(x, y, n, 1.0, -0.5);
        assert_eq!(value, pushed(x, y, n));
        assert!(close(t, gx - 0.5 * gy, 1e-12), "{t}");
        // Second order: the Hessian-vector product against differences of the gradient.
        let h = 1e-5;
        let (a, b) = (grad_pushed(x + h, y, n), grad_pushed(x - h, y, n));
        let hv = hvp_pushed(x, y, n, 1.0, 0.0);
        assert!(close(hv.0, (a.0 - b.0) / (2.0 * h), 1e-5), "{hv:?}");
        assert!(close(hv.1, (a.1 - b.1) / (2.0 * h), 1e-5), "{hv:?}");
    }
    // x² + x·x (n odd) or x² + x·ln(1 + x²) (n even).
    for (x, n) in [(0.5_f64, 3), (0.5, 2), (-1.5, 1)] {
        let analytic = match n % 2 {
            1 => 4.0 * x,
            _ => 2.0 * x + (1.0 + x * x).ln() + 2.0 * x * x / (1.0 + x * x),
        };
        assert!(close(grad_pushed_once(x, n), analytic, 1e-12));
        assert!(close(jvp_pushed_once(x, n, 1.0).1, analytic, 1e-12));
        let h = 1e-5;
        let second = (grad_pushed_once(x + h, n) - grad_pushed_once(x - h, n)) / (2.0 * h);
        assert!(close(hvp_pushed_once(x, n, 1.0), second, 1e-6));
    }
    // The pushed result: element k is x^(k+1), its derivative (k+1)·x^k.
    let x = 0.9;
    let ct = [1.0, -2.0, 0.5];
    let g = vjp_powers(x, 3, ct.to_vec());
    let analytic: f64 = (0..3)
        .map(|k| ct[k] * (k as f64 + 1.0) * x.powi(k as i32))
        .sum();
    assert!(close(g, analytic, 1e-12), "{g} vs {analytic}");
    let (value, tangent) = jvp_powers(x, 3, 1.0);
    assert_eq!(value, powers(x, 3));
    assert!(close(tangent[2], 3.0 * x * x, 1e-12));
}

#[cfg(feature = "explain")]
#[test]
fn explain_follows_pushes() {
    let (x, y, n) = (0.35, 0.6, 4);
    let trace = explain_pushed(x, y, n, 1.0, 0.0);
    let (gx, gy) = grad_pushed(x, y, n);
    assert!(close(trace.adjoint("x").unwrap(), gx, 1e-12), "{trace}");
    assert!(close(trace.adjoint("y").unwrap(), gy, 1e-12), "{trace}");
}

/// The right-hand side of cmpad's ODE, f(y)₀ = x₀, f(y)ᵢ = xᵢ yᵢ₋₁.
#[autodiff]
fn ode_rhs(x: &[f64], y: &[f64]) -> Vec<f64> {
    let mut dy = vec![0.0; x.len()];
    dy[0] = x[0];
    for i in 1..x.len() {
        dy[i] = x[i] * y[i - 1];
    }
    dy
}

/// `y + c·k`.
#[autodiff]
fn ode_along(y: &[f64], c: f64, k: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; y.len()];
    for i in 0..y.len() {
        out[i] = y[i] + c * k[i];
    }
    out
}

/// Runge–Kutta steps through the two helpers: each call's `Vec` passed on by reference, as a
/// bound name (`&k1`) and as a call itself (`&ode_along(…)`), never indexed before (the caller
/// took such a result for a number and passed it by value, a type error in the generated code).
#[autodiff]
fn ode_last(x: &[f64], s: usize) -> f64 {
    let h = 2.0 / (s as f64);
    let mut y = vec![0.0; x.len()];
    for _ in 0..s {
        let k1 = ode_rhs(x, &y);
        let k2 = ode_rhs(x, &ode_along(&y, h / 2.0, &k1));
        let k3 = ode_rhs(x, &ode_along(&y, h / 2.0, &k2));
        let k4 = ode_rhs(x, &ode_along(&y, h, &k3));
        for i in 0..x.len() {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y[x.len() - 1]
}

#[test]
fn vectors_of_calls_passed_on_by_reference() {
    let x = [0.7, -0.4, 1.3, 0.9];
    let g = grad_ode_last(&x, 5);
    let fd = central_difference(|v| ode_last(v, 5), &x);
    for i in 0..4 {
        assert!(
            (g[i] - fd[i]).abs() < 1e-7 * fd[i].abs().max(1.0),
            "∂{i}: {} vs {}",
            g[i],
            fd[i]
        );
    }
    let (_, t) = jvp_ode_last(&x, 5, &[0.0, 0.0, 1.0, 0.0]);
    assert!((t - g[2]).abs() < 1e-12);
}

// A block whose value is a local vector that the block names in code kept as written (a loop's
// range or condition, an `if`'s condition, an index computed from its length): the vector keeps
// the block's name for it. Each is `k s₀² + …` of `(src, k)`, against the gradient by hand.

/// Read in a `while` condition, an `if` condition and an index from its length:
/// `k s₀² + k s₁² (k² s₂² + k)`.
#[autodiff(order = 2)]
#[allow(clippy::needless_range_loop)]
fn block_read_by_length(src: &[f64; 3], k: f64) -> f64 {
    let arr = {
        let mut out = *src;
        let mut i = 0;
        while i < out.len() {
            out[i] = k * src[i] * src[i];
            i += 1;
        }
        if out.len() > 2 {
            out[2] *= k;
        }
        let last = out.len() - 1;
        out[last] += k;
        out
    };
    arr[0] + arr[1] * arr[2]
}

/// A `Vec` copied from the array, summed by `out.iter()` into its first element:
/// `k (s₀² + s₁² + s₂²) + k² s₁² s₂²`.
#[autodiff(order = 2)]
#[allow(clippy::needless_range_loop)]
fn block_vec_iterated(src: &[f64; 3], k: f64) -> f64 {
    let arr = {
        let mut out = src.to_vec();
        for i in 0..out.len() {
            out[i] = k * src[i] * src[i];
        }
        let mut total = 0.0;
        for x in out.iter() {
            total += x;
        }
        out[0] = total;
        out
    };
    arr[0] + arr[1] * arr[2]
}

/// Nested blocks, the inner one's vector copied and written again: with `aᵢ = k sᵢ² + k`,
/// `a₀ + a₁ a₂`.
#[autodiff(order = 2)]
#[allow(clippy::needless_range_loop)]
fn block_nested(src: &[f64; 3], k: f64) -> f64 {
    let arr = {
        let inner = {
            let mut out = *src;
            for i in 0..out.len() {
                out[i] = k * src[i] * src[i];
            }
            out
        };
        let mut shifted = inner;
        for j in 0..shifted.len() {
            shifted[j] += k;
        }
        shifted
    };
    arr[0] + arr[1] * arr[2]
}

/// The block as the function's tail: `k s₀² + k² s₁² s₂²`.
#[autodiff(order = 2)]
#[allow(clippy::needless_range_loop)]
fn block_as_tail(src: &[f64; 3], k: f64) -> f64 {
    {
        let mut out = *src;
        for i in 0..out.len() {
            out[i] = k * src[i] * src[i];
        }
        out[0] + out[1] * out[2]
    }
}

type SrcGrad = fn(&[f64; 3], f64) -> ([f64; 3], f64);
type SrcJvp = fn(&[f64; 3], f64, &[f64; 3], f64) -> (f64, f64);

/// `grad` against `by_hand` and central differences of `f`, `jvp` against `grad` along each unit
/// vector, and `hessian` against differences of `grad`, at `p = (s₀, s₁, s₂, k)`.
fn check_block(
    f: fn(&[f64; 3], f64) -> f64,
    grad: SrcGrad,
    jvp: SrcJvp,
    hessian: fn(&[f64; 3], f64) -> Vec<Vec<f64>>,
    by_hand: [f64; 4],
    p: [f64; 4],
) {
    let (src, k) = ([p[0], p[1], p[2]], p[3]);
    let flat = |(gs, gk): ([f64; 3], f64)| vec![gs[0], gs[1], gs[2], gk];
    let g = flat(grad(&src, k));
    let units: Vec<f64> = (0..4)
        .map(|i| {
            let e = |j: usize| f64::from(u8::from(i == j));
            jvp(&src, k, &[e(0), e(1), e(2)], e(3)).1
        })
        .collect();
    for i in 0..4 {
        assert!(
            close(g[i], by_hand[i], 1e-12),
            "∂{i} at {p:?}: {} vs by hand {}",
            g[i],
            by_hand[i]
        );
    }
    check(|v| f(&[v[0], v[1], v[2]], v[3]), &g, &units, &p);
    let grad_at = |v: &[f64]| flat(grad(&[v[0], v[1], v[2]], v[3]));
    crate::common::check_hessian(&hessian(&src, k), grad_at, &p);
}

#[test]
fn block_valued_vectors_named_in_kept_code() {
    for p in [
        [0.7, -1.3, 2.1, 1.5],
        [1.0, 0.5, -0.25, -2.0],
        [-0.4, 2.0, 1.2, 0.3],
    ] {
        let [s0, s1, s2, k] = p;
        let a2 = k * k * s2 * s2 + k;
        let by_length = [
            2.0 * k * s0,
            2.0 * k * s1 * a2,
            2.0 * k * k * k * s1 * s1 * s2,
            s0 * s0 + s1 * s1 * a2 + k * s1 * s1 * (2.0 * k * s2 * s2 + 1.0),
        ];
        let (f, g, j, h) = (
            block_read_by_length,
            grad_block_read_by_length,
            jvp_block_read_by_length,
            hessian_block_read_by_length,
        );
        check_block(f, g, j, h, by_length, p);
        let iterated = [
            2.0 * k * s0,
            2.0 * k * s1 + 2.0 * k * k * s1 * s2 * s2,
            2.0 * k * s2 + 2.0 * k * k * s1 * s1 * s2,
            s0 * s0 + s1 * s1 + s2 * s2 + 2.0 * k * s1 * s1 * s2 * s2,
        ];
        let (f, g, j, h) = (
            block_vec_iterated,
            grad_block_vec_iterated,
            jvp_block_vec_iterated,
            hessian_block_vec_iterated,
        );
        check_block(f, g, j, h, iterated, p);
        let a = [k * s0 * s0 + k, k * s1 * s1 + k, k * s2 * s2 + k];
        let nested = [
            2.0 * k * s0,
            2.0 * k * s1 * a[2],
            2.0 * k * s2 * a[1],
            s0 * s0 + 1.0 + (s1 * s1 + 1.0) * a[2] + a[1] * (s2 * s2 + 1.0),
        ];
        let (f, g, j, h) = (
            block_nested,
            grad_block_nested,
            jvp_block_nested,
            hessian_block_nested,
        );
        check_block(f, g, j, h, nested, p);
        let tail = [
            2.0 * k * s0,
            2.0 * k * k * s1 * s2 * s2,
            2.0 * k * k * s1 * s1 * s2,
            s0 * s0 + 2.0 * k * s1 * s1 * s2 * s2,
        ];
        let (f, g, j, h) = (
            block_as_tail,
            grad_block_as_tail,
            jvp_block_as_tail,
            hessian_block_as_tail,
        );
        check_block(f, g, j, h, tail, p);
    }
}
