use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let c = 2.0 * x;
    let scaled = |t: f64| t * c;
    let c = 5.0;
    scaled(x) + c
}

fn main() {}
