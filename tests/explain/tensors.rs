//! `explain_f` of functions of tensors and parameter structs, of vector-valued functions, and of
//! calls of other `#[autodiff]` functions from functions of slices: the recorded tangents equal
//! `jvp_`'s, the adjoints `grad_`'s or `vjp_`'s (whole tensors, in f64), the graphs are connected.

use crate::trace_checks;
use diffx::explain::{Role, Trace};
use diffx::nn::{Activation, Mlp};
use diffx::{autodiff, Tensor};
use trace_checks::{assert_close, assert_connected, snapshot};

type T = Tensor<f64>;

/// The Iris loss of `examples/iris.rs`, in f64.
#[autodiff(wrt(model))]
fn loss(model: &Mlp<f64>, x: &T, labels: &[usize]) -> f64 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

#[track_caller]
fn assert_tensor_close(a: &T, b: &T, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}: shapes");
    for (i, (x, y)) in a.data().iter().zip(b.data()).enumerate() {
        assert!(
            (x - y).abs() <= 1e-12 * y.abs().max(1.0),
            "{what}: element {i}: {x} vs {y}"
        );
    }
}

/// Every field's adjoint in `t` is the gradient's, `g`: `model.layers[i].w` and `.b`.
#[track_caller]
fn assert_model_adjoints(t: &Trace, g: &Mlp<f64>) {
    for (i, layer) in g.layers.iter().enumerate() {
        let (w, b) = (
            format!("model.layers[{i}].w"),
            format!("model.layers[{i}].b"),
        );
        assert_tensor_close(&adjoint(t, &w), &layer.w, &w);
        assert_tensor_close(&adjoint(t, &b), &layer.b, &b);
    }
}

/// The full adjoint of the row called `name`.
#[track_caller]
fn adjoint(t: &Trace, name: &str) -> T {
    let full = t
        .tensors(name)
        .unwrap_or_else(|| panic!("no tensor row {name} in\n{t}"));
    full.adjoint.clone()
}

#[test]
fn the_iris_loss_is_explained() {
    let model = Mlp::<f64>::new(&[4, 5, 3], Activation::Tanh, 7);
    let x = T::randn(&[3, 4], 1);
    let labels = [0, 2, 1];
    let direction = Mlp::<f64>::new(&[4, 5, 3], Activation::Tanh, 8);
    let t = explain_loss(&model, &x, &labels, &direction);
    let (y, dy) = jvp_loss(&model, &x, &labels, &direction);
    assert_eq!(t.value("loss"), Some(y));
    assert_close(t.tangent("loss").unwrap(), dy, "tangent");
    let g = grad_loss(&model, &x, &labels);
    assert_model_adjoints(&t, &g);
    // Rows of tensors show their shape and norm; the full tensors are there.
    let hidden = t.row("hidden").unwrap();
    assert_eq!(hidden.shape, [3, 5]);
    let full = t.tensors("hidden").unwrap();
    let h = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    assert_eq!(full.value, h);
    assert_close(
        hidden.value,
        h.data().iter().map(|v| v * v).sum::<f64>().sqrt(),
        "norm",
    );
    assert_eq!(t.inputs().count(), 4);
    let text = t.to_string();
    assert!(
        text.contains("hidden             t2.tanh()                          [3, 5]"),
        "{text}"
    );
    let dot = t.to_dot();
    assert!(dot.contains("[label=\"∂t4/∂hidden: matmul\"]"), "{dot}");
    assert!(dot.contains("[label=\"∂hidden/∂t2: ⊙ tanh′\"]"), "{dot}");
    assert!(
        dot.contains("hidden = t2.tanh()\\n[3, 5]\\nvalue ‖"),
        "{dot}"
    );
    assert_connected(&t, &dot);
    snapshot("iris_loss", &format!("{t}\n# graph\n{dot}"));
}

/// Tensor parameters and a scalar one; reductions with constant axes, a constant tensor.
#[autodiff(wrt(x, w, s))]
fn mixed(x: &T, w: T, s: f64, target: T) -> f64 {
    let h = x.matmul(&w).sigmoid() * s;
    let m = h.sum_axis(1).mean() + h.mean_axis(0).reshape(&[1, 3]).softmax().sum();
    m * s + (&h - &target).square().mean() + x.matmul(&w).t().matmul(x).sum() / s
}

