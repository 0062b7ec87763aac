//! Token-level helpers: finding and replacing the user's variable names in code that is kept as
//! written (constant expressions, `println!` arguments, rule templates).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Group, Ident, Spacing, TokenStream, TokenTree};

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

/// Replaces each identifier that names a variable (not a field, method or path segment) for which
/// `f` gives tokens.
pub fn substitute(
    tokens: TokenStream,
    f: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> TokenStream {
    let mut out = Vec::new();
    let mut after_dot = false;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        let next_is_colons = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
            && matches!(trees.get(i + 2), Some(TokenTree::Punct(p)) if p.as_char() == ':');
        // `name!(…)` is a macro; `name != …` is not (its `!` is joint with `=`).
        let next_is_bang = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!' && p.spacing() == Spacing::Alone);
        let replaced = match tt {
            TokenTree::Ident(id) if !after_dot && !next_is_colons && !next_is_bang => f(id),
            _ => None,
        };
        match (replaced, tt) {
            (Some(ts), _) => out.extend(ts),
            (None, TokenTree::Group(g)) => {
                let mut ng = Group::new(g.delimiter(), substitute(g.stream(), f));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            (None, other) => out.push(other.clone()),
        }
        // A field follows one `.`; the end of a range follows `..`.
        let range = i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
        after_dot = matches!(tt, TokenTree::Punct(p) if p.as_char() == ':' || (p.as_char() == '.' && !range));
    }
    out.into_iter().collect()
}

/// Replaces every identifier for which `f` gives tokens, wherever it stands.
pub fn replace_all(
    tokens: TokenStream,
    f: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> TokenStream {
    replace_trees(tokens, &mut |tt| match tt {
        TokenTree::Ident(id) => f(id),
        _ => None,
    })
}

/// Replaces every token other than a group for which `f` gives tokens, inside groups too.
fn replace_trees(
    tokens: TokenStream,
    f: &mut dyn FnMut(&TokenTree) -> Option<TokenStream>,
) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), replace_trees(g.stream(), f));
                ng.set_span(g.span());
                TokenTree::Group(ng).into()
            }
            other => f(&other).unwrap_or_else(|| other.into()),
        })
        .collect()
}

/// Whether `tokens` mention a variable for which `pred` holds (in the sense of [`substitute`]),
/// other than for its length: `x.len()` is an integer whatever `x` holds.
pub fn mentions(tokens: TokenStream, pred: &mut dyn FnMut(&Ident) -> bool) -> bool {
    let mut found = false;
    substitute(without_lengths(tokens), &mut |id| {
        found |= pred(id);
        None
    });
    found
}

