use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let mut s = x;
    'outer: for _ in 0..3 {
        for _ in 0..2 {
            s *= x;
            if s > 2.0 {
                break 'inner;
            }
        }
    }
    s
}

fn main() {}
