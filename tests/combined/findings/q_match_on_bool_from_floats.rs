// COMPILE ERROR (spanned, clear) where the README promises support: `match` on a `bool` computed
// from floats. README: "`match` on integers and `bool`s (literals, ranges, `|`, guards, `_`), as a
// statement or a value".
//   error: `match` on a differentiable value is not supported: compare it in an `if`/`else` chain
// The scrutinee is a `bool`, not a differentiable value: the `if`/`else` the message suggests is
// exactly what the `match` means (`true` arm when the comparison holds). Either lower it that way
// or say in the README that the `bool` may not come from a float comparison.
// (Found by random-program testing: diffx-fuzz seed 1, f10.)
use diffx::autodiff;

#[autodiff]
fn pick(x: f64, y: f64) -> f64 {
    match x > y {
        true => x * y,
        false => y,
    }
}

pub fn main() {
    assert!((grad_pick(2.0, 1.0).0 - 1.0).abs() < 1e-12, "MISMATCH pick grad_");
}
