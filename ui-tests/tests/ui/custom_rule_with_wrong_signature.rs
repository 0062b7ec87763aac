use diffx::custom_derivative;

#[custom_derivative(jvp = f_jvp, vjp = f_vjp)]
fn f(x: f64, y: f64) -> f64 {
    x * y
}

fn f_jvp(x: f64, y: f64, tx: f64, ty: f64) -> (f64, f64) {
    (x * y, tx * y + x * ty)
}

// Returns only one gradient for two differentiable parameters.
fn f_vjp(x: f64, y: f64, ct: f64) -> (f64, f64) {
    (x * y, ct * y)
}

fn main() {}
