// A push onto a differentiable parameter: only local vectors grow.
use diffx::autodiff;

#[autodiff]
fn appended(x: f64, mut v: Vec<f64>) -> f64 {
    v.push(x * x);
    v[0] + v[v.len() - 1]
}

fn main() {}
