// A function returning a tuple that holds an array cannot be called from another `#[autodiff]`
// function yet (the caller would read its parts as numbers): the call stops at the callee's
// missing hidden functions instead of reading the wrong element.
use diffx::autodiff;

#[autodiff]
fn point_and_size(r: f64, t: f64) -> ([f64; 2], f64) {
    ([r * t.cos(), r * t.sin()], r * r)
}

#[autodiff]
fn size_twice(r: f64) -> f64 {
    let (_, s) = point_and_size(r, 0.3);
    2.0 * s
}

fn main() {}
