use diffx::autodiff;

#[autodiff]
fn f(x: &[f64], y: f64) -> f64 {
    x[y as usize] * x[0]
}

fn main() {}
