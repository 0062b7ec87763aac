use diffx::Params;

#[derive(Clone, Params)]
struct Rows {
    w: [Vec<f64>; 2],
}

fn main() {}
