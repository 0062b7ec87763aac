//! `lse`: LogSumExp with the max-shift trick, `a + ln Σ exp(xᵢ − a)` with `a = max x`, and its
//! gradient.

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// `ln Σ exp(xᵢ)`, computed stably by shifting by the maximum.
///
/// The shift `a` only keeps the exponentials finite: the value does not depend on it, so its
/// gradient contributions cancel, and `stop_gradient` says so (as JAX's `logsumexp` does), sparing
/// the backward sweep the maximum's loop.
#[autodiff]
pub fn logsumexp(x: &[f64]) -> f64 {
    let a = diffx::stop_gradient(x.iter().copied().fold(f64::NEG_INFINITY, f64::max));
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
