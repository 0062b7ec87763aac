//! Second order, for functions of scalars with straight-line code and branches: `hvp_` (forward
//! mode over the reverse program) and `hessian_`, against analytic Hessians, central differences
//! of `grad_`, and each other.

use diffx::autodiff;
use diffx::check::central_difference;

#[autodiff(order = 2)]
fn rosenbrock(x: f64, y: f64) -> f64 {
    let a = 1.0 - x;
    let b = y - x * x;
    a * a + 100.0 * b * b
}

/// ∇²f = [[2 − 400(y − x²) + 800x², −400x], [−400x, 200]].
fn rosenbrock_hessian(x: f64, y: f64) -> [[f64; 2]; 2] {
    [
        [2.0 - 400.0 * (y - x * x) + 800.0 * x * x, -400.0 * x],
        [-400.0 * x, 200.0],
    ]
}

#[test]
fn rosenbrock_hessian_at_the_minimum_and_elsewhere() {
    assert_eq!(
        hessian_rosenbrock(1.0, 1.0),
        vec![vec![802.0, -400.0], vec![-400.0, 200.0]]
    );
    for (x, y) in [(-1.2, 1.0), (0.3, -0.7), (2.0, 3.5)] {
        let h = hessian_rosenbrock(x, y);
        let want = rosenbrock_hessian(x, y);
        for i in 0..2 {
            for j in 0..2 {
                assert!(
                    (h[i][j] - want[i][j]).abs() < 1e-9 * want[i][j].abs().max(1.0),
                    "{h:?} vs {want:?}"
                );
            }
        }
    }
}

/// A function with transcendental pieces, a constant parameter and a branch.
#[autodiff(order = 2)]
fn mixed(x: f64, y: f64, k: u32) -> f64 {
    let s = (x * y).sin() + x.exp() * y.powi(2);
    if s > 0.0 {
        s * s.tanh() + (k as f64) * x.ln_1p()
    } else {
        s.powi(3) - y.sqrt()
    }
}

#[test]
fn hessians_match_finite_differences_of_the_gradient() {
    for (x, y) in [(0.4, 1.3), (0.2, 0.3), (1.1, 0.6)] {
        let h = hessian_mixed(x, y, 3);
        // Row i of the Hessian: the derivative of the gradient along eᵢ.
        for (i, row) in h.iter().enumerate() {
            let column = |j: usize| {
                central_difference(
                    |v| {
                        let g = grad_mixed(v[0], v[1], 3);
                        [g.0, g.1][j]
                    },
                    &[x, y],
                )[i]
            };
            for (j, hij) in row.iter().enumerate() {
                assert!(
                    (hij - column(j)).abs() < 1e-6 * hij.abs().max(1.0),
                    "H[{i}][{j}] at ({x}, {y}): {hij} vs {}",
                    column(j)
                );
            }
        }
        assert!(
            (h[0][1] - h[1][0]).abs() < 1e-12 * h[0][1].abs().max(1.0),
            "symmetric"
        );
    }
}

#[test]
fn hvp_is_the_hessian_times_the_direction() {
    for (x, y, v) in [(0.4, 1.3, [1.0, -2.0]), (1.1, 0.6, [0.3, 0.7])] {
        let h = hessian_mixed(x, y, 2);
        let (a, b) = hvp_mixed(x, y, 2, v[0], v[1]);
        let want = [
            h[0][0] * v[0] + h[0][1] * v[1],
            h[1][0] * v[0] + h[1][1] * v[1],
        ];
        assert!((a - want[0]).abs() < 1e-12 * want[0].abs().max(1.0));
        assert!((b - want[1]).abs() < 1e-12 * want[1].abs().max(1.0));
    }
}

/// One parameter: a bare second derivative.
#[autodiff(order = 2)]
fn cubic(x: f64) -> f64 {
    x * x * x - 2.0 * x
}

#[test]
fn one_parameter_second_derivative() {
    assert_eq!(hessian_cubic(2.0), vec![vec![12.0]]);
    assert_eq!(hvp_cubic(2.0, 0.5), 6.0);
}

#[test]
fn newton_reaches_the_rosenbrock_minimum_in_under_30_steps() {
    let mut p = [-1.2, 1.0];
    let mut steps = 0;
    while steps < 30 {
        let (gx, gy) = grad_rosenbrock(p[0], p[1]);
        if gx.hypot(gy) < 1e-12 {
            break;
        }
        let h = hessian_rosenbrock(p[0], p[1]);
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        p = [
            p[0] + (-gx * h[1][1] + gy * h[0][1]) / det,
            p[1] + (gx * h[1][0] - gy * h[0][0]) / det,
        ];
        steps += 1;
    }
    assert!(steps < 30, "{steps} steps");
    assert!(
        (p[0] - 1.0).abs() < 1e-10 && (p[1] - 1.0).abs() < 1e-10,
        "{p:?}"
    );
}

