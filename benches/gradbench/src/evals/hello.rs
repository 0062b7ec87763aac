//! `hello`: `square(x) = x²` and `double`, its derivative, which GradBench checks is `2x`.

use diffx::autodiff;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// x².
#[autodiff]
pub fn square(x: f64) -> f64 {
    x * x
}

/// Evaluates `square` or `double` (`grad_square`) at the number `input`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let x: f64 = decode(input)?;
    match function {
        "square" => run(runs, || square(x)),
        "double" => run(runs, || grad_square(x)),
        _ => Err(unknown(function, &["square", "double"])),
    }
}
