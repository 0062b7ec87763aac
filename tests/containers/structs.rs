//! Parameter structs over any leaves (issue 14, item 1): scalar fields, arrays, `Vec`s and nested
//! arrays of numbers, tensors, nested parameter structs and `Vec`s and arrays of them. Gradients
//! are values of the same type, checked against hand derivatives and central differences in both
//! modes; optimizers and `Params` arithmetic work on them.

use diffx::check::check_params;
use diffx::optim::{Adam, Momentum, Optimizer, RmsProp, Sgd};
use diffx::{autodiff, Params, Tensor};

/// A line `y = slope·x + intercept`.
#[derive(Clone, Debug, PartialEq, Params)]
struct Line {
    slope: f64,
    intercept: f64,
}

/// Mean squared error of the line on the points: the scalar fields are read in a loop.
#[autodiff(wrt(p))]
fn mse(p: &Line, xs: &[f64], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() {
        let r = p.slope * xs[i] + p.intercept - ys[i];
        total += r * r;
    }
    total / xs.len() as f64
}

fn data() -> (Vec<f64>, Vec<f64>) {
    let xs: Vec<f64> = (0..25).map(|i| i as f64 / 8.0 - 1.0).collect();
    // Points off a line, so that the fit has a residual.
    let ys = xs
        .iter()
        .map(|x| 2.5 * x - 0.75 + 0.3 * (7.0 * x).sin())
        .collect();
    (xs, ys)
}

