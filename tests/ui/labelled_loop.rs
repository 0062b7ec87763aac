use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let mut s = x;
    'outer: for _ in 0..3 {
        s = s * x;
    }
    s
}

fn main() {}
