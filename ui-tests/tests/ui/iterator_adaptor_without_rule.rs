use diffx::autodiff;

#[autodiff]
fn f(x: &[f64]) -> f64 {
    x.iter().flat_map(|v| [*v, *v]).map(|v| v * v).sum()
}

fn main() {}
