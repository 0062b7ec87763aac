//! `lstm`: ADBench's LSTM (diagonal weight matrices) over a character sequence, the loss being the
//! mean log-likelihood of each next character's bits, and its gradient with respect to the main
//! and extra parameters.

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// The loss of the stacked LSTM on `sequence` (rows of `b` bits), from the initial `state`.
///
/// `main_params` holds, per layer, a row of weights and a row of biases, each of the forget,
/// input, output and change gates' `b` entries in turn; `extra_params` the input weights, output
/// weights and output biases; `state`, per layer, the hidden then the cell values.
#[autodiff(wrt(main_params, extra_params))]
// Index loops throughout (also for the copy clippy would write with `copy_from_slice`): they are
// what the macro differentiates.
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)]
pub fn loss(
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
    b: usize,
) -> f64 {
    let layers = main_params.len() / (8 * b);
    let c = sequence.len() / b;
    let mut st = state.to_vec();
    let mut input = vec![0.0; b];
    let mut ypred = vec![0.0; b];
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..c - 1 {
        for i in 0..b {
            input[i] = sequence[t * b + i] * extra_params[i];
        }
        for layer in 0..layers {
            let (w, bias) = (8 * b * layer, 8 * b * layer + 4 * b);
            let (hidden, cell) = (2 * b * layer, 2 * b * layer + b);
            for i in 0..b {
                let forget = diffx::sigmoid(input[i] * main_params[w + i] + main_params[bias + i]);
                let ingate = diffx::sigmoid(
                    st[hidden + i] * main_params[w + b + i] + main_params[bias + b + i],
                );
                let outgate = diffx::sigmoid(
                    input[i] * main_params[w + 2 * b + i] + main_params[bias + 2 * b + i],
                );
                let change = (st[hidden + i] * main_params[w + 3 * b + i]
                    + main_params[bias + 3 * b + i])
                    .tanh();
                st[cell + i] = st[cell + i] * forget + ingate * change;
                st[hidden + i] = outgate * st[cell + i].tanh();
            }
            // This layer's hidden state is the next layer's input.
            for i in 0..b {
                input[i] = st[hidden + i];
            }
        }
        for i in 0..b {
            ypred[i] = input[i] * extra_params[b + i] + extra_params[2 * b + i];
        }
        // ADBench's logsumexp adds 2 to the sum of exponentials.
        let mut sum = 0.0;
        for i in 0..b {
            sum += ypred[i].exp();
        }
        let lse = (sum + 2.0).ln();
        for i in 0..b {
            total += sequence[(t + 1) * b + i] * (ypred[i] - lse);
        }
        count += b;
    }
    -total / (count as f64)
}

/// The eval's input, matrices as rows.
#[derive(Deserialize)]
struct Input {
    main_params: Vec<Vec<f64>>,
    extra_params: Vec<Vec<f64>>,
    state: Vec<Vec<f64>>,
    sequence: Vec<Vec<f64>>,
}

/// Evaluates `objective` or `jacobian` (the gradient of the main then the extra parameters, each
/// flattened row by row).
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let i: Input = decode(input)?;
    let b = i.sequence.first().map_or(0, Vec::len);
    let layers = i.main_params.len() / 2;
    let ok = b > 0
        && layers > 0
        && i.sequence.len() >= 2
        && i.main_params.len() == 2 * layers
        && i.main_params.iter().all(|r| r.len() == 4 * b)
        && i.extra_params.len() == 3
        && i.state.len() == 2 * layers
        && i.extra_params
            .iter()
            .chain(&i.state)
            .chain(&i.sequence)
            .all(|r| r.len() == b);
    if !ok {
        return Err(
            "expected 2l rows of 4b main parameters, 3 rows of b extra parameters, \
                    2l rows of b state and at least 2 rows of b characters"
                .into(),
        );
    }
    let (main, extra) = (i.main_params.concat(), i.extra_params.concat());
    let (state, sequence) = (i.state.concat(), i.sequence.concat());
    match function {
        "objective" => run(runs, || loss(&main, &extra, &state, &sequence, b)),
        "jacobian" => run(runs, || {
            let (mut g, g_extra) = grad_loss(&main, &extra, &state, &sequence, b);
            g.extend(g_extra);
            g
        }),
        _ => Err(unknown(function, &["objective", "jacobian"])),
    }
}
