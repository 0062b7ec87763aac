use diffx::autodiff;

fn apply(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(x)
}

// `g` is bound twice: the message names the closure as written, `g`.
#[autodiff]
fn f(x: f64) -> f64 {
    let g = 2.0 * x;
    let g = |t: f64| t * g;
    apply(g, x)
}

fn main() {}
