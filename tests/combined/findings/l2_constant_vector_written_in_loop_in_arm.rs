// COMPILE ERROR at the attribute (a wider form of L: no write after the `if` is needed). A local
// vector that starts as constants, written in a loop inside an `if` arm:
//   error[E0425]: cannot find value `v_1` in this scope
//   error[E0308]: `if` and `else` have incompatible types
// Also when the write is in an `if` used as a value inside that loop, when the `if`'s condition
// reads the vector, and in a loop after an early return (after_return: the rest of the function is
// an arm too, once the return is desugared). A vector that starts from a differentiable value (`vec![x, 0.0]`) compiles, and
// so does the write in the arm without the loop.
// (Found by random-program testing: diffx-fuzz seeds 1, 5 and 25, f204, f22 and f45.)
use diffx::autodiff;

#[autodiff]
fn in_arm(x: f64) -> f64 {
    let mut v = vec![0.0_f64; 2];
    if x > 0.0 {
        for _ in 0..2 {
            v[0] += x;
        }
    }
    v[0]
}

#[autodiff]
fn cond_reads_it(x: f64) -> f64 {
    let mut v = vec![0.0_f64; 2];
    if v[1] < 1.0 {
        for _ in 0..2 {
            v[0] += x;
        }
    }
    v[0]
}

#[autodiff]
fn after_return(x: f64) -> f64 {
    let mut v = vec![0.0_f64; 2];
    if x > 2.0 {
        return x;
    }
    for _ in 0..2 {
        v[1] += x;
    }
    v[1]
}

pub fn main() {
    assert!((grad_in_arm(0.5) - 2.0).abs() < 1e-12, "MISMATCH in_arm grad_");
    assert!((grad_cond_reads_it(0.5) - 2.0).abs() < 1e-12, "MISMATCH cond_reads_it grad_");
    assert!((grad_after_return(0.5) - 2.0).abs() < 1e-12, "MISMATCH after_return grad_");
}
