use diffx::autodiff;

#[autodiff]
fn polar(r: f64, theta: f64) -> [f64; 2] {
    [r * theta.cos(), r * theta.sin()]
}

fn main() {
    let _ = grad_polar(1.0, 0.5);
}