/// The least-squares line in closed form.
fn closed_form(xs: &[f64], ys: &[f64]) -> Line {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let slope = sxy / sxx;
    Line {
        slope,
        intercept: my - slope * mx,
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn scalar_fields_read_in_a_loop() {
    let (xs, ys) = data();
    let n = xs.len() as f64;
    for (s, c) in [(0.0, 0.0), (1.5, -2.0), (-3.0, 0.25)] {
        let p = Line {
            slope: s,
            intercept: c,
        };
        let g = grad_mse(&p, &xs, &ys);
        // ∂/∂slope = 2/n Σ r·x, ∂/∂intercept = 2/n Σ r.
        let r: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| s * x + c - y).collect();
        let ds = 2.0 / n * r.iter().zip(&xs).map(|(r, x)| r * x).sum::<f64>();
        let dc = 2.0 / n * r.iter().sum::<f64>();
        assert!(
            close(g.slope, ds, 1e-12) && close(g.intercept, dc, 1e-12),
            "{g:?}"
        );
        check_params(|q| mse(q, &xs, &ys), &p, &g).assert_close(1e-7);
        // Forward mode: the tangent along a direction is the gradient's dot product with it.
        let dir = Line {
            slope: 0.5,
            intercept: -2.0,
        };
        let (value, tangent) = jvp_mse(&p, &xs, &ys, &dir);
        assert!(close(value, mse(&p, &xs, &ys), 1e-15));
        assert!(close(tangent, g.dot(&dir), 1e-12), "{tangent}");
        let (value, vg) = value_and_grad_mse(&p, &xs, &ys);
        assert!(close(value, mse(&p, &xs, &ys), 1e-15) && vg == g);
    }
}

/// Trains the line with an optimizer and checks it reaches the closed-form solution.
fn train(mut opt: impl Optimizer<Line>, steps: usize) -> Line {
    let (xs, ys) = data();
    let mut p = Line {
        slope: 0.0,
        intercept: 0.0,
    };
    for _ in 0..steps {
        let g = grad_mse(&p, &xs, &ys);
        opt.step(&mut p, &g);
    }
    p
}

#[test]
fn every_optimizer_fits_the_least_squares_line() {
    let (xs, ys) = data();
    let best = closed_form(&xs, &ys);
    // RMSprop's steps keep about the size of its learning rate: it ends within that of the line.
    for (name, p, tol) in [
        ("Sgd", train(Sgd::new(0.1), 2000), 1e-6),
        ("Momentum", train(Momentum::new(0.05, 0.9), 1000), 1e-6),
        ("Adam", train(Adam::new(0.05), 3000), 1e-4),
        ("RmsProp", train(RmsProp::new(0.005), 3000), 1e-2),
    ] {
        assert!(
            close(p.slope, best.slope, tol) && close(p.intercept, best.intercept, tol),
            "{name}: {p:?}, best {best:?}"
        );
    }
}

/// A layer: a weight tensor and a scalar bias.
#[derive(Clone, Debug, PartialEq, Params)]
struct Unit {
    w: Tensor<f64>,
    bias: f64,
}

/// Every kind of leaf, with a field that is not a parameter.
#[derive(Clone, Debug, PartialEq, Params)]
struct Mixed {
    scale: f64,
    offsets: [f64; 3],
    weights: Vec<f64>,
    matrix: [[f64; 2]; 2],
    rows: Vec<Vec<f64>>,
    points: Vec<[f64; 2]>,
    unit: Unit,
    units: Vec<Unit>,
    pair: [Unit; 2],
    #[params(skip)]
    label: String,
}

fn mixed() -> Mixed {
    let unit = |a: f64| Unit {
        w: Tensor::from_vec(vec![a, 2.0 * a], &[2]),
        bias: -a,
    };
    Mixed {
        scale: 1.25,
        offsets: [0.5, -0.25, 2.0],
        weights: vec![0.3, -0.7, 1.1, 0.2],
        matrix: [[1.0, 0.5], [-0.5, 2.0]],
        rows: vec![vec![0.1, 0.2, 0.3], vec![-1.0, 0.5]],
        points: vec![[1.0, 2.0], [-0.5, 0.75], [0.25, -1.5]],
        unit: unit(0.4),
        units: vec![unit(0.1), unit(-0.3)],
        pair: [unit(0.7), unit(1.3)],
        label: "mixed".to_string(),
    }
}

/// Reads every leaf: fields at constant and run-time indices, nested indexing, loops over
/// lengths, a tensor reduced to a number, parts of nested structs.
#[autodiff(wrt(p))]
#[allow(clippy::needless_range_loop)]
fn energy(p: &Mixed, x: f64) -> f64 {
    let mut e = p.scale * x * x;
    for i in 0..3 {
        e += (p.offsets[i] * x).sin();
    }
    for i in 0..p.weights.len() {
        e += p.weights[i] * p.weights[i] * (i as f64 + 1.0);
    }
    e += p.matrix[0][0] * p.matrix[1][1] - p.matrix[0][1] * p.matrix[1][0];
    for r in 0..p.rows.len() {
        for c in 0..p.rows[r].len() {
            e += p.rows[r][c] * x.powi(c as i32);
        }
    }
    for k in 0..p.points.len() {
        e += (p.points[k][0] - p.points[k][1]).powi(2);
    }
    e += (p.unit.w.sum() * x).tanh() + p.unit.bias;
    for u in 0..p.units.len() {
        e += p.units[u].w.sum() * p.units[u].bias;
    }
    e + p.pair[0].bias * p.pair[1].w.sum() + p.scale.exp()
}

#[test]
fn every_leaf_kind_against_central_differences() {
    let p = mixed();
    for x in [0.3, -1.1, 2.0] {
        let g = grad_energy(&p, x);
        assert_eq!(g.label, "mixed", "a skipped field keeps its value");
        check_params(|q| energy(q, x), &p, &g).assert_close(1e-6);
        // Hand values for a few leaves.
        assert!(close(g.scale, x * x + p.scale.exp(), 1e-12), "{}", g.scale);
        assert!(close(g.weights[2], 2.0 * 1.1 * 3.0, 1e-12));
        assert!(close(g.matrix[0][1], 0.5, 1e-12));
        assert!(close(g.rows[0][2], x * x, 1e-12) && close(g.rows[1][1], x, 1e-12));
        assert!(close(g.points[1][1], -2.0 * (-0.5 - 0.75), 1e-12));
        assert!(close(g.pair[0].bias, p.pair[1].w.sum(), 1e-12));
        assert_eq!(g.units[1].w.data(), &[0.3, 0.3], "the bias of unit(-0.3)");
        // Forward mode along a random-ish direction agrees with the gradient.
        let flat: Vec<f64> = (0..p.num_params())
            .map(|i| ((i * 7 % 5) as f64 - 2.0) * 0.3)
            .collect();
        let dir = p.from_flat(&flat);
        let (_, tangent) = jvp_energy(&p, x, &dir);
        assert!(
            close(tangent, g.dot(&dir), 1e-10),
            "{tangent} vs {}",
            g.dot(&dir)
        );
    }
}

#[test]
fn params_arithmetic_on_every_leaf_kind() {
    let p = mixed();
    let n = p.num_params();
    assert_eq!(n, 1 + 3 + 4 + 4 + 5 + 6 + 3 + 6 + 6);
    let flat = p.to_flat_vec();
    assert_eq!(p.from_flat(&flat), p);
    let mut q = p.zeros_like();
    assert_eq!(q.norm(), 0.0);
    assert_eq!(q.label, "mixed");
    q.add_assign(&p);
    q.axpy(1.0, &p);
    q.scale(0.25);
    let halves: Vec<f64> = flat.iter().map(|v| 0.5 * v).collect();
    assert_eq!(q.to_flat_vec(), halves);
    assert!(close(p.dot(&p), p.norm() * p.norm(), 1e-12));
    // A gradient with a row of another length is refused before anything changes.
    let mut short = p.clone();
    short.rows[1].push(0.0);
    let refused = std::panic::catch_unwind(move || {
        let mut a = mixed();
        a.add_assign(&short);
    });
    let msg = *refused.unwrap_err().downcast::<String>().unwrap();
    assert!(
        msg.contains("has shape [2] in self but [3] in other"),
        "{msg}"
    );
}

/// A tuple struct generic over its float type, differentiated at `f32` and at `f64`.
#[derive(Clone, Debug, PartialEq, Params)]
struct Pair<F: diffx::Float>(F, [F; 2]);

#[autodiff(wrt(p))]
fn bowl32(p: &Pair<f32>, x: f32) -> f32 {
    p.0 * p.0 * x + p.1[0] * p.1[1]
}

#[autodiff(wrt(p))]
fn bowl64(p: &Pair<f64>, x: f64) -> f64 {
    p.0 * p.0 * x + p.1[0] * p.1[1]
}

#[test]
fn tuple_struct_generic_over_its_float() {
    let g = grad_bowl32(&Pair(1.5, [2.0, -3.0]), 2.0);
    assert_eq!(g, Pair(6.0, [-3.0, 2.0]));
    let p = Pair(1.5, [2.0, -3.0]);
    let g = grad_bowl64(&p, 2.0);
    check_params(|q| bowl64(q, 2.0), &p, &g).assert_close(1e-8);
    let (_, t) = jvp_bowl64(&p, 2.0, &Pair(1.0, [0.0, 1.0]));
    assert_eq!(t, 6.0 + 2.0);
}

/// Two layers and a scale, for parts of a parameter struct passed to calls.
#[derive(Clone, Debug, Params)]
struct Net {
    layers: Vec<Unit2>,
    scale: f64,
}

/// A dense layer whose bias is a row.
#[derive(Clone, Debug, Params)]
struct Unit2 {
    w: Tensor<f64>,
    b: Tensor<f64>,
}

#[autodiff]
fn dense(layer: &Unit2, x: &Tensor<f64>) -> Tensor<f64> {
    (x.matmul(&layer.w) + &layer.b).tanh()
}

/// The layers passed to `dense` by index: each call's gradient (a `Unit2`) is added into the
/// gradient of the layer passed.
#[autodiff(wrt(net))]
fn net_by_index(net: &Net, x: &Tensor<f64>) -> f64 {
    let h = dense(&net.layers[0], x);
    dense(&net.layers[1], &h).sum() * net.scale
}

/// The same network as a loop over the layers.
#[autodiff(wrt(net))]
fn net_by_loop(net: &Net, x: &Tensor<f64>) -> f64 {
    let mut h = x.clone();
    for layer in &net.layers {
        h = dense(layer, &h);
    }
    h.sum() * net.scale
}

/// The same network written out.
#[autodiff(wrt(net))]
fn net_written_out(net: &Net, x: &Tensor<f64>) -> f64 {
    let h = (x.matmul(&net.layers[0].w) + &net.layers[0].b).tanh();
    (h.matmul(&net.layers[1].w) + &net.layers[1].b).tanh().sum() * net.scale
}

/// One layer used twice: both calls' gradients reach it.
#[autodiff(wrt(net))]
fn same_layer_twice(net: &Net, x: &Tensor<f64>) -> f64 {
    let a = dense(&net.layers[0], x);
    let b = dense(&net.layers[0], &(x * 0.5));
    (a * b).sum() * net.scale
}

#[test]
fn struct_parts_passed_to_calls() {
    let unit = |i, o, seed| Unit2 {
        w: Tensor::randn(&[i, o], seed),
        b: Tensor::randn(&[1, o], seed + 9),
    };
    let net = Net {
        layers: vec![unit(3, 4, 1), unit(4, 2, 2)],
        scale: 1.5,
    };
    let x = Tensor::randn(&[5, 3], 3);
    let reference = grad_net_written_out(&net, &x);
    let dir = net.from_flat(
        &(0..net.num_params())
            .map(|i| (i % 5) as f64 * 0.5 - 1.0)
            .collect::<Vec<_>>(),
    );
    type Loss = fn(&Net, &Tensor<f64>) -> f64;
    type Grad = fn(&Net, &Tensor<f64>) -> Net;
    type Jvp = fn(&Net, &Tensor<f64>, &Net) -> (f64, f64);
    let forms: [(&str, Loss, Grad, Jvp); 3] = [
        (
            "by index",
            net_by_index,
            grad_net_by_index,
            jvp_net_by_index,
        ),
        ("by loop", net_by_loop, grad_net_by_loop, jvp_net_by_loop),
        (
            "twice",
            same_layer_twice,
            grad_same_layer_twice,
            jvp_same_layer_twice,
        ),
    ];
    for (name, f, grad, jvp) in forms {
        let g = grad(&net, &x);
        check_params(|q| f(q, &x), &net, &g).assert_close(1e-6);
        if name != "twice" {
            let diff: Vec<f64> = g
                .to_flat_vec()
                .iter()
                .zip(reference.to_flat_vec())
                .map(|(a, b)| (a - b).abs())
                .collect();
            assert!(diff.iter().all(|d| *d < 1e-14), "{name}: {diff:?}");
        }
        let (_, t) = jvp(&net, &x, &dir);
        assert!(
            close(t, g.dot(&dir), 1e-10),
            "{name}: {t} vs {}",
            g.dot(&dir)
        );
    }
}

/// The Iris loss of the main job, and the same loss with its layers computed by a helper.
#[autodiff(wrt(model))]
fn iris_loss(model: &diffx::nn::Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

#[autodiff]
fn affine(layer: &diffx::nn::Linear, x: &Tensor) -> Tensor {
    x.matmul(&layer.w) + &layer.b
}

#[autodiff(wrt(model))]
fn iris_loss_with_helper(model: &diffx::nn::Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = affine(&model.layers[0], x).tanh();
    affine(&model.layers[1], &hidden).cross_entropy(labels)
}

#[test]
fn iris_loss_with_a_layer_helper_has_the_written_out_gradient() {
    use diffx::nn::{Activation, Mlp};
    let model = Mlp::new(&[4, 10, 3], Activation::Tanh, 7);
    let x = Tensor::randn(&[30, 4], 11);
    let labels: Vec<usize> = (0..30).map(|i| i % 3).collect();
    let (v1, g1) = value_and_grad_iris_loss(&model, &x, &labels);
    let (v2, g2) = value_and_grad_iris_loss_with_helper(&model, &x, &labels);
    assert_eq!(v1, v2);
    assert_eq!(
        g1, g2,
        "the same operations in the same order give the same bits"
    );
}

/// Scalar fields bound with their type before elementary functions of them.
#[autodiff(wrt(p))]
fn typed_fields(p: &Line, x: f64) -> f64 {
    let slope: f64 = p.slope;
    let intercept: f64 = p.intercept;
    (slope * x).tanh() + intercept.exp() * slope.sin() + p.slope * p.intercept
}

#[test]
fn scalar_fields_bound_with_their_type() {
    let p = Line {
        slope: 0.7,
        intercept: -0.4,
    };
    for x in [0.5, -1.5] {
        let g = grad_typed_fields(&p, x);
        let (s, c) = (p.slope, p.intercept);
        let ds = x * (1.0 - (s * x).tanh().powi(2)) + c.exp() * s.cos() + c;
        let dc = c.exp() * s.sin() + s;
        assert!(
            close(g.slope, ds, 1e-14) && close(g.intercept, dc, 1e-14),
            "{g:?}"
        );
        let (_, t) = jvp_typed_fields(
            &p,
            x,
            &Line {
                slope: 1.0,
                intercept: 2.0,
            },
        );
        assert!(close(t, ds + 2.0 * dc, 1e-13));
    }
}

/// Number fields read directly by elementary functions and the runtime's activations, as a tensor
/// field would be.
#[autodiff(wrt(p))]
fn field_functions(p: &Line, x: f64) -> f64 {
    (p.slope * x).tanh()
        + p.intercept.exp()
        + p.slope.powi(3)
        + (p.slope * p.slope + 1.0).ln()
        + (p.intercept * p.intercept + 0.5).sqrt()
        + diffx::sigmoid(p.slope * p.intercept)
        + diffx::relu(p.slope)
        + diffx::softplus(p.intercept * x)
        + p.slope.tanh() * p.intercept.sin()
        + p.slope.max(p.intercept)
}

/// A function of a `Line` and a number, with its `grad_` and `jvp_`.
type LineFunction = (
    fn(&Line, f64) -> f64,
    fn(&Line, f64) -> Line,
    fn(&Line, f64, &Line) -> (f64, f64),
);

/// `grad_` against central differences, and `jvp_`'s value and tangent against `f` and ⟨∇, direction⟩,
/// at three points; `last` is the number argument at the last one.
fn check_line_function((f, grad, jvp): LineFunction, last: f64) {
    for (s, c, x) in [(0.7, -0.4, 0.5), (-1.2, 0.9, -1.5), (0.3, 1.1, last)] {
        let p = Line {
            slope: s,
            intercept: c,
        };
        let g = grad(&p, x);
        check_params(|q| f(q, x), &p, &g).assert_close(1e-7);
        let dir = Line {
            slope: 0.5,
            intercept: -1.0,
        };
        let (v, t) = jvp(&p, x, &dir);
        assert!(close(v, f(&p, x), 1e-15));
        assert!(close(t, g.dot(&dir), 1e-12), "{t} vs {}", g.dot(&dir));
    }
}

#[test]
fn number_fields_in_elementary_functions() {
    check_line_function(
        (field_functions, grad_field_functions, jvp_field_functions),
        2.0,
    );
}

#[autodiff]
fn scaled_product(x: f64, y: f64) -> f64 {
    x * y
}

/// Number fields bound to names and passed on, as the random-program tester writes them
/// (`fields` construct, seed 4949): to calls by value, computed into arguments (`y / (1 + z.tanh()²)`,
/// `x.abs()`, a nested call), read by kept statements, read for the last time by `exp`, and
/// returned as they are.
#[autodiff(wrt(p))]
fn fields_passed_on(p: &Line, w: f64) -> f64 {
    let x = p.slope;
    let y = p.intercept;
    assert!(scaled_product(x, y).is_finite(), "{}", x);
    let mut s = scaled_product(x, 2.0) + scaled_product(x.abs(), scaled_product(y, w));
    if w > 0.0 {
        s += scaled_product(y / (1.0 + x.tanh() * x.tanh()), s * x.sin());
    }
    let e = (-(y * y)).exp();
    if w > 10.0 {
        return y;
    }
    s + e
}

#[test]
fn number_fields_passed_to_calls_and_kept_statements() {
    // The last point takes the early `return`.
    check_line_function(
        (
            fields_passed_on,
            grad_fields_passed_on,
            jvp_fields_passed_on,
        ),
        20.0,
    );
}

/// A field copied into a local (`let z = p.slope;`), shadowed in one arm and read by a kept
/// statement in the other (tester finding s7171-f219: the kept statement read the field by
/// reference after the shadow).
#[autodiff(wrt(p))]
fn shadowed_field(p: &Line, x: f64) -> f64 {
    let z = p.slope;
    let y = p.intercept;
    let s = if z > -0.4 {
        let z = z * 2.0;
        z * y
    } else {
        assert!((x * diffx::sigmoid(z)).is_finite());
        y * x
    };
    s + z
}

#[test]
fn a_field_copy_shadowed_in_an_arm() {
    for (slope, intercept, x) in [(0.5, 2.0, 1.5), (-1.0, 0.75, -0.5)] {
        let p = Line { slope, intercept };
        let g = grad_shadowed_field(&p, x);
        // s = 2·slope·intercept + slope above -0.4, intercept·x + slope below.
        let (ds, dc) = match slope > -0.4 {
            true => (2.0 * intercept + 1.0, 2.0 * slope),
            false => (1.0, x),
        };
        assert!(
            close(g.slope, ds, 1e-14) && close(g.intercept, dc, 1e-14),
            "{g:?}"
        );
        check_params(|q| shadowed_field(q, x), &p, &g).assert_close(1e-7);
        let dir = Line {
            slope: 0.25,
            intercept: -1.0,
        };
        assert!(close(jvp_shadowed_field(&p, x, &dir).1, g.dot(&dir), 1e-13));
    }
}

#[autodiff]
fn squash(y: f64, x: f64) -> f64 {
    (x * y).tanh()
}

/// A call's value in a function of a parameter struct (its kind unseen by the macro) read by a
/// kept statement that passes it on by value (tester finding s7676-f129: it was bound by
/// reference there).
#[autodiff(wrt(p))]
fn kept_statement_call(p: &Line, x: f64) -> f64 {
    let b = squash(p.slope, x).tanh();
    assert!(squash(b, p.intercept).is_finite());
    b * p.intercept
}

#[test]
fn a_kept_statement_reads_a_calls_value() {
    let p = Line {
        slope: 0.4,
        intercept: -1.5,
    };
    let x = 0.8;
    let g = grad_kept_statement_call(&p, x);
    let t = (p.slope * x).tanh();
    // b = tanh(tanh(slope·x)): ∂b/∂slope = (1 − b²)(1 − t²)·x.
    let b = t.tanh();
    let ds = p.intercept * (1.0 - b * b) * (1.0 - t * t) * x;
    assert!(
        close(g.slope, ds, 1e-13) && close(g.intercept, b, 1e-14),
        "{g:?}"
    );
    check_params(|q| kept_statement_call(q, x), &p, &g).assert_close(1e-8);
}
