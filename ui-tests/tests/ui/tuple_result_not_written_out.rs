use diffx::autodiff;

// A tuple result is differentiated as the array of its parts: the function returns it written
// out, where the macro can see its parts.
#[autodiff]
fn f(x: f64) -> (f64, f64) {
    let p = (x, 2.0 * x);
    p
}

fn main() {}
