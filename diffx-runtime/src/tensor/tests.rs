//! Unit tests of the tensor kernels: known values, broadcasting, shape errors, stability.

use super::*;

fn t(rows: &[&[f64]]) -> Tensor<f64> {
    Tensor::from_rows(rows)
}

fn naive_matmul(a: &Tensor<f64>, b: &Tensor<f64>) -> Tensor<f64> {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|p| a.at(i, p) * b.at(p, j)).sum();
        }
    }
    Tensor::from_vec(out, &[m, n])
}

fn assert_close(a: &Tensor<f64>, b: &Tensor<f64>, tol: f64) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.data().iter().zip(b.data()) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a}\nvs\n{b}");
    }
}

#[test]
fn construction_and_access() {
    let a = t(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    assert_eq!(a.shape(), &[2, 3]);
    assert_eq!(
        (a.rows(), a.cols(), a.len(), a.is_empty()),
        (2, 3, 6, false)
    );
    assert_eq!(a.get(&[1, 2]), Some(6.0));
    assert_eq!(a.get(&[2, 0]), None);
    assert_eq!(a.at(0, 1), 2.0);
    assert_eq!(a.row(1), &[4.0, 5.0, 6.0]);
    assert_eq!(Tensor::<f64>::zeros(&[2, 2]).data(), &[0.0; 4]);
    assert_eq!(Tensor::<f32>::ones(&[3]).data(), &[1.0; 3]);
    assert_eq!(Tensor::full(&[1, 2], 7.0_f64).data(), &[7.0, 7.0]);
    assert_eq!(Tensor::scalar(2.5_f64).item(), 2.5);
    assert_eq!(a.zeros_like().shape(), &[2, 3]);
    assert_eq!(a.clone().into_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let f: Tensor<f32> = a.cast();
    assert_eq!(f.to_f64(), a);
    assert_eq!(
        Tensor::one_hot(&[2, 0], 3),
        t(&[&[0.0, 0.0, 1.0], &[1.0, 0.0, 0.0]])
    );
}

#[test]
#[should_panic(expected = "from_vec: 5 elements do not fit shape [2, 3] (6 elements)")]
fn from_vec_length_mismatch_panics() {
    Tensor::from_vec(vec![1.0_f32; 5], &[2, 3]);
}

#[test]
fn try_from_vec_reports() {
    let e = Tensor::try_from_vec(vec![1.0_f32; 5], &[2, 3]).unwrap_err();
    assert_eq!(e.op(), "from_vec");
    assert!(e.to_string().contains("[2, 3]"));
}

#[test]
#[should_panic(expected = "item: shape [2] has 2 elements, not 1")]
fn item_needs_one_element() {
    Tensor::<f64>::zeros(&[2]).item();
}

#[test]
fn random_is_seeded() {
    let a = Tensor::<f32>::randn(&[3, 4], 42);
    assert_eq!(a, Tensor::randn(&[3, 4], 42));
    assert_ne!(a, Tensor::randn(&[3, 4], 43));
    let u = Tensor::<f64>::rand_uniform(&[1000], -2.0, 3.0, 1);
    assert!(u.data().iter().all(|&x| (-2.0..3.0).contains(&x)));
    assert!((u.mean() - 0.5).abs() < 0.2);
}

#[test]
fn matmul_matches_naive() {
    // Shapes on both sides of the small-product threshold (nano-gemm below, matrixmultiply above),
    // with odd sizes that leave partial vector lanes, each through all three transposition forms;
    // `t_matmul` with a few output columns goes through the transposed product (Iris's [10, 3]).
    for (i, &(m, k, n)) in [
        (5, 7, 3),
        (10, 120, 3),
        (9, 4, 1),
        (120, 4, 10),
        (3, 120, 10),
        (1, 9, 1),
        (70, 80, 90),
    ]
    .iter()
    .enumerate()
    {
        let a = Tensor::<f64>::randn(&[m, k], 2 * i as u64);
        let b = Tensor::<f64>::randn(&[k, n], 2 * i as u64 + 1);
        let c = naive_matmul(&a, &b);
        assert_close(&a.matmul(&b), &c, 1e-12);
        assert_close(&a.matmul_t(&b.t()), &c, 1e-12);
        assert_close(&a.t().t_matmul(&b), &c, 1e-12);
        let (a32, b32): (Tensor<f32>, Tensor<f32>) = (a.cast(), b.cast());
        assert_close(&a32.matmul(&b32).to_f64(), &c, 1e-4);
        assert_close(&a32.matmul_t(&b32.t()).to_f64(), &c, 1e-4);
        assert_close(&a32.t().t_matmul(&b32).to_f64(), &c, 1e-4);
    }
    assert_eq!(
        Tensor::<f64>::zeros(&[2, 0]).matmul(&Tensor::zeros(&[0, 3])),
        Tensor::zeros(&[2, 3])
    );
}

#[test]
#[should_panic(expected = "matmul: shapes [2, 3] and [4, 5] do not fit (inner dimensions 3 ≠ 4)")]
fn matmul_mismatch_panics() {
    Tensor::<f32>::zeros(&[2, 3]).matmul(&Tensor::zeros(&[4, 5]));
}

#[test]
fn matmul_try_errors_name_both_shapes() {
    let (a, b) = (Tensor::<f32>::zeros(&[2, 3]), Tensor::<f32>::zeros(&[4, 5]));
    let msg = |e: ShapeError| e.to_string();
    assert_eq!(
        msg(a.try_matmul_t(&b).unwrap_err()),
        "matmul_t: shapes [2, 3] and [4, 5] do not fit (inner dimensions 3 ≠ 5)"
    );
    assert_eq!(
        msg(a.try_t_matmul(&b).unwrap_err()),
        "t_matmul: shapes [2, 3] and [4, 5] do not fit (inner dimensions 2 ≠ 4)"
    );
    let v = Tensor::<f32>::zeros(&[3]);
    assert_eq!(
        msg(v.try_matmul(&a).unwrap_err()),
        "matmul: shapes [3] and [2, 3] do not fit (both must be 2-D)"
    );
}

#[test]
fn transpose() {
    let a = t(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    assert_eq!(a.t(), t(&[&[1.0, 4.0], &[2.0, 5.0], &[3.0, 6.0]]));
    assert_eq!(a.t().t(), a);
    let v = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
    assert_eq!(v.t(), v);
}

#[test]
fn arithmetic_same_shape_and_scalars() {
    let a = t(&[&[1.0, 2.0], &[3.0, 4.0]]);
    let b = t(&[&[5.0, 6.0], &[7.0, 8.0]]);
    assert_eq!((&a + &b).data(), &[6.0, 8.0, 10.0, 12.0]);
    assert_eq!((&b - &a).data(), &[4.0; 4]);
    assert_eq!((&a * &b).data(), &[5.0, 12.0, 21.0, 32.0]);
    assert_eq!((&b / &a).data(), &[5.0, 3.0, 7.0 / 3.0, 2.0]);
    assert_eq!((a.clone() + &b), &a + &b);
    assert_eq!((a.clone() * b.clone()), &a * &b);
    assert_eq!((&a - b.clone()), &a - &b);
    assert_eq!((&a * 2.0).data(), &[2.0, 4.0, 6.0, 8.0]);
    assert_eq!((2.0 * &a).data(), &[2.0, 4.0, 6.0, 8.0]);
    assert_eq!((&a + 1.0).data(), &[2.0, 3.0, 4.0, 5.0]);
    assert_eq!((1.0 - &a).data(), &[0.0, -1.0, -2.0, -3.0]);
    assert_eq!((&a / 2.0).data(), &[0.5, 1.0, 1.5, 2.0]);
    assert_eq!((12.0 / &a).data(), &[12.0, 6.0, 4.0, 3.0]);
    assert_eq!((-&a).data(), &[-1.0, -2.0, -3.0, -4.0]);
    assert_eq!((-a.clone()), -&a);
    let f = Tensor::from_vec(vec![1.0_f32, 2.0], &[2]);
    assert_eq!((2.0 * &f).data(), &[2.0, 4.0]);
    assert_eq!((3.0 - f.clone()).data(), &[2.0, 1.0]);
}

#[test]
fn broadcasting() {
    let m = t(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    let row = t(&[&[10.0, 20.0, 30.0]]);
    let flat = Tensor::from_vec(vec![10.0, 20.0, 30.0], &[3]);
    let col = t(&[&[100.0], &[200.0]]);
    let expect_row = t(&[&[11.0, 22.0, 33.0], &[14.0, 25.0, 36.0]]);
    assert_eq!(&m + &row, expect_row);
    assert_eq!(&m + &flat, expect_row);
    assert_eq!(&row + &m, expect_row);
    assert_eq!(
        &m + &col,
        t(&[&[101.0, 102.0, 103.0], &[204.0, 205.0, 206.0]])
    );
    assert_eq!(&col - &m, t(&[&[99.0, 98.0, 97.0], &[196.0, 195.0, 194.0]]));
    assert_eq!(&m * &Tensor::scalar(2.0), &m * 2.0);
    assert_eq!(&Tensor::scalar(2.0) / &m, 2.0 / &m);
    // Both operands broadcast: an outer sum.
    let outer = &col + &row;
    assert_eq!(outer, t(&[&[110.0, 120.0, 130.0], &[210.0, 220.0, 230.0]]));
    // n-D general case: [2, 1, 3] with [2, 1].
    let a = Tensor::from_vec((0..6).map(f64::from).collect(), &[2, 1, 3]);
    let b = Tensor::from_vec(vec![0.0, 10.0], &[2, 1]);
    let c = &a + &b;
    assert_eq!(c.shape(), &[2, 2, 3]);
    assert_eq!(
        c.data(),
        &[0., 1., 2., 10., 11., 12., 3., 4., 5., 13., 14., 15.]
    );
    // In place.
    let mut acc = m.clone();
    acc += &row;
    assert_eq!(acc, expect_row);
    acc -= &row;
    acc *= 2.0;
    assert_eq!(acc, &m * 2.0);
    acc /= 2.0;
    acc *= &col;
    assert_eq!(acc, &m * &col);
    // Owned lhs that has to grow.
    assert_eq!(row.clone() + &m, expect_row);
}

#[test]
#[should_panic(expected = "add: shapes [2, 3] and [2] do not broadcast (3 ≠ 2)")]
fn broadcast_mismatch_panics() {
    let _ = &Tensor::<f32>::zeros(&[2, 3]) + &Tensor::zeros(&[2]);
}

#[test]
fn broadcast_try_errors() {
    let (a, b) = (Tensor::<f32>::zeros(&[2, 3]), Tensor::<f32>::zeros(&[3, 3]));
    for (e, op) in [
        (a.try_add(&b), "add"),
        (a.try_sub(&b), "sub"),
        (a.try_mul(&b), "mul"),
        (a.try_div(&b), "div"),
    ] {
        assert_eq!(
            e.unwrap_err().to_string(),
            format!("{op}: shapes [2, 3] and [3, 3] do not broadcast (2 ≠ 3)")
        );
    }
    assert!(a.try_zip_map(&b, |x, _| x).is_err());
}

#[test]
#[should_panic(expected = "add_assign: shapes [1, 3] and [2, 3] do not fit in place")]
fn add_assign_cannot_grow() {
    let mut a = Tensor::<f32>::zeros(&[1, 3]);
    a += &Tensor::zeros(&[2, 3]);
}

#[test]
fn in_place_helpers() {
    let mut a = t(&[&[1.0, 2.0]]);
    a.axpy(-0.5, &t(&[&[2.0, 2.0]]));
    assert_eq!(a.data(), &[0.0, 1.0]);
    a.scale(3.0);
    assert_eq!(a.data(), &[0.0, 3.0]);
    a.add_assign(&Tensor::scalar(1.0));
    assert_eq!(a.data(), &[1.0, 4.0]);
    assert_eq!(a.zip_map(&a, |x, y| x * y + 1.0).data(), &[2.0, 17.0]);
}

#[test]
#[should_panic(expected = "axpy: shapes [2] and [3] differ")]
fn axpy_needs_same_shape() {
    Tensor::<f32>::zeros(&[2]).axpy(1.0, &Tensor::zeros(&[3]));
}

#[test]
fn elementwise_math() {
    let x = Tensor::from_vec(vec![-2.0_f64, 0.0, 0.5, 3.0], &[4]);
    let each = |f: fn(f64) -> f64| x.map(f);
    assert_eq!(x.exp(), each(f64::exp));
    assert_eq!(x.tanh(), each(f64::tanh));
    assert_eq!(x.abs(), each(f64::abs));
    assert_eq!(x.square().data(), &[4.0, 0.0, 0.25, 9.0]);
    assert_eq!(x.powi(3).data(), &[-8.0, 0.0, 0.125, 27.0]);
    assert_eq!(x.relu().data(), &[0.0, 0.0, 0.5, 3.0]);
    assert_eq!(x.relu_mask().data(), &[0.0, 0.0, 1.0, 1.0]);
    assert_eq!(x.sigmoid(), each(crate::sigmoid));
    let p = Tensor::from_vec(vec![0.25_f64, 1.0, 4.0], &[3]);
    assert_eq!(p.sqrt().data(), &[0.5, 1.0, 2.0]);
    assert_eq!(p.ln(), p.map(f64::ln));
    assert_eq!(p.recip().data(), &[4.0, 1.0, 0.25]);
    let far = Tensor::from_vec(vec![-1000.0_f32, 1000.0], &[2]);
    assert_eq!(far.sigmoid().data(), &[0.0, 1.0]);
    assert_eq!(far.tanh().data(), &[-1.0, 1.0]);
    assert_eq!(far.exp().data(), &[0.0, f32::INFINITY]);
}

#[test]
fn f32_fast_math_is_close_to_std() {
    let x = Tensor::<f32>::rand_uniform(&[10_000], -20.0, 20.0, 9);
    for (fast, exact) in x.tanh().data().iter().zip(x.map(f32::tanh).data()) {
        assert!(
            (fast - exact).abs() <= 4.0 * f32::EPSILON * exact.abs(),
            "{fast} {exact}"
        );
    }
    for (fast, exact) in x.exp().data().iter().zip(x.map(f32::exp).data()) {
        assert!(
            (fast - exact).abs() <= 3.0 * f32::EPSILON * exact.abs(),
            "{fast} {exact}"
        );
    }
}

#[test]
fn reductions() {
    let m = t(&[&[1.0, 5.0, 3.0], &[4.0, 2.0, 6.0]]);
    assert_eq!(m.sum(), 21.0);
    assert_eq!(m.mean(), 3.5);
    assert_eq!(m.sum_axis(0), t(&[&[5.0, 7.0, 9.0]]));
    assert_eq!(m.sum_axis(1), t(&[&[9.0], &[12.0]]));
    assert_eq!(m.mean_axis(0), t(&[&[2.5, 3.5, 4.5]]));
    assert_eq!(m.mean_axis(1), t(&[&[3.0], &[4.0]]));
    assert_eq!(m.max_axis(0), t(&[&[4.0, 5.0, 6.0]]));
    assert_eq!(m.max_axis(1), t(&[&[5.0], &[6.0]]));
    assert_eq!(m.argmax_rows(), vec![1, 2]);
    assert_eq!(t(&[&[1.0, 1.0]]).argmax_rows(), vec![0]);
    let long = Tensor::from_vec((1..=100).map(f64::from).collect(), &[100]);
    assert_eq!(long.sum(), 5050.0);
    let cube = Tensor::from_vec((0..24).map(f64::from).collect(), &[2, 3, 4]);
    assert_eq!(cube.sum_axis(1).shape(), &[2, 1, 4]);
    assert_eq!(cube.sum_axis(1).data()[..4], [12.0, 15.0, 18.0, 21.0]);
}

#[test]
#[should_panic(expected = "sum_axis: axis 2 is out of range for shape [2, 3]")]
fn sum_axis_out_of_range() {
    Tensor::<f32>::zeros(&[2, 3]).sum_axis(2);
}

#[test]
fn reshape_broadcast_sum_to() {
    let m = t(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    assert_eq!(m.reshape(&[3, 2]).shape(), &[3, 2]);
    assert_eq!(m.reshape(&[6]).data(), m.data());
    let row = t(&[&[1.0, 2.0, 3.0]]);
    assert_eq!(
        row.broadcast_to(&[2, 3]),
        t(&[&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]])
    );
    assert_eq!(m.sum_to(&[1, 3]), m.sum_axis(0));
    assert_eq!(m.sum_to(&[3]).data(), &[5.0, 7.0, 9.0]);
    assert_eq!(m.sum_to(&[2, 1]), m.sum_axis(1));
    assert_eq!(m.sum_to(&[]).item(), 21.0);
    assert_eq!(m.sum_to(&[1, 1]).shape(), &[1, 1]);
    assert_eq!(m.sum_to(&[2, 3]), m);
    // sum_to is the adjoint of broadcast_to: <broadcast(x), y> = <x, sum_to(y)>.
    let x = Tensor::<f64>::randn(&[2, 1, 3], 5);
    let y = Tensor::<f64>::randn(&[4, 2, 5, 3], 6);
    let lhs = (&x.broadcast_to(y.shape()) * &y).sum();
    let rhs = (&x * &y.sum_to(x.shape())).sum();
    assert!((lhs - rhs).abs() < 1e-12);
}

#[test]
#[should_panic(expected = "reshape: shapes [2, 3] and [4] do not fit (element counts 6 ≠ 4)")]
fn reshape_count_mismatch() {
    Tensor::<f32>::zeros(&[2, 3]).reshape(&[4]);
}

#[test]
fn sum_to_and_broadcast_to_errors() {
    let m = Tensor::<f32>::zeros(&[2, 3]);
    let e = m.try_sum_to(&[2]).unwrap_err().to_string();
    assert!(
        e.starts_with("sum_to: shapes [2] and [2, 3] do not fit"),
        "{e}"
    );
    let e = m.try_broadcast_to(&[3]).unwrap_err().to_string();
    assert!(
        e.starts_with("broadcast_to: shapes [2, 3] and [3] do not fit"),
        "{e}"
    );
}

#[test]
fn softmax_known_values() {
    let x = t(&[&[0.0, 2f64.ln()], &[1.0, 1.0]]);
    assert_close(
        &x.softmax(),
        &t(&[&[1.0 / 3.0, 2.0 / 3.0], &[0.5, 0.5]]),
        1e-15,
    );
    assert_close(&x.log_softmax(), &x.softmax().ln(), 1e-15);
    assert_close(
        &x.logsumexp(),
        &t(&[&[3f64.ln()], &[1.0 + 2f64.ln()]]),
        1e-15,
    );
    assert_eq!(
        Tensor::from_vec(vec![0.0_f64, 0.0], &[2])
            .logsumexp()
            .shape(),
        &[1]
    );
}

#[test]
fn stable_at_extreme_logits() {
    let x = t(&[&[1000.0, -1000.0, 0.0], &[-1000.0, -1000.0, -1000.0]]);
    assert_eq!(
        x.softmax().data(),
        &[1.0, 0.0, 0.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]
    );
    let ls = x.log_softmax();
    assert_eq!(ls.data()[..3], [0.0, -2000.0, -1000.0]);
    assert!((ls.data()[3] + 3f64.ln()).abs() < 1e-15);
    assert_eq!(x.logsumexp().data()[0], 1000.0);
    assert_eq!(x.cross_entropy(&[0, 0]), 3f64.ln() / 2.0);
    assert_eq!(x.cross_entropy(&[1, 0]), (2000.0 + 3f64.ln()) / 2.0);
    let x32: Tensor<f32> = x.cast();
    assert!(x32.softmax().data().iter().all(|v| v.is_finite()));
    assert_eq!(x32.cross_entropy(&[1, 2]), (2000.0 + 3f32.ln()) / 2.0);
}

#[test]
fn losses() {
    let logits = t(&[&[2.0, 1.0, 0.1], &[0.5, 2.5, 0.3]]);
    let labels = [0, 1];
    // −log softmax at the labels, by hand.
    let by_hand = |row: &[f64], l: usize| -(row[l] - row.iter().map(|v| v.exp()).sum::<f64>().ln());
    let expected = (by_hand(logits.row(0), 0) + by_hand(logits.row(1), 1)) / 2.0;
    assert!((logits.cross_entropy(&labels) - expected).abs() < 1e-15);
    let onehot = Tensor::one_hot(&labels, 3);
    assert!((logits.cross_entropy_onehot(&onehot) - expected).abs() < 1e-15);
    let target = t(&[&[1.0, 1.0, 1.0], &[0.0, 0.0, 0.0]]);
    assert!((logits.mse(&target) - (1.0 + 0.0 + 0.81 + 0.25 + 6.25 + 0.09) / 6.0).abs() < 1e-15);
}

#[test]
#[should_panic(
    expected = "cross_entropy: label 3 at row 1 is not below the 3 columns of logits [2, 3]"
)]
fn cross_entropy_label_out_of_range() {
    Tensor::<f32>::zeros(&[2, 3]).cross_entropy(&[0, 3]);
}

#[test]
#[should_panic(expected = "cross_entropy: 1 labels for the 2 rows of logits [2, 3]")]
fn cross_entropy_label_count() {
    Tensor::<f32>::zeros(&[2, 3]).cross_entropy(&[0]);
}

#[test]
fn loss_shape_errors() {
    let (a, b) = (Tensor::<f32>::zeros(&[2, 3]), Tensor::<f32>::zeros(&[3, 2]));
    assert_eq!(
        a.try_mse(&b).unwrap_err().to_string(),
        "mse: shapes [2, 3] and [3, 2] differ"
    );
    assert!(a
        .try_cross_entropy_onehot(&b)
        .unwrap_err()
        .to_string()
        .starts_with("cross_entropy_onehot: shapes [2, 3]"));
    assert!(a
        .try_scaled_difference(&b, 1.0)
        .unwrap_err()
        .to_string()
        .starts_with("scaled_difference: shapes [2, 3] and [3, 2] do not broadcast"));
}

#[test]
fn cross_entropy_grad_is_scaled_softmax_minus_one_hot() {
    // Short rows (3 classes, as Iris), large and tiny logits, and a row holding ∓1000.
    let logits = t(&[
        &[0.5, -1.0, 2.0],
        &[1000.0, -1000.0, 0.0],
        &[-3.0, -3.0, -3.0],
        &[1e-3, 2e-3, -1e-3],
    ]);
    let labels = [2, 0, 1, 2];
    let expected = (logits.softmax() - Tensor::one_hot(&labels, 3)) * 0.25;
    assert_close(&logits.cross_entropy_grad(&labels, 0.25), &expected, 1e-15);
    assert!(logits.cross_entropy_grad(&labels, 1.0).sum().abs() < 1e-14);
    assert_eq!(
        logits
            .try_cross_entropy_grad(&[0, 3, 0, 0], 1.0)
            .unwrap_err()
            .to_string(),
        "cross_entropy_grad: label 3 at row 1 is not below the 3 columns of logits [4, 3]"
    );
    assert_eq!(
        logits
            .try_cross_entropy_grad(&[0], 1.0)
            .unwrap_err()
            .to_string(),
        "cross_entropy_grad: 1 labels for the 4 rows of logits [4, 3]"
    );
}

#[test]
fn row_broadcasts_and_their_sums_over_many_rows() {
    // Rows shorter than a tile (repeated into it, with leftover rows) and longer than one.
    for (i, &(rows, cols)) in [(121, 3), (120, 10), (7, 64), (5, 70), (3, 1)]
        .iter()
        .enumerate()
    {
        let x = Tensor::<f64>::randn(&[rows, cols], 10 + i as u64);
        let bias = Tensor::<f64>::randn(&[cols], 20 + i as u64);
        let (sum, difference) = (&x + &bias, &bias - &x);
        // By value, the bias is added in the left operand's buffer (the in-place tiled path).
        assert_eq!(x.clone() + &bias, sum);
        let mut column_sums = vec![0.0; cols];
        for r in 0..rows {
            for (c, total) in column_sums.iter_mut().enumerate() {
                assert_eq!(sum.at(r, c), x.at(r, c) + bias.data()[c]);
                assert_eq!(difference.at(r, c), bias.data()[c] - x.at(r, c));
                *total += x.at(r, c);
            }
        }
        let expected = Tensor::from_vec(column_sums, &[cols]);
        assert_close(&x.sum_to(&[cols]), &expected, 1e-13);
    }
}

#[test]
fn owned_right_operand_gives_the_same_result() {
    let m = t(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    let row = t(&[&[10.0, 20.0, 30.0]]);
    // The result has the right operand's shape: computed in its buffer.
    assert_eq!(&row - m.clone(), &row - &m);
    assert_eq!(&m / m.clone(), Tensor::ones(&[2, 3]));
    // The result is larger than the right operand: a new tensor, as with a borrowed one.
    assert_eq!(&m - row.clone(), &m - &row);
    assert_eq!(1.0 - m.clone(), 1.0 - &m);
}

#[test]
fn display() {
    let small = t(&[&[1.0, -2.5], &[10.0, 0.25]]);
    assert_eq!(
        format!("{small:.1}"),
        "Tensor [2, 2]\n[[ 1.0, -2.5],\n [10.0,  0.2]]"
    );
    let big = Tensor::<f32>::zeros(&[100, 20]);
    let text = big.to_string();
    assert!(
        text.starts_with("Tensor [100, 20]\n[[0.0000, 0.0000, 0.0000,      …, 0.0000"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + 7);
    assert_eq!(Tensor::scalar(1.5_f64).to_string(), "Tensor []\n[[1.5000]]");
}

#[test]
fn fused_activation_derivatives_match_their_formulas() {
    let x = Tensor::<f64>::from_vec(vec![-2.0, -0.5, 0.0, 0.3, 4.0, f64::INFINITY], &[2, 3]);
    let g = Tensor::from_vec(vec![1.5, -2.0, f64::INFINITY, 0.25, 3.0, 1.0], &[2, 3]);
    let (y, s, r) = (x.tanh(), x.sigmoid(), x.relu());
    let tanh = g.mul_dtanh(&y);
    let sigmoid = g.mul_dsigmoid(&s);
    for i in 0..6 {
        let (gi, yi, si) = (g.data()[i], y.data()[i], s.data()[i]);
        assert_eq!(tanh.data()[i], gi * (1.0 - yi * yi));
        assert_eq!(sigmoid.data()[i], gi * (si * (1.0 - si)));
    }
    // relu′(0) = 0, and an infinite seed where relu′ is 0 gives 0, not NaN.
    assert_eq!(g.mul_drelu(&r).data(), &[0.0, 0.0, 0.0, 0.25, 3.0, 1.0]);
    // A row of derivatives broadcasts like any elementwise operation.
    let row = Tensor::from_vec(vec![0.5, 0.0, 1.0], &[3]);
    assert_eq!(g.mul_dtanh(&row).data()[3], 0.25 * 0.75);
}

#[test]
fn fused_activation_derivatives_name_the_operation_and_both_shapes() {
    let (g, y) = (Tensor::<f32>::zeros(&[2, 3]), Tensor::<f32>::zeros(&[2, 4]));
    assert_eq!(
        g.try_mul_dtanh(&y).unwrap_err().to_string(),
        "mul_dtanh: shapes [2, 3] and [2, 4] do not broadcast (3 ≠ 4)"
    );
    assert!(g
        .try_mul_drelu(&y)
        .unwrap_err()
        .to_string()
        .starts_with("mul_drelu: "));
    assert!(g
        .try_mul_dsigmoid(&y)
        .unwrap_err()
        .to_string()
        .starts_with("mul_dsigmoid: "));
}

#[test]
fn maps_of_an_owned_tensor_equal_the_borrowed_ones() {
    use crate::private::owned;
    let x = Tensor::<f32>::randn(&[7, 5], 30).abs();
    let y = Tensor::<f32>::randn(&[7, 5], 31);
    assert_eq!(owned::exp(y.clone()), y.exp());
    assert_eq!(owned::ln(x.clone()), x.ln());
    assert_eq!(owned::sqrt(x.clone()), x.sqrt());
    assert_eq!(owned::square(y.clone()), y.square());
    assert_eq!(owned::tanh(y.clone()), y.tanh());
    assert_eq!(owned::sigmoid(y.clone()), y.sigmoid());
    assert_eq!(owned::relu(y.clone()), y.relu());
}

#[test]
fn cross_entropy_with_grad_names_cross_entropy_on_bad_labels() {
    // Reverse mode computes the user's `cross_entropy` by this method: the message names that.
    let logits = Tensor::<f32>::zeros(&[2, 3]);
    assert_eq!(
        logits
            .try_cross_entropy_with_grad(&[0])
            .unwrap_err()
            .to_string(),
        "cross_entropy: 1 labels for the 2 rows of logits [2, 3]"
    );
    assert_eq!(
        logits
            .try_cross_entropy_with_grad(&[0, 3])
            .unwrap_err()
            .to_string(),
        "cross_entropy: label 3 at row 1 is not below the 3 columns of logits [2, 3]"
    );
}
