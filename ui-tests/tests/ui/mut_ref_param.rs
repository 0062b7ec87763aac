use diffx::autodiff;

#[autodiff]
fn f(x: &mut f64) -> f64 {
    *x * 2.0
}

fn main() {}
