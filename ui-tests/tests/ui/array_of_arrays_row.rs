use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let m = [[x, 1.0], [2.0, x]];
    let r = m[0];
    r[0] + r[1]
}

fn main() {}
