use diffx::autodiff;

#[autodiff(loops = "checkpoint")]
fn f(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = y.sin();
    }
    y
}

fn main() {}
