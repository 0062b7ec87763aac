//! Loops under `#[autodiff]`: the chained Rosenbrock function with n = 1000 and an explicit-Euler
//! simulation — primal, `grad_` (reverse mode with its tape), `jvp_` (forward mode; n passes make
//! a full gradient) and a hand-written gradient, measured in one run.
//!
//! ```text
//! cargo bench --bench loops
//! ```
//! For scale (the issue's figure): JAX, 10 000 evaluations inside one compiled loop, 346 ns for the
//! primal and 1.20 µs for the gradient of the chained Rosenbrock with n = 1000.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use diffx::autodiff;

#[autodiff]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

fn rosenbrock_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * a * x[i] - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * a;
    }
    g
}

/// A damped spring by explicit Euler; the final energy-like quantity.
#[autodiff]
fn spring(k: f64, x0: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let mut x = x0;
    let mut v = 0.0;
    for _ in 0..steps {
        let a = -k * x - 0.3 * v;
        x += dt * v;
        v += dt * a;
    }
    x * x + v
}

/// The same gradient by hand: the forward sweep stores the states, the backward sweep runs the
/// adjoint recurrences.
fn spring_by_hand(k: f64, x0: f64, steps: usize) -> (f64, f64) {
    let dt = 0.01;
    let mut states = Vec::with_capacity(steps);
    let (mut x, mut v) = (x0, 0.0);
    for _ in 0..steps {
        states.push((x, v));
        let a = -k * x - 0.3 * v;
        x += dt * v;
        v += dt * a;
    }
    let (mut xb, mut vb, mut kb) = (2.0 * x, 1.0, 0.0);
    for &(x, _) in states.iter().rev() {
        // v' = v + dt(−kx − 0.3v), x' = x + dt·v
        let ab = dt * vb;
        kb += -x * ab;
        let new_xb = xb - k * ab;
        vb = vb - 0.3 * ab + dt * xb;
        xb = new_xb;
    }
    (kb, xb)
}

fn benches(c: &mut Criterion) {
    let n = 1000;
    let x: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.7).sin() * 1.2).collect();
    let mut g = c.benchmark_group("rosenbrock n=1000");
    g.bench_function("primal", |b| b.iter(|| rosenbrock(black_box(&x))));
    g.bench_function("grad (reverse)", |b| {
        b.iter(|| grad_rosenbrock(black_box(&x)))
    });
    g.bench_function("hand-written gradient", |b| {
        b.iter(|| rosenbrock_by_hand(black_box(&x)))
    });
    let e0: Vec<f64> = (0..n).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    g.bench_function("one jvp (forward)", |b| {
        b.iter(|| jvp_rosenbrock(black_box(&x), &e0))
    });
    g.finish();

    let mut g = c.benchmark_group("spring 500 steps");
    g.bench_function("primal", |b| b.iter(|| spring(black_box(4.0), 1.0, 500)));
    g.bench_function("grad (reverse)", |b| {
        b.iter(|| grad_spring(black_box(4.0), 1.0, 500))
    });
    g.bench_function("jvp x2 (forward)", |b| {
        b.iter(|| {
            (
                jvp_spring(black_box(4.0), 1.0, 500, 1.0, 0.0).1,
                jvp_spring(black_box(4.0), 1.0, 500, 0.0, 1.0).1,
            )
        })
    });
    g.bench_function("hand-written gradient", |b| {
        b.iter(|| spring_by_hand(black_box(4.0), 1.0, 500))
    });
    g.finish();
}

criterion_group!(loops, benches);
criterion_main!(loops);
