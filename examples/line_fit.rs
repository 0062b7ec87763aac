//! A least-squares line fitted with Adam, its parameters a struct of two numbers.
//!
//! `cargo run --release --example line_fit`

use diffx::optim::{Adam, Optimizer};
use diffx::{autodiff, Params};

/// `y = slope·x + intercept`: a parameter struct of plain numbers.
#[derive(Clone, Debug, Params)]
struct Line {
    slope: f64,
    intercept: f64,
}

/// Mean squared error of the line on the points.
#[autodiff(wrt(line))]
fn mse(line: &Line, xs: &[f64], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() {
        let r = line.slope * xs[i] + line.intercept - ys[i];
        total += r * r;
    }
    total / xs.len() as f64
}

fn main() {
    let xs: Vec<f64> = (0..50).map(|i| i as f64 / 10.0).collect();
    let ys: Vec<f64> = xs
        .iter()
        .map(|x| 1.5 * x + 0.5 + 0.2 * (3.0 * x).sin())
        .collect();
    let mut line = Line {
        slope: 0.0,
        intercept: 0.0,
    };
    let mut adam = Adam::new(0.05);
    for step in 0..=3000 {
        let (loss, grad) = value_and_grad_mse(&line, &xs, &ys);
        if step % 1000 == 0 {
            println!("step {step:4}: loss {loss:.6}, {line:.4?}");
        }
        adam.step(&mut line, &grad);
    }
    // The closed-form least-squares line, for comparison.
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    println!(
        "closed form: slope {:.4}, intercept {:.4}",
        sxy / sxx,
        my - sxy / sxx * mx
    );
}
