use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    if x < 0.0 {
        return -x;
    }
    x * x
}

fn main() {}
