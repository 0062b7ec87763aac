//! GradBench's protocol: one JSON message per line from the eval, one JSON response per line
//! from the tool (CONTRIBUTING.md, "Protocol", in GradBench).
//!
//! Every message carries an `id` and a `kind`. The tool answers `define` with whether it has the
//! module, `evaluate` with the function's output and its timings, and every other kind (`start`,
//! `analysis`, and any kind it does not know) with the `id` alone, as the specification asks.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::evals;

/// One timing of a response: a name and a duration in nanoseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// What was timed (`"evaluate"` for one run of the function).
    pub name: String,
    /// How long it took.
    pub nanoseconds: u128,
}

/// The repetition fields of most evals' inputs: run at least `min_runs` times, and until the runs
/// add up to `min_seconds`.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Runs {
    /// The fewest runs.
    pub min_runs: u64,
    /// The least total time of the runs, in seconds.
    pub min_seconds: f64,
}

impl Default for Runs {
    /// One run: what an input without the fields (the `hello` eval's) asks for.
    fn default() -> Self {
        Runs {
            min_runs: 1,
            min_seconds: 0.0,
        }
    }
}

/// What a function of an eval returns: its output as JSON and one `evaluate` timing per run.
pub type Evaluation = Result<(Value, Vec<Timing>), String>;

/// Runs `f` as `runs` asks and times each run; returns the last run's result with the timings.
///
/// The input preparation (JSON decoding, flattening) happens before this is called and the
/// encoding of the output after, so the timings hold only the computation, as GradBench's
/// convention for `"evaluate"` timings says.
pub fn timed<T>(runs: Runs, mut f: impl FnMut() -> T) -> (T, Vec<Timing>) {
    let mut timings = Vec::new();
    let mut total = 0.0;
    loop {
        let start = Instant::now();
        let out = std::hint::black_box(f());
        let elapsed = start.elapsed();
        total += elapsed.as_secs_f64();
        timings.push(Timing {
            name: "evaluate".into(),
            nanoseconds: elapsed.as_nanos(),
        });
        if timings.len() as u64 >= runs.min_runs.max(1) && total >= runs.min_seconds {
            return (out, timings);
        }
    }
}

/// Decodes an eval's `input` into the type a function takes; the error names what is wrong.
pub fn decode<T: for<'de> Deserialize<'de>>(input: &Value) -> Result<T, String> {
    T::deserialize(input).map_err(|e| format!("invalid input: {e}"))
}

/// Encodes a function's output.
pub fn encode<T: Serialize>(output: &T) -> Result<Value, String> {
    serde_json::to_value(output).map_err(|e| format!("cannot encode the output: {e}"))
}

/// A line that cannot be answered: it is not a JSON object with an integer `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Malformed {}

/// Answers one line from the eval.
///
/// A message with an `id` always gets a response: a `define` or `evaluate` whose fields are
/// missing or of the wrong type gets `"success": false` and an `error` saying which. A line
/// without an integer `id` cannot be answered (the response must carry the message's `id`), so it
/// is an error for the caller to report.
pub fn respond(line: &str) -> Result<Value, Malformed> {
    let message: Value = serde_json::from_str(line)
        .map_err(|e| Malformed(format!("the message is not valid JSON ({e}): {line}")))?;
    let id = message
        .get("id")
        .and_then(Value::as_i64)
        .ok_or_else(|| Malformed(format!("the message has no integer \"id\": {line}")))?;
    let kind = message.get("kind").and_then(Value::as_str).unwrap_or("");
    let response = match kind {
        "start" => json!({ "id": id, "tool": "diffx" }),
        "define" => define(id, &message),
        "evaluate" => evaluate(id, &message),
        _ => json!({ "id": id }),
    };
    Ok(response)
}

/// The response to `define`: whether this tool implements the module.
fn define(id: i64, message: &Value) -> Value {
    match message.get("module").and_then(Value::as_str) {
        Some(module) if evals::MODULES.contains(&module) => json!({ "id": id, "success": true }),
        Some(module) => json!({
            "id": id,
            "success": false,
            "error": format!("diffx does not implement the module {module:?}; it has {:?}", evals::MODULES),
        }),
        None => failure(id, "the define message has no string \"module\""),
    }
}

/// The response to `evaluate`: the output and timings, or why there are none.
fn evaluate(id: i64, message: &Value) -> Value {
    let field = |name: &str| message.get(name).and_then(Value::as_str);
    let (Some(module), Some(function)) = (field("module"), field("function")) else {
        return failure(
            id,
            "the evaluate message needs string fields \"module\" and \"function\"",
        );
    };
    let Some(input) = message.get("input") else {
        return failure(id, "the evaluate message has no \"input\"");
    };
    match evals::evaluate(module, function, input) {
        Ok((output, timings)) => json!({
            "id": id,
            "success": true,
            "output": output,
            "timings": timings,
        }),
        Err(error) => failure(id, &format!("{module}::{function}: {error}")),
    }
}

/// A response saying the message could not be carried out, and why.
fn failure(id: i64, error: &str) -> Value {
    json!({ "id": id, "success": false, "error": error })
}
