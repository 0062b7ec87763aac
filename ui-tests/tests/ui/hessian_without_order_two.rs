use diffx::autodiff;

// Second order is written on request: without `order = 2`, calls of `hvp_f`, `grad_and_hvp_f`
// and `hessian_f` are errors that say to add it, and nothing after them reports an error of its
// own.
#[autodiff]
fn f(x: f64, y: f64) -> f64 {
    (x * y).sin()
}

fn main() {
    let h = hessian_f(1.0, 2.0);
    let _ = h[0][1] + 1.0;
    let (a, b) = hvp_f(1.0, 2.0, 1.0, 0.0);
    let _ = a + b;
    let ((g, _), (h, _)) = grad_and_hvp_f(1.0, 2.0, 1.0, 0.0);
    let _ = g + h;
}
