//! Optional parameters (issue 14, item 1: `Option` fields of parameter structs) and `if let` /
//! `match` on `Option`s. A field that is `Some` is differentiated where the body reads it
//! (`if let Some(b) = p.offset`, `match`, `unwrap_or`, `unwrap`); its gradient and tangent are
//! `Some` where the parameter is, `None` where it is. Checked against hand derivatives and
//! central differences in both modes; optimizers, `Params` arithmetic and `check_params` work on
//! such structs.

use diffx::check::{central_difference, check_params};
use diffx::optim::{Adam, Optimizer};
use diffx::{autodiff, Params, Tensor};

/// A line whose intercept is optional: `y = slope·x (+ offset)`.
#[derive(Clone, Debug, PartialEq, Params)]
struct Fit {
    slope: f64,
    offset: Option<f64>,
}

/// Squared error, the offset read by `if let` in the loop.
#[autodiff(wrt(p))]
fn sse(p: &Fit, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let mut y = p.slope * xs[i];
        if let Some(b) = p.offset {
            y += b;
        }
        s += (y - ys[i]).powi(2);
    }
    s
}

/// The same by `match`, `unwrap_or` and `unwrap`, with a constant `Option` deciding a loop.
#[autodiff(order = 2)]
fn powered(p: &Fit, x: f64, times: Option<usize>) -> f64 {
    let mut y = p.slope * x + p.offset.unwrap_or(0.0);
    if let Some(n) = times {
        for _ in 0..n {
            y *= p.slope;
        }
    }
    let shift = match p.offset {
        Some(b) => b * b,
        None => 1.0,
    };
    y * y + shift
}

#[autodiff]
fn unwrapped(p: &Fit, x: f64) -> f64 {
    p.slope * x * p.offset.unwrap()
}

fn data() -> (Vec<f64>, Vec<f64>) {
    let xs: Vec<f64> = (0..12).map(|i| i as f64 / 4.0 - 1.0).collect();
    let ys = xs
        .iter()
        .map(|x| 1.5 * x + 0.25 + 0.1 * (5.0 * x).sin())
        .collect();
    (xs, ys)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn optional_fields_against_hand_derivatives() {
    let (xs, ys) = data();
    for offset in [Some(0.5), None] {
        let p = Fit { slope: 1.2, offset };
        let g = grad_sse(&p, &xs, &ys);
        let b = offset.unwrap_or(0.0);
        let r: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| 1.2 * x + b - y).collect();
        let ds: f64 = r.iter().zip(&xs).map(|(r, x)| 2.0 * r * x).sum();
        assert!(close(g.slope, ds, 1e-12), "{g:?}");
        match offset {
            Some(_) => assert!(close(g.offset.unwrap(), 2.0 * r.iter().sum::<f64>(), 1e-12)),
            None => assert_eq!(g.offset, None),
        }
        check_params(|q| sse(q, &xs, &ys), &p, &g).assert_close(1e-7);
        let dir = Fit {
            slope: -0.5,
            offset: offset.map(|_| 2.0),
        };
        let (_, t) = jvp_sse(&p, &xs, &ys, &dir);
        assert!(close(t, g.dot(&dir), 1e-12), "{t}");
    }
}

#[test]
fn match_unwrap_or_and_unwrap_in_both_modes() {
    for (offset, times) in [(Some(0.5), Some(2)), (None, Some(1)), (Some(-0.3), None)] {
        let p = Fit { slope: 1.5, offset };
        let x = 2.0;
        // y = (s·x + b)·sⁿ, f = y² + (b² or 1).
        let (b, n) = (offset.unwrap_or(0.0), times.unwrap_or(0) as i32);
        let y = (1.5 * x + b) * 1.5_f64.powi(n);
        let dy_ds = x * 1.5_f64.powi(n) + (1.5 * x + b) * n as f64 * 1.5_f64.powi(n - 1);
        let g = grad_powered(&p, x, times);
        assert!(close(g.0.slope, 2.0 * y * dy_ds, 1e-12), "{g:?}");
        if offset.is_some() {
            let want = 2.0 * y * 1.5_f64.powi(n) + 2.0 * b;
            assert!(close(g.0.offset.unwrap(), want, 1e-12), "{g:?}");
        }
        assert!(close(g.1, 2.0 * y * 1.5 * 1.5_f64.powi(n), 1e-12));
        check_params(|q| powered(q, x, times), &p, &g.0).assert_close(1e-6);
        // Second order: the Hessian over (slope, offset…, x) against differences of the gradient.
        let flat = |q: &[f64]| -> Fit {
            Fit {
                slope: q[0],
                offset: offset.map(|_| q[1]),
            }
        };
        let k = 1 + usize::from(offset.is_some());
        let h = hessian_powered(&p, x, times);
        let mut point = vec![1.5];
        point.extend(offset);
        point.push(x);
        for i in 0..=k {
            let gi = |q: &[f64]| {
                let g = grad_powered(&flat(q), q[k], times);
                let mut flat_g = vec![g.0.slope];
                flat_g.extend(g.0.offset);
                flat_g.push(g.1);
                flat_g[i]
            };
            let fd = central_difference(gi, &point);
            for j in 0..=k {
                assert!(
                    close(h[i][j], fd[j], 1e-5),
                    "H[{i}][{j}] = {} vs {}",
                    h[i][j],
                    fd[j]
                );
            }
        }
    }
    let p = Fit {
        slope: 2.0,
        offset: Some(3.0),
    };
    let g = grad_unwrapped(&p, 0.5);
    assert_eq!((g.0.slope, g.0.offset, g.1), (1.5, Some(1.0), 6.0));
}

