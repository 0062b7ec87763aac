//! Slices, `Vec`s and arrays of floats as differentiable parameters: reading `x[i]`, `x.len()`,
//! loops over indices and over elements. Gradients are `Vec<f64>` (arrays: `[f64; N]`), tangents
//! slices of the same length. Both modes against analytic gradients.

use diffx::autodiff;

use crate::loop_functions;
use loop_functions::*;

fn point(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i as f64) * 0.7).sin() * 1.2).collect()
}

#[test]
fn extended_rosenbrock_n_2_to_1000() {
    for n in [2, 3, 10, 100, 1000] {
        let x = point(n);
        let g = grad_rosenbrock(&x);
        let want = rosenbrock_by_hand(&x);
        assert_eq!(g.len(), n);
        // The iterator-chain and generic forms (the loops bench's twins) compute the same.
        for other in [grad_rosenbrock_chain(&x), grad_rosenbrock_generic(&x)] {
            for (a, b) in other.iter().zip(&g) {
                assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "n = {n}");
            }
        }
        for (i, (a, b)) in g.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "n = {n}, ∂{i}: {a} vs {b}"
            );
        }
        // Forward mode: the directional derivative along t is ⟨∇f, t⟩.
        let t: Vec<f64> = (0..n).map(|i| (i as f64 * 1.3).cos()).collect();
        let (v, d) = jvp_rosenbrock(&x, &t);
        let dot: f64 = want.iter().zip(&t).map(|(a, b)| a * b).sum();
        assert_eq!(v, rosenbrock(&x));
        assert!(
            (d - dot).abs() <= 1e-10 * dot.abs().max(1.0),
            "n = {n}: {d} vs {dot}"
        );
        let vj = vjp_rosenbrock(&x, -2.0);
        assert!(vj
            .iter()
            .zip(&g)
            .all(|(a, b)| (a + 2.0 * b).abs() <= 1e-12 * b.abs().max(1.0)));
    }
}

/// xᵀAx with A row-major n×n: nested loops over two slices.
#[autodiff]
fn quadratic(a: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * a[i * n + j] * x[j];
        }
    }
    s
}

#[test]
fn quadratic_form_gradients_in_a_and_x() {
    let n = 4;
    let a: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).cos()).collect();
    let x = point(n);
    let (ga, gx) = grad_quadratic(&a, &x);
    for i in 0..n {
        // ∂/∂x = (A + Aᵀ)x; ∂/∂A_ij = x_i x_j.
        let want: f64 = (0..n).map(|j| (a[i * n + j] + a[j * n + i]) * x[j]).sum();
        assert!((gx[i] - want).abs() < 1e-12, "∂x{i}: {} vs {want}", gx[i]);
        for j in 0..n {
            assert!((ga[i * n + j] - x[i] * x[j]).abs() < 1e-12);
        }
    }
    let (ta, tx) = (vec![0.5; n * n], vec![1.0; n]);
    let d = jvp_quadratic(&a, &x, &ta, &tx).1;
    let want: f64 = ga
        .iter()
        .zip(&ta)
        .chain(gx.iter().zip(&tx))
        .map(|(g, t)| g * t)
        .sum();
    assert!((d - want).abs() < 1e-12, "{d} vs {want}");
}

/// A fixed-size array and a loop over its elements.
#[autodiff]
fn norm2(v: [f64; 3]) -> f64 {
    let mut s = 0.0;
    for &vi in v.iter() {
        s += vi * vi;
    }
    s.sqrt()
}

#[test]
fn arrays_have_array_gradients() {
    let v = [3.0, 4.0, 12.0];
    let g: [f64; 3] = grad_norm2(v);
    assert_eq!(g, [3.0 / 13.0, 4.0 / 13.0, 12.0 / 13.0]);
    assert_eq!(jvp_norm2(v, [1.0, 0.0, 0.0]).1, 3.0 / 13.0);
}

/// A `Vec` parameter, an element loop and a scalar parameter together.
#[autodiff]
fn weighted_sum(w: Vec<f64>, scale: f64) -> f64 {
    let mut s = 0.0;
    for &wi in &w {
        s += (wi * scale).tanh();
    }
    s / w.len() as f64
}

#[test]
fn vec_parameters_and_element_loops() {
    let w = vec![0.2, -0.5, 1.5];
    let (gw, gs) = grad_weighted_sum(w.clone(), 0.8);
    let sech2 = |z: f64| 1.0 - z.tanh().powi(2);
    for (i, wi) in w.iter().enumerate() {
        assert!((gw[i] - 0.8 * sech2(wi * 0.8) / 3.0).abs() < 1e-15);
    }
    let want: f64 = w.iter().map(|wi| wi * sech2(wi * 0.8)).sum::<f64>() / 3.0;
    assert!((gs - want).abs() < 1e-15);
    let (_, d) = jvp_weighted_sum(w.clone(), 0.8, vec![0.0, 0.0, 0.0], 1.0);
    assert!((d - want).abs() < 1e-15);
}

/// The `f32` forms: a slice and an array of `f32`.
#[autodiff]
fn dot32(a: &[f32], b: [f32; 3]) -> f32 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[test]
fn f32_slices_and_arrays() {
    let (a, b) = ([1.0_f32, 2.0, 3.0], [0.5_f32, -1.0, 2.0]);
    let (ga, gb): (Vec<f32>, [f32; 3]) = grad_dot32(&a, b);
    assert_eq!(ga, b.to_vec());
    assert_eq!(gb, a);
    assert_eq!(jvp_dot32(&a, b, &[1.0, 0.0, 0.0], [0.0; 3]).1, 0.5);
}
