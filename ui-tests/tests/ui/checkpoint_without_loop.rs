// `checkpoint` needs a `for` loop at the function's top level: here the loop is in an `if`.
use diffx::autodiff;

#[autodiff(checkpoint = 8)]
fn steps(x: f64, n: usize) -> f64 {
    let mut y = x;
    if x > 0.0 {
        for _ in 0..n {
            y = y.sin();
        }
    }
    y
}

fn main() {
    let _ = steps(1.0, 3);
}