#[test]
#[should_panic(expected = "an optional parameter read as `Some` is `None`")]
fn an_unwrapped_none_panics_at_the_read() {
    let p = Fit {
        slope: 2.0,
        offset: None,
    };
    let _ = grad_unwrapped(&p, 0.5);
}

#[test]
fn optimizers_and_arithmetic_on_optional_fields() {
    let (xs, ys) = data();
    let mut p = Fit {
        slope: 0.0,
        offset: Some(0.0),
    };
    let mut opt = Adam::new(0.05);
    for _ in 0..3000 {
        let g = grad_sse(&p, &xs, &ys);
        opt.step(&mut p, &g);
    }
    // The least-squares line: the gradient vanishes there.
    let g = grad_sse(&p, &xs, &ys);
    assert!(g.norm() < 1e-6, "{p:?} {g:?}");
    assert_eq!(p.num_params(), 2);
    let mut q = p.clone();
    q.axpy(2.0, &p);
    assert!(close(q.offset.unwrap(), 3.0 * p.offset.unwrap(), 1e-15));
    let none = Fit {
        slope: 1.0,
        offset: None,
    };
    assert_eq!((none.num_params(), none.to_flat_vec()), (1, vec![1.0]));
}

#[test]
#[should_panic(expected = "Params::add_assign: 2 leaves in self, 1 in other")]
fn gradients_of_another_shape_are_refused() {
    let mut p = Fit {
        slope: 1.0,
        offset: Some(1.0),
    };
    p.add_assign(&Fit {
        slope: 1.0,
        offset: None,
    });
}

/// A layer with an optional bias tensor and an optional pair of scales.
#[derive(Clone, Debug, Params)]
struct Layer {
    w: Tensor<f64>,
    bias: Option<Tensor<f64>>,
    scale: Option<[f64; 2]>,
}

#[autodiff]
fn layer_out(l: &Layer, x: &Tensor<f64>) -> f64 {
    let mut y = x.matmul(&l.w);
    if let Some(b) = &l.bias {
        y = &y + b;
    }
    let s = match l.scale {
        Some(s) => s[0] * s[1],
        None => 1.0,
    };
    y.tanh().sum() * s
}

#[test]
fn optional_tensors_and_arrays() {
    let w = Tensor::from_vec(vec![0.1, 0.2, 0.3, 0.4], &[2, 2]);
    let x = Tensor::from_vec(vec![1.0, 2.0, -0.5, 0.25], &[2, 2]);
    let with = Layer {
        w: w.clone(),
        bias: Some(Tensor::from_vec(vec![0.5, -0.5], &[1, 2])),
        scale: Some([2.0, 0.5]),
    };
    let without = Layer {
        w,
        bias: None,
        scale: None,
    };
    for l in [with, without] {
        let g = grad_layer_out(&l, &x).0;
        assert_eq!(
            (g.bias.is_some(), g.scale.is_some()),
            (l.bias.is_some(), l.scale.is_some())
        );
        check_params(|q| layer_out(q, &x), &l, &g).assert_close(1e-7);
        let (_, t) = jvp_layer_out(&l, &x, &g, &Tensor::zeros(&[2, 2]));
        assert!(close(t, g.dot(&g), 1e-12));
    }
}

