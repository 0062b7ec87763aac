use diffx::autodiff;

#[autodiff]
fn g(t: f64) -> f64 {
    t.sin()
}

// Calls `g`, but without `order = 2` it has no second order of its own.
#[autodiff]
fn h(t: f64) -> f64 {
    g(t) * t
}

#[autodiff(order = 2)]
fn f(x: f64, y: f64) -> f64 {
    h(x * y) + x
}

fn main() {}