/// Extended Rosenbrock over a slice: loops and slices under `hvp_`.
#[autodiff(order = 2)]
fn chained(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

/// Its Hessian times v, by hand: tridiagonal.
fn chained_hvp_by_hand(x: &[f64], v: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut hv = vec![0.0; n];
    for i in 0..n - 1 {
        // f_i = 100(x_{i+1} − xᵢ²)² + (1 − xᵢ)²: ∂²/∂xᵢ² = 1200xᵢ² − 400x_{i+1} + 2, ∂²/∂xᵢ∂x_{i+1} = −400xᵢ,
        // ∂²/∂x_{i+1}² = 200.
        let (hii, hij, hjj) = (
            1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0,
            -400.0 * x[i],
            200.0,
        );
        hv[i] += hii * v[i] + hij * v[i + 1];
        hv[i + 1] += hij * v[i] + hjj * v[i + 1];
    }
    hv
}

#[test]
fn hvp_through_loops_and_slices() {
    for n in [2, 5, 50] {
        let x: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.7).sin()).collect();
        let v: Vec<f64> = (0..n).map(|i| ((i as f64) * 1.3).cos()).collect();
        let hv = hvp_chained(&x, &v);
        let want = chained_hvp_by_hand(&x, &v);
        for i in 0..n {
            assert!(
                (hv[i] - want[i]).abs() < 1e-9 * want[i].abs().max(1.0),
                "n = {n}, {i}: {} vs {}",
                hv[i],
                want[i]
            );
        }
    }
}

/// The Newton–CG of `examples/newton.rs` (Hessian-vector products from `hvp_` inside conjugate
/// gradients) on the extended Rosenbrock with n = 100.
#[allow(dead_code)]
#[path = "../../examples/newton.rs"]
mod newton;

#[test]
fn newton_cg_with_hvp_reaches_the_minimum_in_under_30_steps() {
    let mut x: Vec<f64> = (0..100)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    let steps = newton::newton_cg(&mut x, false);
    assert!(steps < 30, "{steps} steps");
    assert!(x.iter().all(|v| (v - 1.0).abs() < 1e-10), "{:?}", &x[..4]);
}

/// A scalar and a slice: the Hessian over (s, x₀, x₁, …).
#[autodiff(order = 2)]
fn scaled_norm(s: f64, x: &[f64]) -> f64 {
    let mut q = 0.0;
    for &xi in x {
        q += xi * xi;
    }
    s * s * q
}

#[test]
fn hessian_over_a_scalar_and_a_slice_is_flattened_in_parameter_order() {
    let (s, x) = (1.5, [0.5, -2.0]);
    let h = hessian_scaled_norm(s, &x);
    // f = s²·Σxᵢ²: ∂²/∂s² = 2Σxᵢ², ∂²/∂s∂xᵢ = 4s·xᵢ, ∂²/∂xᵢ∂xⱼ = 2s²δᵢⱼ.
    let q: f64 = x.iter().map(|v| v * v).sum();
    let want = [
        [2.0 * q, 4.0 * s * x[0], 4.0 * s * x[1]],
        [4.0 * s * x[0], 2.0 * s * s, 0.0],
        [4.0 * s * x[1], 0.0, 2.0 * s * s],
    ];
    assert_eq!(h.len(), 3);
    for i in 0..3 {
        for j in 0..3 {
            assert!((h[i][j] - want[i][j]).abs() < 1e-12, "{h:?}");
        }
    }
}

use crate::vector_writes;
use vector_writes::*;

#[test]
#[allow(clippy::needless_range_loop)]
fn hessian_through_vector_writes() {
    for x in [[1.0, -2.0, 0.5], [0.3, 0.8, -0.4], [-1.0, -0.2, 1.5]] {
        let h = hessian_written(&x);
        for i in 0..3 {
            let column = central_difference(|v| grad_written(v)[i], &x);
            for j in 0..3 {
                assert!(
                    (h[i][j] - column[j]).abs() < 1e-6 * h[i][j].abs().max(1.0),
                    "H[{i}][{j}] at {x:?}: {} vs {}",
                    h[i][j],
                    column[j]
                );
                assert!((h[i][j] - h[j][i]).abs() < 1e-12 * h[i][j].abs().max(1.0));
            }
        }
        let v = [0.5, -1.0, 2.0];
        let hv = hvp_written(&x, &v);
        for i in 0..3 {
            let want: f64 = (0..3).map(|j| h[i][j] * v[j]).sum();
            assert!((hv[i] - want).abs() < 1e-12 * want.abs().max(1.0));
        }
    }
}
