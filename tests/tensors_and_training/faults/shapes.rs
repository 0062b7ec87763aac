//! Operations on shapes that do not fit: a panic at the caller's line that names the operation the
//! caller wrote and the shapes.

use std::ops::AddAssign;

use diffx::data::{accuracy, Dataset, Standardizer};
use diffx::nn::{Activation, Init, Linear, Mlp};
use diffx::{autodiff, Params, Tensor};

type T = Tensor<f64>;

fn m(rows: usize, cols: usize) -> T {
    Tensor::from_vec((0..rows * cols).map(|i| i as f64).collect(), &[rows, cols])
}

#[test]
fn arithmetic_and_matrix_products() {
    let (a, b) = (m(2, 3), m(4, 5));
    panics_here!(
        a.matmul(&b),
        "matmul: shapes [2, 3] and [4, 5] do not fit",
        "3 ≠ 4"
    );
    panics_here!(a.matmul_t(&b), "matmul_t", "[2, 3] and [4, 5]");
    panics_here!(a.t_matmul(&b), "t_matmul", "[2, 3] and [4, 5]");
    panics_here!(&a + &b, "add: shapes [2, 3] and [4, 5] do not broadcast");
    panics_here!(a.clone() - &b, "sub", "[2, 3] and [4, 5]");
    panics_here!(&a * b.clone(), "mul", "[2, 3] and [4, 5]");
    panics_here!(a.clone() / b.clone(), "div", "[2, 3] and [4, 5]");
    panics_here!(
        AddAssign::add_assign(&mut a.clone(), &b),
        "add_assign",
        "[2, 3] and [4, 5]"
    );
    panics_here!(
        a.clone().axpy(1.0, &b),
        "axpy: shapes [2, 3] and [4, 5] differ"
    );
    panics_here!(a.zip_map(&b, f64::max), "zip_map", "[2, 3] and [4, 5]");
    panics_here!(
        a.scaled_difference(&b, 2.0),
        "scaled_difference",
        "[2, 3] and [4, 5]"
    );
    panics_here!(a.mul_dtanh(&b), "mul_dtanh", "[2, 3] and [4, 5]");
}

#[test]
fn construction_indexing_and_shapes() {
    let a = m(2, 3);
    panics_here!(
        T::from_vec(vec![1.0; 5], &[2, 3]),
        "from_vec: 5 elements do not fit shape [2, 3]"
    );
    panics_here!(
        T::from_rows(&[&[1.0, 2.0], &[3.0]]),
        "from_rows: row 1 has 1 elements"
    );
    panics_here!(
        T::zeros(&[1 << 40, 1 << 40]),
        "zeros: shape [1099511627776, 1099511627776]",
        "more elements than a usize can count"
    );
    panics_here!(
        T::randn(&[usize::MAX, 2], 0),
        "randn",
        "more elements than a usize can count"
    );
    panics_here!(
        a.reshape(&[4, 2]),
        "reshape: shapes [2, 3] and [4, 2] do not fit",
        "6 ≠ 8"
    );
    panics_here!(
        a.reshape(&[usize::MAX, 3]),
        "reshape",
        "more elements than a usize can count"
    );
    panics_here!(
        T::zeros(&[2, 2, 2]).t(),
        "t: expected at most 2 axes, got shape [2, 2, 2]"
    );
    panics_here!(a.broadcast_to(&[3, 3]), "broadcast_to", "[2, 3] and [3, 3]");
    panics_here!(a.sum_to(&[4]), "sum_to", "[4] and [2, 3]");
    panics_here!(
        a.row(7),
        "row: index 7 is out of range for the 2 rows of shape [2, 3]"
    );
    panics_here!(a.at(2, 0), "at: index [2, 0] is outside shape [2, 3]");
    panics_here!(a.item(), "item: shape [2, 3] has 6 elements, not 1");
    panics_here!(
        a.sum_axis(2),
        "sum_axis: axis 2 is out of range for shape [2, 3]"
    );
    panics_here!(a.mean_axis(5), "mean_axis: axis 5 is out of range");
    panics_here!(a.max_axis(2), "max_axis: axis 2");
    panics_here!(
        T::one_hot(&[0, 3], 3),
        "one_hot: label 3 at row 1 is not below 3 classes"
    );
}

#[test]
fn losses_name_the_operation_the_caller_wrote() {
    let logits = m(2, 3);
    panics_here!(
        logits.cross_entropy(&[0]),
        "cross_entropy: 1 labels for the 2 rows of logits [2, 3]"
    );
    panics_here!(
        logits.cross_entropy(&[0, 3]),
        "cross_entropy: label 3 at row 1 is not below the 3 columns"
    );
    // What reverse mode runs for `cross_entropy` names `cross_entropy` too.
    let message = panics_here!(
        logits.cross_entropy_with_grad(&[0]),
        "cross_entropy: 1 labels"
    );
    assert!(!message.contains("with_grad"), "{message}");
    panics_here!(
        logits.cross_entropy_grad(&[0], 1.0),
        "cross_entropy_grad: 1 labels"
    );
    panics_here!(
        logits.cross_entropy_onehot(&m(3, 2)),
        "cross_entropy_onehot: shapes [2, 3] and [3, 2] differ"
    );
    panics_here!(logits.mse(&m(3, 2)), "mse: shapes [2, 3] and [3, 2] differ");
}

