use diffx::autodiff;

// A function parameter brings first partial derivatives only: no second order through it.
#[autodiff(order = 2)]
fn apply(x: f64, op: impl Fn(f64) -> f64) -> f64 {
    op(x) * x
}

fn main() {}