#[test]
fn tensor_parameters_take_tensor_tangents() {
    let (x, w, target) = (
        T::randn(&[4, 2], 1),
        T::randn(&[2, 3], 2),
        T::randn(&[4, 3], 3),
    );
    let (tx, tw) = (T::randn(&[4, 2], 4), T::randn(&[2, 3], 5));
    let t = explain_mixed(&x, w.clone(), 1.5, target.clone(), &tx, tw.clone(), 0.5);
    let (y, dy) = jvp_mixed(&x, w.clone(), 1.5, target.clone(), &tx, tw.clone(), 0.5);
    assert_eq!(t.value("mixed"), Some(y));
    assert_close(t.tangent("mixed").unwrap(), dy, "tangent");
    let (gx, gw, gs) = grad_mixed(&x, w.clone(), 1.5, target);
    assert_tensor_close(&adjoint(&t, "x"), &gx, "∂x");
    assert_tensor_close(&adjoint(&t, "w"), &gw, "∂w");
    assert_close(t.adjoint("s").unwrap(), gs, "∂s");
    // The tangent of a tensor row in full: x·w's is ẋ·w + x·ẇ.
    let t1 = t.rows().iter().find(|r| r.expr == "x.matmul(&w)").unwrap();
    let full = t1.tensors.as_ref().unwrap();
    assert_tensor_close(
        &full.tangent,
        &(tx.matmul(&w) + x.matmul(&tw)),
        "tangent of x·w",
    );
    assert_connected(&t, &t.to_dot());
}

/// A tensor cell updated in a loop: a row per iteration.
#[autodiff]
fn recurrent(h0: &T, w: &T, n: usize) -> f64 {
    let mut h = h0.clone();
    for _ in 0..n {
        h = h.matmul(w).tanh();
    }
    h.sum()
}

#[test]
fn tensor_loops_record_each_iteration() {
    let (h0, w) = (T::randn(&[2, 3], 6), T::randn(&[3, 3], 7));
    let (th, tw) = (T::randn(&[2, 3], 8), T::randn(&[3, 3], 9));
    let t = explain_recurrent(&h0, &w, 3, &th, &tw);
    assert_eq!(
        t.rows()
            .iter()
            .filter(|r| r.expr.ends_with(".tanh()"))
            .count(),
        3
    );
    assert_close(
        t.tangent("recurrent").unwrap(),
        jvp_recurrent(&h0, &w, 3, &th, &tw).1,
        "tangent",
    );
    let (gh, gw) = grad_recurrent(&h0, &w, 3);
    assert_tensor_close(&adjoint(&t, "h0"), &gh, "∂h0");
    assert_tensor_close(&adjoint(&t, "w"), &gw, "∂w");
    assert_connected(&t, &t.to_dot());
}

/// A tensor-valued function: adjoints for a cotangent of the result.
#[autodiff]
fn layer(x: &T, w: &T) -> Tensor<f64> {
    x.matmul(w).tanh()
}

#[test]
fn tensor_results_take_a_cotangent() {
    let (x, w, ct) = (
        T::randn(&[2, 3], 10),
        T::randn(&[3, 2], 11),
        T::randn(&[2, 2], 12),
    );
    let (tx, tw) = (T::randn(&[2, 3], 13), T::randn(&[3, 2], 14));
    let t = explain_layer(&x, &w, &tx, &tw, ct.clone());
    let out = t.tensors("layer").unwrap();
    let (y, dy) = jvp_layer(&x, &w, &tx, &tw);
    assert_eq!(out.value, y);
    assert_tensor_close(&out.tangent, &dy, "tangent");
    assert_eq!(out.adjoint, ct);
    let (gx, gw) = vjp_layer(&x, &w, ct);
    assert_tensor_close(&adjoint(&t, "x"), &gx, "∂x");
    assert_tensor_close(&adjoint(&t, "w"), &gw, "∂w");
    let text = t.to_string();
    assert!(
        text.contains("adjoints v̄ = ∂⟨y\u{304}, layer⟩/∂v for y\u{304} = a tensor [2, 2]"),
        "{text}"
    );
}

/// Polar to Cartesian coordinates, a vector-valued function.
#[autodiff]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

