//! `diffx-gradbench-memory LOG.jsonl …`: the heap memory of each evaluation a GradBench log holds
//! (`benches/gradbench/run.sh` writes one per eval and tool), run once more here: one line per
//! evaluation, `module function size bytes`, the bytes being the most the evaluation had live at
//! once beyond its input (its result included). A derivative's bytes less its primal's are what
//! its reverse sweep keeps.

use std::io::BufRead;
use std::process::ExitCode;

use diffx_gradbench::memory::Counting;
use serde_json::Value;

#[global_allocator]
static HEAP: Counting = Counting::new();

fn main() -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for path in std::env::args().skip(1) {
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("diffx-gradbench-memory: cannot read {path}: {e}");
                status = ExitCode::FAILURE;
                continue;
            }
        };
        for line in std::io::BufReader::new(file).lines().map_while(Result::ok) {
            let Ok(entry) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if let Some(row) = measure(&entry["message"]) {
                println!("{row}");
            }
        }
    }
    status
}

/// One evaluation's line, if `message` asks for one: run once, whatever the log's repetitions.
fn measure(message: &Value) -> Option<String> {
    if message["kind"] != "evaluate" {
        return None;
    }
    let (module, function) = (message["module"].as_str()?, message["function"].as_str()?);
    let mut input = message["input"].clone();
    if let Some(fields) = input.as_object_mut() {
        fields.insert("min_runs".into(), 1.into());
        fields.insert("min_seconds".into(), 0.into());
    }
    let (result, bytes) =
        HEAP.peak_during(|| diffx_gradbench::evals::evaluate(module, function, &input));
    let size = message["description"].as_str().unwrap_or("-");
    Some(match result {
        Ok(_) => format!("{module} {function} {size} {bytes}"),
        Err(e) => format!("{module} {function} {size} failed: {e}"),
    })
}
