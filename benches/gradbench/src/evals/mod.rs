//! The evals this tool implements, one module each, and the dispatch from a module name.
//!
//! Each module has a `evaluate(function, input, runs)` that decodes the input, runs the function
//! as `runs` asks (timing only the computation) and encodes the output.

use serde::Serialize;
use serde_json::Value;

use crate::protocol::{decode, encode, timed, Evaluation, Runs};

pub mod ba;
pub mod det;
pub mod gmm;
pub mod hello;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod ode;
pub mod particle;
pub mod saddle;
pub mod solver;

/// The modules a `define` message may name.
pub const MODULES: &[&str] = &[
    "hello", "lse", "llsq", "det", "gmm", "ode", "kmeans", "ba", "lstm", "particle", "saddle",
];

/// Evaluates `function` of `module` on `input`.
pub fn evaluate(module: &str, function: &str, input: &Value) -> Evaluation {
    let runs = runs_of(input)?;
    match module {
        "hello" => hello::evaluate(function, input, runs),
        "lse" => lse::evaluate(function, input, runs),
        "llsq" => llsq::evaluate(function, input, runs),
        "det" => det::evaluate(function, input, runs),
        "gmm" => gmm::evaluate(function, input, runs),
        "ode" => ode::evaluate(function, input, runs),
        "kmeans" => kmeans::evaluate(function, input, runs),
        "ba" => ba::evaluate(function, input, runs),
        "lstm" => lstm::evaluate(function, input, runs),
        "particle" => particle::evaluate(function, input, runs),
        "saddle" => saddle::evaluate(function, input, runs),
        _ => Err(format!("unknown module (this tool has {MODULES:?})")),
    }
}

/// The `min_runs`/`min_seconds` fields of an input, or one run where the input has none.
fn runs_of(input: &Value) -> Result<Runs, String> {
    match input.get("min_runs") {
        Some(_) => decode(input),
        None => Ok(Runs::default()),
    }
}

/// Runs `f` as `runs` asks and encodes its last result with the timings.
fn run<T: Serialize>(runs: Runs, f: impl FnMut() -> T) -> Evaluation {
    let (output, timings) = timed(runs, f);
    Ok((encode(&output)?, timings))
}

/// Evaluates the variant `function` of a nested-AD eval (`ff`, `fr`, `rf`, `rr`: the outer and
/// the inner derivative by forward or reverse mode), given each variant's computation.
fn four_modes<T: Serialize>(
    function: &str,
    runs: Runs,
    [ff, fr, rf, rr]: [&dyn Fn() -> T; 4],
) -> Evaluation {
    match function {
        "ff" => run(runs, ff),
        "fr" => run(runs, fr),
        "rf" => run(runs, rf),
        "rr" => run(runs, rr),
        _ => Err(unknown(function, &["ff", "fr", "rf", "rr"])),
    }
}

/// The error for a function name the module does not have.
fn unknown(function: &str, known: &[&str]) -> String {
    format!("unknown function {function:?} (this module has {known:?})")
}
