use diffx::{autodiff, Tensor};

#[autodiff]
fn f(x: &Tensor<f64>) -> f64 {
    x.abs().sum()
}

fn main() {}
