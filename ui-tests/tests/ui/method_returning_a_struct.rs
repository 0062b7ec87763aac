use diffx::autodiff;

#[derive(Clone, Copy)]
struct State {
    x: f64,
}

struct Stepper;

// A method of an `impl` that returns a capitalized type one of its parameters has is taken to
// compute in the `impl`'s float type; a struct is not one, which the error says at the type.
impl Stepper {
    #[autodiff]
    fn step(&self, s: State) -> State {
        s
    }
}

fn main() {}
