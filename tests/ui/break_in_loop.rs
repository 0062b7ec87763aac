use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let mut s = x;
    for i in 0..10 {
        if i > 3 {
            break;
        }
        s = s * x;
    }
    s
}

fn main() {}