/// `if let` on something other than a place or an `Option`: the general form.
#[autodiff]
fn parsed(x: f64, text: &str) -> f64 {
    if let Ok(k) = text.parse::<f64>() {
        x * k
    } else if let Some((a, b)) = text.split_once(',') {
        x * a.len() as f64 + b.len() as f64
    } else {
        x
    }
}

#[test]
fn if_let_on_constants() {
    assert_eq!(grad_parsed(2.0, "1.5"), 1.5);
    assert_eq!(grad_parsed(2.0, "ab,c"), 2.0);
    assert_eq!(grad_parsed(2.0, "abc"), 1.0);
    assert_eq!(jvp_parsed(2.0, "1.5", 2.0), (3.0, 3.0));
}

#[cfg(feature = "explain")]
#[test]
fn explain_reads_an_optional_field_as_the_field() {
    let (xs, ys) = data();
    let p = Fit {
        slope: 1.2,
        offset: Some(0.5),
    };
    let dir = Fit {
        slope: 1.0,
        offset: Some(0.0),
    };
    let t = explain_sse(&p, &xs, &ys, &dir);
    let g = grad_sse(&p, &xs, &ys);
    assert!(
        close(t.adjoint("p.offset").unwrap(), g.offset.unwrap(), 1e-12),
        "{t}"
    );
    assert!(close(t.adjoint("p.slope").unwrap(), g.slope, 1e-12), "{t}");
    assert!(close(t.tangent("sse").unwrap(), g.slope, 1e-12), "{t}");
}

/// Generic over its float: the optional field is visited as numbers (`Leaves`).
#[derive(Clone, Debug, Params)]
struct GenericFit<F: diffx::Float> {
    slope: F,
    offset: Option<F>,
}

#[autodiff(order = 2)]
fn generic_sq<T: diffx::Float>(p: &GenericFit<T>, x: T) -> T {
    let y = p.slope * x + p.offset.unwrap_or(T::zero());
    y * y
}

#[test]
fn optional_fields_of_generic_structs() {
    let p = GenericFit {
        slope: 2.0f32,
        offset: Some(0.5),
    };
    let (g, gx) = grad_generic_sq(&p, 1.5f32);
    // y = 3.5: ∂/∂slope = 2y·x, ∂/∂offset = 2y, ∂/∂x = 2y·slope.
    assert_eq!((g.slope, g.offset, gx), (10.5, Some(7.0), 14.0));
    let q = GenericFit {
        slope: 2.0f64,
        offset: None,
    };
    let h = hessian_generic_sq(&q, 1.5);
    // f = (s·x)²: ∂²/∂s² = 2x², ∂²/∂s∂x = 4sx, ∂²/∂x² = 2s².
    assert_eq!(h, vec![vec![4.5, 12.0], vec![12.0, 8.0]]);
}

/// `while let` over constants: a stack of step sizes popped until empty.
#[autodiff(wrt(x))]
fn steps(x: f64, sizes: &[f64]) -> f64 {
    let mut stack = sizes.to_vec();
    let mut y = x;
    while let Some(h) = stack.pop() {
        if h < 0.0 {
            continue;
        }
        y = y * (1.0 + h) + h * x;
    }
    y
}

#[test]
fn while_let_on_constants() {
    // y = x·Π(1 + hᵢ) + Σ hᵢ x Π_{later}(1 + hⱼ): linear in x.
    let sizes = [0.5, -1.0, 0.25];
    let g = grad_steps(2.0, &sizes);
    let fd = central_difference(|v: &[f64]| steps(v[0], &sizes), &[2.0])[0];
    assert!(close(g, fd, 1e-9), "{g} vs {fd}");
    assert!(close(g, steps(1.0, &sizes), 1e-12), "linear in x");
    assert_eq!(jvp_steps(2.0, &sizes, 1.0).0, steps(2.0, &sizes));
}

/// `if let` on a constant `Option` whose value is not `Copy`, by reference (the backward sweep
/// recomputes the arm, so the `Option` is read again: `if let Some(w) = weights` by value does not
/// compile, "use of moved value" at `w`).
#[autodiff(wrt(x))]
fn weighted_by(x: f64, weights: Option<Vec<f64>>) -> f64 {
    if let Some(w) = &weights {
        x * x * w[0]
    } else {
        x
    }
}

#[test]
fn if_let_moving_a_constant() {
    assert_eq!(grad_weighted_by(1.5, Some(vec![2.0])), 6.0);
    assert_eq!(grad_weighted_by(1.5, None), 1.0);
    assert_eq!(jvp_weighted_by(1.5, Some(vec![2.0]), 1.0), (4.5, 6.0));
}
