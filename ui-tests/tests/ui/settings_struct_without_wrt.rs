use diffx::autodiff;

#[derive(Clone)]
struct Settings {
    scale: f64,
}

// A struct the body reads for its numbers is a parameter struct to the macro, which sees only the
// function: without `Params` or `wrt`, the error says which to add.
#[autodiff]
fn f(x: f64, s: &Settings) -> f64 {
    s.scale * x * x
}

fn main() {}
