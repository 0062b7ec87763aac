// SILENT: a `while` whose condition changes a constant in place (`stack.pop()`) and whose body
// breaks. The derivative functions wrote the loop as `while (cond) && !brk`, so after the `break`
// the condition ran once more before the flag stopped the loop: one more element popped, and the
// pops after the loop read other values: `value_and_grad_` returned 0.625 where the function
// returns 0.3125. The flag is now tested first (`while !brk && (cond)`). (Found by random-program
// testing with loops, vector writes and checkpointing weighted up: diffx-fuzz seed 994401, f1681,
// present before that work.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn popped(x: f64) -> f64 {
    let mut stack = vec![0.25, 0.5, 0.125, 0.375];
    let mut c = x;
    while c < stack.pop().unwrap_or(0.5) {
        c += 0.25 * x;
        break;
    }
    c + stack.pop().unwrap_or(0.5) * x
}

pub fn main() {
    for x in [0.2, 0.3] {
        // One pop in the condition (0.375 > x: the body runs and breaks), one after the loop.
        let want = 1.25 * x + 0.125 * x;
        assert_eq!(popped(x), want);
        let (value, grad) = value_and_grad_popped(x);
        assert_eq!(value, want);
        assert!((grad - 1.375).abs() < 1e-15, "{grad}");
        assert_eq!(jvp_popped(x, 1.0).0, want);
        assert!((jvp_popped(x, 1.0).1 - 1.375).abs() < 1e-15);
        assert!(hvp_popped(x, 1.0).abs() < 1e-15);
    }
    // Without the break's iteration (0.375 ≤ x): one pop in the condition, one after.
    let x = 0.5;
    assert_eq!(popped(x), 0.5 + 0.125 * 0.5);
    assert_eq!(value_and_grad_popped(x), (0.5 + 0.125 * 0.5, 1.125));
}
