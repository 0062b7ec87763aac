//! The main job, timed: 100 full-batch SGD epochs of the DiffX Iris experiment (4-10-3 tanh MLP,
//! cross-entropy, lr 0.05, 120 training rows, f32), with the gradient written by `#[autodiff]`
//! against the same training with backpropagation written out by hand, in one run.
//!
//! ```text
//! cargo bench -p diffx-benches --bench iris
//! ```
//! For scale (the issue's figures on a machine like this one): PyTorch eager 11–12 ms, JAX with the
//! whole loop in one jit 0.9 ms. `benches/peers/iris_digits.py` times PyTorch here.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use diffx::data::{self, Dataset, Standardizer};
use diffx::nn::{Activation, Linear, Mlp};
use diffx::optim::{Optimizer, Sgd};
use diffx::{autodiff, Tensor};

#[autodiff(wrt(model))]
fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

/// The same loss as a loop over the layers: reverse mode tapes each layer's input and recomputes
/// the layer in its backward loop.
#[autodiff(wrt(model))]
fn loss_by_layer_loop(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let last = model.layers.len() - 1;
    let mut h = x.clone();
    for (i, layer) in model.layers.iter().enumerate() {
        let z = h.matmul(&layer.w) + &layer.b;
        h = if i < last { z.tanh() } else { z };
    }
    h.cross_entropy(labels)
}

/// One layer's affine map, a function of its own: its gradient (a `Linear`) is added into the
/// caller's gradient of the layer passed.
#[autodiff]
fn dense(layer: &Linear, x: &Tensor) -> Tensor {
    x.matmul(&layer.w) + &layer.b
}

/// The same loss with the layers computed by `dense`.
#[autodiff(wrt(model))]
fn loss_with_dense(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = dense(&model.layers[0], x).tanh();
    dense(&model.layers[1], &hidden).cross_entropy(labels)
}

/// The same gradient, written by hand from the same kernels.
fn by_hand(mlp: &Mlp, x: &Tensor, labels: &[usize]) -> (f32, Mlp) {
    let (l1, l2) = (&mlp.layers[0], &mlp.layers[1]);
    let h = l1.forward(x).tanh();
    let logits = l2.forward(&h);
    let (value, dlogits) = logits.cross_entropy_with_grad(labels);
    let dz1 = dlogits.matmul_t(&l2.w).mul_dtanh(&h);
    let layer = |input: &Tensor, dz: &Tensor| Linear {
        w: input.t_matmul(dz),
        b: dz.sum_axis(0),
    };
    let grads = Mlp {
        layers: vec![layer(x, &dz1), layer(&h, &dlogits)],
        activation: mlp.activation,
    };
    (value, grads)
}

fn train(train: &Dataset, step: fn(&Mlp, &Tensor, &[usize]) -> (f32, Mlp)) -> f32 {
    let mut model = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
    let mut sgd = Sgd::new(0.05);
    let mut last = 0.0;
    for _ in 0..100 {
        let (value, grads) = step(&model, &train.features, &train.labels);
        sgd.step(&mut model, &grads);
        last = value;
    }
    last
}

fn iris_training() -> Dataset {
    let iris: Dataset = data::iris();
    let (train, _) = data::train_test_split(&iris, 0.2, 0, true);
    let scaler = Standardizer::fit(&train.features);
    Dataset {
        features: scaler.transform(&train.features),
        labels: train.labels,
    }
}

fn benches(c: &mut Criterion) {
    let data = iris_training();
    let mut g = c.benchmark_group("iris 100 epochs");
    g.bench_function("grad by #[autodiff]", |b| {
        b.iter(|| train(black_box(&data), value_and_grad_loss))
    });
    g.bench_function("grad by hand", |b| {
        b.iter(|| train(black_box(&data), by_hand))
    });
    g.finish();
    let model = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
    let mut g = c.benchmark_group("iris one step");
    g.bench_function("loss (primal)", |b| {
        b.iter(|| loss(black_box(&model), &data.features, &data.labels))
    });
    g.bench_function("value_and_grad by #[autodiff]", |b| {
        b.iter(|| value_and_grad_loss(black_box(&model), &data.features, &data.labels))
    });
    g.bench_function("value_and_grad by #[autodiff], loop over layers", |b| {
        b.iter(|| {
            value_and_grad_loss_by_layer_loop(black_box(&model), &data.features, &data.labels)
        })
    });
    g.bench_function("value_and_grad by #[autodiff], dense helper", |b| {
        b.iter(|| value_and_grad_loss_with_dense(black_box(&model), &data.features, &data.labels))
    });
    g.bench_function("value_and_grad by hand", |b| {
        b.iter(|| by_hand(black_box(&model), &data.features, &data.labels))
    });
    g.finish();
}

criterion_group!(iris, benches);
criterion_main!(iris);
