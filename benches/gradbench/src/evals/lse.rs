//! `lse`: LogSumExp with the max-shift trick, `a + ln Σ exp(xᵢ − a)` with `a = max x`, and its
//! gradient.

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// `ln Σ exp(xᵢ)`, computed stably by shifting by the maximum.
///
/// The gradient goes through the maximum too (its two contributions cancel), so the function is
/// exactly the eval's definition.
#[autodiff]
pub fn logsumexp(x: &[f64]) -> f64 {
    let a = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|&xi| (xi - a).exp()).sum();
    a + s.ln()
}

#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
}

/// Evaluates `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let Input { x } = decode(input)?;
    match function {
        "primal" => run(runs, || logsumexp(&x)),
        "gradient" => run(runs, || grad_logsumexp(&x)),
        _ => Err(unknown(function, &["primal", "gradient"])),
    }
}
