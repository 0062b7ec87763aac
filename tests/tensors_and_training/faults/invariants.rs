//! A tensor's data length is the product of its shape after every operation, for shapes with
//! axes of size 0 too: property tests over random shapes and the results' shapes.

use diffx::Tensor;
use proptest::prelude::*;

type T = Tensor<f64>;

/// The invariant, and the expected shape.
fn check(t: &T, shape: &[usize]) {
    assert_eq!(t.shape(), shape);
    assert_eq!(t.len(), shape.iter().product::<usize>(), "{t:?}");
    assert_eq!(t.data().len(), t.len());
}

/// Shapes of 0 to 3 axes, each of size 0 to 3.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, 0..4)
}

/// A tensor of `shape` with distinct values (some negative).
fn tensor(shape: &[usize]) -> T {
    let n = shape.iter().product::<usize>();
    T::from_vec((0..n).map(|i| i as f64 * 0.37 - 1.0).collect(), shape)
}

/// `shape` with some axes set to 1 and some leading axes dropped: it broadcasts to `shape`.
fn broadcastable(shape: &[usize], ones: &[bool], drop: usize) -> Vec<usize> {
    let kept = &shape[drop.min(shape.len())..];
    kept.iter()
        .zip(ones.iter().chain(std::iter::repeat(&false)))
        .map(|(&d, &one)| if one { 1 } else { d })
        .collect()
}

proptest! {
    #[test]
    fn elementwise_maps_keep_the_shape(s in shape()) {
        let x = tensor(&s);
        for y in [x.exp(), x.ln(), x.sqrt(), x.tanh(), x.sigmoid(), x.relu(), x.square(),
                  x.abs(), x.recip(), x.powi(3), x.relu_mask(), x.map(|v| v + 1.0), -&x, &x * 2.0] {
            check(&y, &s);
        }
    }

    #[test]
    fn broadcasting_arithmetic_and_its_adjoint(s in shape(), ones in prop::collection::vec(any::<bool>(), 3), drop in 0usize..3) {
        let (a, small) = (tensor(&s), broadcastable(&s, &ones, drop));
        let b = tensor(&small);
        for y in [&a + &b, &b - &a, &a * &b, a.clone() / &b, a.zip_map(&b, f64::max)] {
            check(&y, &s);
        }
        check(&b.broadcast_to(&s), &s);
        check(&a.sum_to(&small), &small);
        let mut c = a.clone();
        c += &b;
        check(&c, &s);
    }

    #[test]
    fn shape_operations(s in shape()) {
        let x = tensor(&s);
        let reversed: Vec<usize> = s.iter().rev().copied().collect();
        check(&x.reshape(&reversed), &reversed);
        if s.len() <= 2 {
            check(&x.t(), &reversed);
        }
        for axis in 0..s.len() {
            let mut kept = s.clone();
            kept[axis] = 1;
            check(&x.sum_axis(axis), &kept);
            check(&x.max_axis(axis), &kept);
            if s[axis] > 0 {
                check(&x.mean_axis(axis), &kept);
            }
        }
    }

    #[test]
    fn row_wise_operations(rows in 0usize..4, cols in 0usize..4) {
        let x = tensor(&[rows, cols]);
        check(&x.softmax(), &[rows, cols]);
        check(&x.log_softmax(), &[rows, cols]);
        let lse = x.logsumexp();
        check(&lse, &[rows, 1]);
        if cols == 0 {
            prop_assert!(lse.data().iter().all(|&v| v == f64::NEG_INFINITY));
        }
        if cols > 0 {
            prop_assert_eq!(x.argmax_rows().len(), rows);
            let labels: Vec<usize> = (0..rows).map(|i| i % cols).collect();
            check(&x.cross_entropy_grad(&labels, 1.0), &[rows, cols]);
            check(&T::one_hot(&labels, cols), &[rows, cols]);
            if rows > 0 {
                let (loss, grad) = x.cross_entropy_with_grad(&labels);
                prop_assert!(loss.is_finite());
                check(&grad, &[rows, cols]);
            }
        }
    }

    #[test]
    fn matrix_products(m in 0usize..4, k in 0usize..4, n in 0usize..4) {
        let (a, b) = (tensor(&[m, k]), tensor(&[k, n]));
        check(&a.matmul(&b), &[m, n]);
        check(&a.matmul_t(&tensor(&[n, k])), &[m, n]);
        check(&tensor(&[k, m]).t_matmul(&b), &[m, n]);
    }

    #[test]
    fn construction(s in shape(), seed in any::<u64>()) {
        check(&T::zeros(&s), &s);
        check(&T::full(&s, 2.5), &s);
        check(&T::randn(&s, seed), &s);
        check(&T::rand_uniform(&s, -1.0, 1.0, seed), &s);
        check(&tensor(&s).zeros_like(), &s);
        prop_assert!(T::try_from_vec(vec![0.0; 5], &s).is_ok() == (s.iter().product::<usize>() == 5));
    }
}
