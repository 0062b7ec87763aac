use diffx::autodiff;

fn apply(f: impl Fn(f64) -> f64, v: f64) -> f64 {
    f(v)
}

#[autodiff]
fn f(x: f64) -> f64 {
    let scaled = |t: f64| t * x;
    apply(scaled, 2.0)
}

fn main() {}
