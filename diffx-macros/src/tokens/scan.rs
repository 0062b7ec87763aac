//! Scanners over raw tokens: which names code kept as written mentions, assigns, indexes, writes
//! element by element, calls a changing method on or borrows mutably. They read tokens, not
//! syn's tree, and know nothing of scopes: a name is a name wherever it stands.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Spacing, TokenStream, TokenTree};

#[cfg(doc)]
use super::substitute;

/// Every identifier in `tokens`, at any depth (to avoid collisions when naming new values).
pub fn idents(tokens: TokenStream, out: &mut BTreeSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// Whether `tokens` mention a variable for which `pred` holds (in the sense of [`substitute`]),
/// other than for its length: `x.len()` is an integer whatever `x` holds. Every variable is
/// asked, in order; the tokens are read, never rebuilt.
pub fn mentions(tokens: TokenStream, pred: &mut dyn FnMut(&Ident) -> bool) -> bool {
    let mut found = false;
    mentioned(tokens, &mut |id| found |= pred(id));
    found
}

/// Calls `f` with each variable of `tokens` outside `name.len()`, at any depth.
fn mentioned(tokens: TokenStream, f: &mut dyn FnMut(&Ident)) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    // `name.len()` reads as one tree that is neither identifier nor punctuation (`None`).
    let mut view: Vec<Option<&TokenTree>> = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        let is_len = matches!(&trees[i], TokenTree::Ident(_))
            && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.')
            && matches!(trees.get(i + 2), Some(TokenTree::Ident(m)) if m == "len")
            && matches!(trees.get(i + 3), Some(TokenTree::Group(g)) if g.stream().is_empty());
        view.push((!is_len).then_some(&trees[i]));
        i += if is_len { 4 } else { 1 };
    }
    let variables = super::variables(&view);
    for (tt, variable) in view.iter().zip(variables) {
        match tt {
            Some(TokenTree::Ident(id)) if variable => f(id),
            Some(TokenTree::Group(g)) => mentioned(g.stream(), f),
            _ => {}
        }
    }
}

