//! Tensor operations under `#[autodiff]`, in f64: every rule against central finite differences
//! on every element, in both modes; broadcasting; stability at large logits; parameter structs.

use diffx::check::central_difference;
use diffx::{autodiff, Params, Tensor};

type T = Tensor<f64>;

/// Central differences of `f` with respect to every element of `x`.
fn fd(f: impl Fn(&T) -> f64, x: &T) -> T {
    let shape = x.shape().to_vec();
    let g = central_difference(|v| f(&T::from_vec(v.to_vec(), &shape)), x.data());
    T::from_vec(g, &shape)
}

#[track_caller]
fn assert_tensor_close(a: &T, b: &T, tol: f64, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}: shapes");
    for (i, (x, y)) in a.data().iter().zip(b.data()).enumerate() {
        assert!(
            (x - y).abs() <= tol * y.abs().max(1.0),
            "{what}: element {i}: {x} vs {y}\n{a}\n{b}"
        );
    }
}

/// ⟨a, b⟩ over all elements.
fn dot(a: &T, b: &T) -> f64 {
    a.data().iter().zip(b.data()).map(|(x, y)| x * y).sum()
}

fn data(rows: usize, cols: usize, seed: u64) -> T {
    T::randn(&[rows, cols], seed)
}

#[autodiff]
fn layer(x: &T, w: &T, b: &T) -> f64 {
    let h = (x.matmul(w) + b).tanh();
    (&h * &h).sum()
}

#[test]
fn matmul_bias_tanh_against_finite_differences() {
    let (x, w, b) = (data(5, 3, 1), data(3, 4, 2), data(1, 4, 3));
    let (gx, gw, gb) = grad_layer(&x, &w, &b);
    assert_tensor_close(&gx, &fd(|x| layer(x, &w, &b), &x), 1e-7, "∂x");
    assert_tensor_close(&gw, &fd(|w| layer(&x, w, &b), &w), 1e-7, "∂w");
    assert_tensor_close(&gb, &fd(|b| layer(&x, &w, b), &b), 1e-7, "∂b");
    // Forward mode along a random direction equals ⟨∇, direction⟩.
    let (tx, tw, tb) = (data(5, 3, 4), data(3, 4, 5), data(1, 4, 6));
    let (v, d) = jvp_layer(&x, &w, &b, &tx, &tw, &tb);
    assert_eq!(v, layer(&x, &w, &b));
    let expected = dot(&gx, &tx) + dot(&gw, &tw) + dot(&gb, &tb);
    assert!(
        (d - expected).abs() < 1e-10 * expected.abs().max(1.0),
        "{d} vs {expected}"
    );
}

#[autodiff]
fn bias_only(x: &T, b: &T) -> f64 {
    ((x + b) * x).sum()
}

#[test]
fn broadcast_bias_gradient_is_the_column_sum() {
    let (x, b) = (data(6, 3, 7), data(1, 3, 8));
    let (_, gb) = grad_bias_only(&x, &b);
    assert_tensor_close(&gb, &x.sum_axis(0), 1e-14, "∂b = column sums of x");
}

#[autodiff]
fn elementwise(x: &T) -> f64 {
    let a = x.exp() * 0.5 + x.sigmoid() - x.sqrt().ln() / 3.0;
    let b = x.powi(3) - 2.0 * x.relu() + x.square();
    (&a * &b).mean()
}

#[test]
fn elementwise_rules_against_finite_differences() {
    let x = T::rand_uniform(&[4, 3], 0.1, 2.0, 9);
    let g = grad_elementwise(&x);
    assert_tensor_close(&g, &fd(elementwise, &x), 1e-7, "∂x");
    let t = data(4, 3, 10);
    assert!((jvp_elementwise(&x, &t).1 - dot(&g, &t)).abs() < 1e-10);
}

#[autodiff]
fn reshaped(x: &T) -> f64 {
    let r = x.reshape(&[2, 6]).mean_axis(0) * x.reshape(&[2, 6]).mean_axis(1).sum();
    let q = (x.square() * 2.0 + 1.0).recip();
    (&r * &r).sum() + q.mean()
}

