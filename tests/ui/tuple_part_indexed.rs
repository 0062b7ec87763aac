// A part of a called function's tuple result indexed as an array: calls of functions returning
// tuples that hold arrays are not supported yet, and the index says so.
use diffx::autodiff;

#[autodiff]
fn point_and_size(r: f64, t: f64) -> ([f64; 2], f64) {
    ([r * t.cos(), r * t.sin()], r * r)
}

#[autodiff]
fn scaled_x(r: f64) -> f64 {
    let (p, s) = point_and_size(r, 0.3);
    p[0] * s
}

fn main() {}
