//! End to end against PyTorch: the reference run `tests/data/iris_torch_reference.json` (float64)
//! gives the split, the standardization statistics, the initial weights and the loss of every epoch.
//! Reproducing them checks CSV loading, `select`, `Standardizer`, `Linear::from_torch`, the forward
//! pass and `cross_entropy`, and (with gradients written out by hand from the kernels reverse mode
//! composes: `softmax`, `one_hot`, `t_matmul`, `matmul_t`, `sum_to`) the whole training loop.

use std::path::PathBuf;

use diffx_runtime::data::{self, Dataset, Standardizer};
use diffx_runtime::nn::{Activation, Linear, Mlp};
use diffx_runtime::optim::{Optimizer, Sgd};
use diffx_runtime::{Float, Params, Tensor};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
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
        let iris: Dataset<F> = data::iris(root().join("data/iris.csv")).unwrap();
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
    let iris: Dataset<f64> = data::iris(root().join("data/iris.csv")).unwrap();
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

/// The loss and the gradient of mean cross-entropy for a one-hidden-layer MLP, written out by hand
/// (the chain rule that `#[autodiff]` will generate).
fn loss_and_grad<F: Float>(mlp: &Mlp<F>, x: &Tensor<F>, labels: &[usize]) -> (F, Mlp<F>) {
    let (l1, l2) = (&mlp.layers[0], &mlp.layers[1]);
    let h = l1.forward(x).tanh();
    let logits = l2.forward(&h);
    let loss = logits.cross_entropy(labels);
    let n = F::from_f64(labels.len() as f64);
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

fn train<F: Float>(r: &Reference) -> (Vec<f64>, Mlp<F>) {
    let (train, _) = r.train_set::<F>();
    let mut mlp = r.model::<F>();
    let mut sgd = Sgd::new(F::from_f64(0.05));
    let mut losses = Vec::new();
    for _ in 0..100 {
        let (loss, grads) = loss_and_grad(&mlp, &train.features, &train.labels);
        losses.push(loss.to_f64());
        sgd.step(&mut mlp, &grads);
    }
    losses.push(
        mlp.forward(&train.features)
            .cross_entropy(&train.labels)
            .to_f64(),
    );
    (losses, mlp)
}

#[test]
fn hand_written_backprop_reproduces_torch_training() {
    for seed in ["0", "1", "2"] {
        let r = Reference::load(seed);
        let (losses, mlp) = train::<f64>(&r);
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
fn f32_training_tracks_f64() {
    let r = Reference::load("0");
    let (losses32, _) = train::<f32>(&r);
    for (got, want) in losses32.iter().zip(r.floats("loss_per_epoch_f64")) {
        assert!(relative(*got, want) < 1e-4, "{got} vs {want}");
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let r = Reference::load("1");
    let (train, _) = r.train_set::<f64>();
    let mlp = r.model::<f64>();
    let (_, grads) = loss_and_grad(&mlp, &train.features, &train.labels);
    let f = |flat: &[f64]| {
        mlp.from_flat(flat)
            .forward(&train.features)
            .cross_entropy(&train.labels)
    };
    diffx_runtime::check::check_gradient(f, &mlp.to_flat_vec(), &grads.to_flat_vec())
        .assert_close(1e-7);
}
