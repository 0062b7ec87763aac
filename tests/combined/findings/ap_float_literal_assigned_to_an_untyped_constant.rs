// A constant local of no declared type (`x`, a parameter left out by `wrt`, shadowed by `let mut
// x = x * …`) assigned a float literal and then a method called on it (`x.to_radians()`): the
// derivative code's copy of the literal had no type, and rustc could not call the method. A float
// literal assigned so is of the function's float type. (Found by random-program testing,
// diffx-fuzz seed 991402, function 286; in the code before this session too.)
use diffx::autodiff;

#[autodiff(wrt(y), order = 2)]
fn reassigned(n: usize, x: f64, y: f64) -> f64 {
    let mut x = x * ((1.5 + x.tanh() * x.tanh()).acosh() - 1.0);
    x = -1.2;
    let s: f64 = x.to_radians() * -0.3;
    x * y * y + s * (n as f64)
}

pub fn main() {
    let (n, x, y) = (2, 0.5, 1.5);
    assert_eq!(grad_reassigned(n, x, y), -1.2 * 2.0 * y);
    assert_eq!(hessian_reassigned(n, x, y), vec![vec![-2.4]]);
}
