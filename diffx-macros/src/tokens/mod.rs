//! Token helpers for code kept as written (constant expressions, `println!` arguments, rule
//! templates): replacing the user's names in it (`substitute`, `replace_all`), rewriting it
//! (`components_as_elements`, `without_borrow`, `respan`), and comparing and grouping tokens.
//! `scan.rs` finds names in tokens; `literals.rs` holds the float types and literals.

use proc_macro2::{Group, Ident, Spacing, TokenStream, TokenTree};

mod literals;
mod scan;

#[cfg(feature = "explain")]
pub use literals::unsuffixed;
pub use literals::{
    element_type, float_lit, has_float, is_bare_literal, is_float_type, is_generic, literal_value,
    strip_refs, typed_floats,
};
pub use scan::{
    assigned, component_read, element_read, element_written, find_ident, format_names, idents,
    mentions, method_receivers, parts_assigned, receivers_of_others, referenced, READ_ONLY,
};

/// Replaces each identifier that names a variable (not a field, method or path segment) for which
/// `f` gives tokens. Tokens where nothing is replaced are returned as they came: walking costs a
/// call across the compiler's bridge per group, rebuilding one more per group and every token
/// crossing again, and most calls (the scans that only look) replace nothing.
pub fn substitute(
    tokens: TokenStream,
    f: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    substituted(&trees, f).unwrap_or(tokens)
}

/// [`substitute`] of one level's trees, `None` if nothing in them was replaced.
fn substituted(
    trees: &[TokenTree],
    f: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> Option<TokenStream> {
    let view: Vec<Option<&TokenTree>> = trees.iter().map(Some).collect();
    let variables = variables(&view);
    // (Built from the first replacement on, with the trees before it.)
    let mut out: Option<Vec<TokenTree>> = None;
    for (i, tt) in trees.iter().enumerate() {
        let replaced = match tt {
            TokenTree::Ident(id) if variables[i] => f(id),
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                substituted(&inner, f).map(|stream| {
                    let mut ng = Group::new(g.delimiter(), stream);
                    ng.set_span(g.span());
                    TokenStream::from(TokenTree::Group(ng))
                })
            }
            _ => None,
        };
        match (replaced, &mut out) {
            (Some(ts), out) => out.get_or_insert_with(|| trees[..i].to_vec()).extend(ts),
            (None, Some(out)) => out.push(tt.clone()),
            (None, None) => {}
        }
    }
    out.map(TokenStream::from_iter)
}

/// The identifiers of `tokens`, at any depth: those that name a variable in the sense of
/// [`substitute`], in order and once per mention, and every identifier (fields, methods and path
/// segments too). One walk, for [`crate::ir::Code`], which keeps them beside the tokens.
pub fn names(tokens: TokenStream) -> (Vec<String>, Vec<String>) {
    fn walk(tokens: TokenStream, variables_out: &mut Vec<String>, all: &mut Vec<String>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let view: Vec<Option<&TokenTree>> = trees.iter().map(Some).collect();
        let variable = variables(&view);
        for (tt, variable) in trees.into_iter().zip(variable) {
            match tt {
                TokenTree::Ident(id) => {
                    let name = id.to_string();
                    if variable {
                        variables_out.push(name.clone());
                    }
                    all.push(name);
                }
                TokenTree::Group(g) => walk(g.stream(), variables_out, all),
                _ => {}
            }
        }
    }
    let (mut variables_out, mut all) = (Vec::new(), Vec::new());
    walk(tokens, &mut variables_out, &mut all);
    all.sort_unstable();
    all.dedup();
    (variables_out, all)
}

/// Which of one level's trees name a variable in the sense of [`substitute`] (`None` stands for a
/// tree that is no identifier or punctuation: [`scan::mentions`]' `0` for a length).
fn variables(trees: &[Option<&TokenTree>]) -> Vec<bool> {
    let punct = |i: usize| match trees.get(i) {
        Some(Some(TokenTree::Punct(p))) => Some((p.as_char(), p.spacing())),
        _ => None,
    };
    let mut out = Vec::with_capacity(trees.len());
    let mut after_dot = false;
    for (i, tt) in trees.iter().enumerate() {
        let next_is_colons =
            matches!(punct(i + 1), Some((':', _))) && matches!(punct(i + 2), Some((':', _)));
        // `name!(…)` is a macro; `name != …` is not (its `!` is joint with `=`).
        let next_is_bang = punct(i + 1) == Some(('!', Spacing::Alone));
        out.push(
            matches!(tt, Some(TokenTree::Ident(_)))
                && !after_dot
                && !next_is_colons
                && !next_is_bang,
        );
        // A field follows one `.`; the end of a range follows `..`.
        let range = i > 0 && matches!(punct(i - 1), Some(('.', _)));
        after_dot =
            matches!(punct(i), Some((':', _))) || (matches!(punct(i), Some(('.', _))) && !range);
    }
    out
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

/// The names of a path's segments: `["diffx", "__private", "never"]`.
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
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

/// [`respan`], each token keeping how its names resolve: generated names (a tangent `x_dot`) stay
/// the macro's, whose declarations a function written by `macro_rules!` sees with other hygiene.
pub fn locate(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    map_spans(tokens, &|s| s.located_at(span))
}

/// `tokens` with every token spanned at `span`, so that rustc reports an error in them there.
pub fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    map_spans(tokens, &|_| span)
}

fn map_spans(
    tokens: TokenStream,
    f: &dyn Fn(proc_macro2::Span) -> proc_macro2::Span,
) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut ng = Group::new(g.delimiter(), map_spans(g.stream(), f));
                ng.set_span(f(g.span()));
                tt = TokenTree::Group(ng);
            }
            tt.set_span(f(tt.span()));
            tt
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn substitutes_variables_only() {
        let ts = quote!(x + p.x + f64::x(x) + x::y + m!(x) + (x != 0));
        let out = substitute(ts, &mut |id| (id == "x").then(|| quote!(v1)));
        assert_eq!(
            out.to_string(),
            "v1 + p . x + f64 :: x (v1) + x :: y + m ! (v1) + (v1 != 0)"
        );
    }
}
