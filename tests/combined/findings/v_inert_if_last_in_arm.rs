// COMPILE ERROR "this `if` is used as a value: give both arms a value" (spanned at the outer `if`).
// An `if` that writes no differentiable value (here it does nothing at all, or counts), last in
// an arm of another `if` in a loop, or last in an arm inside a block statement. Apparently the
// inner `if` is dropped from the derivative program as irrelevant (as in A and A2), which leaves
// the outer `if` looking like a value. The same inner `if` directly in the loop body compiles;
// so does one that updates `s`.
// (Found by random-program testing: diffx-fuzz seed 1, f41, and seed 2024, f51, reduced.)
use diffx::autodiff;

#[autodiff]
fn inert(x: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..2 {
        if x > 0.5 {
            s += x;
        } else {
            if n % 2 == 1 {}
        }
    }
    s
}

#[autodiff]
fn counts(x: f64, n: usize) -> f64 {
    let mut s = x;
    let mut odd = 0;
    for _ in 0..2 {
        if x > 0.5 {
            s *= x;
        } else {
            if n % 2 == 1 {
                odd += 1;
            }
        }
    }
    s + odd as f64
}

#[autodiff]
fn in_block(n: usize, x: f64) -> f64 {
    {
        if x < 0.5 {
            if n > 3 {}
        }
    }
    x
}

pub fn main() {
    // x = 1: s = 1 + 1 + 1 = 3x → 3.
    assert!((grad_inert(1.0, 1) - 3.0).abs() < 1e-12, "MISMATCH inert grad_");
    assert!((grad_counts(2.0, 1) - 12.0).abs() < 1e-12, "MISMATCH counts grad_ (x³ → 3x²)");
    assert!((grad_in_block(1, 0.3) - 1.0).abs() < 1e-12, "MISMATCH in_block grad_");
}