#[autodiff]
fn ce_loss(logits: &T, labels: &[usize]) -> f64 {
    (logits * 2.0).cross_entropy(labels)
}

#[test]
fn generated_derivatives_name_the_operation_in_the_user_function() {
    // Reverse mode computes `cross_entropy` with its gradient; forward mode computes it plainly:
    // both report the user's operation, from the user's file.
    let logits = m(2, 3);
    for caught in [
        super::support::panic_of(|| grad_ce_loss(&logits, &[0])),
        super::support::panic_of(|| jvp_ce_loss(&logits, &[0], &logits)),
    ] {
        assert_eq!(caught.file, file!(), "{caught:?}");
        assert_eq!(
            caught.message,
            "cross_entropy: 1 labels for the 2 rows of logits [2, 3]"
        );
    }
}

#[test]
fn layers_and_preprocessing() {
    let layer = Linear::<f64>::new(4, 3, Init::Xavier, 0);
    panics_here!(layer.forward(&m(2, 5)), "Linear::forward: the input has shape [2, 5], which does not fit the weight [4, 3] (expected [n, 4])");
    let mlp = Mlp::<f64>::new(&[4, 10, 3], Activation::Tanh, 0);
    panics_here!(
        mlp.forward(&m(2, 5)),
        "Mlp::forward: layer 0: the input has shape [2, 5]",
        "(expected [n, 4])"
    );
    panics_here!(mlp.predict(&m(2, 5)), "Mlp::forward: layer 0", "[2, 5]");
    let mut wide = mlp.clone();
    wide.layers[1] = Linear::new(12, 3, Init::Xavier, 1);
    panics_here!(
        wide.forward(&m(2, 4)),
        "Mlp::forward: layer 1: the output of layer 0 has shape [2, 10]",
        "[12, 3]"
    );
    panics_here!(
        Mlp::<f64>::new(&[4], Activation::Tanh, 0),
        "Mlp::new: expected at least an input and an output size"
    );
    let scaler = Standardizer::fit(&m(3, 4));
    panics_here!(
        scaler.transform(&m(2, 5)),
        "Standardizer::transform: expected an [n, 4] matrix",
        "[2, 5]"
    );
    panics_here!(
        Standardizer::fit(&T::zeros(&[0, 4])),
        "Standardizer::fit",
        "at least one row",
        "[0, 4]"
    );
    let data = Dataset {
        features: m(3, 2),
        labels: vec![0, 1, 0],
    };
    panics_here!(
        data.select(&[3]),
        "select: index 3 is out of range for 3 rows"
    );
    panics_here!(
        accuracy(&[0, 1], &[0]),
        "accuracy: 2 predictions for 1 labels"
    );
    panics_here!(
        data.batches(0, 0),
        "Batches::new: batch_size must be positive"
    );
}

#[test]
fn parameter_structs() {
    let (mut a, b) = (vec![m(2, 3), m(1, 3)], vec![m(2, 3), m(3, 1)]);
    panics_here!(
        a.axpy(1.0, &b),
        "Params::axpy: leaf 1 has shape [1, 3] in self but [3, 1] in other"
    );
    panics_here!(
        a.add_assign(&vec![m(2, 3)]),
        "Params::add_assign: 2 leaves in self, 1 in other"
    );
    panics_here!(a.dot(&b), "Params::dot", "[1, 3]", "[3, 1]");
    panics_here!(
        a.from_flat(&[1.0; 3]),
        "from_flat: 3 values for 9 parameters"
    );
    // Nothing was changed by the failed updates.
    assert_eq!(a, vec![m(2, 3), m(1, 3)]);
}

#[test]
fn debug_of_a_large_tensor_is_short() {
    let t = Tensor::<f32>::from_vec((0..10_000).map(|i| i as f32).collect(), &[100, 100]);
    let text = format!("{t:?}");
    assert_eq!(
        text,
        "Tensor { shape: [100, 100], dtype: f32, data: [0.0, 1.0, 2.0, …, 9997.0, 9998.0, 9999.0] }"
    );
    let small = format!("{:?}", Tensor::from_vec(vec![1.5_f64, -2.0], &[2]));
    assert_eq!(
        small,
        "Tensor { shape: [2], dtype: f64, data: [1.5, -2.0] }"
    );
    // A failed assert_eq! of two big tensors prints both in a few lines.
    let caught = super::support::panic_of(|| assert_eq!(t, t.map(|x| x + 1.0)));
    assert!(caught.message.len() < 400, "{}", caught.message);
}
