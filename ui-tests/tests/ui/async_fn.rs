use diffx::autodiff;

#[autodiff]
async fn f(x: f64) -> f64 {
    x * 2.0
}

fn main() {}
