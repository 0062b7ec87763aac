// A struct a method returns (`p.swapped()`, the struct not `Copy`) read through its methods and
// its `Add` in a function with `order = 2`: the forward-over-reverse program handed the value to
// the first method's hidden `__diffx_hvp_` by value, which moved it before the backward sweep read
// it again, and the program did not compile. A method's receiver goes there by reference. (Found
// by random-program testing, diffx-fuzz seed 991401, on the commit that gave struct results a
// second order.)
use diffx::{autodiff, Params};

use crate::common::check_hessian;

#[derive(Clone, Debug, Params)]
struct Pair {
    y: f64,
    x: f64,
}

#[autodiff(wrt(self), order = 2)]
impl Pair {
    fn y_of(&self) -> f64 {
        self.y
    }

    fn x_of(&self) -> f64 {
        self.x
    }

    fn swapped(&self) -> Self {
        Self {
            y: self.x,
            x: self.y,
        }
    }
}

#[autodiff(order = 2)]
impl std::ops::Add for Pair {
    type Output = Self;
    fn add(self, rhs: Self) -> Self {
        Self {
            y: self.y + rhs.y,
            x: self.x + rhs.x,
        }
    }
}

/// (2 p.x)² + p.y·p.x, through the swapped struct.
#[autodiff(order = 2)]
fn through_swapped(p: &Pair) -> f64 {
    let sw = p.swapped();
    let x = sw.x_of() * 0.0 + (sw.clone() + sw.clone()).y_of();
    x * x + sw.x_of() * sw.y_of()
}

pub fn main() {
    for (y, x) in [(1.0, 2.0), (-0.5, 0.3)] {
        let p = Pair { y, x };
        let h = hessian_through_swapped(&p);
        assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 8.0]]);
        let grad = |v: &[f64]| {
            let g = grad_through_swapped(&Pair { y: v[0], x: v[1] });
            vec![g.y, g.x]
        };
        check_hessian(&h, grad, &[y, x]);
    }
}
