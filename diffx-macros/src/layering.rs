//! The layering of the crate, checked: the table of layers in the crate documentation (`lib.rs`)
//! is read here, every non-test `.rs` file under `src/` is read for the modules of the crate it
//! names (`crate::m`, `use crate::{a, b::c}` groups, `super::` up to the crate root), and a file
//! that names a module of a later layer fails the test, as does a cycle between modules. A module
//! split into files (`emit/` and its children, which reach each other through `super::`) is one
//! module. Test code (`#[cfg(test)]` modules, inline or in their own files) is exempt. The same
//! reading checks that no stage parses the Rust the macro wrote back as a file of items.
//!
//! The reader is a small lexer, not a parser: comments, string and character literals and
//! `#[cfg(test)] mod … { … }` blocks are blanked first, so a path written in a string or a doc
//! comment is no import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Imports of a later layer that are known and not yet fixed: (file, module it names, why).
/// Empty; an entry that is no longer needed fails the test, so that fixing an import removes
/// its entry.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// One mention of a module of the crate: the file (relative to `src/`), the line, the module.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Mention {
    file: String,
    line: usize,
    module: String,
}

#[test]
fn no_module_imports_from_a_later_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let layers = layer_table(&lib);
    let files = crate_files(&src);
    // The table names each module of the crate, and only those.
    let declared: BTreeSet<String> = files
        .iter()
        .map(|(f, _)| top_module(f))
        .chain(["lib".to_string()])
        .collect();
    let tabled: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(
        declared, tabled,
        "the table of layers in lib.rs's documentation names exactly the crate's modules"
    );
    let mut later = Vec::new();
    let mut used_exceptions = BTreeSet::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in &files {
        let from = top_module(file);
        for m in mentions(file, text) {
            if m.module == from {
                continue;
            }
            let Some(&to_layer) = layers.get(&m.module) else {
                panic!(
                    "{}:{} names `crate::{}`, which is not in the table",
                    m.file, m.line, m.module
                );
            };
            edges
                .entry(from.clone())
                .or_default()
                .insert(m.module.clone());
            if to_layer > layers[&from] {
                match EXCEPTIONS
                    .iter()
                    .position(|(f, to, _)| *f == m.file && *to == m.module)
                {
                    Some(i) => {
                        used_exceptions.insert(i);
                    }
                    None => later.push(format!(
                        "{}:{}: `{}` (layer {}) names `{}` (layer {})",
                        m.file, m.line, from, layers[&from], m.module, to_layer
                    )),
                }
            }
        }
    }
    assert!(
        later.is_empty(),
        "imports of a later layer (see the table of layers in lib.rs):\n{}",
        later.join("\n")
    );
    let stale: Vec<_> = (0..EXCEPTIONS.len())
        .filter(|i| !used_exceptions.contains(i))
        .map(|i| format!("{} → {}", EXCEPTIONS[i].0, EXCEPTIONS[i].1))
        .collect();
    assert!(
        stale.is_empty(),
        "exceptions no longer needed, remove them: {stale:?}"
    );
    if let Some(cycle) = cycle(&edges) {
        panic!(
            "the modules import each other in a cycle: {}",
            cycle.join(" → ")
        );
    }
}

/// The table of layers in the crate documentation: each row `//! | n | `a`, `b` | … |` gives the
/// modules in backquotes of its second column layer `n`.
fn layer_table(lib: &str) -> BTreeMap<String, usize> {
    let mut layers = BTreeMap::new();
    for line in lib.lines() {
        let Some(row) = line.strip_prefix("//! |") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').collect();
        let (Ok(layer), Some(modules)) = (cells[0].trim().parse::<usize>(), cells.get(1)) else {
            continue;
        };
        for module in modules.split('`').skip(1).step_by(2) {
            let earlier = layers.insert(module.to_string(), layer);
            assert!(earlier.is_none(), "`{module}` is in two rows of the table");
        }
    }
    assert!(
        !layers.is_empty(),
        "lib.rs's documentation has a table of layers"
    );
    layers
}

