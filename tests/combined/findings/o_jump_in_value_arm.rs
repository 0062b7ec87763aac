// COMPILE ERRORS (spanned) for `return`/`break` inside an `if` used as a value. README: "`loop`
// with `break`, `continue`, and early `return` anywhere (inside branches and loops)".
//   ret_in_value_if: error: `return` inside a branch or loop is not supported yet: assign the
//                    result to a variable and return it at the end
//   loop_in_value_if: error: `loop` needs `break`, which is not supported yet: write a `while` loop
// The second message is wrong on its face (the `loop` has its `break`, and `loop`/`break` is
// supported elsewhere). The same statements in an `if` statement compile.
// (Found by random-program testing: diffx-fuzz seed 1, f4 and f10.)
use diffx::autodiff;

#[autodiff]
fn ret_in_value_if(x: f64, y: f64) -> f64 {
    let a = if y > 0.0 {
        if x > 1.0 {
            return x;
        }
        x * y
    } else {
        y
    };
    a + 1.0
}

#[autodiff]
fn loop_in_value_if(x: f64) -> f64 {
    let p = if x > 0.0 {
        let mut u = x;
        loop {
            u *= 1.5;
            if u > 2.0 {
                break;
            }
        }
        u
    } else {
        x
    };
    p + x
}

pub fn main() {
    assert!((grad_ret_in_value_if(2.0, 1.0).0 - 1.0).abs() < 1e-12, "MISMATCH ret_in_value_if grad_");
    // x = 1: u = 1.5, 2.25 → 2.25 x; d/dx = 2.25 + 1.
    assert!((grad_loop_in_value_if(1.0) - 3.25).abs() < 1e-12, "MISMATCH loop_in_value_if grad_");
}
