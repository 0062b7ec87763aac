use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    x.rem_euclid(2.0) + x
}

fn main() {}
