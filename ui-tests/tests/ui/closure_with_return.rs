use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let clipped = |t: f64| {
        if t > 1.0 {
            return 1.0;
        }
        t
    };
    clipped(x) * x
}

fn main() {}
