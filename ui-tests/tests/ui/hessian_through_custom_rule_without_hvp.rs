use diffx::{autodiff, custom_derivative};

#[custom_derivative(jvp = square_jvp, vjp = square_vjp)]
fn square(x: f64) -> f64 {
    x * x
}

fn square_jvp(x: f64, tx: f64) -> (f64, f64) {
    (x * x, 2.0 * x * tx)
}

fn square_vjp(x: f64, ct: f64) -> (f64, f64) {
    (x * x, 2.0 * x * ct)
}

// Without `order = 2` this compiles and has no `hvp_f`; with it, `square` needs an `hvp` rule.
#[autodiff(order = 2)]
fn f(x: f64, y: f64) -> f64 {
    square(x * y) + x
}

fn main() {}
