use diffx::autodiff;

// A caller's `hvp_` through `grad_g` would need third derivatives of `g`.
#[autodiff(order = 2)]
fn g(x: f64, y: f64) -> f64 {
    x * y * y
}

#[autodiff(order = 2)]
fn f(x: f64) -> f64 {
    let (a, _) = grad_g(x, 2.0);
    a * x
}

fn main() {
    let _ = grad_f(1.0);
}
