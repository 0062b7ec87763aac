use diffx::autodiff;

#[autodiff]
fn g(t: f64) -> f64 {
    t.sin()
}

#[autodiff(order = 3)]
fn f(x: f64) -> f64 {
    g(x) * x
}

fn main() {}
