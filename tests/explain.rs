//! `explain_f`: the evaluation trace against the tutorials' published tables, its consistency with
//! the chain rule, the DOT graph's well-formedness, and snapshots of the printed code.
//!
//! The snapshots are `tests/snapshots/*.txt`; after a deliberate change of the generated code,
//! regenerate them with `DIFFX_BLESS=1 cargo test --test explain` and review the diff.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use diffx::autodiff;
#[path = "../examples/shared/seed_functions.rs"]
mod seed_functions;
use diffx::explain::{Role, Trace};
use seed_functions::*;

#[autodiff]
fn inner(x: f32) -> f32 {
    x.exp()
}

/// f32, a constant parameter, a call of another `#[autodiff]` function, a reused operand.
#[autodiff]
fn outer(x: f32, y: f32, k: usize) -> f32 {
    let s = inner(x) * (k as f32);
    s * y + y.tanh() * y
}

/// `x` rounded to the three decimals the paper prints.
fn paper(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0 + 0.0
}

#[track_caller]
fn assert_row(t: &Trace, name: &str, value: f64, tangent: f64, adjoint: f64) {
    let r = t
        .row(name)
        .unwrap_or_else(|| panic!("no row {name} in\n{t}"));
    let got = (paper(r.value), paper(r.tangent), paper(r.adjoint));
    assert_eq!(got, (value, tangent, adjoint), "row {name} in\n{t}");
}

#[test]
fn tutorial_trace_reproduces_the_paper_tables() {
    // Fang et al., tables of section 2: values; tangents for ẋ1 = 1 (∂/∂x1); adjoints for ȳ = 1.
    let t = explain_tutorial(2.0, 5.0, 1.0, 0.0);
    let names: Vec<&str> = t.rows().iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["x1", "x2", "v1", "v2", "v3", "v4", "v5", "tutorial"]
    );
    assert_row(&t, "x1", 2.0, 1.0, 5.5);
    assert_row(&t, "x2", 5.0, 0.0, 1.716);
    assert_row(&t, "v1", 0.693, 0.5, 1.0);
    assert_row(&t, "v2", 10.0, 5.0, 1.0);
    assert_row(&t, "v3", -0.959, 0.0, -1.0);
    assert_row(&t, "v4", 10.693, 5.5, 1.0);
    assert_row(&t, "v5", 11.652, 5.5, 1.0);
    assert_row(&t, "tutorial", 11.652, 5.5, 1.0);
    let out = t.output_row().unwrap();
    assert_eq!((out.role, out.expr.as_str()), (Role::Output, "v5"));
    assert_eq!(t.row("v1").unwrap().expr, "x1.ln()");
    assert_eq!(t.row("v5").unwrap().expr, "v4 - v3");

    // The same numbers as the derivative functions, exactly.
    let (y, (d1, d2)) = value_and_grad_tutorial(2.0, 5.0);
    assert_eq!(t.value("tutorial"), Some(y));
    assert_eq!((t.adjoint("x1"), t.adjoint("x2")), (Some(d1), Some(d2)));
    assert_eq!(
        t.tangent("tutorial"),
        Some(jvp_tutorial(2.0, 5.0, 1.0, 0.0).1)
    );
    // Along x2, the tangent of the output is the other partial.
    let t2 = explain_tutorial(2.0, 5.0, 0.0, 1.0);
    assert_eq!(paper(t2.tangent("tutorial").unwrap()), 1.716);
    assert_eq!(paper(t2.tangent("v3").unwrap()), 0.284);
}

#[test]
fn e_trace_matches_the_blog() {
    // e = (a·b)·(b+1) at (2, 3) = 24; ∂e/∂a = b(b+1) = 12, ∂e/∂b = 2ab + a = 14;
    // c̄ = d = 4, d̄ = c = 6.
    let t = explain_e(2.0, 3.0, 1.0, 1.0);
    assert_row(&t, "a", 2.0, 1.0, 12.0);
    assert_row(&t, "b", 3.0, 1.0, 14.0);
    assert_row(&t, "c", 6.0, 5.0, 4.0);
    assert_row(&t, "d", 4.0, 1.0, 6.0);
    assert_row(&t, "e", 24.0, 26.0, 1.0);
    assert_eq!(t.row("d").unwrap().expr, "b + 1.0");
}

