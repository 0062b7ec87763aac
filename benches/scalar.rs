//! The cost of a gradient of straight-line scalar code: primal, reverse mode (`grad_`), forward mode
//! (`jvp_`, one pass per input), a hand-written gradient and central finite differences, measured
//! in one run so that their ratios are meaningful on a noisy machine.
//!
//! ```text
//! cargo bench -p diffx-benches --bench scalar
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use diffx::autodiff;
use diffx::check::central_difference;

#[autodiff]
fn seed(x1: f64, x2: f64) -> f64 {
    x1.ln() + x1 * x2 - x2.sin()
}

fn seed_by_hand(x1: f64, x2: f64) -> (f64, f64) {
    (1.0 / x1 + x2, x1 - x2.cos())
}

#[autodiff(order = 2)]
fn rosenbrock(x: f64, y: f64) -> f64 {
    let a = 1.0 - x;
    let b = y - x * x;
    a * a + 100.0 * b * b
}

fn rosenbrock_by_hand(x: f64, y: f64) -> (f64, f64) {
    let b = y - x * x;
    (-2.0 * (1.0 - x) - 400.0 * x * b, 200.0 * b)
}

type Grad = fn(f64, f64) -> (f64, f64);

fn group(
    c: &mut Criterion,
    name: &str,
    f: fn(f64, f64) -> f64,
    grad: Grad,
    jvp: fn(f64, f64, f64, f64) -> (f64, f64),
    hand: Grad,
) {
    let mut g = c.benchmark_group(name);
    let (x, y) = (black_box(1.3), black_box(2.1));
    g.bench_function("primal", |b| b.iter(|| f(black_box(x), black_box(y))));
    g.bench_function("grad (reverse)", |b| {
        b.iter(|| grad(black_box(x), black_box(y)))
    });
    g.bench_function("jvp x2 (forward)", |b| {
        b.iter(|| {
            (
                jvp(black_box(x), black_box(y), 1.0, 0.0).1,
                jvp(black_box(x), black_box(y), 0.0, 1.0).1,
            )
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| hand(black_box(x), black_box(y)))
    });
    g.bench_function("finite differences", |b| {
        b.iter(|| central_difference(|v| f(v[0], v[1]), &[black_box(x), black_box(y)]))
    });
    g.finish();
}

/// The Hessian of 2-D Rosenbrock by hand, in the same shape `hessian_` returns.
fn rosenbrock_hessian_by_hand(x: f64, y: f64) -> Vec<Vec<f64>> {
    vec![
        vec![2.0 - 400.0 * (y - x * x) + 800.0 * x * x, -400.0 * x],
        vec![-400.0 * x, 200.0],
    ]
}

fn benches(c: &mut Criterion) {
    group(c, "seed", seed, grad_seed, jvp_seed, seed_by_hand);
    group(
        c,
        "rosenbrock",
        rosenbrock,
        grad_rosenbrock,
        jvp_rosenbrock,
        rosenbrock_by_hand,
    );
    let mut g = c.benchmark_group("rosenbrock hessian");
    let (x, y) = (black_box(1.3), black_box(2.1));
    g.bench_function("hessian_ (forward over reverse)", |b| {
        b.iter(|| hessian_rosenbrock(black_box(x), black_box(y)))
    });
    g.bench_function("hvp_", |b| {
        b.iter(|| hvp_rosenbrock(black_box(x), black_box(y), 1.0, 0.5))
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| rosenbrock_hessian_by_hand(black_box(x), black_box(y)))
    });
    g.finish();
}

criterion_group!(scalar, benches);
criterion_main!(scalar);
