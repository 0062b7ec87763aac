use diffx::autodiff;

#[autodiff]
fn f(x: f64, y: f32) -> f64 {
    x * y as f64
}

fn main() {}
