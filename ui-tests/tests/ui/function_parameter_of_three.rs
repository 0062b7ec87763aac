use diffx::autodiff;

// A function parameter of three numbers.
#[autodiff]
fn apply(x: f64, op: impl Fn(f64, f64, f64) -> f64) -> f64 {
    op(x, x, x)
}

fn main() {}
