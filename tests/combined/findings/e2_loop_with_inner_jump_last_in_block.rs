// COMPILE ERROR "this block has no value: end it with an expression" (at the attribute). A
// relative of E: the loop that is last in its block (here the `while`, last in the `if` arm) holds
// no jump itself, but a loop inside it does. The same with a statement after the `while` compiles.
// (Found by random-program testing: diffx-fuzz seed 1, f47, reduced.)
use diffx::autodiff;

#[autodiff]
fn f(x: f64, y: f64) -> f64 {
    let mut s = x;
    if y > -0.4 {
        let mut k = 0;
        while k < 2 {
            k += 1;
            let mut t = x;
            loop {
                t *= 1.5;
                if t > 2.0 {
                    break;
                }
            }
            s += t;
        }
    }
    s
}

pub fn main() {
    // x = 1, y = 0: t = 1.5, 2.25 → 2.25x each time; s = x + 4.5x → 5.5.
    assert!((grad_f(1.0, 0.0).0 - 5.5).abs() < 1e-12, "MISMATCH f grad_");
}
