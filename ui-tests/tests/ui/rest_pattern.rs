use diffx::autodiff;

fn pair(x: f64) -> (f64, f64, f64) {
    (x, 2.0, 3.0)
}

// A `..` before the last part of a tuple pattern needs the tuple's length, which the macro does
// not see when the tuple is not written out.
#[autodiff]
fn f(x: f64) -> f64 {
    let (.., last) = pair(x);
    last * x
}

fn main() {}
