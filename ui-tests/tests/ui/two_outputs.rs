use diffx::autodiff;

#[autodiff]
fn split(x: &[f64], evens: &mut [f64], odds: &mut [f64]) {
    for i in 0..x.len() / 2 {
        evens[i] = x[2 * i];
        odds[i] = x[2 * i + 1];
    }
}

fn main() {}