/// The names used as inline arguments of format strings (`"{x}"`, `"{x:.3}"`) in `tokens`.
pub fn format_names(tokens: TokenStream, out: &mut BTreeSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => format_names(g.stream(), out),
            TokenTree::Literal(l) => {
                let s = l.to_string();
                // (`"…"` or a raw string, `r"…"`, `r#"…"#`.)
                if !s
                    .trim_start_matches('r')
                    .trim_start_matches('#')
                    .starts_with('"')
                {
                    continue;
                }
                for piece in s.split('{').skip(1) {
                    let name: String = piece
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) {
                        out.insert(name);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The names assigned in `tokens`: `x = …`, `x += …` (not `==`, `<=`, fields or `let` names, which
/// follow `let`/`mut`).
pub fn assigned(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    writes_into(tokens, Write::Whole, &mut out);
    out
}

/// Methods that only read their receiver (`len`, `iter`, …).
pub const READ_ONLY: [&str; 14] = [
    "len", "is_empty", "iter", "get", "contains", "clone", "first", "last", "to_vec", "as_slice",
    "powi", "abs", "min", "max",
];

/// Names that a method is called on in `tokens` (`stack.pop()`, `rng.next()`), but for methods
/// that only read (`len`, `iter`, `get`, …, and those `also_reads` admits), and names borrowed
/// mutably (`&mut it`), each with where it is first.
pub fn method_receivers(
    tokens: TokenStream,
    also_reads: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, proc_macro2::Span> {
    let mut out = BTreeMap::new();
    method_calls(tokens.clone(), &mut |id, method| {
        if !READ_ONLY.contains(&method) && !also_reads(method) {
            out.entry(id.to_string()).or_insert(id.span());
        }
    });
    borrowed_mut(tokens, &mut out);
    out
}

/// Names a method outside `known` is called on in `tokens` (`e` of `e.det()`): values of the
/// user's types, where `known` lists the methods of numbers, vectors and the rule table.
pub fn receivers_of_others(tokens: TokenStream, known: &dyn Fn(&str) -> bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    method_calls(tokens, &mut |id, method| {
        if !known(method) {
            out.insert(id.to_string());
        }
    });
    out
}

/// Names borrowed mutably (`&mut it`), at any depth, each with where it is first.
fn borrowed_mut(tokens: TokenStream, out: &mut BTreeMap<String, proc_macro2::Span>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => borrowed_mut(g.stream(), out),
            TokenTree::Ident(id)
                if i >= 2
                    && matches!(&trees[i - 1], TokenTree::Ident(m) if m == "mut")
                    && matches!(&trees[i - 2], TokenTree::Punct(p) if p.as_char() == '&') =>
            {
                out.entry(id.to_string()).or_insert(id.span());
            }
            _ => {}
        }
    }
}

/// The names written element by element in `tokens`: `v[…] = …`, `v[…] += …`, `v.push(…)`.
pub fn element_written(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    writes_into(tokens.clone(), Write::Element, &mut out);
    pushed_onto(tokens, &mut out);
    out
}

/// Names followed by `.push(…)`.
fn pushed_onto(tokens: TokenStream, out: &mut BTreeSet<String>) {
    method_calls(tokens, &mut |id, method| {
        if method == "push" {
            out.insert(id.to_string());
        }
    });
}

/// Calls `f` with each name a method is called on (`v` and `push` of `v.push(x)`; not `b` of
/// `a.b.c()`), at any depth.
fn method_calls(tokens: TokenStream, f: &mut dyn FnMut(&Ident, &str)) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let dot = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '.');
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => method_calls(g.stream(), f),
            TokenTree::Ident(id) if !(i > 0 && dot(trees.get(i - 1))) && dot(trees.get(i + 1)) => {
                let called = matches!(trees.get(i + 3), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                if let (Some(TokenTree::Ident(m)), true) = (trees.get(i + 2), called) {
                    f(id, &m.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Names whose tuple components `tokens` reads (`t` of `t.0`), not fields (`s.t.0`).
pub fn component_read(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    component_names(tokens, &mut out);
    out
}

fn component_names(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let dot = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '.');
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => component_names(g.stream(), out),
            TokenTree::Ident(id) if !(i > 0 && dot(trees.get(i - 1))) && dot(trees.get(i + 1)) => {
                if matches!(trees.get(i + 2), Some(TokenTree::Literal(l)) if l.to_string().parse::<usize>().is_ok())
                {
                    out.insert(id.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Names indexed in `tokens` (`v` of `v[i]`), not fields (`s.v[i]`).
pub fn element_read(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    indexed_names(tokens, &mut out);
    out
}

fn indexed_names(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => indexed_names(g.stream(), out),
            TokenTree::Ident(id) => {
                let field =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                let bracket = matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Bracket);
                if bracket && !field {
                    out.insert(id.to_string());
                }
            }
            _ => {}
        }
    }
}

/// The names passed by reference as whole arguments (`f(x, &k1)`): in a function of numbers, a
/// call bound to one returns a vector, which is how a function taking a slice is given it.
pub fn referenced(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    referenced_arguments(tokens, &mut out);
    out
}

fn referenced_arguments(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for t in &trees {
        if let TokenTree::Group(g) = t {
            referenced_arguments(g.stream(), out);
        }
    }
    let comma =
        |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ',');
    for i in 0..trees.len() {
        let starts = i == 0 || comma(trees.get(i - 1));
        let amp = matches!(&trees[i], TokenTree::Punct(p) if p.as_char() == '&');
        if let (true, true, Some(TokenTree::Ident(id))) = (starts, amp, trees.get(i + 1)) {
            if trees.get(i + 2).is_none() || comma(trees.get(i + 2)) {
                out.insert(id.to_string());
            }
        }
    }
}

/// Names followed by `=` or `op=` (after a `[…]` when `indexed`).
/// What [`writes_into`] looks for: names assigned (`x = …`), written by element (`v[i] = …`), or
/// written by part (`s.x = …`, `s.vals[k] += …`).
#[derive(Clone, Copy, PartialEq)]
enum Write {
    Whole,
    Element,
    Part,
}

fn writes_into(tokens: TokenStream, write: Write, out: &mut BTreeSet<String>) {
    let indexed = write == Write::Element;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let punct = |i: usize| match trees.get(i) {
        Some(TokenTree::Punct(p)) => Some((p.as_char(), p.spacing())),
        _ => None,
    };
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => writes_into(g.stream(), write, out),
            TokenTree::Ident(id) => {
                let prev = i.checked_sub(1).and_then(|j| match &trees[j] {
                    TokenTree::Punct(p) => Some(p.as_char().to_string()),
                    TokenTree::Ident(p) => Some(p.to_string()),
                    _ => None,
                });
                if matches!(prev.as_deref(), Some("." | "let" | "mut" | "&")) {
                    continue;
                }
                let bracket = matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Bracket);
                if indexed && !bracket {
                    continue;
                }
                let mut at = i + 1 + usize::from(indexed);
                if write == Write::Part {
                    match past_parts(&trees, at) {
                        past if past == at => continue,
                        past => at = past,
                    }
                }
                let plain = matches!(punct(at), Some(('=', Spacing::Alone)));
                let compound = matches!(punct(at), Some(('+' | '-' | '*' | '/', Spacing::Joint)))
                    && matches!(punct(at + 1), Some(('=', Spacing::Alone)));
                if plain || compound {
                    out.insert(id.to_string());
                }
            }
            _ => {}
        }
    }
}

/// The names a part of which `tokens` write: `s` of `s.x = …`, `s.vals[k] += …`.
pub fn parts_assigned(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    writes_into(tokens, Write::Part, &mut out);
    out
}

/// The position after the field and index steps (`.x`, `.0`, `.vals[k]`) starting at `at`, if
/// there is a field among them; `at` otherwise (`v[i]` writes an element, see
/// [`element_written`]).
fn past_parts(trees: &[TokenTree], start: usize) -> usize {
    let (mut at, mut field) = (start, false);
    loop {
        let call = matches!(trees.get(at + 2), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
        match (trees.get(at), trees.get(at + 1)) {
            (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(_) | TokenTree::Literal(_)))
                if p.as_char() == '.' && !call =>
            {
                (at, field) = (at + 2, true)
            }
            (Some(TokenTree::Group(g)), _)
                if field && g.delimiter() == proc_macro2::Delimiter::Bracket =>
            {
                at += 1
            }
            _ => return if field { at } else { start },
        }
    }
}

/// The first identifier in `tokens`, at any depth, that is one of `names`.
pub fn find_ident(tokens: TokenStream, names: &[&str]) -> Option<Ident> {
    tokens.into_iter().find_map(|tt| match tt {
        TokenTree::Ident(id) if names.iter().any(|n| id == n) => Some(id),
        TokenTree::Group(g) => find_ident(g.stream(), names),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn receivers_of_changing_methods() {
        let ts = quote!(let r = stack.pop().unwrap_or(0.5) + v.len() as f64; f(&mut it); a.b.c(); w.push(1.0););
        let names: Vec<String> = method_receivers(ts, &|_| false).into_keys().collect();
        assert_eq!(names, ["it", "stack", "w"]);
    }

    #[test]
    fn finds_format_arguments() {
        let mut names = BTreeSet::new();
        format_names(quote!(println!("{x} {y:.3} {{}} {0}", z)), &mut names);
        format_names(quote!(println!(r"{w}"); print!(r#"{v:?}"#)), &mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["v", "w", "x", "y"]);
    }
}