/// The files of the crate's non-test modules, relative to `src/`, with their text; found by
/// following `mod` declarations from `lib.rs`. Every `.rs` file under `src/` is either one of them
/// or a test module's.
fn crate_files(src: &Path) -> Vec<(String, String)> {
    let (mut files, mut tests) = (Vec::new(), BTreeSet::new());
    let mut todo = vec![PathBuf::from("lib.rs")];
    while let Some(rel) = todo.pop() {
        let text = std::fs::read_to_string(src.join(&rel)).unwrap();
        // A child of `x.rs` or `x/mod.rs` is in `x/`; of `lib.rs`, in `src/`.
        let dir = match rel.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "mod.rs") => rel.parent().unwrap().to_path_buf(),
            _ => rel.with_extension(""),
        };
        for (name, test) in mod_declarations(&blank(&text)) {
            let child = [
                dir.join(format!("{name}.rs")),
                dir.join(&name).join("mod.rs"),
            ]
            .into_iter()
            .find(|p| src.join(p).exists())
            .unwrap_or_else(|| panic!("no file for `mod {name};` in {}", rel.display()));
            match test {
                true => {
                    tests.insert(child);
                }
                false => todo.push(child),
            }
        }
        files.push((rel, text));
    }
    let mut on_disk = Vec::new();
    rs_files(src, Path::new(""), &mut on_disk);
    for f in on_disk {
        let checked = files.iter().any(|(r, _)| *r == f);
        // (A test module's files: `x.rs` and `x/…`, or `x/mod.rs` and the rest of `x/`.)
        let test = tests.iter().any(|t| {
            let dir = match t.file_name().and_then(|n| n.to_str()) {
                Some("mod.rs") => t.parent().unwrap().to_path_buf(),
                _ => t.with_extension(""),
            };
            f.starts_with(dir) || f == *t
        });
        assert!(
            checked || test,
            "{} is in no module of the crate",
            f.display()
        );
    }
    let mut files: Vec<(String, String)> = files
        .into_iter()
        .map(|(r, t)| (r.to_string_lossy().replace('\\', "/"), t))
        .collect();
    files.sort();
    files
}

