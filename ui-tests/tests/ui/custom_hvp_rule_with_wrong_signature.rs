use diffx::custom_derivative;

#[custom_derivative(jvp = f_jvp, vjp = f_vjp, hvp = f_hvp)]
fn f(x: f64, y: f64) -> f64 {
    x * x * y
}

fn f_jvp(x: f64, y: f64, tx: f64, ty: f64) -> (f64, f64) {
    (x * x * y, 2.0 * x * y * tx + x * x * ty)
}

fn f_vjp(x: f64, y: f64, ct: f64) -> (f64, (f64, f64)) {
    (x * x * y, (2.0 * x * y * ct, x * x * ct))
}

// The Hessian times the tangents has two entries here, not one.
fn f_hvp(x: f64, y: f64, tx: f64, ty: f64) -> f64 {
    2.0 * y * tx + 2.0 * x * ty
}

fn main() {}
