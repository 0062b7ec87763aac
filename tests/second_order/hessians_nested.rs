//! Second order for tuples and nested containers of numbers as parameters (`(f64, [f64; 2])`,
//! `&[[f64; 2]]`, `&[Vec<f64>]`, `[[f64; 3]; 3]`, `Vec<[f64; 2]>`): `hessian_` over their numbers
//! in visiting order (`diffx::Params`), against analytic Hessians, central differences of
//! `grad_`, its own symmetry and `hvp_`; `dhvp_` against central differences of `hvp_`.

use diffx::autodiff;
use diffx::Params;

use crate::common;
use common::{check_hessian, close};

/// f((a, v), w) = a²·v₀ + sin(v₁)·w.
#[autodiff(order = 3)]
fn tupled(p: (f64, [f64; 2]), w: f64) -> f64 {
    let (a, v) = p;
    a * a * v[0] + v[1].sin() * w
}

#[test]
fn a_tuple_parameter() {
    for (a, v0, v1, w) in [(0.5, 1.5, -0.3, 0.7), (-1.2, 0.4, 2.0, -0.5)] {
        let h = hessian_tupled((a, [v0, v1]), w);
        // Over (a, v₀, v₁, w).
        let analytic = [
            [2.0 * v0, 2.0 * a, 0.0, 0.0],
            [2.0 * a, 0.0, 0.0, 0.0],
            [0.0, 0.0, -v1.sin() * w, v1.cos()],
            [0.0, 0.0, v1.cos(), 0.0],
        ];
        for i in 0..4 {
            for j in 0..4 {
                assert!(close(h[i][j], analytic[i][j], 1e-14), "H[{i}][{j}]");
            }
        }
        let grad = |x: &[f64]| {
            let ((ga, gv), gw) = grad_tupled((x[0], [x[1], x[2]]), x[3]);
            vec![ga, gv[0], gv[1], gw]
        };
        check_hessian(&h, grad, &[a, v0, v1, w]);
        // `hvp_` takes the direction in the parameters' shapes.
        let ((ha, hv), hw) = hvp_tupled((a, [v0, v1]), w, (0.0, [1.0, 0.0]), 1.0);
        let expected: Vec<f64> = (0..4).map(|i| h[i][1] + h[i][3]).collect();
        assert_eq!(vec![ha, hv[0], hv[1], hw], expected);
        // D³f[e_a, e_a, ·] = (0, 2, 0, 0); D³f[e_v₁, e_w, ·] = (0, 0, −sin v₁, 0).
        let u = ((1.0, [0.0, 0.0]), 0.0);
        let ((da, dv), dw) = dhvp_tupled((a, [v0, v1]), w, u.0, u.1, u.0, u.1);
        assert_eq!((da, dv, dw), (0.0, [2.0, 0.0], 0.0));
        let ((_, dv), _) = dhvp_tupled(
            (a, [v0, v1]),
            w,
            (0.0, [0.0, 1.0]),
            0.0,
            (0.0, [0.0, 0.0]),
            1.0,
        );
        assert!(close(dv[1], -v1.sin(), 1e-14));
    }
}

/// A polyline's bending energy: Σ ‖pᵢ − pᵢ₋₁‖³.
#[autodiff(order = 2)]
fn stretch(p: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for i in 1..p.len() {
        let dx = p[i][0] - p[i - 1][0];
        let dy = p[i][1] - p[i - 1][1];
        total += (dx * dx + dy * dy).powf(1.5);
    }
    total
}

/// Σ sin(v·w) over ragged rows.
#[autodiff(order = 2)]
fn ragged(rows: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in rows {
        for &v in row {
            s += (v * w).sin();
        }
    }
    s
}