/// A vector-valued function of a slice, as a `Vec`.
#[autodiff]
fn cumulative(x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
        out[i] = s;
    }
    out
}

#[test]
fn vector_results_have_a_row_per_element() {
    let t = explain_polar(2.0, 0.5, 1.0, 0.0, [0.0, 1.0]);
    let outputs: Vec<(&str, f64)> = t.outputs().map(|r| (r.name.as_str(), r.tangent)).collect();
    let (y, dy) = jvp_polar(2.0, 0.5, 1.0, 0.0);
    assert_eq!(outputs, [("polar[0]", dy[0]), ("polar[1]", dy[1])]);
    assert_eq!(
        (t.value("polar[0]"), t.value("polar[1]")),
        (Some(y[0]), Some(y[1]))
    );
    // ȳ = (0, 1): the adjoints are the second row of the Jacobian, r̄ = sin θ, θ̄ = r cos θ.
    let (gr, gtheta) = vjp_polar(2.0, 0.5, [0.0, 1.0]);
    assert_eq!(
        (t.adjoint("r"), t.adjoint("theta")),
        (Some(gr), Some(gtheta))
    );
    assert_close(gtheta, 2.0 * 0.5_f64.cos(), "θ̄");
    let text = t.to_string();
    assert!(
        text.contains("adjoints v̄ = ∂⟨y\u{304}, polar⟩/∂v for y\u{304} = (0, 1)"),
        "{text}"
    );
    assert_connected(&t, &t.to_dot());

    let x = [1.0, -2.0, 0.5];
    let (tx, ct) = ([0.5, 1.0, -1.0], vec![1.0, 2.0, 3.0]);
    let t = explain_cumulative(&x, &tx, ct.clone());
    let (_, dy) = jvp_cumulative(&x, &tx);
    let tangents: Vec<f64> = t.outputs().map(|r| r.tangent).collect();
    assert_eq!(tangents, dy);
    // x̄ⱼ = ⟨ȳ, J·eⱼ⟩ from forward mode: the running sum's adjoint 2xⱼ·Σᵢ≥ⱼ ȳᵢ = (12, −20, 3).
    let adjoints: Vec<f64> = t.inputs().map(|r| r.adjoint).collect();
    let columns: Vec<f64> = (0..3)
        .map(|j| {
            let mut e = [0.0; 3];
            e[j] = 1.0;
            let (_, column) = jvp_cumulative(&x, &e);
            column.iter().zip(&ct).map(|(a, b)| a * b).sum()
        })
        .collect();
    assert_eq!(adjoints, columns);
    assert_eq!(adjoints, [12.0, -20.0, 3.0]);
    assert_eq!(vjp_cumulative(&x, ct), adjoints);
    assert_eq!(t.outputs().count(), 3);
    assert_eq!(
        t.inputs().map(|r| r.role).collect::<Vec<_>>(),
        [Role::Input; 3]
    );
}

#[autodiff]
fn square_plus(x: f64, c: f64) -> f64 {
    x * x + c
}

/// Calls from a function of slices: the callee's result is recorded by its type.
#[autodiff]
fn calls_on_elements(x: &[f64], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..k {
        s += square_plus(x[i], 1.0) * x[i + 1];
    }
    s
}

#[test]
fn calls_from_functions_of_slices_are_explained() {
    let x = [0.5, -1.0, 2.0];
    let tx = [1.0, 0.5, -0.25];
    let t = explain_calls_on_elements(&x, 2, &tx);
    assert_close(
        t.tangent("calls_on_elements").unwrap(),
        jvp_calls_on_elements(&x, 2, &tx).1,
        "tangent",
    );
    let g = grad_calls_on_elements(&x, 2);
    let adjoints: Vec<f64> = t.inputs().map(|r| r.adjoint).collect();
    for (a, b) in adjoints.iter().zip(&g) {
        assert_close(*a, *b, "adjoint");
    }
    // A call between numbers has a number as its partial: ∂(x² + 1)/∂x = 2x.
    let calls: Vec<_> = t
        .edges()
        .iter()
        .filter(|e| e.operand == "x[i]" && t.rows()[e.to].expr.starts_with("square_plus"))
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].partial, Some(1.0));
    assert_eq!(calls[1].partial, Some(-2.0));
    assert_connected(&t, &t.to_dot());
}

