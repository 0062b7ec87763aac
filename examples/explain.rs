//! Seeing inside: the evaluation trace, the derivative code and the computation graph of two worked
//! examples of the AD tutorials, of two loops (a row per executed iteration), of the Iris loss of
//! `examples/iris.rs` (rows of tensors), and of a vector-valued function.
//!
//! ```text
//! cargo run --example explain --features explain   # the tables and the code, target/explain/*.dot
//! dot -Tsvg target/explain/tutorial.dot -o tutorial.svg
//! ```
//!
//! `explain_f` comes with the `explain` feature of `diffx`, off by default to save compile time.

#[path = "shared/seed_functions.rs"]
mod seed_functions;
use seed_functions::*;
#[path = "shared/loop_functions.rs"]
mod loop_functions;
use loop_functions::*;

use diffx::nn::{Activation, Mlp};
use diffx::{autodiff, Tensor};

/// The loss of `examples/iris.rs`: a tanh hidden layer, then the softmax cross-entropy.
#[autodiff(wrt(model))]
fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

/// Polar to Cartesian coordinates: a vector-valued function.
#[autodiff]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/explain");
    std::fs::create_dir_all(&dir)?;

    // At (x1, x2) = (2, 5), with the tangent along x1: ẏ = ∂y/∂x1, and the adjoints give both
    // partials at once: x̄1 = 5.5, x̄2 = 1.716.
    let trace = explain_tutorial(2.0, 5.0, 1.0, 0.0);
    println!("{trace}");
    println!("The Wengert list:\n{}", trace.wengert_list());
    println!(
        "Forward mode (what jvp_tutorial runs):\n{}",
        trace.forward_code()
    );
    println!(
        "Reverse mode (what grad_tutorial runs):\n{}",
        trace.reverse_code()
    );
    trace.write_dot(dir.join("tutorial.dot"))?;

    // At (a, b) = (2, 3), along b: ė = ∂e/∂b = 14; ā = 12, b̄ = 14.
    let trace = explain_e(2.0, 3.0, 0.0, 1.0);
    println!("{trace}");
    println!("Reverse mode (what grad_e runs):\n{}", trace.reverse_code());
    trace.write_dot(dir.join("e.dot"))?;

    // The seed's power loop x⁴ = x·x·x·x at x = 2: one row per multiplication, with the tangents
    // 2x, 3x², 4x³ of x², x³, x⁴, and x̄ = 32 collected from every iteration.
    let trace = explain_power(2.0, 4, 1.0);
    println!("{trace}");
    trace.write_dot(dir.join("power.dot"))?;

    // Heron's square root of 2 by a `while` loop, as many rows as it took iterations. The adjoints
    // of the early iterations vanish: near the fixed point g ↦ (g + a/g)/2 has derivative 0 in g,
    // so ∂√a/∂a = 1/(2√a) comes from the last iteration's `a` alone.
    let trace = explain_heron(2.0, 1.0);
    println!("{trace:.4}");
    trace.write_dot(dir.join("heron.dot"))?;

    // The Iris loss on three flowers, one of each species, for a 4-4-3 network. The rows are
    // tensors: the table shows shapes and norms, `trace.tensors(name)` every entry. Along the
    // gradient itself, the loss changes at the rate ‖∇loss‖² (the tangent of the output).
    let x = Tensor::from_rows(&[
        &[5.1, 3.5, 1.4, 0.2],
        &[7.0, 3.2, 4.7, 1.4],
        &[6.3, 3.3, 6.0, 2.5],
    ]);
    let labels = [0, 1, 2];
    let model: Mlp = Mlp::new(&[4, 4, 3], Activation::Tanh, 0);
    let gradient = grad_loss(&model, &x, &labels);
    let trace = explain_loss(&model, &x, &labels, &gradient);
    println!("{trace}");
    let hidden = trace.tensors("hidden").expect("a tensor row");
    println!("hidden, all entries:\n{}", hidden.value);
    println!("∂loss/∂hidden:\n{}", hidden.adjoint);
    trace.write_dot(dir.join("iris_loss.dot"))?;

    // A vector-valued function: an output row per element, adjoints for the cotangent ȳ given
    // last, here (0, 1): the second row of the Jacobian, ∂y/∂r = sin θ, ∂y/∂θ = r cos θ.
    let trace = explain_polar(2.0, 0.5, 1.0, 0.0, [0.0, 1.0]);
    println!("{trace}");
    trace.write_dot(dir.join("polar.dot"))?;

    println!(
        "wrote tutorial.dot, e.dot, power.dot, heron.dot, iris_loss.dot and polar.dot in {}",
        dir.display()
    );
    Ok(())
}
