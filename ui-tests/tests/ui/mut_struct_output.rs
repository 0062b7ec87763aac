use diffx::autodiff;

struct State {
    energy: f64,
}

#[autodiff]
fn step(x: f64, state: &mut State) {
    state.energy = x * x;
}

fn main() {}
