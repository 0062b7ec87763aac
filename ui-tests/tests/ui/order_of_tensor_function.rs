use diffx::{autodiff, Tensor};

#[autodiff(order = 2)]
fn f(w: &Tensor<f64>) -> f64 {
    (w * w).sum()
}

fn main() {}
