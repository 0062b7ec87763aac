//! Checks shared by the gradient tests.

#![allow(dead_code)]

use diffx::check::{central_difference, derivative};

/// `|a − b| ≤ tol·max(1, |b|)`.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// `count` points of `len` coordinates, spread over about [−0.3, 0.3 + 0.1·count].
pub fn wavy_points(count: usize, len: usize) -> Vec<Vec<f64>> {
    (0..count)
        .map(|k| {
            (0..len)
                .map(|i| 0.3 * ((k * 7 + i * 3) as f64).sin() + 0.1 * k as f64)
                .collect()
        })
        .collect()
}

#[track_caller]
pub fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(close(a, b, tol), "{what}: {a} vs {b} (tol {tol:e})");
}

/// One variable: reverse mode against the analytic derivative and central differences; forward
/// mode with unit tangents equals the gradient; both are linear in the seed.
#[track_caller]
pub fn check_unary(
    x: f64,
    analytic: f64,
    f: fn(f64) -> f64,
    grad: fn(f64) -> f64,
    jvp: fn(f64, f64) -> (f64, f64),
    vjp: fn(f64, f64) -> f64,
) {
    let g = grad(x);
    assert_close(g, analytic, 1e-12, &format!("grad vs analytic at {x}"));
    assert_close(
        g,
        derivative(f, x),
        1e-6,
        &format!("grad vs finite differences at {x}"),
    );
    let (value, tangent) = jvp(x, 1.0);
    assert_eq!(value, f(x), "jvp value at {x}");
    assert_close(tangent, g, 1e-14, &format!("jvp vs grad at {x}"));
    assert_close(
        jvp(x, -2.5).1,
        -2.5 * g,
        1e-14,
        &format!("jvp linear at {x}"),
    );
    assert_close(vjp(x, 3.0), 3.0 * g, 1e-14, &format!("vjp linear at {x}"));
}

/// Two variables, as [`check_unary`].
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn check_binary(
    x: [f64; 2],
    analytic: [f64; 2],
    f: fn(f64, f64) -> f64,
    grad: fn(f64, f64) -> (f64, f64),
    jvp: fn(f64, f64, f64, f64) -> (f64, f64),
    vjp: fn(f64, f64, f64) -> (f64, f64),
) {
    let (ga, gb) = grad(x[0], x[1]);
    let fd = central_difference(|v| f(v[0], v[1]), &x);
    for (i, (g, a)) in [(ga, analytic[0]), (gb, analytic[1])]
        .into_iter()
        .enumerate()
    {
        assert_close(g, a, 1e-12, &format!("∂{i} vs analytic at {x:?}"));
        assert_close(
            g,
            fd[i],
            1e-6,
            &format!("∂{i} vs finite differences at {x:?}"),
        );
    }
    assert_eq!(jvp(x[0], x[1], 1.0, 0.0).0, f(x[0], x[1]));
    assert_close(jvp(x[0], x[1], 1.0, 0.0).1, ga, 1e-14, "jvp e0");
    assert_close(jvp(x[0], x[1], 0.0, 1.0).1, gb, 1e-14, "jvp e1");
    let (t, s) = (0.75, -1.5);
    assert_close(
        jvp(x[0], x[1], t, s).1,
        t * ga + s * gb,
        1e-13,
        "jvp along (t, s)",
    );
    let (va, vb) = vjp(x[0], x[1], -2.0);
    assert_close(va, -2.0 * ga, 1e-14, "vjp 0");
    assert_close(vb, -2.0 * gb, 1e-14, "vjp 1");
}

/// Checks `hessian` against central differences of `grad` at `p`, and its symmetry.
#[track_caller]
pub fn check_hessian(hessian: &[Vec<f64>], grad: impl Fn(&[f64]) -> Vec<f64>, p: &[f64]) {
    assert_eq!(hessian.len(), p.len(), "rows");
    for (i, row) in hessian.iter().enumerate() {
        let column = central_difference(|v| grad(v)[i], p);
        for (j, hij) in row.iter().enumerate() {
            assert!(
                close(*hij, column[j], 1e-6),
                "H[{i}][{j}] at {p:?}: {hij} vs {}",
                column[j]
            );
            assert!(close(*hij, hessian[j][i], 1e-12), "symmetric at [{i}][{j}]");
        }
    }
}
