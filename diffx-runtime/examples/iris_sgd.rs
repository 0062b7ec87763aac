//! Trains the 4-10-3 tanh MLP on Iris with SGD (the DiffX Iris experiment), gradients written out by
//! hand from the runtime's kernels — what `#[autodiff]` generates — and reports the time per epoch.
//!
//! Run from the workspace root: `cargo run --release -p diffx-runtime --example iris_sgd`.

use std::time::Instant;

use diffx_runtime::data::{self, Dataset, Standardizer};
use diffx_runtime::nn::{Activation, Linear, Mlp};
use diffx_runtime::optim::{Optimizer, Sgd};
use diffx_runtime::Tensor;

/// Mean cross-entropy and its gradient for a one-hidden-layer tanh MLP.
fn loss_and_grad(mlp: &Mlp, x: &Tensor, labels: &[usize]) -> (f32, Mlp) {
    let (l1, l2) = (&mlp.layers[0], &mlp.layers[1]);
    let h = l1.forward(x).tanh();
    let logits = l2.forward(&h);
    let loss = logits.cross_entropy(labels);
    let dlogits = (logits.softmax() - Tensor::one_hot(labels, logits.cols())) / labels.len() as f32;
    let dz1 = dlogits.matmul_t(&l2.w) * (1.0 - h.square());
    let grad = |input: &Tensor, dz: &Tensor, b: &Tensor| Linear {
        w: input.t_matmul(dz),
        b: dz.sum_to(b.shape()),
    };
    let layers = vec![grad(x, &dz1, &l1.b), grad(&h, &dlogits, &l2.b)];
    (
        loss,
        Mlp {
            layers,
            activation: mlp.activation,
        },
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let iris: Dataset = data::iris(root.join("data/iris.csv"))?;
    let (train, test) = data::train_test_split(&iris, 0.2, 0, true);
    let scaler = Standardizer::fit(&train.features);
    let (x, x_test) = (
        scaler.transform(&train.features),
        scaler.transform(&test.features),
    );

    let runs = 200;
    let mut best = f64::INFINITY;
    let mut mlp = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
    let mut first_loss = 0.0;
    for _ in 0..runs {
        mlp = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
        let mut sgd = Sgd::new(0.05);
        let start = Instant::now();
        for epoch in 0..100 {
            let (loss, grads) = loss_and_grad(&mlp, &x, &train.labels);
            if epoch == 0 {
                first_loss = loss;
            }
            sgd.step(&mut mlp, &grads);
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let loss = mlp.forward(&x).cross_entropy(&train.labels);
    let acc = data::accuracy(&mlp.predict(&x_test), &test.labels);
    println!("loss {first_loss:.4} → {loss:.4}, test accuracy {acc:.3}");
    println!(
        "100 epochs: {:.1} µs (best of {runs}), {:.2} µs per epoch",
        best * 1e6,
        best * 1e4
    );
    Ok(())
}
