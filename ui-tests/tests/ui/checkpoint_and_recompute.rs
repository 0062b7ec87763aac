// `checkpoint` and `loops = "recompute"` are two ways to keep less memory.
use diffx::autodiff;

#[autodiff(checkpoint = 8, loops = "recompute")]
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
