use diffx::autodiff;

// `grad_g` inside an `#[autodiff]` function is differentiated through `g`'s second derivatives.
#[autodiff]
fn g(x: f64, y: f64) -> f64 {
    x * y * y
}

#[autodiff]
fn f(x: f64) -> f64 {
    let (a, _) = grad_g(x, 2.0);
    a * x
}

fn main() {
    let _ = grad_f(1.0);
}
