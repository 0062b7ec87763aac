// COMPILE ERROR "type `f64` cannot be dereferenced": `*e` of `w.iter()` in a statement macro
// (`assert!`). A relative of J (`*e` in a condition). README: loops "over the elements (`for &xi in
// x`, `x.iter()`)" and "`println!`, `assert!` and other statement macros: they run and see the
// current values".
// (Found by random-program testing: diffx-fuzz seed 1, f294.)
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

pub fn main() {
    let w = [1.0, 2.0];
    assert!((grad_f(&w, 0.5).1 - 4.0).abs() < 1e-12, "MISMATCH f grad_");
}
