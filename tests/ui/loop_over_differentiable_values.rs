use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let mut s = 0.0;
    for v in [x, 2.0 * x] {
        s += v;
    }
    s
}

fn main() {}