fn rs_files(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(root.join(rel)).unwrap() {
        let path = rel.join(entry.unwrap().file_name());
        if root.join(&path).is_dir() {
            rs_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module of a file: `emit/control.rs` → `emit`, `liveness.rs` → `liveness`.
fn top_module(file: &str) -> String {
    let first = file.split('/').next().unwrap();
    first.strip_suffix(".rs").unwrap_or(first).to_string()
}

/// The `mod name;` declarations of a blanked file, each with whether it is `#[cfg(test)]`.
fn mod_declarations(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("mod ") {
        if at > 0 && is_ident_char(text[..at].chars().next_back().unwrap()) {
            continue;
        }
        let rest = &text[at + 4..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| is_ident_char(*c))
            .collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with(';') {
            continue;
        }
        // The attributes since the previous item.
        let before = &text[..at];
        let start = before.rfind([';', '}', '{']).map_or(0, |i| i + 1);
        out.push((name, before[start..].contains("cfg(test)")));
    }
    out
}

/// The names a path continues with at `j`: each head of a `{…}` group, or the one identifier.
fn heads_at(text: &str, j: usize) -> Vec<(usize, &str)> {
    if text[j..].starts_with('{') {
        return group_heads(text, j);
    }
    let name = ident_at(text, j);
    if name.is_empty() {
        Vec::new()
    } else {
        vec![(j, name)]
    }
}

/// The modules of the crate that a file names outside its test code, with the line of each.
fn mentions(file: &str, text: &str) -> Vec<Mention> {
    let text = without_test_blocks(&blank(text));
    let depth = file.split('/').count() - usize::from(file.ends_with("/mod.rs"));
    let mut out = Vec::new();
    let mut push = |at: usize, module: &str| {
        out.push(Mention {
            file: file.to_string(),
            line: text[..at].matches('\n').count() + 1,
            module: module.to_string(),
        })
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        if !text.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let word_start = i == 0 || !is_ident_char(bytes[i - 1] as char) && bytes[i - 1] != b'$';
        if word_start && text[i..].starts_with("crate") {
            let mut j = skip_ws(&text, i + 5);
            if text[j..].starts_with("::") {
                j = skip_ws(&text, j + 2);
                for (at, name) in heads_at(&text, j) {
                    push(at, name);
                }
            }
        } else if word_start && text[i..].starts_with("super") {
            // `super::` repeated `n` times from a file `depth` modules deep: at the root, the
            // next name is a top-level module; below it, still within this file's module.
            let (mut j, mut n) = (i, 0);
            while text[j..].starts_with("super") {
                let k = skip_ws(&text, j + 5);
                if !text[k..].starts_with("::") {
                    break;
                }
                n += 1;
                j = skip_ws(&text, k + 2);
            }
            if n > 0 && n >= depth {
                for (at, name) in heads_at(&text, j) {
                    push(at, name);
                }
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// The first name of each path in the `{ … }` group opening at `open`: `{a, b::{c, d}, e}` →
/// `a`, `b`, `e`.
fn group_heads(text: &str, open: usize) -> Vec<(usize, &str)> {
    let (mut out, mut depth, mut head) = (Vec::new(), 0, true);
    let mut i = open;
    while i < text.len() {
        let c = text[i..].chars().next().unwrap();
        match c {
            '{' => {
                depth += 1;
                head = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => head = true,
            c if head && is_ident_char(c) => {
                let name = ident_at(text, i);
                if name != "self" {
                    out.push((i, name));
                }
                head = false;
                i += name.len();
                continue;
            }
            _ => {}
        }
        i += c.len_utf8();
    }
    out
}

fn ident_at(text: &str, at: usize) -> &str {
    let len = text[at..]
        .find(|c: char| !is_ident_char(c))
        .unwrap_or(text.len() - at);
    &text[at..at + len]
}

fn skip_ws(text: &str, at: usize) -> usize {
    at + text[at..]
        .find(|c: char| !c.is_whitespace())
        .unwrap_or(text.len() - at)
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with its comments and the contents of its string and character literals replaced by
/// spaces (newlines kept, so lines keep their numbers).
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank_out = |out: &mut String, cs: &[char]| {
        out.extend(cs.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let prev_ident = i > 0 && is_ident_char(chars[i - 1]);
        let end = if rest.starts_with(&['/', '/']) {
            i + rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
        } else if rest.starts_with(&['/', '*']) {
            let (mut j, mut depth) = (i + 2, 1);
            while j < chars.len() && depth > 0 {
                if chars[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if chars[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            j
        } else if let Some(end) =
            raw_string_end(&chars, i).filter(|_| !prev_ident || chars[i - 1] == 'b')
        {
            end
        } else if chars[i] == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            j + 1
        } else if chars[i] == '\'' && rest.get(1) == Some(&'\\') {
            i + 3
                + rest[3.min(rest.len())..]
                    .iter()
                    .position(|&c| c == '\'')
                    .unwrap_or(0)
                + 1
        } else if chars[i] == '\'' && rest.get(2) == Some(&'\'') {
            i + 3
        } else {
            out.push(chars[i]);
            i += 1;
            continue;
        };
        let end = end.min(chars.len());
        blank_out(&mut out, &chars[i..end]);
        i = end;
    }
    out
}

/// Where the raw string literal starting at `i` (`r"…"`, `r#"…"#`) ends, if one does.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    if chars[i] != 'r' {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    if chars.get(i + 1 + hashes) != Some(&'"') {
        return None;
    }
    let close: Vec<char> = format!("\"{}", "#".repeat(hashes)).chars().collect();
    let body = i + 2 + hashes;
    (body..chars.len())
        .find(|&j| chars[j..].starts_with(&close))
        .map(|j| j + close.len())
}

/// A blanked `text` without its `#[cfg(test)] mod name { … }` blocks (newlines kept).
fn without_test_blocks(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = skip_ws(&out, at + "#[cfg(test)]".len());
        let Some(open) = out[after..].find(['{', ';']).map(|k| after + k) else {
            break;
        };
        let end = if out[open..].starts_with(';') {
            open + 1
        } else {
            let mut depth = 0;
            let mut end = out.len();
            for (k, c) in out[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        };
        let blanked: String = out[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..end, &blanked);
    }
    out
}

/// A cycle of the graph, if it has one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

/// Emission writes every function in its form the first time: no stage reads back, as a file of
/// items, what the macro wrote. (`explain.rs` alone parses the code it shows a learner, to format
/// it with prettyplease.)
#[test]
fn no_stage_parses_written_code_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (file, text) in crate_files(&src) {
        let code = without_test_blocks(&blank(&text));
        let parses = ["syn::File", "parse_file"].iter().any(|p| code.contains(p));
        assert!(
            !parses || file == "explain.rs",
            "{file} reads Rust back as a file of items: write each item in its form instead (`emit/form.rs`)"
        );
    }
}

#[test]
fn reads_the_modules_a_file_names() {
    let text = r#"
//! `crate::doc` is no import, nor is "crate::string" or a raw r"crate::raw".
use crate::ir::{Atom, Var};
use crate::{a, b::{c, d}, e as f};
use super::sibling;
#[cfg(test)]
mod tests {
    use crate::tested;
}
fn g() -> char { let _ = crate::inline::h(); '"' }
fn k<'a>(x: &'a str) { super::super::other::f(x); $crate::macro_path }
"#;
    let names = |file: &str| -> Vec<String> {
        mentions(file, text).into_iter().map(|m| m.module).collect()
    };
    assert_eq!(
        names("emit/control.rs"),
        ["ir", "a", "b", "e", "inline", "other"]
    );
    assert_eq!(
        names("emit/mod.rs"),
        ["ir", "a", "b", "e", "sibling", "inline", "other"]
    );
    assert_eq!(mentions("x/y.rs", text)[0].line, 3);
}
