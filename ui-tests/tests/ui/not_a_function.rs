use diffx::autodiff;

#[autodiff]
struct Point {
    x: f64,
}

fn main() {}
