//! Loops over a model's layers (`for layer in &model.layers`) in both modes: against the same
//! network written out layer by layer, against central finite differences on every parameter, and
//! forward against reverse mode.

use diffx::autodiff;
use diffx::check::central_difference;
use diffx::nn::{Activation, Mlp};
use diffx::{Params, Tensor};

type T = Tensor<f64>;

/// Any depth: tanh after every layer but the last, softmax cross-entropy of the logits.
#[autodiff(wrt(model))]
fn deep_loss(model: &Mlp<f64>, x: &T, labels: &[usize]) -> f64 {
    let last = model.layers.len() - 1;
    let mut h = x.clone();
    for (i, layer) in model.layers.iter().enumerate() {
        let z = h.matmul(&layer.w) + &layer.b;
        h = if i < last { z.tanh() } else { z };
    }
    h.cross_entropy(labels)
}

/// The two-layer case written out, as the Iris example does.
#[autodiff(wrt(model))]
fn two_layer_loss(model: &Mlp<f64>, x: &T, labels: &[usize]) -> f64 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

/// Every layer with the same activation, by reference to the field, into a squared error.
#[autodiff(wrt(model))]
fn sigmoid_stack(model: &Mlp<f64>, x: &T, target: &T) -> f64 {
    let mut h = x.clone();
    for layer in &model.layers {
        h = (h.matmul(&layer.w) + &layer.b).sigmoid();
    }
    h.mse(target)
}

/// The first layer's parameters also enter a penalty written after the loop over layers: in the
/// backward sweep the penalty's contribution reaches them first, then the loop's adds to it.
#[autodiff(wrt(model))]
fn penalty_after_loop(model: &Mlp<f64>, x: &T, labels: &[usize]) -> f64 {
    let mut h = x.clone();
    for layer in &model.layers {
        h = (h.matmul(&layer.w) + &layer.b).tanh();
    }
    let w = &model.layers[0].w;
    h.cross_entropy(labels) + (w * w).sum() + model.layers[0].b.sum() + (w * w).sum()
}

/// The penalty written before the loop: the loop's contributions come first in the backward sweep.
#[autodiff(wrt(model))]
fn penalty_before_loop(model: &Mlp<f64>, x: &T, labels: &[usize]) -> f64 {
    let w = &model.layers[0].w;
    let penalty = (w * w).sum() + model.layers[0].b.sum();
    let mut h = x.clone();
    for layer in &model.layers {
        h = (h.matmul(&layer.w) + &layer.b).tanh();
    }
    h.cross_entropy(labels) + penalty
}

/// Reads only the last layer: no contribution reaches the first one's fields.
#[autodiff(wrt(model))]
fn last_layer_only(model: &Mlp<f64>, h: &T, labels: &[usize]) -> f64 {
    (h.matmul(&model.layers[1].w) + &model.layers[1].b).cross_entropy(labels)
}

/// Two paths to one field when the network has one layer: `layers[last]` is `layers[0]`.
#[autodiff(wrt(model))]
fn two_paths_to_one_field(model: &Mlp<f64>, x: &T, labels: &[usize]) -> f64 {
    let last = model.layers.len() - 1;
    let logits = x.matmul(&model.layers[last].w) + &model.layers[0].b;
    let penalty = (&model.layers[last].b * &model.layers[last].b).sum();
    logits.cross_entropy(labels) + penalty + (&model.layers[0].w * 3.0).sum()
}

fn batch(rows: usize, inputs: usize) -> (T, Vec<usize>) {
    let x = T::randn(&[rows, inputs], 7);
    let labels = (0..rows).map(|i| (i * 7 + 1) % 3).collect();
    (x, labels)
}

/// `grad` against central differences of `f` on every parameter of `model`.
fn check_every_parameter(model: &Mlp<f64>, grad: &Mlp<f64>, f: impl Fn(&Mlp<f64>) -> f64) {
    let flat = model.to_flat_vec();
    let numeric = central_difference(|v| f(&Mlp::from_flat(model, v)), &flat);
    let analytic = grad.to_flat_vec();
    assert_eq!(analytic.len(), model.num_params());
    for (i, (a, n)) in analytic.iter().zip(&numeric).enumerate() {
        assert!((a - n).abs() < 1e-7, "parameter {i}: {a} vs {n}");
    }
}

#[test]
fn a_loop_over_two_layers_is_the_network_written_out() {
    let model: Mlp<f64> = Mlp::new(&[4, 5, 3], Activation::Tanh, 0);
    let (x, labels) = batch(6, 4);
    let (v_loop, g_loop) = value_and_grad_deep_loss(&model, &x, &labels);
    let (v_flat, g_flat) = value_and_grad_two_layer_loss(&model, &x, &labels);
    assert_eq!(v_loop, v_flat);
    for (a, b) in g_loop.to_flat_vec().iter().zip(g_flat.to_flat_vec()) {
        assert!((a - b).abs() < 1e-14, "{a} vs {b}");
    }
}

#[test]
fn any_depth_against_finite_differences() {
    for sizes in [&[4, 3][..], &[4, 6, 3], &[4, 6, 5, 3], &[4, 3, 3, 3, 3]] {
        let model: Mlp<f64> = Mlp::new(sizes, Activation::Tanh, 1);
        let (x, labels) = batch(5, 4);
        let grad = grad_deep_loss(&model, &x, &labels);
        check_every_parameter(&model, &grad, |m| deep_loss(m, &x, &labels));
    }
}

