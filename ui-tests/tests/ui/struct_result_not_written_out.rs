use diffx::{autodiff, Params};

#[derive(Clone, Copy, Debug, Params)]
struct V2 {
    x: f64,
    y: f64,
}

#[autodiff(wrt(self))]
impl V2 {
    // A struct result is differentiated as the numbers of the literal each arm returns: an arm
    // returning another value is an error there.
    #[autodiff(wrt(self))]
    fn flipped(&self) -> Self {
        if self.x > 0.0 {
            V2 { x: self.y, y: self.x }
        } else {
            *self
        }
    }
}

// A free function returning a struct: its callers could not tell its value from a number.
#[autodiff]
fn make(a: f64) -> V2 {
    V2 { x: a, y: 2.0 * a }
}

fn main() {}
