//! `gmm`: the log posterior of a Gaussian mixture model with a Wishart prior on the precision
//! matrices (ADBench's GMM with GradBench's fixes), and its gradient with respect to the mixture
//! weights' parametrization `alpha`, the means `mu` and the precision factors `q` and `l`.

use diffx::autodiff;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// The log posterior `log p(X | θ, φ) + log p(θ)`, in the simplified form of the eval's
/// "Implementation" section.
///
/// `alpha` has K entries; `mu` and `q` hold K rows of `d`, `l` K rows of d(d−1)/2 (the strictly
/// lower triangle of Q, column by column), `x` N rows of `d`, all row-major. `gamma` and `m` are
/// the Wishart prior's precision and extra degrees of freedom.
#[autodiff(wrt(alpha, mu, q, l))]
#[allow(clippy::too_many_arguments)]
pub fn log_posterior(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    gamma: f64,
    m: usize,
) -> f64 {
    let k = alpha.len();
    let n = x.len() / d;
    let lsz = d * (d - 1) / 2;
    // Q's diagonals exp(q) and Σⱼ q, used by every observation: computed once.
    let mut qdiag = vec![0.0; k * d];
    let mut sum_q = vec![0.0; k];
    for c in 0..k {
        for j in 0..d {
            qdiag[c * d + j] = q[c * d + j].exp();
            sum_q[c] += q[c * d + j];
        }
    }
    // L's strictly lower triangle row by row (the input has it column by column), so that each
    // row of Q꜀(xᵢ − μ꜀) below reads it in order: row j starts at j(j − 1)/2.
    let mut lrows = vec![0.0; k * lsz];
    for c in 0..k {
        let mut at = c * lsz;
        for jp in 0..d {
            for j in jp + 1..d {
                lrows[c * lsz + j * (j - 1) / 2 + jp] = l[at];
                at += 1;
            }
        }
    }
    // Σᵢ logsumexp(βᵢ), βᵢ꜀ = α꜀ − ½‖Q꜀(xᵢ − μ꜀)‖² + Σⱼ q꜀ⱼ.
    let mut beta = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            let mut sqnorm = 0.0;
            for j in 0..d {
                // Row j of Q꜀(xᵢ − μ꜀): the diagonal term, then the row's entries of L.
                let mut row = qdiag[c * d + j] * (x[i * d + j] - mu[c * d + j]);
                let start = c * lsz + j * (j.max(1) - 1) / 2;
                for jp in 0..j {
                    row += lrows[start + jp] * (x[i * d + jp] - mu[c * d + jp]);
                }
                sqnorm += row * row;
            }
            beta[c] = alpha[c] + sum_q[c] - 0.5 * sqnorm;
        }
        // By its path: `use` would not bring the derivative functions the macro wrote beside it.
        slse += super::lse::logsumexp(&beta);
    }
    let likelihood = -((n * d) as f64) * 0.5 * (2.0 * std::f64::consts::PI).ln() + slse
        - (n as f64) * super::lse::logsumexp(alpha);
    // The Wishart prior: −(γ²/2)‖Q꜀‖²_F + m Σⱼ q꜀ⱼ per component, plus a constant.
    let mut prior = 0.0;
    for c in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            frobenius += qdiag[c * d + j] * qdiag[c * d + j];
        }
        for e in 0..lsz {
            frobenius += l[c * lsz + e] * l[c * lsz + e];
        }
        prior += -0.5 * gamma * gamma * frobenius + (m as f64) * sum_q[c];
    }
    let dof = d + m + 1;
    let constant =
        (dof * d) as f64 * (gamma.ln() - 0.5 * 2f64.ln()) - log_multigamma(0.5 * dof as f64, d);
    likelihood + prior + (k as f64) * constant
}

/// ln Γ_p(a), the multivariate gamma function's logarithm, for `a` a multiple of ½ (all the
/// prior needs: a = (d + m + 1)/2).
pub fn log_multigamma(a: f64, p: usize) -> f64 {
    let mut out = 0.25 * (p * (p.saturating_sub(1))) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        out += ln_gamma_half_integer(a + 0.5 * (1.0 - j as f64));
    }
    out
}

/// ln Γ(x) for x a positive multiple of ½, exactly by the recurrence Γ(x + 1) = xΓ(x) from
/// Γ(1) = 1 or Γ(½) = √π (std has no `ln_gamma` on stable).
fn ln_gamma_half_integer(x: f64) -> f64 {
    let (mut t, mut out) = if x.fract() == 0.0 {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while t < x {
        out += t.ln();
        t += 1.0;
    }
    out
}

/// The eval's input, matrices as rows.
#[derive(Deserialize)]
struct Input {
    d: usize,
    k: usize,
    n: usize,
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
    x: Vec<Vec<f64>>,
    m: usize,
    gamma: f64,
}

/// The gradient, shaped as the independent variables.
#[derive(Serialize)]
struct Gradient {
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
}

/// Concatenates rows after checking each has `width` entries.
fn flatten(name: &str, rows: &[Vec<f64>], count: usize, width: usize) -> Result<Vec<f64>, String> {
    if rows.len() != count || rows.iter().any(|r| r.len() != width) {
        return Err(format!("{name} must have {count} rows of {width} numbers"));
    }
    Ok(rows.concat())
}

/// Splits a flat row-major vector into rows of `width` (no rows when `width` is 0, as d = 1 gives
/// `l` rows with no entries).
fn rows(flat: &[f64], count: usize, width: usize) -> Vec<Vec<f64>> {
    (0..count)
        .map(|r| flat[r * width..(r + 1) * width].to_vec())
        .collect()
}

/// Evaluates `objective` or `jacobian`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let i: Input = decode(input)?;
    let (d, k, lsz) = (i.d, i.k, i.d * i.d.saturating_sub(1) / 2);
    if d == 0 || i.alpha.len() != k {
        return Err(format!("need d ≥ 1 and k = {k} entries in alpha"));
    }
    let mu = flatten("mu", &i.mu, k, d)?;
    let q = flatten("q", &i.q, k, d)?;
    let l = flatten("l", &i.l, k, lsz)?;
    let x = flatten("x", &i.x, i.n, d)?;
    let (alpha, gamma, m) = (&i.alpha, i.gamma, i.m);
    match function {
        "objective" => run(runs, || log_posterior(alpha, &mu, &q, &l, &x, d, gamma, m)),
        "jacobian" => {
            let (output, timings) = crate::protocol::timed(runs, || {
                grad_log_posterior(alpha, &mu, &q, &l, &x, d, gamma, m)
            });
            let (ga, gmu, gq, gl) = output;
            let gradient = Gradient {
                alpha: ga,
                mu: rows(&gmu, k, d),
                q: rows(&gq, k, d),
                l: rows(&gl, k, lsz),
            };
            Ok((crate::protocol::encode(&gradient)?, timings))
        }
        _ => Err(unknown(function, &["objective", "jacobian"])),
    }
}
