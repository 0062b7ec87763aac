use diffx::autodiff;

#[autodiff]
fn f(x: Vec<f64>) -> f64 {
    let mut x = x;
    x[0] = 1.0;
    x[0] * x[1]
}

fn main() {}
