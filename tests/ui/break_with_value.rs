use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let mut s = x;
    let last = loop {
        s *= 0.5;
        if s < 1.0 {
            break s;
        }
    };
    last * x
}

fn main() {}
