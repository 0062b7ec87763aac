use diffx::autodiff;

// A value of a type parameter other than the float type is a constant; taken by value, the
// derivative functions would move it more than once.
#[autodiff]
fn f<T: Into<f64>>(x: f64, t: T) -> f64 {
    x * t.into()
}

fn main() {}
