use diffx::autodiff;

#[autodiff(order = 4)]
fn f(x: f64) -> f64 {
    x * x * x * x
}

fn main() {}
