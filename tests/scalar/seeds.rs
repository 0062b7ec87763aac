//! The worked examples of the seed papers, with their published values, in both modes.

use diffx::autodiff;
#[path = "../../examples/shared/seed_functions.rs"]
mod seed_functions;
use seed_functions::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn tutorial_function_at_2_5() {
    let (y, (d1, d2)) = value_and_grad_tutorial(2.0, 5.0);
    // y = ln 2 + 10 − sin 5 = 11.652; ∂y/∂x1 = 1/x1 + x2 = 5.5; ∂y/∂x2 = x1 − cos x2 = 1.716.
    assert!(close(y, 11.652, 1e-4), "{y}");
    assert!(close(d1, 5.5, 1e-15), "{d1}");
    assert!(
        close(d2, 2.0 - 5f64.cos(), 1e-15) && close(d2, 1.716, 1e-3),
        "{d2}"
    );
    assert_eq!(jvp_tutorial(2.0, 5.0, 1.0, 0.0), (y, d1));
    assert_eq!(jvp_tutorial(2.0, 5.0, 0.0, 1.0).1, d2);
}

#[test]
fn e_at_2_3() {
    // ∂e/∂a = b(b+1) = 12; ∂e/∂b = a(b+1) + ab = 2a·b + a = 14.
    assert_eq!(value_and_grad_e(2.0, 3.0), (24.0, (12.0, 14.0)));
    assert_eq!(jvp_e(2.0, 3.0, 1.0, 0.0), (24.0, 12.0));
    assert_eq!(jvp_e(2.0, 3.0, 0.0, 1.0), (24.0, 14.0));
}

/// V = xy + z(x + y): the gradient is (y + z, x + z, x + y).
#[autodiff]
fn v(x: f64, y: f64, z: f64) -> f64 {
    x * y + z * (x + y)
}

#[test]
fn v_gradient() {
    for (x, y, z) in [(1.0, 2.0, 3.0), (-0.5, 4.0, 0.25)] {
        assert_eq!(grad_v(x, y, z), (y + z, x + z, x + y));
        assert_eq!(jvp_v(x, y, z, 1.0, 0.0, 0.0).1, y + z);
        assert_eq!(jvp_v(x, y, z, 0.0, 0.0, 1.0).1, x + y);
    }
}

/// (x + y)·(x·y): gradient (y(x+y) + xy, x(x+y) + xy).
#[autodiff]
fn sum_times_product(x: f64, y: f64) -> f64 {
    (x + y) * (x * y)
}

#[test]
fn sum_times_product_gradient() {
    let (x, y) = (3.0, 4.0);
    assert_eq!(
        grad_sum_times_product(x, y),
        (y * (x + y) + x * y, x * (x + y) + x * y)
    );
}

/// Andrews et al.: a = (x + y)^z − w at x=3, y=4, z=2, w=2.
#[autodiff]
fn power(x: f64, y: f64, z: f64, w: f64) -> f64 {
    (x + y).powf(z) - w
}

#[test]
fn power_at_3_4_2_2() {
    let (a, (dx, dy, dz, dw)) = value_and_grad_power(3.0, 4.0, 2.0, 2.0);
    // 7² − 2 = 47; ∂/∂x = ∂/∂y = z(x+y)^(z−1) = 14; ∂/∂z = 49 ln 7; ∂/∂w = −1.
    assert!(close(a, 47.0, 1e-15));
    assert!(close(dx, 14.0, 1e-14) && close(dy, 14.0, 1e-14));
    assert!(close(dz, 49.0 * 7f64.ln(), 1e-14), "{dz}");
    assert_eq!(dw, -1.0);
    let (_, t) = jvp_power(3.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0);
    assert!(close(t, dx + dy + dz + dw, 1e-14));
}

/// The blog's ReLU neuron y = relu(w1·x + b1)·w2 + b2: at x = 2, w1 = −3 the unit is off.
#[autodiff(wrt(w1, b1, w2, b2))]
fn neuron(x: f64, w1: f64, b1: f64, w2: f64, b2: f64) -> f64 {
    diffx::relu(w1 * x + b1) * w2 + b2
}

#[test]
fn relu_neuron_is_dead() {
    let (y, (dw1, db1, dw2, db2)) = value_and_grad_neuron(2.0, -3.0, 1.0, 2.0, 0.5);
    assert_eq!(y, 0.5);
    assert_eq!((dw1, db1, dw2, db2), (0.0, 0.0, 0.0, 1.0));
}
