//! End to end against a peer: PyTorch's float64 run of the Iris experiment
//! (`tests/data/iris_torch_reference.json`) gives the split, the standardization statistics, the
//! initial weights and the loss of every epoch. Training with the gradient that `#[autodiff]` writes
//! must reproduce every loss to 1e-9 relative and the same accuracies. The gradient is also checked
//! against backpropagation written out by hand and against central finite differences.

use std::path::PathBuf;

use diffx::data::{self, Dataset, Standardizer};
use diffx::nn::{Activation, Linear, Mlp};
use diffx::optim::{Optimizer, Sgd};
use diffx::{autodiff, Float, Params, Tensor};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The DiffX experiment's loss: mean softmax cross-entropy of a one-hidden-layer tanh network.
#[autodiff(wrt(mlp))]
fn loss64(mlp: &Mlp<f64>, x: &Tensor<f64>, labels: &[usize]) -> f64 {
    let h = (x.matmul(&mlp.layers[0].w) + &mlp.layers[0].b).tanh();
    (h.matmul(&mlp.layers[1].w) + &mlp.layers[1].b).cross_entropy(labels)
}

/// The same in f32, PyTorch's default precision.
#[autodiff(wrt(mlp))]
fn loss32(mlp: &Mlp<f32>, x: &Tensor<f32>, labels: &[usize]) -> f32 {
    let h = (x.matmul(&mlp.layers[0].w) + &mlp.layers[0].b).tanh();
    (h.matmul(&mlp.layers[1].w) + &mlp.layers[1].b).cross_entropy(labels)
}

struct Reference {
    seed: Value,
}

impl Reference {
    fn load(seed: &str) -> Self {
        let text =
            std::fs::read_to_string(root().join("tests/data/iris_torch_reference.json")).unwrap();
        let json: Value = serde_json::from_str(&text).unwrap();
        Reference {
            seed: json["seeds"][seed].clone(),
        }
    }

