//! Loops under `#[autodiff]`: the chained Rosenbrock function with n = 1000 and an explicit-Euler
//! simulation — primal, `grad_` (reverse mode with its tape), `jvp_` (forward mode; n passes make
//! a full gradient) and a hand-written gradient, measured in one run.
//!
//! ```text
//! cargo bench -p diffx-benches --bench loops
//! ```
//! For scale (the issue's figure): JAX, 10 000 evaluations inside one compiled loop, 346 ns for the
//! primal and 1.20 µs for the gradient of the chained Rosenbrock with n = 1000.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
#[path = "../tests/common/loop_functions.rs"]
mod loop_functions;
use loop_functions::*;

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
    g.bench_function("primal, iterator chain", |b| {
        b.iter(|| rosenbrock_chain(black_box(&x)))
    });
    g.bench_function("grad (reverse), iterator chain", |b| {
        b.iter(|| grad_rosenbrock_chain(black_box(&x)))
    });
    g.bench_function("grad (reverse), generic at f64", |b| {
        b.iter(|| grad_rosenbrock_generic::<f64>(black_box(&x)))
    });
    g.bench_function("value_and_grad", |b| {
        b.iter(|| value_and_grad_rosenbrock(black_box(&x)))
    });
    let e0: Vec<f64> = (0..n).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
    g.bench_function("one jvp (forward)", |b| {
        b.iter(|| jvp_rosenbrock(black_box(&x), &e0))
    });
    let v: Vec<f64> = (0..n).map(|i| ((i as f64) * 1.3).cos()).collect();
    g.bench_function("hvp (forward over reverse)", |b| {
        b.iter(|| hvp_rosenbrock(black_box(&x), &v))
    });
    g.finish();

    // Issue 14's integrator: 200 Runge–Kutta steps calling a function that returns an array.
    let mut g = c.benchmark_group("rk4 200 steps");
    g.bench_function("primal", |b| b.iter(|| rk4(black_box(1.0), 0.5, 4.0)));
    g.bench_function("grad (reverse)", |b| {
        b.iter(|| grad_rk4(black_box(1.0), 0.5, 4.0))
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
