use diffx::{autodiff, Params};
use std::ops::AddAssign;

#[derive(Clone, Copy, Debug, Params)]
struct V2 {
    x: f64,
    y: f64,
}

impl AddAssign for V2 {
    fn add_assign(&mut self, o: V2) {
        self.x += o.x;
        self.y += o.y;
    }
}

// `acc += v` goes through the type's `AddAssign`, which is not `#[autodiff]`: the error names
// the impl to annotate, at the operator. Annotate the impl.
#[autodiff]
fn summed(a: V2, b: V2) -> f64 {
    let mut acc = a;
    acc += b;
    acc.x * acc.y
}

fn main() {}