    fn floats(&self, key: &str) -> Vec<f64> {
        self.seed[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    }

    fn indices(&self, key: &str) -> Vec<usize> {
        self.seed[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect()
    }

    /// A PyTorch tensor of the initial weights: a matrix (list of rows) or a vector.
    fn init(&self, key: &str) -> Tensor<f64> {
        let value = &self.seed["init"][key];
        let rows = value.as_array().unwrap();
        if rows[0].is_array() {
            let rows: Vec<Vec<f64>> = rows
                .iter()
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_f64().unwrap())
                        .collect()
                })
                .collect();
            Tensor::from_rows(&rows.iter().map(Vec::as_slice).collect::<Vec<_>>())
        } else {
            Tensor::from_vec(
                rows.iter().map(|v| v.as_f64().unwrap()).collect(),
                &[rows.len()],
            )
        }
    }

    fn model<F: Float>(&self) -> Mlp<F> {
        let layer =
            |w: &str, b: &str| Linear::from_torch(&self.init(w).cast(), &self.init(b).cast());
        Mlp {
            layers: vec![layer("W1", "b1"), layer("W2", "b2")],
            activation: Activation::Tanh,
        }
    }

    /// The standardized training set, split by the reference's indices.
    fn train_set<F: Float>(&self) -> (Dataset<F>, Dataset<F>) {
        let iris: Dataset<F> = data::iris();
        let (train, test) = (
            iris.select(&self.indices("train_idx")),
            iris.select(&self.indices("test_idx")),
        );
        let scaler = Standardizer::fit(&train.features);
        let standardize = |d: Dataset<F>| Dataset {
            features: scaler.transform(&d.features),
            labels: d.labels,
        };
        (standardize(train), standardize(test))
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn standardization_matches_reference() {
    let r = Reference::load("0");
    let iris: Dataset<f64> = data::iris();
    let scaler = Standardizer::fit(&iris.select(&r.indices("train_idx")).features);
    for (got, want) in scaler.mean.data().iter().zip(r.floats("train_mean")) {
        assert!(relative(*got, want) < 1e-14, "{got} {want}");
    }
    for (got, want) in scaler.std.data().iter().zip(r.floats("train_std")) {
        assert!(relative(*got, want) < 1e-14, "{got} {want}");
    }
}

#[test]
fn first_loss_matches_torch_to_1e12() {
    for seed in ["0", "1", "2"] {
        let r = Reference::load(seed);
        let (train, _) = r.train_set::<f64>();
        let loss = r
            .model::<f64>()
            .forward(&train.features)
            .cross_entropy(&train.labels);
        let want = r.floats("loss_per_epoch_f64")[0];
        assert!(
            relative(loss, want) < 1e-12,
            "seed {seed}: {loss} vs {want}"
        );
    }
}

/// The loss and the gradient of mean cross-entropy for a one-hidden-layer MLP, written out by hand:
/// the independent analytic reference for what `#[autodiff]` generates.
fn hand_written<F: Float>(mlp: &Mlp<F>, x: &Tensor<F>, labels: &[usize]) -> (F, Mlp<F>) {
    let (l1, l2) = (&mlp.layers[0], &mlp.layers[1]);
    let h = l1.forward(x).tanh();
    let logits = l2.forward(&h);
    let loss = logits.cross_entropy(labels);
    let n = F::of_f64(labels.len() as f64);
    let dlogits = (logits.softmax() - Tensor::one_hot(labels, logits.cols())) / n;
    let dh = dlogits.matmul_t(&l2.w);
    // tanh' = 1 − h²; generic code puts the tensor on the left (`F − &Tensor` exists only for the
    // concrete f32 and f64).
    let dz1 = dh * &h.square().map(|v| F::ONE - v);
    let grad_layer = |input: &Tensor<F>, dz: &Tensor<F>, b: &Tensor<F>| Linear {
        w: input.t_matmul(dz),
        b: dz.sum_to(b.shape()),
    };
    let grads = Mlp {
        layers: vec![grad_layer(x, &dz1, &l1.b), grad_layer(&h, &dlogits, &l2.b)],
        activation: mlp.activation,
    };
    (loss, grads)
}

type LossAndGrad<F> = fn(&Mlp<F>, &Tensor<F>, &[usize]) -> (F, Mlp<F>);

/// 100 full-batch SGD epochs (lr 0.05); the loss of each epoch's forward pass, then the final one.
fn train<F: Float>(r: &Reference, value_and_grad: LossAndGrad<F>) -> (Vec<f64>, Mlp<F>) {
    let (train, _) = r.train_set::<F>();
    let mut mlp = r.model::<F>();
    let mut sgd = Sgd::new(F::of_f64(0.05));
    let mut losses = Vec::new();
    for _ in 0..100 {
        let (loss, grads) = value_and_grad(&mlp, &train.features, &train.labels);
        losses.push(loss.as_f64());
        sgd.step(&mut mlp, &grads);
    }
    losses.push(
        value_and_grad(&mlp, &train.features, &train.labels)
            .0
            .as_f64(),
    );
    (losses, mlp)
}

#[test]
fn autodiff_training_reproduces_torch_to_1e9() {
    for seed in ["0", "1", "2"] {
        let r = Reference::load(seed);
        let (losses, mlp) = train::<f64>(&r, value_and_grad_loss64);
        for (epoch, (got, want)) in losses
            .iter()
            .zip(r.floats("loss_per_epoch_f64"))
            .enumerate()
        {
            assert!(
                relative(*got, want) < 1e-9,
                "seed {seed} epoch {epoch}: {got} vs {want}"
            );
        }
        let (train, test) = r.train_set::<f64>();
        let acc = |d: &Dataset<f64>| data::accuracy(&mlp.predict(&d.features), &d.labels);
        assert_eq!(acc(&train), r.seed["train_acc"].as_f64().unwrap());
        assert_eq!(acc(&test), r.seed["test_acc"].as_f64().unwrap());
    }
}

#[test]
fn hand_written_backprop_agrees() {
    let r = Reference::load("2");
    let (_, by_hand) = train::<f64>(&r, hand_written);
    let (_, by_macro) = train::<f64>(&r, value_and_grad_loss64);
    let (a, b) = (by_hand.to_flat_vec(), by_macro.to_flat_vec());
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    let (train, _) = r.train_set::<f64>();
    let mlp = r.model::<f64>();
    let (_, g1) = hand_written(&mlp, &train.features, &train.labels);
    let g2 = grad_loss64(&mlp, &train.features, &train.labels);
    for (x, y) in g1.to_flat_vec().iter().zip(g2.to_flat_vec()) {
        assert!(
            (x - y).abs() < 1e-15 * x.abs().max(1.0) * 10.0,
            "{x} vs {y}"
        );
    }
}

#[test]
fn f32_training_tracks_f64() {
    let r = Reference::load("0");
    let (losses32, _) = train::<f32>(&r, value_and_grad_loss32);
    for (got, want) in losses32.iter().zip(r.floats("loss_per_epoch_f64")) {
        assert!(relative(*got, want) < 1e-4, "{got} vs {want}");
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let r = Reference::load("1");
    let (train, _) = r.train_set::<f64>();
    let mlp = r.model::<f64>();
    let grads = grad_loss64(&mlp, &train.features, &train.labels);
    let f = |flat: &[f64]| loss64(&mlp.from_flat(flat), &train.features, &train.labels);
    diffx::check::check_gradient(f, &mlp.to_flat_vec(), &grads.to_flat_vec()).assert_close(1e-7);
    // Forward mode along a direction agrees with ⟨∇, direction⟩.
    let direction = mlp.from_flat(
        &(0..mlp.num_params())
            .map(|i| (i as f64 * 0.37).sin())
            .collect::<Vec<_>>(),
    );
    let (_, d) = jvp_loss64(&mlp, &train.features, &train.labels, &direction);
    assert!((d - grads.dot(&direction)).abs() < 1e-12, "{d}");
}
