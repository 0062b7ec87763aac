//! Empty tensors, with the results the tensor module documents: sums over nothing are 0, maxima
//! and log-sum-exps −∞, softmaxes of empty rows empty, and a mean over nothing (or an argmax of
//! nothing) a panic naming the operation.

use diffx::data::accuracy;
use diffx::Tensor;

type T = Tensor<f64>;

#[test]
fn reductions_over_nothing_give_their_identity() {
    let rows_without_columns = T::zeros(&[2, 0]);
    let lse = rows_without_columns.logsumexp();
    assert_eq!(lse.shape(), &[2, 1]);
    assert_eq!(lse.data(), &[f64::NEG_INFINITY; 2]);
    assert_eq!(T::zeros(&[0]).logsumexp().data(), &[f64::NEG_INFINITY]);
    assert_eq!(rows_without_columns.softmax().shape(), &[2, 0]);
    assert_eq!(rows_without_columns.log_softmax().shape(), &[2, 0]);
    assert_eq!(rows_without_columns.sum(), 0.0);
    assert_eq!(rows_without_columns.sum_axis(1).data(), &[0.0, 0.0]);
    assert_eq!(
        rows_without_columns.max_axis(1).data(),
        &[f64::NEG_INFINITY; 2]
    );
    assert_eq!(T::zeros(&[0, 3]).sum_axis(0).data(), &[0.0; 3]);
    assert_eq!(T::zeros(&[0, 3]).argmax_rows(), Vec::<usize>::new());
    assert_eq!(T::zeros(&[0, 3]).softmax().shape(), &[0, 3]);
    let product = T::zeros(&[2, 0]).matmul(&T::zeros(&[0, 3]));
    assert_eq!(product, T::zeros(&[2, 3]));
}

#[test]
fn a_mean_over_nothing_is_an_error() {
    let no_rows = T::zeros(&[0, 3]);
    panics_here!(
        no_rows.mean(),
        "mean: the tensor of shape [0, 3] has no elements to average"
    );
    panics_here!(
        no_rows.mean_axis(0),
        "mean_axis: axis 0 of shape [0, 3] has no elements to average"
    );
    assert_eq!(no_rows.mean_axis(1).shape(), &[0, 1]);
    panics_here!(no_rows.mse(&no_rows), "mse", "no elements", "undefined");
    panics_here!(
        no_rows.cross_entropy(&[]),
        "cross_entropy: logits of shape [0, 3] have no rows",
        "undefined"
    );
    panics_here!(
        no_rows.cross_entropy_with_grad(&[]),
        "cross_entropy: logits of shape [0, 3] have no rows"
    );
    panics_here!(
        no_rows.cross_entropy_onehot(&no_rows),
        "cross_entropy_onehot",
        "no rows"
    );
    panics_here!(accuracy(&[], &[]), "accuracy: no predictions to score");
    let e = no_rows.try_cross_entropy(&[]).unwrap_err();
    assert_eq!(e.op(), "cross_entropy");
    assert!(no_rows.try_mse(&no_rows).is_err());
}

#[test]
fn argmax_of_rows_without_columns_is_an_error() {
    panics_here!(
        T::zeros(&[2, 0]).argmax_rows(),
        "argmax_rows: the 2 rows of shape [2, 0] have no columns"
    );
}
