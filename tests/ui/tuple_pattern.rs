use diffx::autodiff;

#[autodiff]
fn f(x: f64, y: f64) -> f64 {
    let (a, b) = (x * 2.0, y);
    a + b
}

fn main() {}
