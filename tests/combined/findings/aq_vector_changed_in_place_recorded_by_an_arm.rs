// A vector of constants changed in place (`stack.pop()`) in a loop inside an arm that returns
// early, at second order: the arm's recording pushed the loop's final vector by value, which moved
// it before the sweep read it again, and the program did not compile. A recorded constant is
// pushed as a copy. (Found by random-program testing, diffx-fuzz seed 991502, function 51, on the
// commit that made recording arms keep the constants their loops carry.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn popped(x: f64, y: f64) -> f64 {
    let mut stack = vec![0.25, 0.5, 0.125, 0.375];
    if y < stack.pop().unwrap_or(0.5) {
        for _ in 0..2 {
            if 0.2 <= stack.pop().unwrap_or(0.5) {
                return x * y;
            }
        }
    }
    x * x
}

pub fn main() {
    // y < 0.375, then 0.125 < 0.2 and 0.5 ≥ 0.2: x·y.
    assert_eq!(grad_popped(2.0, 0.3), (0.3, 2.0));
    assert_eq!(hessian_popped(2.0, 0.3), vec![vec![0.0, 1.0], vec![1.0, 0.0]]);
    // y ≥ 0.375: x².
    assert_eq!(grad_popped(2.0, 0.5), (4.0, 0.0));
    assert_eq!(hessian_popped(2.0, 0.5), vec![vec![2.0, 0.0], vec![0.0, 0.0]]);
}
