//! Checks of traces shared by the `explain_` tests: the DOT graph is well-formed and connected,
//! and snapshots of printed output.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use diffx::explain::{Role, Trace};

/// `a` equals `b` up to rounding: `|a − b| ≤ 1e-12·max(1, |b|)`.
#[track_caller]
pub fn assert_close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

/// The nodes and edges of a DOT graph, checked line by line.
pub fn check_dot(dot: &str) -> (BTreeSet<String>, Vec<(String, String)>) {
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

/// The DOT is well-formed, has a node per row and an edge per edge, and every node is reachable
/// from an input. Renders it where Graphviz is installed.
#[track_caller]
pub fn assert_connected(t: &Trace, dot: &str) {
    let (nodes, edges) = check_dot(dot);
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
    render_if_graphviz_is_installed(dot);
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
pub fn snapshot(name: &str, actual: &str) {
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
