//! Property tests: for a catalog of functions with straight-line code, branches, loops and slices,
//! at random points, reverse mode, forward mode and central finite differences agree.

use diffx::autodiff;
use diffx::check::central_difference;
use proptest::prelude::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[autodiff]
fn smooth(x: f64, y: f64) -> f64 {
    let u = (x * y).sin() + x.exp() / (1.0 + y * y);
    u * u.tanh() + (x - y).atan2(1.5) + x.hypot(y).ln_1p()
}

#[autodiff]
fn branchy(x: f64, y: f64) -> f64 {
    let mut s = x;
    if x > y {
        s = s * y + x.cos();
    } else if x < -1.0 {
        s = -(-s).sqrt().ln_1p();
    } else {
        s += y * y;
    }
    s * 0.5
}

#[autodiff]
fn iterated(x: f64, y: f64, n: u32) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..n {
        let t = 0.5 * (a * b).sin() + 0.1 * a;
        b = 0.9 * b + 0.1 * t;
        a = t;
    }
    a + b
}

#[autodiff]
fn chained(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        s += 100.0 * a * a + (1.0 - x[i]).powi(2);
    }
    s
}

/// Reverse against forward (unit tangents) and against central differences.
fn agree2(
    f: fn(f64, f64) -> f64,
    grad: (f64, f64),
    jvp: impl Fn(f64, f64) -> f64,
    p: [f64; 2],
) -> Result<(), TestCaseError> {
    let fd = central_difference(|v| f(v[0], v[1]), &p);
    let g = [grad.0, grad.1];
    for i in 0..2 {
        prop_assert!(
            close(g[i], fd[i], 1e-5),
            "∂{} reverse {} vs finite differences {}",
            i,
            g[i],
            fd[i]
        );
    }
    prop_assert!(
        close(jvp(1.0, 0.0), g[0], 1e-12),
        "forward ∂0 {} vs reverse {}",
        jvp(1.0, 0.0),
        g[0]
    );
    prop_assert!(
        close(jvp(0.0, 1.0), g[1], 1e-12),
        "forward ∂1 {} vs reverse {}",
        jvp(0.0, 1.0),
        g[1]
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn straight_line(x in -2.0..2.0f64, y in -2.0..2.0f64) {
        agree2(smooth, grad_smooth(x, y), |tx, ty| jvp_smooth(x, y, tx, ty).1, [x, y])?;
    }

    #[test]
    fn branches(x in -3.0..3.0f64, y in -3.0..3.0f64) {
        // Away from the switching lines, where finite differences would straddle two arms.
        prop_assume!((x - y).abs() > 1e-3 && (x + 1.0).abs() > 1e-3);
        agree2(branchy, grad_branchy(x, y), |tx, ty| jvp_branchy(x, y, tx, ty).1, [x, y])?;
    }

    #[test]
    fn loops(x in -1.5..1.5f64, y in -1.5..1.5f64, n in 0u32..40) {
        let f = |v: &[f64]| iterated(v[0], v[1], n);
        let fd = central_difference(f, &[x, y]);
        let g = grad_iterated(x, y, n);
        prop_assert!(close(g.0, fd[0], 1e-5) && close(g.1, fd[1], 1e-5), "{:?} vs {:?}", g, fd);
        prop_assert!(close(jvp_iterated(x, y, n, 1.0, 0.0).1, g.0, 1e-12));
        prop_assert!(close(jvp_iterated(x, y, n, 0.0, 1.0).1, g.1, 1e-12));
    }

    #[test]
    fn slices(x in prop::collection::vec(-1.5..1.5f64, 2..30)) {
        let fd = central_difference(chained, &x);
        let g = grad_chained(&x);
        for i in 0..x.len() {
            prop_assert!(close(g[i], fd[i], 1e-5), "∂{} {} vs {}", i, g[i], fd[i]);
        }
        let t: Vec<f64> = (0..x.len()).map(|i| if i % 2 == 0 { 1.0 } else { -0.5 }).collect();
        let dot: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
        prop_assert!(close(jvp_chained(&x, &t).1, dot, 1e-10));
    }
}
