//! Checkpointed loops (`#[autodiff(checkpoint = s)]`) against recording ones: each body is
//! written three times, recording every iteration, and with one and three snapshots (the schedule
//! then runs iterations again, many times with one snapshot). All gradients must be the same at
//! every point, match central differences, and `value_and_grad_` must give the primal's value.
//! The bodies carry numbers and write vectors across iterations, nest loops, branch, call, push,
//! read the loop variable, run over a slice's elements and run no iteration at all.

// (Indexed loops are what is tested.)
#![allow(clippy::needless_range_loop)]

use diffx::autodiff;
use diffx::check::central_difference;

use crate::common::assert_close;

/// The same body recording, and checkpointed with one and with three snapshots.
macro_rules! three {
    ($one:ident, $three:ident, fn $record:ident $($function:tt)*) => {
        #[autodiff]
        fn $record $($function)*

        #[autodiff(checkpoint = 1)]
        fn $one $($function)*

        #[autodiff(checkpoint = 3)]
        fn $three $($function)*
    };
}

// A number carried, a vector written by a nested loop and read after it.
three!(
    smoothing_1,
    smoothing_3,
    fn smoothing(x: &[f64], n: usize) -> f64 {
        let mut y = vec![0.0; x.len()];
        let mut acc = x[0];
        for _ in 0..n {
            for i in 0..y.len() {
                y[i] = y[i] * 0.5 + x[i] * acc.sin();
            }
            acc += y[0] * y[y.len() - 1];
        }
        acc
    }
);

// GradBench's ode: four stages a step, each vector rewritten whole; the result is a vector.
crate::ode_fn!(rk4,);
crate::ode_fn!(rk4_1, checkpoint = 1);
crate::ode_fn!(rk4_3, checkpoint = 3);

#[autodiff]
fn bump(a: f64, b: f64) -> f64 {
    (a * b).sin() + a * a
}

// The loop variable read, a branch on the state, a call, a `while` inside, and a second loop
// after the first (both checkpointed).
three!(
    mixed_1,
    mixed_3,
    fn mixed(x: &[f64], n: usize) -> f64 {
        let mut s = 0.25;
        for k in 2..n + 2 {
            let mut t = bump(x[k % x.len()], s);
            if t > s {
                t = t.sqrt() * k as f64;
            } else {
                t -= s * x[0];
            }
            let mut m = 0;
            while t.abs() > 1.0 && m < 3 {
                t *= 0.5;
                m += 1;
            }
            s = (s + t * 0.3).tanh();
        }
        let mut u = s;
        for i in 0..x.len() {
            u = u * x[i] + s.cos();
        }
        u
    }
);

// Pushes into a vector the loop carries, and a loop over a slice's elements.
three!(
    pushing_1,
    pushing_3,
    fn pushing(x: &[f64], n: usize) -> f64 {
        let mut v = vec![x[0]];
        for i in 0..n {
            let last = v[v.len() - 1];
            v.push(last * x[i % x.len()] + 0.1);
        }
        let mut total = 0.0;
        for &e in v.iter() {
            total = total * 0.9 + e * e;
        }
        total
    }
);

/// A function of a slice and a count, its gradient and its value with the gradient.
type Scalar = fn(&[f64], usize) -> f64;
type Gradient = fn(&[f64], usize) -> Vec<f64>;
type WithValue = fn(&[f64], usize) -> (f64, Vec<f64>);

/// Every gradient at `points` equal to the recording one's, which matches central differences;
/// every value equal to the primal's.
#[track_caller]
fn check(what: &str, f: Scalar, grads: [Gradient; 3], values: [WithValue; 2], n: usize) {
    for p in points(5) {
        let recorded = grads[0](&p, n);
        let numeric = central_difference(|x: &[f64]| f(x, n), &p);
        for (k, grad) in grads.iter().enumerate().skip(1) {
            let g = grad(&p, n);
            for i in 0..p.len() {
                let at = format!("{what}, n = {n}, variant {k}: ∂{i} at {p:?}");
                assert_close(
                    g[i],
                    recorded[i],
                    1e-12,
                    &format!("checkpointed vs recorded {at}"),
                );
            }
        }
        for i in 0..p.len() {
            let at = format!("{what}, n = {n}: ∂{i} at {p:?}");
            assert_close(recorded[i], numeric[i], 1e-6, &at);
        }
        for value_and_grad in values {
            let (value, _) = value_and_grad(&p, n);
            assert_eq!(value.to_bits(), f(&p, n).to_bits(), "{what}: the value");
        }
    }
}

fn points(len: usize) -> Vec<Vec<f64>> {
    crate::common::wavy_points(3, len)
}

#[test]
fn checkpointed_gradients_are_the_recorded_ones() {
    for n in [0, 1, 2, 7, 40] {
        check(
            "smoothing",
            smoothing,
            [grad_smoothing, grad_smoothing_1, grad_smoothing_3],
            [value_and_grad_smoothing_1, value_and_grad_smoothing_3],
            n,
        );
        check(
            "mixed",
            mixed,
            [grad_mixed, grad_mixed_1, grad_mixed_3],
            [value_and_grad_mixed_1, value_and_grad_mixed_3],
            n,
        );
        check(
            "pushing",
            pushing,
            [grad_pushing, grad_pushing_1, grad_pushing_3],
            [value_and_grad_pushing_1, value_and_grad_pushing_3],
            n,
        );
    }
}

#[test]
fn checkpointed_pullbacks_of_a_vector_result() {
    let x = [0.3, -0.2, 0.5, 0.1, 0.4];
    for s in [1, 5, 30] {
        for seed in 0..3 {
            let ct: Vec<f64> = (0..x.len())
                .map(|i| ((seed * 5 + i) as f64).cos())
                .collect();
            let recorded = vjp_rk4(&x, s, ct.clone());
            let numeric = central_difference(
                |x: &[f64]| rk4(x, s).iter().zip(&ct).map(|(a, b)| a * b).sum(),
                &x,
            );
            for vjp in [vjp_rk4_1, vjp_rk4_3] {
                let g = vjp(&x, s, ct.clone());
                for i in 0..x.len() {
                    let at = format!("rk4, s = {s}, seed {seed}: ∂{i}");
                    assert_close(g[i], recorded[i], 1e-12, &at);
                    assert_close(g[i], numeric[i], 1e-6, &at);
                }
            }
        }
    }
}