#[test]
fn forward_mode_through_the_layers_agrees_with_reverse() {
    let model: Mlp<f64> = Mlp::new(&[4, 6, 5, 3], Activation::Tanh, 2);
    let (x, labels) = batch(5, 4);
    let grad = grad_deep_loss(&model, &x, &labels);
    let direction = Mlp::from_flat(&model, &T::randn(&[model.num_params()], 3).into_vec());
    let (value, d) = jvp_deep_loss(&model, &x, &labels, &direction);
    assert_eq!(value, deep_loss(&model, &x, &labels));
    let expected: f64 = (grad.to_flat_vec().iter())
        .zip(direction.to_flat_vec())
        .map(|(g, t)| g * t)
        .sum();
    assert!(
        (d - expected).abs() < 1e-12 * expected.abs().max(1.0),
        "{d} vs {expected}"
    );
}

#[test]
fn a_loop_by_reference_over_the_field() {
    let model: Mlp<f64> = Mlp::new(&[3, 4, 4, 2], Activation::Sigmoid, 4);
    let x = T::randn(&[5, 3], 5);
    let target = T::rand_uniform(&[5, 2], 0.0, 1.0, 6);
    let grad = grad_sigmoid_stack(&model, &x, &target);
    check_every_parameter(&model, &grad, |m| sigmoid_stack(m, &x, &target));
    let (_, d) = jvp_sigmoid_stack(&model, &x, &target, &grad);
    let norm2: f64 = grad.to_flat_vec().iter().map(|g| g * g).sum();
    assert!((d - norm2).abs() < 1e-12 * norm2.max(1.0), "{d} vs {norm2}");
}

/// `explain_` traces the loop: a row per layer for each value, every parameter's adjoint equal to
/// `grad_`'s and the output's tangent to `jvp_`'s.
#[test]
#[cfg(feature = "explain")]
fn the_layer_loop_is_explained() {
    let model: Mlp<f64> = Mlp::new(&[3, 4, 3], Activation::Tanh, 5);
    let (x, labels) = batch(4, 3);
    let direction = Mlp::from_flat(&model, &T::randn(&[model.num_params()], 6).into_vec());
    let trace = explain_deep_loss(&model, &x, &labels, &direction);
    let grad = grad_deep_loss(&model, &x, &labels);
    for (i, layer) in grad.layers.iter().enumerate() {
        for (field, g) in [("w", &layer.w), ("b", &layer.b)] {
            let name = format!("model.layers[{i}].{field}");
            let row = trace
                .tensors(&name)
                .unwrap_or_else(|| panic!("no row {name}"));
            for (a, b) in row.adjoint.data().iter().zip(g.data()) {
                assert!((a - b).abs() < 1e-12, "{name}: {a} vs {b}");
            }
        }
    }
    // One matmul row per executed iteration.
    assert_eq!(trace.rows_named("t6").count(), model.layers.len());
    let (_, d) = jvp_deep_loss(&model, &x, &labels, &direction);
    let t = trace.output_row().expect("an output row").tangent;
    assert!((t - d).abs() < 1e-12 * d.abs().max(1.0), "{t} vs {d}");
}

/// A field's first contribution is moved into the gradient and later ones are added to it, whether
/// the first comes from top-level code or from a loop over the layers (a wrong order would drop a
/// contribution: these fail if one is overwritten).
#[test]
fn contributions_from_a_loop_and_outside_it_add_up() {
    let model: Mlp<f64> = Mlp::new(&[4, 5, 3], Activation::Tanh, 8);
    let (x, labels) = batch(6, 4);
    let grad = grad_penalty_after_loop(&model, &x, &labels);
    check_every_parameter(&model, &grad, |m| penalty_after_loop(m, &x, &labels));
    let grad = grad_penalty_before_loop(&model, &x, &labels);
    check_every_parameter(&model, &grad, |m| penalty_before_loop(m, &x, &labels));
}

/// A gradient starts with its fields unset and moves each first contribution in: a field that no
/// contribution reaches comes back as zeros of its shape.
#[test]
fn fields_no_contribution_reaches_are_zeros() {
    let model: Mlp<f64> = Mlp::new(&[4, 5, 3], Activation::Tanh, 9);
    let (h, labels) = batch(6, 5);
    let grad = grad_last_layer_only(&model, &h, &labels);
    assert_eq!(grad.layers[0].w, T::zeros(&[4, 5]));
    assert_eq!(grad.layers[0].b, T::zeros(model.layers[0].b.shape()));
    check_every_parameter(&model, &grad, |m| last_layer_only(m, &h, &labels));
}

/// A field reached by paths that differ in their text (`layers[last]`, `layers[0]`) gets every
/// contribution: none of them replaces another.
#[test]
fn paths_with_run_time_indices_add_up() {
    // One layer (`last` is 0: the paths meet) and two of the same shape (they do not).
    for sizes in [&[4, 3][..], &[4, 4, 4]] {
        let model: Mlp<f64> = Mlp::new(sizes, Activation::Tanh, 10);
        let (x, labels) = batch(5, 4);
        let grad = grad_two_paths_to_one_field(&model, &x, &labels);
        check_every_parameter(&model, &grad, |m| two_paths_to_one_field(m, &x, &labels));
    }
}
