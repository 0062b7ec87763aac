use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> i64 {
    x as i64
}

fn main() {}
