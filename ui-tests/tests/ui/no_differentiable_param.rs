use diffx::autodiff;

#[autodiff]
fn f(n: usize, label: &str) -> f64 {
    n as f64 * label.len() as f64
}

fn main() {}
