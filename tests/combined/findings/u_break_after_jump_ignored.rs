// WRONG VALUES AND DERIVATIVES (silent). A `break` that comes right after a statement holding a
// jump, in the same block, is ignored by every derivative function: the loop runs on.
// Observed (x = 0.5): loop_once: f = 0.75, value_and_grad_ = (10.25, 1.0) (the loop ran until
// a > 10); for_two: f = 0.75, value_and_grad_ = (3.0, 1.0) (all ten iterations); nested:
// f = 0.75, value_and_grad_ = (10.25, 1.0). Want (0.75, 1.0) for each. The same `break` without
// the `if` before it is right (`for … { a += 0.25; break; }`), and so is a `return` in its place.
// (Found by random-program testing: diffx-fuzz seed 2, f156, reduced.)
use diffx::autodiff;

#[autodiff]
fn loop_once(x: f64) -> f64 {
    let mut a: f64 = x;
    loop {
        a += 0.25;
        if a > 10.0 {
            break;
        }
        break;
    }
    a
}

#[autodiff]
fn for_two(x: f64) -> f64 {
    let mut a: f64 = x;
    for _ in 0..10 {
        a += 0.25;
        if a > 10.0 {
            break;
        }
        break;
    }
    a
}

#[autodiff]
fn nested(x: f64) -> f64 {
    let mut a: f64 = x;
    loop {
        a += 0.25;
        if x >= 0.3 {
            if x < 0.2 {
                break;
            }
            break;
        }
        if a > 10.0 {
            break;
        }
    }
    a
}

pub fn main() {
    println!("loop_once: f = {}, value_and_grad_ = {:?}; want (0.75, 1.0)", loop_once(0.5), value_and_grad_loop_once(0.5));
    println!("for_two: f = {}, value_and_grad_ = {:?}; want (0.75, 1.0)", for_two(0.5), value_and_grad_for_two(0.5));
    println!("nested: f = {}, value_and_grad_ = {:?}; want (0.75, 1.0)", nested(0.5), value_and_grad_nested(0.5));
    // The checks: a panic here is the bug.
    let close = |got: (f64, f64), want: (f64, f64)| (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9;
    for (name, vg, jvp) in [
        ("loop_once", value_and_grad_loop_once(0.5), jvp_loop_once(0.5, 1.0)),
        ("for_two", value_and_grad_for_two(0.5), jvp_for_two(0.5, 1.0)),
        ("nested", value_and_grad_nested(0.5), jvp_nested(0.5, 1.0)),
    ] {
        assert!(close(vg, (0.75, 1.0)), "MISMATCH {name} value_and_grad_");
        assert!(close(jvp, (0.75, 1.0)), "MISMATCH {name} jvp_");
    }
}
