// A `let mut` vector of constants pushed onto in an `if` arm (so that it leaves the `if` under a
// new name), then written by element with a compound assignment (`v[k % 3] -= …`): the statement
// bound the new name by value, moving the vector and writing into an immutable binding: "borrow
// of moved value" and "cannot borrow as mutable", at the attribute. A vector the statement writes
// by element is bound by `&mut`, as one it pushes onto already was. (Found by random-program
// testing, diffx-fuzz seed 91919, f274; the base of the loop-recording work fails it alike.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn written_after_an_if(y: f64, n: usize) -> f64 {
    let mut v = vec![0.0_f64; 3];
    let b: f64 = y;
    let mut k = 0;
    k += 1;
    let mut k1: usize = 0;
    k1 += 1;
    let t = if 1.25 * f64::tanh(-1.2) < 0.3 && k1 > 1 {
        y
    } else {
        v.push(v[k1 % 3]);
        y
    };
    v[k % 3] -= diffx::softplus(v[0].tanh().powi(3)) - 0.5;
    b + t + v[1] + (y + f64::exp(-(v[n % 3] * v[n % 3])))
}

pub fn main() {
    // v = [0, 0, 0] gains a fourth 0; v[1] = −(softplus(0) − ½) = ½ − ln 2.
    let v1 = 0.5 - 2f64.ln();
    for (y, n) in [(0.3, 1), (-1.2, 2), (2.0, 4)] {
        let at = if n % 3 == 1 { v1 } else { 0.0 };
        let want = y + y + v1 + (y + (-(at * at)).exp());
        assert_eq!(written_after_an_if(y, n), want);
        let (value, g) = value_and_grad_written_after_an_if(y, n);
        assert_eq!((value, g), (want, 3.0));
        assert_eq!(hvp_written_after_an_if(y, n, 1.0), 0.0);
    }
}
