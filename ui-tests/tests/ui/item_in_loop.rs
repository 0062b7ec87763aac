use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..3 {
        const K: f64 = 2.0;
        s *= K;
    }
    s
}

fn main() {}