#[test]
fn shape_rules_and_float_methods_of_tensors_against_finite_differences() {
    for (seed, low) in [(21, -2.0), (22, 0.5)] {
        let x = T::rand_uniform(&[3, 4], low, 2.0, seed);
        let g = grad_reshaped(&x);
        assert_tensor_close(&g, &fd(reshaped, &x), 1e-7, "∂x");
        let t = data(3, 4, seed + 10);
        let (v, d) = jvp_reshaped(&x, &t);
        assert_eq!(v, reshaped(&x));
        assert!((d - dot(&g, &t)).abs() < 1e-10, "{d} vs {}", dot(&g, &t));
    }
}

#[autodiff(wrt(x))]
fn softmaxes(x: &T, c: &T) -> f64 {
    let s = (x.softmax() * c).sum();
    let l = (x.log_softmax() * c).sum();
    let z = (x.logsumexp() * x.sum_axis(1)).mean();
    s + l + z + x.t().matmul(c).sum()
}

#[test]
fn softmax_family_against_finite_differences() {
    let (x, c) = (data(3, 4, 11), data(3, 4, 12));
    let g = grad_softmaxes(&x, &c);
    assert_tensor_close(&g, &fd(|x| softmaxes(x, &c), &x), 1e-7, "∂x");
    let t = data(3, 4, 13);
    assert!((jvp_softmaxes(&x, &c, &t).1 - dot(&g, &t)).abs() < 1e-10);
}

#[autodiff(wrt(logits))]
fn ce(logits: &T, labels: &[usize]) -> f64 {
    logits.cross_entropy(labels)
}

#[test]
fn cross_entropy_gradient_is_softmax_minus_one_hot() {
    let logits = data(4, 3, 14);
    let labels = [0, 2, 1, 2];
    let g = grad_ce(&logits, &labels);
    assert_tensor_close(&g, &fd(|l| ce(l, &labels), &logits), 1e-8, "∂logits");
    let expected = (logits.softmax() - T::one_hot(&labels, 3)) / 4.0;
    assert_tensor_close(&g, &expected, 1e-14, "(softmax − onehot)/n");
}

/// Cross-entropy after a loop: the forward sweep computes the loss and its gradient together (the
/// rule's residual), and the pullback scales that gradient by the cotangent.
#[autodiff(wrt(logits))]
fn ce_scaled(logits: &T, labels: &[usize], steps: usize) -> f64 {
    let mut z = logits.clone();
    for _ in 0..steps {
        z = z.tanh() * 2.0;
    }
    2.0 * z.cross_entropy(labels)
}

/// The same inside the loop, where the forward sweep keeps the plain operation (a residual there
/// would need a tape).
#[autodiff(wrt(logits))]
fn ce_in_loop(logits: &T, labels: &[usize], steps: usize) -> f64 {
    let mut total = 0.0;
    let mut z = logits.clone();
    for _ in 0..steps {
        total += z.cross_entropy(labels);
        z = z.tanh() * 2.0;
    }
    total
}

#[test]
fn the_pullback_scales_the_gradient_of_the_forward_sweep() {
    let logits = data(5, 3, 29);
    let labels = [0, 2, 1, 2, 1];
    let (v, g) = value_and_grad_ce_scaled(&logits, &labels, 2);
    assert_eq!(v, ce_scaled(&logits, &labels, 2));
    assert_tensor_close(
        &g,
        &fd(|l| ce_scaled(l, &labels, 2), &logits),
        1e-8,
        "∂logits",
    );
    let pulled = vjp_ce_scaled(&logits, &labels, 2, -0.75);
    assert_tensor_close(&pulled, &(&g * -0.75), 1e-15, "vjp at −0.75");
    for steps in [1, 3] {
        let g = grad_ce_in_loop(&logits, &labels, steps);
        let numeric = fd(|l| ce_in_loop(l, &labels, steps), &logits);
        assert_tensor_close(&g, &numeric, 1e-8, "∂logits in a loop");
    }
}

