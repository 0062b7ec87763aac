use diffx::{autodiff, Params};

#[derive(Params, Clone)]
struct Weights {
    w: Vec<f64>,
}

#[autodiff]
fn f(mut p: Weights, x: f64) -> f64 {
    p.w[0] = x;
    p.w[0] * p.w[1]
}

fn main() {}
