// A `let mut` vector of constants popped in a condition inside an arm that returns (so that the
// rest of the arm is an `if` of its own, and the vector leaves the inner `if`s under new names):
// once the `if`s of the top level record what their adjoints read, the vector that left an inner
// `if` was recorded by moving it, and the forward sweep then read it again: "use of moved value",
// at the attribute. A record is a copy. (Found by random-program testing, diffx-fuzz seed 94949,
// f794, on the commit that made those `if`s record.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn recorded_out_of_an_if(x: f64, y: f64) -> f64 {
    let mut stack = vec![0.25, 0.5, 0.125, 0.375, 0.0625, 0.4375];
    let s = if 1.0 >= y {
        x
    } else {
        return (if f64::max(-0.4, x) <= stack.pop().unwrap_or(0.5) { 0.2 } else { x * 0.9 });
        if y <= (if x - (-(x * x)).exp() <= 1.5 || (x * x + stack.pop().unwrap_or(0.5)).sqrt() > 0.7 { y } else { 1.25 }) {
            return x;
        }
        x
    };
    x
}

pub fn main() {
    // y ≤ 1: x; else the last element, 0.4375, against max(−0.4, x): 0.2 or 0.9x.
    for (x, y, want, dx) in [(0.3, 0.5, 0.3, 1.0), (0.3, 2.0, 0.2, 0.0), (0.8, 2.0, 0.72, 0.9)] {
        let (value, (gx, gy)) = value_and_grad_recorded_out_of_an_if(x, y);
        assert!((value - want).abs() < 1e-15, "{value} vs {want}");
        assert_eq!((gx, gy), (dx, 0.0));
        assert_eq!(hvp_recorded_out_of_an_if(x, y, 1.0, 1.0), (0.0, 0.0));
    }
}
