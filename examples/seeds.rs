//! The worked examples of the AD tutorials diffx grew from, by both modes.
//!
//! ```text
//! cargo run --release --example seeds
//! ```

use diffx::autodiff;
#[path = "shared/seed_functions.rs"]
mod seed_functions;
use seed_functions::*;

/// The blog seed's second graph: V = xy + z(x + y).
#[autodiff]
fn v(x: f64, y: f64, z: f64) -> f64 {
    x * y + z * (x + y)
}

/// Andrews et al.: a = (x + y)^z − w.
#[autodiff]
fn a(x: f64, y: f64, z: f64, w: f64) -> f64 {
    (x + y).powf(z) - w
}

/// The blog seed's ReLU neuron y = relu(w1·x + b1)·w2 + b2 (x is data, not a parameter).
#[autodiff(wrt(w1, b1, w2, b2))]
fn neuron(x: f64, w1: f64, b1: f64, w2: f64, b2: f64) -> f64 {
    diffx::relu(w1 * x + b1) * w2 + b2
}

fn main() {
    println!("y = ln x1 + x1·x2 − sin x2 at (x1, x2) = (2, 5)");
    let (y, (d1, d2)) = value_and_grad_tutorial(2.0, 5.0);
    let (_, t1) = jvp_tutorial(2.0, 5.0, 1.0, 0.0);
    let (_, t2) = jvp_tutorial(2.0, 5.0, 0.0, 1.0);
    println!("  value {y:.3}");
    println!("  reverse: ∂y/∂x1 = {d1:.3}, ∂y/∂x2 = {d2:.3}");
    println!("  forward: ∂y/∂x1 = {t1:.3}, ∂y/∂x2 = {t2:.3}");

    println!("e = (a·b)·(b + 1) at (a, b) = (2, 3)");
    let (val, (da, db)) = value_and_grad_e(2.0, 3.0);
    println!(
        "  value {val}, reverse ({da}, {db}), forward ({}, {})",
        jvp_e(2.0, 3.0, 1.0, 0.0).1,
        jvp_e(2.0, 3.0, 0.0, 1.0).1
    );

    println!("V = xy + z(x + y) at (x, y, z) = (1, 2, 3): gradient (y+z, x+z, x+y)");
    let (val, g) = value_and_grad_v(1.0, 2.0, 3.0);
    println!("  value {val}, reverse {g:?}");

    println!("a = (x + y)^z − w at (3, 4, 2, 2)");
    let (val, (dx, dy, dz, dw)) = value_and_grad_a(3.0, 4.0, 2.0, 2.0);
    println!("  value {val}, reverse ({dx}, {dy}, {dz:.4}, {dw})");
    println!(
        "  forward along (1, 1, 1, 1): {:.4}",
        jvp_a(3.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0).1
    );

    println!("y = relu(w1·x + b1)·w2 + b2 at x = 2, w1 = −3, b1 = 1, w2 = 2, b2 = 0.5");
    let (val, (dw1, db1, dw2, db2)) = value_and_grad_neuron(2.0, -3.0, 1.0, 2.0, 0.5);
    println!("  value {val}, reverse (∂w1, ∂b1, ∂w2, ∂b2) = ({dw1}, {db1}, {dw2}, {db2}): the unit is off");
}
