use diffx::autodiff;
use diffx::nn::Mlp;
use diffx::Tensor;

#[autodiff(wrt(model))]
fn f(model: &Mlp<f64>, x: &Tensor<f64>) -> f64 {
    let mut h = x.clone();
    for layer in model.layers.iter().enumerate() {
        h = h.matmul(&layer.1.w);
    }
    h.sum()
}

fn main() {}
