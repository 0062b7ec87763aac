// COMPILE ERROR "this `if` is used as a value: give both arms a value" (at the attribute). A block
// in which statements holding jumps (`if … { return …; }`, a loop with a `return`) are followed by
// a last statement that computes constants only (`let u = n as f64 * 0.1;`). No loop is needed
// (two_returns). With the last statement removed, or replaced by an update of a differentiable
// value (`s += x.sin();`), both compile and are right; so does two_returns with one of its returns.
// (Found by random-program testing: diffx-fuzz seed 1, f132 and f230, seed 3, f376, reduced.)
use diffx::autodiff;

#[autodiff]
fn two_returns(n: usize, x: f64) -> f64 {
    if n < 1 {
        if x > 1.0 {
            return x;
        }
        if n > 3 {
            return x;
        }
        let u = n as f64 * 0.1;
    }
    x
}

#[autodiff]
fn in_loop(x: f64) -> f64 {
    let mut k = 0;
    loop {
        k += 1;
        if k >= 3 || x > 5.0 {
            break;
        }
        let mut k1: usize = 0;
        while k1 < 1 {
            k1 += 1;
            return x;
        }
        let p = -0.4 * (k as f64 * 0.25).cos();
    }
    x
}

pub fn main() {
    assert!((grad_two_returns(0, 0.3) - 1.0).abs() < 1e-12, "MISMATCH two_returns grad_");
    assert!((grad_in_loop(0.3) - 1.0).abs() < 1e-12, "MISMATCH in_loop grad_");
}
