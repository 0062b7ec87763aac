//! Nested numeric containers as parameters (issue 14, item 2): `&[[F; N]]`, `Vec<[F; N]>`,
//! `[[F; N]; M]`, `Vec<Vec<F>>`, `&[Vec<F>]`, `&Vec<Vec<F>>`, read by `p[i][j]`, by iteration and
//! by `len()`. Gradients and tangents have the parameter's shape; both modes against hand
//! derivatives and central differences.

use diffx::autodiff;
use diffx::check::check_params;
use diffx::Params;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// The length of a polyline through the points.
#[autodiff]
fn length(p: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for i in 1..p.len() {
        let dx = p[i][0] - p[i - 1][0];
        let dy = p[i][1] - p[i - 1][1];
        total += (dx * dx + dy * dy).sqrt();
    }
    total
}

/// The length's gradient by hand: each point pulls on its two segments' unit vectors.
fn length_by_hand(p: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut g = vec![[0.0; 2]; p.len()];
    for i in 1..p.len() {
        let (dx, dy) = (p[i][0] - p[i - 1][0], p[i][1] - p[i - 1][1]);
        let l = (dx * dx + dy * dy).sqrt();
        g[i][0] += dx / l;
        g[i][1] += dy / l;
        g[i - 1][0] -= dx / l;
        g[i - 1][1] -= dy / l;
    }
    g
}

#[test]
fn polyline_length_over_a_slice_of_points() {
    let points = vec![[0.0, 0.0], [3.0, 4.0], [3.0, 5.0], [-1.0, 2.5]];
    let g = grad_length(&points);
    let hand = length_by_hand(&points);
    for (a, b) in g.iter().flatten().zip(hand.iter().flatten()) {
        assert!(close(*a, *b, 1e-14), "{g:?} vs {hand:?}");
    }
    check_params(|q: &Vec<[f64; 2]>| length(q), &points, &g).assert_close(1e-7);
    // Forward mode: the tangent has the points' shape, as a slice, a `Vec` or a reference.
    let dir = vec![[1.0, -0.5], [0.25, 0.0], [0.0, 2.0], [-1.0, 1.0]];
    let (v, t) = jvp_length(&points, &dir);
    assert!(close(v, length(&points), 1e-15));
    assert!(close(t, g.dot(&dir), 1e-12), "{t}");
    let (_, t2) = jvp_length(&points, &dir[..]);
    assert_eq!(t, t2);
}

/// xᵀAx with the matrix as rows, by index and `len()`.
#[autodiff]
#[allow(clippy::ptr_arg)] // `&Vec<Vec<f64>>` is one of the forms under test.
fn quadratic(a: &Vec<Vec<f64>>, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        for j in 0..a[i].len() {
            s += x[i] * a[i][j] * x[j];
        }
    }
    s
}

#[test]
#[allow(clippy::needless_range_loop)]
fn quadratic_form_over_rows() {
    let a = vec![
        vec![1.0, 2.0, 0.5],
        vec![3.0, 4.0, -1.0],
        vec![0.0, 1.5, 2.0],
    ];
    let x = [1.0, 2.0, -0.5];
    let (ga, gx) = grad_quadratic(&a, &x);
    for i in 0..3 {
        for j in 0..3 {
            assert!(close(ga[i][j], x[i] * x[j], 1e-15));
        }
        let hand: f64 = (0..3).map(|j| (a[i][j] + a[j][i]) * x[j]).sum();
        assert!(close(gx[i], hand, 1e-14));
    }
    check_params(|q: &Vec<Vec<f64>>| quadratic(q, &x), &a, &ga).assert_close(1e-7);
    let da = vec![vec![0.5; 3], vec![-1.0; 3], vec![0.0, 1.0, 2.0]];
    let (_, t) = jvp_quadratic(&a, &x, &da, &[0.0; 3]);
    assert!(close(t, ga.dot(&da), 1e-12));
}

/// A 3×3 determinant by cofactors, of an array of arrays taken by value.
#[autodiff]
fn det3(m: [[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

#[test]
#[allow(clippy::needless_range_loop)]
fn determinant_gradient_is_the_cofactor_matrix() {
    let m = [[2.0, 0.5, 1.0], [1.0, 3.0, -2.0], [0.25, 1.0, 4.0]];
    let g = grad_det3(m);
    let d = det3(m);
    // ∂det/∂m = det · m⁻ᵀ: the cofactor matrix, so m · gᵀ = det · I.
    for i in 0..3 {
        for j in 0..3 {
            let mg: f64 = (0..3).map(|k| m[i][k] * g[j][k]).sum();
            assert!(close(mg, if i == j { d } else { 0.0 }, 1e-13), "{mg}");
        }
    }
    check_params(|q: &[[f64; 3]; 3]| det3(*q), &m, &g).assert_close(1e-7);
    let dir = [[1.0, 0.0, 0.5], [0.0, -1.0, 0.0], [2.0, 0.0, 1.0]];
    let (_, t) = jvp_det3(m, dir);
    assert!(close(t, g.dot(&dir), 1e-12));
}

/// Rows of different lengths iterated with `for row in rows` and `for &v in row`.
#[autodiff]
fn ragged(rows: &[Vec<f64>], w: f64) -> f64 {
    let mut s = 0.0;
    for row in rows {
        let mut k = 1.0;
        for &v in row {
            s += (w * v).sin() * k;
            k += 1.0;
        }
    }
    s
}

#[test]
fn ragged_rows_iterated() {
    let rows = vec![vec![0.5, -1.0, 2.0], vec![0.25], vec![], vec![1.5, 0.75]];
    let w = 0.8;
    let (g, gw) = grad_ragged(&rows, w);
    for (row, grow) in rows.iter().zip(&g) {
        assert_eq!(row.len(), grow.len());
        for (k, (v, gv)) in row.iter().zip(grow).enumerate() {
            assert!(close(*gv, w * (w * v).cos() * (k + 1) as f64, 1e-14));
        }
    }
    let hand_w: f64 = rows
        .iter()
        .flat_map(|r| {
            r.iter()
                .enumerate()
                .map(|(k, v)| v * (w * v).cos() * (k + 1) as f64)
        })
        .sum();
    assert!(close(gw, hand_w, 1e-14));
    check_params(|q: &Vec<Vec<f64>>| ragged(q, w), &rows, &g).assert_close(1e-7);
    let dir: Vec<Vec<f64>> = rows.iter().map(|r| vec![1.0; r.len()]).collect();
    let (_, t) = jvp_ragged(&rows, w, &dir, 0.0);
    assert!(close(t, g.dot(&dir), 1e-12));
}

/// Points owned in a `Vec`, summed through an iterator chain.
#[autodiff]
fn moments(p: Vec<[f64; 2]>) -> f64 {
    p.iter().map(|q| q[0] * q[1]).sum::<f64>() + p.iter().map(|q| q[0] * q[0]).sum::<f64>()
}

#[test]
fn owned_points_through_a_chain() {
    let p = vec![[1.0, 2.0], [3.0, -4.0], [0.5, 0.5]];
    let g = grad_moments(p.clone());
    let hand: Vec<[f64; 2]> = p.iter().map(|q| [q[1] + 2.0 * q[0], q[0]]).collect();
    assert_eq!(g, hand);
    check_params(|q: &Vec<[f64; 2]>| moments(q.clone()), &p, &g).assert_close(1e-7);
    let (_, t) = jvp_moments(p.clone(), vec![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]);
    assert!(close(
        t,
        g.dot(&vec![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        1e-14
    ));
}
