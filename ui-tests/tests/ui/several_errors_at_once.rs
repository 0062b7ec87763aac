use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let a = x.rem_euclid(2.0);
    let b = x.frobnicate();
    a + b
}

fn main() {}
