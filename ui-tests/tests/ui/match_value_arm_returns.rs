use diffx::autodiff;

#[autodiff]
fn f(x: f64, n: usize) -> f64 {
    let v = match n {
        1 => {
            return x;
        }
        _ => 2.0 * x,
    };
    v * x
}

fn main() {}
