//! `llsq`: the linear least-squares objective of cmpad,
//! `y(x) = ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)²` with `tᵢ = −1 + 2i/(n − 1)` and `sᵢ = sign(tᵢ)`.

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// The objective at the polynomial coefficients `x`, over `n` sample points.
#[autodiff]
pub fn llsq(x: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        let ti = -1.0 + (i as f64) * 2.0 / ((n as f64) - 1.0);
        // sign(tᵢ) with sign(0) = 0, as the definition's `sign`.
        let si = if ti > 0.0 {
            1.0
        } else if ti < 0.0 {
            -1.0
        } else {
            0.0
        };
        // Σⱼ xⱼ tᵢʲ by Horner's rule: the running value's adjoint only needs the constant tᵢ, so
        // reverse mode tapes nothing in this loop (the powers tᵢʲ would be taped).
        let mut poly = 0.0;
        for &xj in x.iter().rev() {
            poly = poly * ti + xj;
        }
        let r = si - poly;
        sum += r * r;
    }
    sum / 2.0
}

#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    n: usize,
}

/// Evaluates `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let Input { x, n } = decode(input)?;
    match function {
        "primal" => run(runs, || llsq(&x, n)),
        "gradient" => run(runs, || grad_llsq(&x, n)),
        _ => Err(unknown(function, &["primal", "gradient"])),
    }
}