/// Every edge's local partial, recorded separately from both sweeps, agrees with them by the chain
/// rule: v̇ = Σ ∂v/∂u·u̇ over v's operands, and ū = Σ ∂v/∂u·v̄ over u's users.
#[track_caller]
fn assert_chain_rule(t: &Trace) {
    let rows = t.rows();
    let mut tangent = vec![0.0; rows.len()];
    let mut adjoint = vec![0.0; rows.len()];
    let mut complete = vec![true; rows.len()];
    for e in t.edges() {
        match e.partial {
            Some(p) => {
                tangent[e.to] += p * rows[e.from].tangent;
                adjoint[e.from] += p * rows[e.to].adjoint;
            }
            None => {
                complete[e.to] = false;
                complete[e.from] = false;
            }
        }
    }
    for (i, r) in rows.iter().enumerate() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
        if r.role != Role::Input && complete[i] {
            assert!(
                close(tangent[i], r.tangent),
                "tangent of {} in\n{t}",
                r.name
            );
        }
        if r.role != Role::Output && complete[i] {
            assert!(
                close(adjoint[i], r.adjoint),
                "adjoint of {} in\n{t}",
                r.name
            );
        }
    }
}

#[test]
fn edges_carry_the_local_partials() {
    let t = explain_tutorial(2.0, 5.0, 1.0, 0.0);
    let partial = |from: &str, to: &str| {
        t.edges()
            .iter()
            .find(|e| t.rows()[e.from].name == from && t.rows()[e.to].name == to)
            .and_then(|e| e.partial)
            .map(paper)
    };
    // ∂v1/∂x1 = 1/x1, ∂v2/∂x1 = x2, ∂v2/∂x2 = x1, ∂v3/∂x2 = cos x2, ∂v5/∂v3 = −1.
    assert_eq!(partial("x1", "v1"), Some(0.5));
    assert_eq!(partial("x1", "v2"), Some(5.0));
    assert_eq!(partial("x2", "v2"), Some(2.0));
    assert_eq!(partial("x2", "v3"), Some(0.284));
    assert_eq!(partial("v3", "v5"), Some(-1.0));
    assert_eq!(partial("v5", "tutorial"), Some(1.0));
    assert_eq!(t.edges().len(), 9);
    assert_chain_rule(&t);
    assert_chain_rule(&explain_e(2.0, 3.0, 0.5, -2.0));
    assert_chain_rule(&explain_outer(0.3, 1.5, 2, 1.0, 1.0));
}

#[test]
fn calls_constants_and_f32_are_traced() {
    let t = explain_outer(0.3, 1.5, 2, 1.0, 0.0);
    let (y, (dx, dy)) = value_and_grad_outer(0.3, 1.5, 2);
    assert_eq!(t.value("outer"), Some(f64::from(y)));
    assert_eq!(t.adjoint("x"), Some(f64::from(dx)));
    assert_eq!(t.adjoint("y"), Some(f64::from(dy)));
    assert_eq!(
        t.tangent("outer"),
        Some(f64::from(jvp_outer(0.3, 1.5, 2, 1.0, 0.0).1))
    );
    // The call of `inner` is one row, linked to its argument without a partial.
    let call = t.rows().iter().position(|r| r.expr == "inner(x)").unwrap();
    assert!(t
        .edges()
        .iter()
        .any(|e| e.to == call && e.partial.is_none()));
    // The constant parameter `k` is no row.
    assert!(t.row("k").is_none());
}

