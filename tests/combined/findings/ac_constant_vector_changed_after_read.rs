// SILENT: a local vector of constants, read by a differentiable product and changed afterwards
// (a constant written into it, also in a `match` arm the backward sweep recomputes), gave the
// product's partial from the vector's later value: ∂f/∂x was 0.3 (and 1.11 in the arm's case)
// where it is 0 (1). A constant read from a vector the body writes is now kept where it is read,
// and a vector of floats that the body writes gets an undo log even when it holds only constants.
// (Found by random-program testing with vector writes weighted up: diffx-fuzz seed 3535, f102.)
use diffx::autodiff;

#[autodiff]
fn straight(x: f64) -> f64 {
    let mut v = vec![0.0; 3];
    let u = v[1] * x;
    v[1] = 0.3;
    u + v[1] * 2.0
}

#[autodiff]
fn in_arm(x: f64, n: usize) -> f64 {
    let mut v: Vec<f64> = vec![0.0; 3];
    let u = match n % 4 {
        0 => v[1].sin() * x.cos(),
        _ => {
            v[1] /= 1.5;
            x
        }
    };
    v[1] -= 0.3;
    u + x + f64::sqrt(v[1] * v[1] + 0.5)
}

pub fn main() {
    assert_eq!(grad_straight(0.7), 0.0);
    assert_eq!(jvp_straight(0.7, 1.0).1, 0.0);
    for n in [4, 5] {
        // Arm 0: u = sin(0)·cos(x) = 0, so ∂f/∂x = 1; the other arm: u = x, ∂f/∂x = 2.
        let want = if n % 4 == 0 { 1.0 } else { 2.0 };
        assert_eq!(grad_in_arm(-0.29, n), want);
        assert_eq!(jvp_in_arm(-0.29, n, 1.0).1, want);
    }
}