/// A 3×3 determinant.
#[autodiff(order = 2)]
fn det3(m: [[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

/// Σ q₀·q₁² over owned points, through a chain.
#[autodiff(order = 2)]
fn moments(p: Vec<[f64; 2]>) -> f64 {
    p.iter().map(|q| q[0] * q[1] * q[1]).sum()
}

#[test]
fn nested_containers() {
    let points = vec![[0.0, 0.0], [3.0, 4.0], [3.0, 5.5], [-1.0, 2.5]];
    let h = hessian_stretch(&points);
    let unflat = |x: &[f64]| points.from_flat(x);
    check_hessian(
        &h,
        |x| grad_stretch(&unflat(x)).to_flat_vec(),
        &points.to_flat_vec(),
    );
    let dir = vec![[1.0, -0.5], [0.25, 0.0], [0.0, 2.0], [-1.0, 1.0]];
    let hv = hvp_stretch(&points, &dir).to_flat_vec();
    let flat_dir = dir.to_flat_vec();
    for (i, row) in h.iter().enumerate() {
        let expected: f64 = row.iter().zip(&flat_dir).map(|(a, b)| a * b).sum();
        assert!(close(hv[i], expected, 1e-12), "hvp[{i}]");
    }

    let rows = vec![vec![0.1, 0.2], vec![0.3], vec![-0.4, 0.5, 0.6]];
    let h = hessian_ragged(&rows, 0.5);
    let grad = |x: &[f64]| {
        let (g, gw) = grad_ragged(&rows.from_flat(&x[..6]), x[6]);
        let mut flat = g.to_flat_vec();
        flat.push(gw);
        flat
    };
    let mut x = rows.to_flat_vec();
    x.push(0.5);
    check_hessian(&h, grad, &x);

    let m = [[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.5]];
    let h = hessian_det3(m);
    check_hessian(
        &h,
        |x| grad_det3(m.from_flat(x)).to_flat_vec(),
        &m.to_flat_vec(),
    );
    // ∂²det/∂m₀₀∂m₁₁ = m₂₂.
    assert!(close(h[0][4], m[2][2], 1e-14));

    let p = vec![[1.0, 2.0], [0.5, -1.0]];
    let h = hessian_moments(p.clone());
    assert_eq!(
        h,
        vec![
            vec![0.0, 4.0, 0.0, 0.0],
            vec![4.0, 2.0, 0.0, 0.0],
            vec![0.0, 0.0, 0.0, -2.0],
            vec![0.0, 0.0, -2.0, 1.0]
        ]
    );
}

#[derive(Params, Clone, Debug)]
struct Line {
    slope: f64,
    intercept: f64,
}

#[derive(Params, Clone, Debug)]
struct Poly {
    c: Vec<f64>,
    scale: f64,
    inner: Line,
}

/// A polynomial (Horner, over a `Vec` field) scaled by a field, plus a nested struct's fields
/// through `sin`; `tanh` of a field read into a local (a value the macro cannot see the kind of,
/// which second order takes for a number: the tester's finding s9393-f59 gave it no second
/// derivative when it took the tensor row).
#[autodiff(order = 2, wrt(p))]
fn poly(p: &Poly, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..p.c.len() {
        s = s * x + p.c[i];
    }
    let t = p.inner.intercept;
    s * p.scale + (p.inner.slope * x).sin() * t + t.tanh()
}

#[test]
fn parameter_structs_of_numbers() {
    let p = Poly {
        c: vec![1.0, -0.5, 0.25],
        scale: 1.5,
        inner: Line {
            slope: 0.3,
            intercept: 2.0,
        },
    };
    for x in [0.7, -1.3] {
        let h = hessian_poly(&p, x);
        let grad = |v: &[f64]| grad_poly(&p.from_flat(v), x).to_flat_vec();
        check_hessian(&h, grad, &p.to_flat_vec());
        // ∂²/∂intercept² = tanh″(2) = −2 tanh(2)(1 − tanh²(2)).
        let t = 2.0f64.tanh();
        assert!(
            close(h[5][5], -2.0 * t * (1.0 - t * t), 1e-14),
            "{}",
            h[5][5]
        );
        let dir = p.from_flat(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
        let hv = hvp_poly(&p, x, &dir).to_flat_vec();
        for (i, row) in h.iter().enumerate() {
            assert!(close(hv[i], row[4] + row[5], 1e-12), "hvp[{i}]");
        }
    }
}
