use diffx::autodiff;

struct Model {
    w: f64,
}

// Each function of a block is differentiated as if annotated alone: an error names the function
// it is in, and the others are written (`Model::grad_fine` below has no follow-on error).
#[autodiff]
impl Model {
    fn fine(x: f64) -> f64 {
        x * x
    }

    fn remainder(x: f64) -> f64 {
        x % 2.0
    }

    // Kept as written without an attribute of its own (a mutator); asked for, an error.
    #[autodiff]
    fn scale(&mut self, x: f64) -> f64 {
        self.w * x
    }
}

fn main() {
    let _ = Model::grad_fine(1.0);
}
