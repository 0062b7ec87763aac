//! Calls whose pullbacks add into their caller's adjoint in place: a callee with a slice or `Vec`
//! parameter is offered the caller's adjoint of the argument, adds its gradient into it and
//! returns an empty one. Each caller here is checked against central differences and against the
//! same computation written without the call, so that a gradient added twice, or not at all,
//! fails; the offers are the cases where the caller's adjoint is shared, the callee's parameter
//! is an array, the callee recomputes, or the callee calls on.

// (Indexed loops are what is tested.)
#![allow(clippy::needless_range_loop)]

use diffx::check::central_difference;
use diffx::{autodiff, custom_derivative};

use crate::common::assert_close;

/// A weighted sum of squares of the window `x[from..from + 3]`.
#[autodiff(wrt(x))]
fn window(x: &[f64], from: usize, w: f64) -> f64 {
    let mut s = 0.0;
    for i in from..from + 3 {
        s += w * x[i] * x[i] + x[i].sin();
    }
    s
}

/// Many calls, each adding into the whole of `x`'s adjoint.
#[autodiff]
fn windows(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for k in 0..x.len() - 2 {
        total += window(x, k, 0.5 + k as f64) * (1.0 + 0.1 * k as f64);
    }
    total
}

fn windows_inline(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for k in 0..x.len() - 2 {
        let mut s = 0.0;
        for i in k..k + 3 {
            s += (0.5 + k as f64) * x[i] * x[i] + x[i].sin();
        }
        total += s * (1.0 + 0.1 * k as f64);
    }
    total
}

/// The same slice as two arguments: one adjoint is offered once, the other gradient returned.
#[autodiff]
fn pair(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i] + a[i].cos();
    }
    s
}

#[autodiff]
fn twice(x: &[f64]) -> f64 {
    pair(x, x) + pair(x, x).sqrt()
}

/// A callee that calls on: its adjoint of `x` (the offer it took) is offered further down.
#[autodiff]
fn outer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..x.len() - 2 {
        s += windows_of(x, k);
    }
    s
}

#[autodiff]
fn windows_of(x: &[f64], k: usize) -> f64 {
    window(x, k, 2.0) * window(x, k, 0.5)
}

/// An array parameter declines the offer (its gradient is an array), and a local vector's
/// adjoint is offered as a caller's.
#[autodiff]
fn corners(c: [f64; 3]) -> f64 {
    c[0] * c[1] * c[2] + c[0].exp()
}

#[autodiff]
fn locals(x: &[f64]) -> f64 {
    let v = vec![x[0] * x[1], x[1] + x[2], x[2].tanh()];
    let mut s = window(&v, 0, 1.5);
    for i in 0..x.len() - 2 {
        s += corners([x[i], x[i + 1], x[i + 2]]);
    }
    s
}

/// A callee with a rule written by hand, whose split function recomputes: it declines the offer
/// and returns its gradient, which the caller adds.
#[custom_derivative(jvp = elems_jvp, vjp = elems_vjp)]
fn elems(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v.sin()).sum()
}

fn elems_jvp(x: &[f64], t: Vec<f64>) -> (f64, f64) {
    let d = x.iter().zip(t).map(|(v, t)| (v.sin() + v * v.cos()) * t);
    (elems(x), d.sum())
}

fn elems_vjp(x: &[f64], ct: f64) -> (f64, Vec<f64>) {
    let g = x.iter().map(|v| ct * (v.sin() + v * v.cos())).collect();
    (elems(x), g)
}

#[autodiff]
fn declined(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        s += elems(x) * (k as f64 + x[k]);
    }
    s
}

#[track_caller]
fn check(what: &str, f: impl Fn(&[f64]) -> f64, grad: impl Fn(&[f64]) -> Vec<f64>) {
    for k in 0..4 {
        let x: Vec<f64> = (0..6)
            .map(|i| 0.4 * ((k * 5 + i * 3) as f64).sin() + 0.1 * k as f64)
            .collect();
        let (g, numeric) = (grad(&x), central_difference(&f, &x));
        for i in 0..x.len() {
            assert_close(g[i], numeric[i], 1e-6, &format!("{what}: ∂{i} at {x:?}"));
        }
    }
}

#[test]
fn a_pullback_adds_into_its_callers_adjoint() {
    check("windows", windows, grad_windows);
    check(
        "windows against the inlined sum",
        windows_inline,
        grad_windows,
    );
    check("one slice as two arguments", twice, grad_twice);
    check("a callee that calls on", outer, grad_outer);
    check("arrays and local vectors", locals, grad_locals);
    check("a callee that declines", declined, grad_declined);
}
