use diffx::autodiff;

#[autodiff]
fn f(p: [f64; 3]) -> f64 {
    let [first, ..] = p;
    first * first
}

fn main() {}
