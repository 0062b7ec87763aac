// COMPILE ERROR (spanned at the method): a constant assigned to a variable declared `f64` loses
// the type in the derivative programs, and a method called on it is ambiguous:
//   error[E0689]: can't call method `recip` on ambiguous numeric type `{float}`
// Plain Rust infers `f64` from the declaration. `let c: f64 = 0.5;` and `c += 0.5;` compile.
// (Found by random-program testing: diffx-fuzz seed 4, f29.)
use diffx::autodiff;

#[autodiff]
fn reassigned(x: f64) -> f64 {
    let mut c: f64 = x;
    c = 0.5;
    x * (1.0 + c * c).recip()
}

#[autodiff]
fn in_loop(x: f64) -> f64 {
    let mut c: f64 = x;
    for _ in 0..2 {
        c = 0.5;
        c += x * c.tanh();
    }
    c
}

pub fn main() {
    assert!((grad_reassigned(0.5) - 0.8).abs() < 1e-12, "MISMATCH reassigned grad_");
    assert!((grad_in_loop(0.5) - 0.5f64.tanh()).abs() < 1e-12, "MISMATCH in_loop grad_");
}
