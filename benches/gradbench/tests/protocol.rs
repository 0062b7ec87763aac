//! The protocol handler without GradBench: a scripted `hello` session, the timing loop, and
//! malformed messages answered with a clear error (or, without an `id`, refused on stderr with a
//! nonzero exit), never a panic.

use std::io::Write;
use std::process::{Command, Stdio};

use diffx_gradbench::protocol::respond;
use serde_json::{json, Value};

fn answer(message: Value) -> Value {
    respond(&message.to_string()).expect("a message with an id gets a response")
}

#[test]
fn hello_session() {
    assert_eq!(
        answer(json!({"id": 0, "kind": "start", "eval": "hello"})),
        json!({"id": 0, "tool": "diffx"})
    );
    assert_eq!(
        answer(json!({"id": 1, "kind": "define", "module": "hello"})),
        json!({"id": 1, "success": true})
    );
    // The eval's own sequence: square, then double of the result.
    let mut x = 1.0;
    let mut id = 2;
    for _ in 0..3 {
        let square = answer(json!({"id": id, "kind": "evaluate", "module": "hello",
                                   "function": "square", "input": x}));
        assert_eq!(square["success"], json!(true));
        assert_eq!(square["output"].as_f64(), Some(x * x));
        assert_eq!(square["timings"].as_array().map(Vec::len), Some(1));
        let y = x * x;
        let double = answer(json!({"id": id + 1, "kind": "evaluate", "module": "hello",
                                   "function": "double", "input": y}));
        assert_eq!(double["output"].as_f64(), Some(2.0 * y));
        assert_eq!(
            answer(json!({"id": id + 2, "kind": "analysis", "of": id + 1, "valid": true})),
            json!({"id": id + 2})
        );
        x = 2.0 * y;
        id += 3;
    }
}

#[test]
fn evaluate_runs_at_least_min_runs_times() {
    let response = answer(json!({"id": 7, "kind": "evaluate", "module": "lse",
        "function": "gradient", "input": {"x": [1.0, 2.0, 3.0], "min_runs": 5, "min_seconds": 0.0}}));
    let timings = response["timings"].as_array().unwrap();
    assert_eq!(timings.len(), 5);
    assert!(timings
        .iter()
        .all(|t| t["name"] == "evaluate" && t["nanoseconds"].is_u64()));
    assert_eq!(response["output"].as_array().unwrap().len(), 3);
}

#[test]
fn evaluate_runs_until_min_seconds() {
    let response = answer(json!({"id": 8, "kind": "evaluate", "module": "lse",
        "function": "primal", "input": {"x": [1.0, 2.0], "min_runs": 1, "min_seconds": 0.01}}));
    let total: u64 = response["timings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["nanoseconds"].as_u64().unwrap())
        .sum();
    assert!(total >= 10_000_000, "{total} ns");
}

#[test]
fn unknown_module_is_declined_with_a_reason() {
    let response = answer(json!({"id": 3, "kind": "define", "module": "nope"}));
    assert_eq!(response["success"], json!(false));
    assert!(response["error"].as_str().unwrap().contains("\"nope\""));
}

#[test]
fn bad_fields_get_an_error_response() {
    let cases = [
        (
            json!({"id": 4, "kind": "evaluate", "module": "lse", "function": "gradient",
                "input": {"y": [1.0]}}),
            "missing field `x`",
        ),
        (
            json!({"id": 4, "kind": "evaluate", "module": "hello", "function": "square",
                "input": "two"}),
            "invalid type",
        ),
        (
            json!({"id": 4, "kind": "evaluate", "module": "hello", "function": "cube",
                "input": 2.0}),
            "unknown function \"cube\"",
        ),
        (
            json!({"id": 4, "kind": "evaluate", "module": "hello", "input": 2.0}),
            "\"function\"",
        ),
        (
            json!({"id": 4, "kind": "evaluate", "module": "hello", "function": "square"}),
            "no \"input\"",
        ),
        (json!({"id": 4, "kind": "define"}), "\"module\""),
        (
            json!({"id": 4, "kind": "evaluate", "module": "det", "function": "primal",
                "input": {"A": [1.0, 2.0], "ell": 2, "min_runs": 1, "min_seconds": 0}}),
            "ell² entries",
        ),
    ];
    for (message, expected) in cases {
        let response = answer(message.clone());
        assert_eq!(response["id"], json!(4), "{message}");
        assert_eq!(response["success"], json!(false), "{message}");
        let error = response["error"].as_str().unwrap();
        assert!(error.contains(expected), "{message}: {error}");
    }
}

#[test]
fn other_kinds_are_acknowledged_with_the_id() {
    assert_eq!(answer(json!({"id": 9, "kind": "end"})), json!({"id": 9}));
}

#[test]
fn a_line_without_an_id_is_refused() {
    let not_json = respond("{\"id\": 1, \"kind\"").unwrap_err();
    assert!(not_json.0.contains("not valid JSON"), "{not_json}");
    let no_id = respond(r#"{"kind": "start"}"#).unwrap_err();
    assert!(no_id.0.contains("no integer \"id\""), "{no_id}");
}

/// The binary answers what it can, then stops with a message and a failure code, not a panic.
#[test]
fn binary_reports_a_malformed_line_on_stderr() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diffx-gradbench"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let script = "{\"id\": 0, \"kind\": \"start\"}\nnot json\n{\"id\": 1, \"kind\": \"start\"}\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("not valid JSON"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
