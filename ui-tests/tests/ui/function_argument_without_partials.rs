use diffx::autodiff;

#[autodiff]
fn combine(x: &[f64], y: &[f64], op: impl Fn(f64, f64) -> f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += op(x[i], y[i]);
    }
    s
}

// A closure has no partials the macro knows: the caller wraps it with `diffx::with_partials`.
fn main() {
    let _ = grad_combine(&[1.0], &[2.0], |a: f64, b: f64| a * b);
}