/// A dense layer, called with fields of a parameter struct.
#[autodiff]
fn dense(x: &T, w: &T, b: &T) -> Tensor<f64> {
    (x.matmul(w) + b).tanh()
}

#[autodiff(wrt(model))]
fn two_layers(model: &Mlp<f64>, x: &T, flip: bool) -> f64 {
    let h = dense(x, &model.layers[0].w, &model.layers[0].b);
    let h = if flip { -h } else { h };
    let out = h.matmul(&model.layers[1].w) + &model.layers[1].b;
    out.square().mean()
}

#[test]
fn calls_of_tensor_functions_and_tensor_branches() {
    let model = Mlp::<f64>::new(&[3, 4, 2], Activation::Tanh, 3);
    let direction = Mlp::<f64>::new(&[3, 4, 2], Activation::Tanh, 4);
    let x = T::randn(&[5, 3], 5);
    for flip in [false, true] {
        let t = explain_two_layers(&model, &x, flip, &direction);
        let (_, dy) = jvp_two_layers(&model, &x, flip, &direction);
        assert_close(t.tangent("two_layers").unwrap(), dy, "tangent");
        let g = grad_two_layers(&model, &x, flip);
        assert_model_adjoints(&t, &g);
        // The negation is a row only where its arm ran.
        let negated = t.rows().iter().filter(|r| r.context == "flip").count();
        assert_eq!(negated, usize::from(flip), "{t}");
        let call = t.row("h").unwrap();
        assert!(call.expr.starts_with("dense(x, &model.layers[0].w"), "{t}");
        assert_connected(&t, &t.to_dot());
    }
}