/// A tiny reader of the DOT this crate writes: `digraph "name" {`, then one statement per line,
/// `key=value;` attributes, `nI [attrs];` nodes and `nI -> nJ [attrs];` edges, then `}`.
fn check_dot(dot: &str) -> (BTreeSet<String>, Vec<(String, String)>) {
    let lines: Vec<&str> = dot.lines().map(str::trim).collect();
    assert!(
        lines[0].starts_with("digraph \"") && lines[0].ends_with("\" {"),
        "{dot}"
    );
    assert_eq!(lines.last(), Some(&"}"), "{dot}");
    let (mut nodes, mut edges) = (BTreeSet::new(), Vec::new());
    for line in &lines[1..lines.len() - 1] {
        let body = line
            .strip_suffix(';')
            .unwrap_or_else(|| panic!("no `;`: {line}"));
        let (head, attrs) = match body.find(" [") {
            Some(i) => (&body[..i], Some(&body[i + 2..])),
            None => (body, None),
        };
        if let Some(attrs) = attrs {
            check_attributes(attrs.strip_suffix(']').expect("`]`"));
        }
        if let Some((from, to)) = head.split_once(" -> ") {
            edges.push((from.to_string(), to.to_string()));
        } else if matches!(head, "node" | "edge") || head.contains('=') {
            assert!(attrs.is_some() || head.contains('='), "{line}");
        } else {
            assert!(
                head.starts_with('n') && head[1..].parse::<usize>().is_ok(),
                "{line}"
            );
            assert!(nodes.insert(head.to_string()), "node {head} declared twice");
        }
    }
    for (from, to) in &edges {
        assert!(
            nodes.contains(from) && nodes.contains(to),
            "edge {from} -> {to}"
        );
    }
    (nodes, edges)
}

/// `key=value, key="quoted \"string\""`: balanced quotes, escapes only of `"`, `\` and `n`.
fn check_attributes(attrs: &str) {
    let mut chars = attrs.chars();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match (c, in_string) {
            ('"', _) => in_string = !in_string,
            ('\\', true) => assert!(matches!(chars.next(), Some('"' | '\\' | 'n')), "{attrs}"),
            ('[' | ']' | ';' | '{' | '}', false) => panic!("stray `{c}` in {attrs}"),
            _ => {}
        }
    }
    assert!(!in_string, "unterminated string in {attrs}");
}

#[test]
fn dot_is_well_formed_and_connected() {
    for t in [
        explain_tutorial(2.0, 5.0, 1.0, 0.0),
        explain_e(2.0, 3.0, 0.0, 1.0),
        explain_outer(0.3, 1.5, 2, 1.0, 0.0),
    ] {
        let dot = t.to_dot();
        let (nodes, edges) = check_dot(&dot);
        assert_eq!(nodes.len(), t.rows().len());
        assert_eq!(edges.len(), t.edges().len());
        // Every node is reachable from an input.
        let inputs = t
            .rows()
            .iter()
            .enumerate()
            .filter(|(_, r)| r.role == Role::Input);
        let mut seen: BTreeSet<String> = inputs.map(|(i, _)| format!("n{i}")).collect();
        let mut queue: VecDeque<String> = seen.iter().cloned().collect();
        let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (from, to) in &edges {
            next.entry(from).or_default().push(to);
        }
        while let Some(n) = queue.pop_front() {
            for to in next.get(n.as_str()).into_iter().flatten() {
                if seen.insert(to.to_string()) {
                    queue.push_back(to.to_string());
                }
            }
        }
        assert_eq!(seen, nodes, "unreachable nodes in\n{dot}");
        assert!(
            dot.contains("label=\"v1 = x1.ln()\\nvalue 0.693\\ngrad 1\"")
                || t.function() != "tutorial"
        );
        render_if_graphviz_is_installed(&dot);
    }
}

/// `dot -Tsvg` accepts the graph, where Graphviz is installed (the test does not need it).
fn render_if_graphviz_is_installed(dot: &str) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(dot.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "dot: {}\n{dot}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compares `actual` with the committed `tests/snapshots/{name}.txt`, or writes it with
/// `DIFFX_BLESS=1`.
fn snapshot(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("DIFFX_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run with DIFFX_BLESS=1 to write it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{name} changed; if that is intended, run with DIFFX_BLESS=1 and review the diff\n\
         --- expected\n{expected}\n--- actual\n{actual}"
    );
}

fn everything(t: &Trace) -> String {
    format!(
        "{t}\n# Wengert list\n{}\n# forward code\n{}\n# reverse code\n{}\n# graph\n{}",
        t.wengert_list(),
        t.forward_code(),
        t.reverse_code(),
        t.to_dot()
    )
}

#[test]
fn printed_code_and_tables_are_stable() {
    snapshot(
        "tutorial",
        &everything(&explain_tutorial(2.0, 5.0, 1.0, 0.0)),
    );
    snapshot("e", &everything(&explain_e(2.0, 3.0, 0.0, 1.0)));
}
