// `checkpoint` is a number of snapshots, at least one.
use diffx::autodiff;

#[autodiff(checkpoint = 0)]
fn steps(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin();
    }
    y
}

fn main() {
    let _ = steps(1.0, 3);
}
