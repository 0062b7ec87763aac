// A parameter struct read through two of its `#[autodiff(wrt(self))]` methods: the forward
// program handed the struct's tangent to the first call by value, which moved it, and the second
// did not compile. A struct's tangent goes to a call by reference. (Found by random-program
// testing, diffx-fuzz seed 888001, on the commit that called methods of the user's types on
// differentiable values.)
use diffx::{autodiff, Params};

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
}

#[autodiff(order = 2)]
fn product(p: &Pair, z: f64) -> f64 {
    let y = p.y_of();
    let x = p.x_of();
    x * y * z
}

pub fn main() {
    let p = Pair { y: 2.0, x: -0.5 };
    let g = grad_product(&p, 3.0);
    assert_eq!((g.0.y, g.0.x, g.1), (-1.5, 6.0, -1.0));
    let t = Pair { y: 1.0, x: 1.0 };
    assert_eq!(jvp_product(&p, 3.0, &t, 0.0).1, -1.5 + 6.0);
    let (h, _) = hvp_product(&p, 3.0, &t, 0.0);
    // ∂²/∂p² of x·y·z along (1, 1): (z, z).
    assert_eq!((h.y, h.x), (3.0, 3.0));
}
