use diffx::autodiff;

#[autodiff(mode = "reverse")]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}