/// The Iris loss as `examples/iris.rs` writes it, in f32.
#[autodiff(wrt(model))]
fn loss_f32(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

#[test]
fn f32_models_are_explained_in_f32() {
    let model = Mlp::new(&[4, 3, 3], Activation::Tanh, 1);
    let x = Tensor::randn(&[2, 4], 2);
    let t = explain_loss_f32(&model, &x, &[1, 2], &model);
    let g = grad_loss_f32(&model, &x, &[1, 2]);
    let w = &t.tensors("model.layers[1].w").unwrap().adjoint;
    assert_eq!(w, &g.layers[1].w.to_f64());
}

/// A parameter the function does not read as a number or tensor has no row: the trace says so.
#[autodiff]
#[allow(unused_variables)]
fn ignores_the_model(x: &T, model: &Mlp<f64>) -> f64 {
    x.sum()
}

#[test]
fn parameters_that_are_no_values_are_noted() {
    let model = Mlp::<f64>::new(&[3, 2], Activation::Tanh, 3);
    let x = T::randn(&[2, 3], 4);
    let t = explain_ignores_the_model(&x, &model, &T::ones(&[2, 3]), &model);
    assert_tensor_close(&adjoint(&t, "x"), &T::ones(&[2, 3]), "∂x");
    assert_eq!(t.tangent("ignores_the_model"), Some(6.0));
    let text = t.to_string();
    assert!(
        text.ends_with("note: `model` is no number or tensor: it has no row\n"),
        "{text}"
    );
}

/// An MLP of any depth, its layers read by index in a loop and through a local reference.
#[autodiff]
fn deep(model: &Mlp<f64>, x: &T, n: usize) -> f64 {
    let mut h = x.clone();
    for i in 0..n - 1 {
        let layer = &model.layers[i];
        h = (h.matmul(&layer.w) + &layer.b).tanh();
    }
    let last = h.matmul(&model.layers[n - 1].w) + &model.layers[n - 1].b;
    last.square().sum()
}

#[test]
fn layers_read_by_index_have_a_row_each() {
    let model = Mlp::<f64>::new(&[3, 4, 4, 2], Activation::Tanh, 9);
    let direction = Mlp::<f64>::new(&[3, 4, 4, 2], Activation::Tanh, 10);
    let x = T::randn(&[2, 3], 11);
    let tx = T::randn(&[2, 3], 12);
    let t = explain_deep(&model, &x, 3, &direction, &tx);
    let (_, dy) = jvp_deep(&model, &x, 3, &direction, &tx);
    assert_close(t.tangent("deep").unwrap(), dy, "tangent");
    let (g, gx) = grad_deep(&model, &x, 3);
    assert_tensor_close(&adjoint(&t, "x"), &gx, "∂x");
    assert_model_adjoints(&t, &g);
    // One input row per field, recorded where the loop first reads it.
    let inputs: Vec<&str> = t.inputs().map(|r| r.name.as_str()).collect();
    assert_eq!(
        inputs,
        [
            "x",
            "model.layers[0].w",
            "model.layers[0].b",
            "model.layers[1].w",
            "model.layers[1].b",
            "model.layers[2].w",
            "model.layers[2].b"
        ]
    );
    assert!(!t.to_string().contains("note:"), "{t}");
    let second = t
        .rows()
        .iter()
        .filter(|r| r.expr == "h.matmul(&model.layers[i].w)")
        .nth(1);
    assert_eq!(second.unwrap().context, "i = 1");
    assert_connected(&t, &t.to_dot());
}

/// Every tensor row of the rule table, with constants where the table has them.
#[autodiff(wrt(x, w, s, onehot))]
fn every_rule(x: &T, w: T, s: f64, labels: &[usize], onehot: &T) -> f64 {
    let a = x.matmul(&w);
    let b = (a.t().reshape(&[2, 3]) * s).sum_axis(1).mean_axis(0).sum();
    let e = x.exp() + x.sigmoid() - x.relu() + x.square() * 0.5 - x.tanh() / s;
    let c = e.mean() + (x * x).sqrt().sum() + x.powi(3).mean();
    let p = a.softmax().sum() + a.log_softmax().mean() + a.logsumexp().sum();
    let l = a.cross_entropy(labels) + a.cross_entropy_onehot(onehot);
    b + c + p + l + (-&a).mean()
}

#[test]
fn every_tensor_rule_is_explained() {
    let (x, w) = (T::randn(&[2, 3], 20), T::randn(&[3, 3], 21));
    let onehot = T::one_hot(&[1, 0], 3);
    let (tx, tw) = (T::randn(&[2, 3], 22), T::randn(&[3, 3], 23));
    let to = T::randn(&[2, 3], 24);
    let t = explain_every_rule(
        &x,
        w.clone(),
        0.7,
        &[2, 1],
        &onehot,
        &tx,
        tw.clone(),
        -0.3,
        &to,
    );
    let (y, dy) = jvp_every_rule(&x, w.clone(), 0.7, &[2, 1], &onehot, &tx, tw, -0.3, &to);
    assert_eq!(t.value("every_rule"), Some(y));
    assert_close(t.tangent("every_rule").unwrap(), dy, "tangent");
    let (gx, gw, gs, go) = grad_every_rule(&x, w, 0.7, &[2, 1], &onehot);
    assert_tensor_close(&adjoint(&t, "onehot"), &go, "∂onehot");
    assert_tensor_close(&adjoint(&t, "x"), &gx, "∂x");
    assert_tensor_close(&adjoint(&t, "w"), &gw, "∂w");
    assert_close(t.adjoint("s").unwrap(), gs, "∂s");
    assert_connected(&t, &t.to_dot());
}

/// A parameter called `ct`: the cotangent argument takes another name.
#[autodiff]
fn scaled(ct: f64, x: f64) -> [f64; 2] {
    [ct * x, x]
}

#[test]
fn the_cotangent_argument_never_clashes() {
    let t = explain_scaled(2.0, 3.0, 1.0, 0.0, [1.0, 1.0]);
    assert_eq!((t.adjoint("ct"), t.adjoint("x")), (Some(3.0), Some(3.0)));
}

/// The right-hand side of an oscillator, `s' = (s₁, −k s₀)`.
#[autodiff]
fn oscillator(s: [f64; 2], k: f64) -> [f64; 2] {
    [s[1], -k * s[0]]
}

/// Euler steps through a call returning an array, the state replaced whole in the loop.
#[autodiff]
fn euler(s0: [f64; 2], k: f64) -> f64 {
    let mut s = s0;
    for _ in 0..3 {
        let d = oscillator(s, k);
        s = [s[0] + 0.1 * d[0], s[1] + 0.1 * d[1]];
    }
    s[0] * s[1]
}

#[test]
fn calls_returning_arrays_have_a_row_per_element() {
    let (s0, k) = ([1.0, 0.5], 2.0);
    let g = grad_euler(s0, k);
    for (ts, tk) in [([1.0, 0.0], 0.0), ([0.0, 1.0], 0.0), ([0.0, 0.0], 1.0)] {
        let t = explain_euler(s0, k, ts, tk);
        assert_close(
            t.tangent("euler").unwrap(),
            jvp_euler(s0, k, ts, tk).1,
            "tangent",
        );
        let adjoints = ["s0[0]", "s0[1]", "k"].map(|n| t.adjoint(n).unwrap());
        assert_close(adjoints[0], g.0[0], "∂s0[0]");
        assert_close(adjoints[1], g.0[1], "∂s0[1]");
        assert_close(adjoints[2], g.1, "∂k");
        // Each iteration gathers the state, calls, and splits the result; the values written
        // back are shown as the elements they go into.
        assert_eq!(t.rows_named("d").count(), 3);
        assert_eq!(t.rows_named("d[1]").count(), 3);
        assert!(t.rows_named("d").all(|r| r.expr == "oscillator(s, k)"));
        assert!(t.rows_named("s").all(|r| r.expr == "[s[0], s[1]]"));
        assert_eq!(t.rows_named("s[0]").count(), 3);
        assert_connected(&t, &t.to_dot());
    }
}

#[autodiff]
fn length(v: &[f64]) -> f64 {
    let mut t = 0.0;
    for x in v {
        t += x * x;
    }
    t.sqrt()
}

#[autodiff]
fn prefix_sums(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    let mut acc = 0.0;
    for v in x {
        acc += v;
        out.push(acc);
    }
    out
}

/// A slice passed whole to one call, and a `Vec` returned by another.
#[autodiff]
fn through_vectors(x: &[f64]) -> f64 {
    let c = prefix_sums(x);
    length(x) * c[2] + length(&c)
}

#[test]
fn calls_taking_and_returning_vectors_are_explained() {
    let x = [3.0, 4.0, -1.0];
    let g = grad_through_vectors(&x);
    for tx in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 1.0]] {
        let t = explain_through_vectors(&x, &tx);
        assert_close(
            t.tangent("through_vectors").unwrap(),
            jvp_through_vectors(&x, &tx).1,
            "tangent",
        );
        for (i, gi) in g.iter().enumerate() {
            assert_close(t.adjoint(&format!("x[{i}]")).unwrap(), *gi, "adjoint");
        }
        // `x` gathered once for `length(x)`: its adjoint is ∂length(x)·c[2] as a vector.
        let gathered = t.row("x").unwrap();
        assert_eq!(
            (gathered.expr.as_str(), gathered.shape.as_slice()),
            ("[x[0], x[1], x[2]]", &[3][..])
        );
        assert_eq!(
            t.rows_named("c").count(),
            2,
            "the call's row and the gathered `c`"
        );
        assert_connected(&t, &t.to_dot());
    }
}

#[autodiff]
fn to_polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), y.atan2(x))
}

#[test]
fn tuple_parts_are_named_as_bound() {
    #[autodiff]
    fn sector(x: f64, y: f64) -> f64 {
        let (r, t) = to_polar(x, y);
        0.5 * r * r * t
    }
    let (x, y) = (1.0, 2.0);
    let g = grad_sector(x, y);
    let t = explain_sector(x, y, 0.0, 1.0);
    assert_close(
        t.tangent("sector").unwrap(),
        jvp_sector(x, y, 0.0, 1.0).1,
        "tangent",
    );
    assert_close(t.adjoint("x").unwrap(), g.0, "∂x");
    assert_close(t.adjoint("y").unwrap(), g.1, "∂y");
    assert_eq!(t.row("(r, t)").unwrap().expr, "to_polar(x, y)");
    assert_eq!(t.row("r").unwrap().expr, "(r, t).0");
    assert!(t.rows().iter().any(|r| r.expr == "t5 * t"), "{t}");
    assert_close(
        t.adjoint("r").unwrap(),
        (y.atan2(x)) * (x * x + y * y).sqrt(),
        "∂r = r·t",
    );
    assert_connected(&t, &t.to_dot());
}
