// WRONG VALUES AND DERIVATIVES (silent). The general form of A: in a loop, an `if` whose condition
// and effects involve no differentiable value is dropped from every derivative program, whatever
// it does: here it counts (`c += 1`), and the count reaches the result through `c as f64`.
// Observed (x = 0.5, n = 1): skip: f = 1.0, value_and_grad_ = (0.0, 0.0), jvp_ = (0.0, 0.0);
// want (1.0, 2.0). The same with `continue` (count_continue), with a float count (`c += 1.0`),
// and with a differentiable loop cell beside it (cell). The loop without the `if`
// (`for i in 0..3 { c += 1; }`) is right.
// (Found by random-program testing: diffx-fuzz seed 4, f423, reduced by hand.)
use diffx::autodiff;

#[autodiff]
fn skip(x: f64, n: usize) -> f64 {
    let mut c = 0;
    for i in 0..3 {
        if i != n {
            c += 1;
        }
    }
    x * c as f64
}

#[autodiff]
fn count_continue(x: f64, n: usize) -> f64 {
    let mut c = 0;
    for i in 0..3 {
        if i == n {
            continue;
        }
        c += 1;
    }
    x * c as f64
}

#[autodiff]
fn cell(x: f64, n: usize) -> f64 {
    let mut s = x;
    let mut c = 0;
    for i in 0..3 {
        s *= 1.0;
        if i == n {
            continue;
        }
        c += 1;
    }
    s * c as f64
}

pub fn main() {
    println!("skip: f = {}, value_and_grad_ = {:?}, jvp_ = {:?}; want (1.0, 2.0)", skip(0.5, 1), value_and_grad_skip(0.5, 1), jvp_skip(0.5, 1, 1.0));
    println!("count_continue: value_and_grad_ = {:?}; want (1.0, 2.0)", value_and_grad_count_continue(0.5, 1));
    println!("cell: value_and_grad_ = {:?}; want (1.0, 2.0)", value_and_grad_cell(0.5, 1));
    // The checks: a panic here is the bug.
    let close = |got: (f64, f64), want: (f64, f64)| (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9;
    assert!(close(value_and_grad_skip(0.5, 1), (1.0, 2.0)), "MISMATCH skip value_and_grad_");
    assert!(close(jvp_skip(0.5, 1, 1.0), (1.0, 2.0)), "MISMATCH skip jvp_");
    assert!(close(value_and_grad_count_continue(0.5, 1), (1.0, 2.0)), "MISMATCH count_continue value_and_grad_");
    assert!(close(value_and_grad_cell(0.5, 1), (1.0, 2.0)), "MISMATCH cell value_and_grad_");
}
