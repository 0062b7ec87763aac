use diffx::{autodiff, Params};
use std::ops::Mul;

#[derive(Clone, Copy, Debug, Params)]
struct V2 {
    x: f64,
    y: f64,
}

#[autodiff]
impl Mul<f64> for V2 {
    type Output = V2;
    fn mul(self, k: f64) -> V2 {
        V2 { x: self.x * k, y: self.y * k }
    }
}

#[autodiff(wrt(self))]
impl V2 {
    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }

    #[autodiff(wrt(self))]
    fn rotated(&self) -> V2 {
        V2 { x: -self.y, y: self.x }
    }
}

impl Mul<V2> for f64 {
    type Output = V2;
    fn mul(self, v: V2) -> V2 {
        v * self
    }
}

// A number times a value of the type, whose impl `Mul<V2> for f64` is not `#[autodiff]`: the error
// names the impl to annotate, at the operator (then rustc the method the impl would write).
// Annotate the impl.
#[autodiff]
fn scaled(v: &V2, k: f64) -> f64 {
    let r = v.rotated();
    let n = r.norm2();
    (k * r).norm2() + n
}

fn main() {}
