// COMPILE ERROR at the attribute: a loop that involves no differentiable value and holds a
// `break` or `continue`, inside an `if` arm:
//   error: cannot find macro `__diffx_exit_if` in this scope
// The macro's own helper leaks into the code it keeps as written. The same loop at the top level
// compiles; with a count in it (`c += 1`, used after) it compiles and the count is dropped (A2). No span points into the function's body (issue 15
// item 3).
// (Found by random-program testing: diffx-fuzz seed 4, f423.)
use diffx::autodiff;

#[autodiff]
fn in_arm(n: usize, x: f64) -> f64 {
    if n < 2 {
        for i in 0..2 {
            if i == n {
                break;
            }
        }
    }
    x
}

pub fn main() {
    assert!((grad_in_arm(1, 0.5) - 1.0).abs() < 1e-12, "MISMATCH in_arm grad_");
}
