//! `det`: the determinant of an ℓ×ℓ matrix by expansion by minors (cmpad's `det_by_minor`), and
//! its gradient.

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// The determinant of the minor of the row-major `ell`×`ell` matrix `a` made of rows `row..ell`
/// and of the columns whose bit is clear in `used`, expanded along its first row.
///
/// The bit set stands for cmpad's linked lists of remaining rows and columns: the minor's rows
/// are always the last ones, so only the columns need a record (ℓ ≤ 64).
#[autodiff]
pub fn det_of_minor(a: &[f64], ell: usize, row: usize, used: u64) -> f64 {
    if row + 1 == ell {
        // One column is left.
        let j = used.trailing_ones() as usize;
        return a[row * ell + j];
    }
    let mut det = 0.0;
    let mut sign = 1.0;
    for j in 0..ell {
        if used & (1 << j) == 0 {
            let minor = det_of_minor(a, ell, row + 1, used | (1 << j));
            det += sign * a[row * ell + j] * minor;
            sign = -sign;
        }
    }
    det
}

/// The determinant of the row-major `ell`×`ell` matrix `a`.
#[autodiff]
pub fn det(a: &[f64], ell: usize) -> f64 {
    det_of_minor(a, ell, 0, 0)
}

#[derive(Deserialize)]
struct Input {
    #[serde(rename = "A")]
    a: Vec<f64>,
    ell: usize,
}

/// Evaluates `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let Input { a, ell } = decode(input)?;
    if ell == 0 || ell > 64 || a.len() != ell * ell {
        return Err(format!(
            "expected 1 ≤ ell ≤ 64 and ell² entries in A, got ell = {ell} and {} entries",
            a.len()
        ));
    }
    match function {
        "primal" => run(runs, || det(&a, ell)),
        "gradient" => run(runs, || grad_det(&a, ell)),
        _ => Err(unknown(function, &["primal", "gradient"])),
    }
}
