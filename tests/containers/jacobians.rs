//! Vector-valued functions (`-> [f64; M]`, `-> Vec<f64>`): `jvp_` returns the output tangent,
//! `vjp_` takes an output cotangent, and `jacobian_` assembles the matrix from whichever passes
//! are fewer; checked against analytic Jacobians, finite differences and ⟨v, J·u⟩ = ⟨Jᵀ·v, u⟩.

use diffx::autodiff;
use diffx::check::central_difference;

/// Polar to Cartesian: (r, θ) ↦ (r cos θ, r sin θ).
#[autodiff]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

#[test]
fn polar_to_cartesian() {
    let (r, t): (f64, f64) = (2.0, 0.7);
    let j = jacobian_polar(r, t);
    let want = [[t.cos(), -r * t.sin()], [t.sin(), r * t.cos()]];
    for i in 0..2 {
        for k in 0..2 {
            assert!((j[i][k] - want[i][k]).abs() < 1e-15, "{j:?}");
        }
    }
    // Forward: J·(1, 0); reverse: (1, 0)·J.
    assert_eq!(jvp_polar(r, t, 1.0, 0.0).1, [t.cos(), t.sin()]);
    assert_eq!(vjp_polar(r, t, [1.0, 0.0]), (t.cos(), -r * t.sin()));
}

/// A map from 3 inputs to 2 outputs, as a `Vec`.
#[autodiff]
fn three_to_two(x: f64, y: f64, z: f64) -> Vec<f64> {
    let p = x * y;
    vec![p * z, x.sin() + z.exp() * y]
}

#[test]
fn three_to_two_against_finite_differences_and_duality() {
    let at = [0.3, -1.2, 0.8];
    let j = jacobian_three_to_two(at[0], at[1], at[2]);
    assert_eq!((j.len(), j[0].len()), (2, 3));
    for (i, row) in j.iter().enumerate() {
        let fd = central_difference(|v| three_to_two(v[0], v[1], v[2])[i], &at);
        for k in 0..3 {
            assert!(
                (row[k] - fd[k]).abs() < 1e-7,
                "J[{i}][{k}] = {} vs {}",
                row[k],
                fd[k]
            );
        }
    }
    // ⟨v, J·u⟩ = ⟨Jᵀ·v, u⟩.
    let (u, v) = ([0.5, -1.0, 2.0], vec![1.5, -0.25]);
    let ju = jvp_three_to_two(at[0], at[1], at[2], u[0], u[1], u[2]).1;
    let jtv = vjp_three_to_two(at[0], at[1], at[2], v.clone());
    let left: f64 = v.iter().zip(&ju).map(|(a, b)| a * b).sum();
    let right = jtv.0 * u[0] + jtv.1 * u[1] + jtv.2 * u[2];
    assert!((left - right).abs() < 1e-13, "{left} vs {right}");
}
