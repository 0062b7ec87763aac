use diffx::autodiff;

#[autodiff]
fn rhs(y: &[f64], dy: &mut [f64]) {
    if y.is_empty() {
        return;
    }
    for i in 0..y.len() {
        dy[i] = -y[i];
    }
}

fn main() {}
