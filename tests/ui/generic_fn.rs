use diffx::autodiff;

#[autodiff]
fn f<T: Into<f64>>(x: f64, t: T) -> f64 {
    x * t.into()
}

fn main() {}