/// `tokens` with each `name.len()` replaced by `0`.
fn without_lengths(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        let is_len = matches!(&trees[i], TokenTree::Ident(_))
            && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.')
            && matches!(trees.get(i + 2), Some(TokenTree::Ident(m)) if m == "len")
            && matches!(trees.get(i + 3), Some(TokenTree::Group(g)) if g.stream().is_empty());
        if is_len {
            out.push(TokenTree::Literal(proc_macro2::Literal::usize_unsuffixed(
                0,
            )));
            i += 4;
            continue;
        }
        out.push(match &trees[i] {
            TokenTree::Group(g) => {
                TokenTree::Group(Group::new(g.delimiter(), without_lengths(g.stream())))
            }
            other => other.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// The names used as inline arguments of format strings (`"{x}"`, `"{x:.3}"`) in `tokens`.
pub fn format_names(tokens: TokenStream, out: &mut BTreeSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => format_names(g.stream(), out),
            TokenTree::Literal(l) => {
                let s = l.to_string();
                if !s.starts_with('"') {
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
    writes_into(tokens, false, &mut out);
    out
}

/// Names that a method is called on in `tokens` (`stack.pop()`, `rng.next()`), but for methods
/// that only read (`len`, `iter`, `get`, …), and names borrowed mutably (`&mut it`), each with
/// where it is first.
pub fn method_receivers(tokens: TokenStream) -> BTreeMap<String, proc_macro2::Span> {
    const READ_ONLY: [&str; 14] = [
        "len", "is_empty", "iter", "get", "contains", "clone", "first", "last", "to_vec",
        "as_slice", "powi", "abs", "min", "max",
    ];
    let mut out = BTreeMap::new();
    method_calls(tokens.clone(), &mut |id, method| {
        if !READ_ONLY.contains(&method) {
            out.entry(id.to_string()).or_insert(id.span());
        }
    });
    borrowed_mut(tokens, &mut out);
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

/// The names of a path's segments: `["diffx", "__private", "never"]`.
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The names written element by element in `tokens`: `v[…] = …`, `v[…] += …`, `v.push(…)`.
pub fn element_written(tokens: TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    writes_into(tokens.clone(), true, &mut out);
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

/// Whether `tokens` hold a float literal or name the float type `float` (`vec![0.0; n]`,
/// `Vec<f64>`).
pub fn has_float(tokens: TokenStream, float: &Ident) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Literal(l) => is_float_literal(&l),
        TokenTree::Ident(i) => i == *float || i == "f64" || i == "f32",
        TokenTree::Group(g) => has_float(g.stream(), float),
        TokenTree::Punct(_) => false,
    })
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

/// `tokens` with `t.0` written `t[0]` for the names `t` that are tuple values held as arrays
/// (`parts` gives where each part starts: the callee's const, or `None` for the index itself).
pub fn components_as_elements(
    tokens: TokenStream,
    parts: &dyn Fn(&Ident) -> Option<Option<TokenStream>>,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        let component = match (&trees[i], trees.get(i + 1), trees.get(i + 2)) {
            (TokenTree::Ident(id), Some(TokenTree::Punct(p)), Some(TokenTree::Literal(l)))
                if p.as_char() == '.'
                    && !(i > 0
                        && matches!(&trees[i - 1], TokenTree::Punct(q) if q.as_char() == '.')) =>
            {
                let k = l.to_string().parse::<usize>().ok();
                k.and_then(|k| Some((id, k, parts(id)?)))
            }
            _ => None,
        };
        if let Some((id, k, starts)) = component {
            // `p.1` → `p[__DIFFX_PARTS_f[1]]`, `p.1[j]` → `p[__DIFFX_PARTS_f[1] + j]`.
            let offset = match starts {
                Some(path) => quote::quote!(#path[#k]),
                None => {
                    let k = proc_macro2::Literal::usize_unsuffixed(k);
                    quote::quote!(#k)
                }
            };
            out.push(TokenTree::Ident(id.clone()));
            let indexed = match trees.get(i + 3) {
                Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Bracket => {
                    Some(components_as_elements(g.stream(), parts))
                }
                _ => None,
            };
            let index = match &indexed {
                Some(inner) => quote::quote!(#offset + #inner),
                None => offset,
            };
            out.push(TokenTree::Group(proc_macro2::Group::new(
                proc_macro2::Delimiter::Bracket,
                index,
            )));
            i += 3 + usize::from(indexed.is_some());
            continue;
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let inner = components_as_elements(g.stream(), parts);
                let mut group = proc_macro2::Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// `tokens` with `&name` written `name` for the `names` (bound to references already); `&v[i]`,
/// `&v.len()` and `&&v` stay.
pub fn without_borrow(tokens: TokenStream, names: &[String]) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (i, tt) in trees.iter().enumerate() {
        let is_amp =
            |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '&');
        match tt {
            TokenTree::Punct(p)
                if p.as_char() == '&'
                    && p.spacing() == proc_macro2::Spacing::Alone
                    && !(i > 0 && is_amp(trees.get(i - 1))) =>
            {
                let named = matches!(trees.get(i + 1), Some(TokenTree::Ident(id)) if names.contains(&id.to_string()));
                let ends = !matches!(trees.get(i + 2), Some(TokenTree::Punct(q)) if q.as_char() == '.')
                    && !matches!(trees.get(i + 2), Some(TokenTree::Group(g)) if g.delimiter() != proc_macro2::Delimiter::Brace);
                if !(named && ends) {
                    out.push(tt.clone());
                }
            }
            TokenTree::Group(g) => {
                let mut group =
                    proc_macro2::Group::new(g.delimiter(), without_borrow(g.stream(), names));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            _ => out.push(tt.clone()),
        }
    }
    out.into_iter().collect()
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
fn writes_into(tokens: TokenStream, indexed: bool, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let punct = |i: usize| match trees.get(i) {
        Some(TokenTree::Punct(p)) => Some((p.as_char(), p.spacing())),
        _ => None,
    };
    for (i, tt) in trees.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => writes_into(g.stream(), indexed, out),
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
                let at = i + 1 + usize::from(indexed);
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

/// The first identifier in `tokens`, at any depth, that is one of `names`.
pub fn find_ident(tokens: TokenStream, names: &[&str]) -> Option<Ident> {
    tokens.into_iter().find_map(|tt| match tt {
        TokenTree::Ident(id) if names.iter().any(|n| id == n) => Some(id),
        TokenTree::Group(g) => find_ident(g.stream(), names),
        _ => None,
    })
}

/// Whether `a` and `b` are the same tokens, tree by tree (an invisible group counts as its
/// contents; a literal is compared by how it is written, all a literal tells).
pub fn same(a: &TokenStream, b: &TokenStream) -> bool {
    fn flat(tokens: &TokenStream, out: &mut Vec<TokenTree>) {
        for t in tokens.clone() {
            match t {
                TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::None => {
                    flat(&g.stream(), out);
                }
                t => out.push(t),
            }
        }
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    flat(a, &mut x);
    flat(b, &mut y);
    x.len() == y.len()
        && x.iter().zip(&y).all(|pair| match pair {
            (TokenTree::Ident(p), TokenTree::Ident(q)) => p == q,
            (TokenTree::Punct(p), TokenTree::Punct(q)) => {
                p.as_char() == q.as_char() && p.spacing() == q.spacing()
            }
            (TokenTree::Literal(p), TokenTree::Literal(q)) => p.to_string() == q.to_string(),
            (TokenTree::Group(p), TokenTree::Group(q)) => {
                p.delimiter() == q.delimiter() && same(&p.stream(), &q.stream())
            }
            _ => false,
        })
}

/// Wraps `tokens` in parentheses unless they are a single token.
pub fn paren(tokens: TokenStream) -> TokenStream {
    let mut it = tokens.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(_), None) => tokens,
        _ => quote::quote!((#tokens)),
    }
}

/// `tokens` in parentheses unless a single token: an operand of an operator written around it
/// (`a /= 1.0 + a` is `a = a / (1.0 + a)`).
pub fn grouped(tokens: TokenStream) -> TokenStream {
    if tokens.clone().into_iter().nth(1).is_none() {
        tokens
    } else {
        TokenTree::Group(Group::new(proc_macro2::Delimiter::Parenthesis, tokens)).into()
    }
}

/// `tokens` with every token spanned at `span`, so that rustc reports an error in them there.
pub fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut ng = Group::new(g.delimiter(), respan(g.stream(), span));
                ng.set_span(span);
                tt = TokenTree::Group(ng);
            }
            tt.set_span(span);
            tt
        })
        .collect()
}

/// Whether `ty` is written as a float type: `f64`, `f32` or the function's float type `float`.
pub fn is_float_type(ty: &syn::Type, float: &Ident) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| i == float || i == "f64" || i == "f32"))
}

/// `ty` without the references and parentheses around it.
pub fn strip_refs(ty: syn::Type) -> syn::Type {
    match ty {
        syn::Type::Reference(r) => strip_refs(*r.elem),
        syn::Type::Paren(p) => strip_refs(*p.elem),
        syn::Type::Group(g) => strip_refs(*g.elem),
        t => t,
    }
}

/// The element type of an array, slice or `Vec` type.
pub fn element_type(ty: &syn::Type) -> Option<syn::Type> {
    match ty {
        syn::Type::Array(a) => Some((*a.elem).clone()),
        syn::Type::Slice(s) => Some((*s.elem).clone()),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last().filter(|s| s.ident == "Vec")?;
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
                    syn::GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `float` is a type parameter (the function is generic over its float type) rather than
/// `f64` or `f32`: its float literals must then be converted, since `0.5` alone is an `f64`.
pub fn is_generic(float: &Ident) -> bool {
    float != "f64" && float != "f32"
}

/// The float literal `text` as a value of `float`: as written for `f64`/`f32`,
/// `::diffx::__private::lit::<T>(text)` for a type parameter `T`.
pub fn float_lit(float: &Ident, text: &str) -> TokenStream {
    let lit: TokenTree = proc_macro2::Literal::f64_unsuffixed(text.parse().unwrap_or(0.0)).into();
    if is_generic(float) {
        quote::quote!(::diffx::__private::lit::<#float>(#lit))
    } else {
        lit.into()
    }
}

/// Whether `lit` is an unsuffixed float literal (`0.5`, `1e-3`), the kind whose type Rust infers.
fn is_float_literal(lit: &proc_macro2::Literal) -> bool {
    let s = lit.to_string().replace('_', "");
    // `1usize` has an `e` and `100` parses as a float: a float literal has a point or an exponent
    // and nothing else.
    (s.contains('.') || s.contains('e') || s.contains('E')) && s.parse::<f64>().is_ok()
}

/// `tokens` with every unsuffixed float literal made a value of the type parameter `float`
/// (`lit::<T>(…)`): for code the macro writes in a function generic over its float type.
pub fn typed_floats(tokens: TokenStream, float: &Ident) -> TokenStream {
    replace_trees(tokens, &mut |tt| match tt {
        TokenTree::Literal(l) if is_float_literal(l) => {
            Some(quote::quote!(::diffx::__private::lit::<#float>(#l)))
        }
        _ => None,
    })
}

/// `tokens` with `usize` suffixes dropped from integer literals (`s[0usize]` → `s[0]`), for
/// showing code the macro wrote.
#[cfg(feature = "explain")]
pub fn unsuffixed(tokens: TokenStream) -> TokenStream {
    replace_trees(tokens, &mut |tt| match tt {
        TokenTree::Literal(l) => {
            let text = l.to_string();
            let digits = text.strip_suffix("usize")?;
            digits
                .parse::<usize>()
                .ok()
                .map(|n| TokenTree::Literal(proc_macro2::Literal::usize_unsuffixed(n)).into())
        }
        _ => None,
    })
}

/// The number a constant operand stands for, if it is a float literal, possibly negated and
/// possibly converted by [`float_lit`]: `"1.0"`, `"- 1.0"`.
pub fn literal_value(tokens: &TokenStream) -> Option<String> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let (neg, rest) = match trees.split_first() {
        Some((TokenTree::Punct(p), rest)) if p.as_char() == '-' => (true, rest),
        _ => (false, &trees[..]),
    };
    let lit = match rest {
        [TokenTree::Literal(l)] => l.to_string(),
        // `:: diffx :: __private :: lit :: < T > (x)`: the literal is in the last group.
        [.., TokenTree::Ident(f), TokenTree::Punct(_), TokenTree::Punct(_), TokenTree::Punct(_), TokenTree::Ident(_), TokenTree::Punct(_), TokenTree::Group(g)]
            if f == "lit" =>
        {
            g.stream().to_string()
        }
        _ => return None,
    };
    Some(if neg { format!("- {lit}") } else { lit })
}

/// Whether `tokens` are a float literal alone or negated (`0.5`, `- 1.0`), as the transforms write
/// constants; the user's constant expressions (`T::from_f64(0.5).unwrap()`) are not.
pub fn is_bare_literal(tokens: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    match trees.as_slice() {
        [TokenTree::Literal(l)] => is_float_literal(l),
        [TokenTree::Punct(p), TokenTree::Literal(l)] => p.as_char() == '-' && is_float_literal(l),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn receivers_of_changing_methods() {
        let ts = quote!(let r = stack.pop().unwrap_or(0.5) + v.len() as f64; f(&mut it); a.b.c(); w.push(1.0););
        let names: Vec<String> = method_receivers(ts).into_keys().collect();
        assert_eq!(names, ["it", "stack", "w"]);
    }

    #[test]
    fn substitutes_variables_only() {
        let ts = quote!(x + p.x + f64::x(x) + x::y + m!(x) + (x != 0));
        let out = substitute(ts, &mut |id| (id == "x").then(|| quote!(v1)));
        assert_eq!(
            out.to_string(),
            "v1 + p . x + f64 :: x (v1) + x :: y + m ! (v1) + (v1 != 0)"
        );
    }

    #[test]
    fn finds_format_arguments() {
        let mut names = BTreeSet::new();
        format_names(quote!(println!("{x} {y:.3} {{}} {0}", z)), &mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["x", "y"]);
    }
}
