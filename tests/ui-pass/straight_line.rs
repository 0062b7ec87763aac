use diffx::autodiff;

#[autodiff]
pub fn f(x: f64, y: f64, n: usize) -> f64 {
    let mut s = x * y;
    s += n as f64;
    s.sin() + y.exp()
}

fn main() {
    let (gx, gy): (f64, f64) = grad_f(1.0, 2.0, 3);
    let (_v, (_a, _b)): (f64, (f64, f64)) = value_and_grad_f(1.0, 2.0, 3);
    let (_c, _d): (f64, f64) = vjp_f(1.0, 2.0, 3, 1.0);
    let (_v, _t): (f64, f64) = jvp_f(1.0, 2.0, 3, 1.0, 0.0);
    assert!(gx.is_finite() && gy.is_finite());
}
