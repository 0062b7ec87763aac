use diffx::autodiff;

#[autodiff]
fn g(x: f32) -> f32 {
    x.tanh()
}

fn main() {
    let d: f32 = grad_g(0.5);
    let (_v, _d): (f32, f32) = value_and_grad_g(0.5);
    let _p: f32 = vjp_g(0.5, 2.0);
    assert!(d > 0.0);
}
