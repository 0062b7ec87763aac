use diffx::autodiff;

#[autodiff(wrt(x))]
fn scaled(x: f64, y: f64) -> f64 {
    x * y
}

#[autodiff]
fn caller(x: f64) -> f64 {
    scaled(1.0, x * x)
}

fn main() {}
