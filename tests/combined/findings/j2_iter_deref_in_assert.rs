// COMPILE ERROR "type `f64` cannot be dereferenced": `*e` of `w.iter()` in a statement macro
// (`assert!`), or in the argument of a piecewise-constant function (`floor`; at the attribute).
// Relatives of J (`*e` in a condition): wherever the macro keeps the user's code as written,
// `*e` meets an `e` that is no longer a reference. README: loops "over the elements (`for &xi in
// x`, `x.iter()`)" and "`println!`, `assert!` and other statement macros: they run and see the
// current values". `*e` in differentiated arithmetic compiles.
// (Found by random-program testing: diffx-fuzz seed 1, f294, and seed 5, f22.)
use diffx::autodiff;

#[autodiff]
fn f(w: &[f64], x: f64) -> f64 {
    let mut s = x;
    for e in w.iter() {
        assert!((*e * 0.1).is_finite());
        s += *e * x;
    }
    s
}

#[autodiff]
fn in_floor(w: &[f64], x: f64) -> f64 {
    let mut s = x;
    for e in w.iter() {
        s += x * (2.0 * *e).floor();
    }
    s
}

pub fn main() {
    let w = [1.0, 2.0];
    assert!((grad_f(&w, 0.5).1 - 4.0).abs() < 1e-12, "MISMATCH f grad_");
    assert!((grad_in_floor(&w, 0.5).1 - 7.0).abs() < 1e-12, "MISMATCH in_floor grad_");
}