#[test]
fn cross_entropy_is_finite_at_large_logits() {
    let logits = T::from_vec(vec![1000.0, -1000.0, 0.0, -1000.0, 1000.0, 0.0], &[2, 3]);
    let (v, g) = value_and_grad_ce(&logits, &[0, 2]);
    // Row 0 is certain of its label (loss 0); row 1 puts e^-1000 on it (loss 1000).
    assert!((v - 500.0).abs() < 1e-9, "{v}");
    assert!(g.data().iter().all(|x| x.is_finite()), "{g}");
    assert!(
        (g.at(1, 2) + 0.5).abs() < 1e-12 && (g.at(1, 1) - 0.5).abs() < 1e-12,
        "{g}"
    );
}

#[autodiff]
fn squared_error(a: &T, b: &T) -> f64 {
    a.mse(b) + a.cross_entropy_onehot(&b.softmax())
}

#[test]
fn mse_and_one_hot_cross_entropy_against_finite_differences() {
    let (a, b) = (data(3, 3, 15), data(3, 3, 16));
    let (ga, gb) = grad_squared_error(&a, &b);
    assert_tensor_close(&ga, &fd(|a| squared_error(a, &b), &a), 1e-7, "∂a");
    assert_tensor_close(&gb, &fd(|b| squared_error(&a, b), &b), 1e-7, "∂b");
}

/// A two-layer perceptron as a parameter struct.
#[derive(Clone, Debug, Params)]
struct Net {
    w1: T,
    b1: T,
    w2: T,
    b2: T,
}

#[autodiff(wrt(net))]
fn net_loss(net: &Net, x: &T, labels: &[usize]) -> f64 {
    let h = (x.matmul(&net.w1) + &net.b1).tanh();
    let logits = h.matmul(&net.w2) + &net.b2;
    logits.cross_entropy(labels)
}

#[test]
fn parameter_struct_gradient_on_every_parameter() {
    let net = Net {
        w1: data(4, 5, 17),
        b1: data(1, 5, 18),
        w2: data(5, 3, 19),
        b2: data(1, 3, 20),
    };
    let (x, labels) = (data(6, 4, 21), [0, 1, 2, 2, 1, 0]);
    let g: Net = grad_net_loss(&net, &x, &labels);
    let flat = net.to_flat_vec();
    let numeric = central_difference(|v| net_loss(&Net::from_flat(&net, v), &x, &labels), &flat);
    let analytic = g.to_flat_vec();
    assert_eq!(analytic.len(), 4 * 5 + 5 + 5 * 3 + 3);
    for (i, (a, n)) in analytic.iter().zip(&numeric).enumerate() {
        assert!((a - n).abs() < 1e-7, "parameter {i}: {a} vs {n}");
    }
    // Forward mode along the gradient itself gives |∇|².
    let (_, d) = jvp_net_loss(&net, &x, &labels, &g);
    let norm2: f64 = analytic.iter().map(|a| a * a).sum();
    assert!((d - norm2).abs() < 1e-10 * norm2.max(1.0), "{d} vs {norm2}");
}

#[test]
fn derive_round_trips() {
    let net = Net {
        w1: data(2, 2, 22),
        b1: data(1, 2, 23),
        w2: data(2, 1, 24),
        b2: data(1, 1, 25),
    };
    let flat = net.to_flat_vec();
    let back = Net::from_flat(&net, &flat);
    assert_eq!(back.w1, net.w1);
    assert_eq!(back.b2, net.b2);
    let z = net.zeros_like();
    assert!(z.to_flat_vec().iter().all(|v| *v == 0.0));
    assert_eq!(z.w2.shape(), net.w2.shape());
}

/// A tuple struct with a field that is not a parameter.
#[derive(Clone, Debug, Params)]
struct Scaled(T, #[params(skip)] usize, Vec<T>);

#[test]
fn derived_zeros_keep_the_structure_and_the_skipped_fields() {
    let s = Scaled(data(2, 3, 26), 7, vec![data(1, 2, 27), data(3, 1, 28)]);
    let z = s.zeros_like();
    assert_eq!(z.1, 7);
    assert_eq!(z.0.shape(), &[2, 3]);
    assert_eq!(z.2.len(), 2);
    assert_eq!(z.2[1].shape(), &[3, 1]);
    assert_eq!(z.num_params(), s.num_params());
    assert!(z.to_flat_vec().iter().all(|v| *v == 0.0));
}
