//! One epoch of the digits task (MLP 64-128-10 relu, SGD momentum 0.9, lr 0.1, minibatches of 32,
//! 1438 training images, f32) with the gradient written by `#[autodiff]`, and the matrix products
//! of its layers in GFLOP/s, measured in one run.
//!
//! ```text
//! cargo bench -p diffx-benches --bench mlp
//! ```
//! For scale (the issue's figures on a machine like this one): PyTorch eager 6.5 ms per epoch,
//! JAX jitted 1.5 ms.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use diffx::data::{self, Batches, Dataset};
use diffx::nn::{Activation, Mlp};
use diffx::optim::{Momentum, Optimizer};
use diffx::{autodiff, Tensor};

#[autodiff(wrt(model))]
fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).relu();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

fn digits_training() -> Dataset {
    let digits: Dataset =
        data::read_digits(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/digits.csv"))
            .expect("data/digits.csv");
    let (train, _) = data::train_test_split(&digits, 0.2, 0, true);
    Dataset {
        features: &train.features / 16.0,
        labels: train.labels,
    }
}

fn epoch(model: &mut Mlp, opt: &mut Momentum, train: &Dataset) {
    for (x, y) in Batches::new(train, 32, 0) {
        let (_, grad) = value_and_grad_loss(model, &x, &y);
        opt.step(model, &grad);
    }
}

fn benches(c: &mut Criterion) {
    let train = digits_training();
    // Each iteration trains a fresh model for one epoch (creating it is not timed).
    let fresh = || {
        (
            Mlp::new(&[64, 128, 10], Activation::Relu, 0),
            Momentum::new(0.1, 0.9),
        )
    };
    c.bench_function("digits one epoch", |b| {
        b.iter_batched(
            fresh,
            |(mut m, mut o)| epoch(&mut m, &mut o, black_box(&train)),
            BatchSize::SmallInput,
        )
    });

    let mut g = c.benchmark_group("matmul at the layer shapes");
    let random = |shape: &[usize], seed| Tensor::<f32>::randn(shape, seed);
    let mut product = |name: String, flops: usize, run: &dyn Fn() -> Tensor| {
        g.throughput(Throughput::Elements(flops as u64));
        g.bench_function(format!("{name} (elements = flops)"), |b| b.iter(run));
    };
    for (m, k, n) in [(32, 64, 128), (32, 128, 10), (120, 4, 10), (120, 10, 3)] {
        let (a, w) = (random(&[m, k], 1), random(&[k, n], 2));
        let run = || black_box(&a).matmul(black_box(&w));
        product(format!("[{m}x{k}]·[{k}x{n}]"), 2 * m * k * n, &run);
    }
    // The backward sweep's products: the weight gradient xᵀ·g and the input gradient g·Wᵀ.
    for (m, k, n) in [(64, 32, 128), (128, 32, 10), (10, 120, 3), (4, 120, 10)] {
        let (x, grad) = (random(&[k, m], 1), random(&[k, n], 2));
        let run = || black_box(&x).t_matmul(black_box(&grad));
        product(format!("[{k}x{m}]ᵀ·[{k}x{n}]"), 2 * m * k * n, &run);
    }
    for (m, k, n) in [(32, 10, 128), (120, 3, 10)] {
        let (grad, w) = (random(&[m, k], 1), random(&[n, k], 2));
        let run = || black_box(&grad).matmul_t(black_box(&w));
        product(format!("[{m}x{k}]·[{n}x{k}]ᵀ"), 2 * m * k * n, &run);
    }
    g.finish();
}

criterion_group!(mlp, benches);
criterion_main!(mlp);
