//! The templates of the table made into Rust: the float type and its constants filled in, the
//! placeholders listed (which operands a map reads) or bound (a map written out by emission).
//!
//! A template is parsed at its first use in an expansion ([`Templates`]); a parsed tree cannot be
//! kept for the next expansion, because its spans belong to this one. The unit tests parse every
//! row once, so a mistyped row fails `cargo test -p diffx-macros`, not a user's build.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use proc_macro2::{Ident, Spacing, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};

use crate::tokens;

/// The names a template may bind: the operands, the result, a linear map's tangent or cotangent,
/// and a residual.
pub const PLACEHOLDERS: [&str; 7] = ["a", "b", "c", "z", "t", "g", "r"];

/// The operands' placeholders, in order.
pub const OPERANDS: [&str; 3] = ["a", "b", "c"];

/// Templates parsed as expressions in this expansion, by template, with the float type filled in.
/// Shared by the builders of one expansion (they are clones of the first), each tree shared by
/// its uses (a tree's copy cost more than the rest of a use). A list: an expansion uses few of the
/// table's templates, found among them faster than their text is hashed.
pub type Templates = Rc<RefCell<Vec<(&'static str, Rc<syn::Expr>)>>>;

/// `template` as an expression (a partial derivative, which lowering makes into IR).
pub fn expr(
    cache: &Templates,
    template: &'static str,
    float: &Ident,
) -> syn::Result<Rc<syn::Expr>> {
    if let Some((_, expr)) = cache.borrow().iter().find(|(t, _)| *t == template) {
        return Ok(Rc::clone(expr));
    }
    let expr: Rc<syn::Expr> = Rc::new(syn::parse2(tokens_of(template, float)?)?);
    cache.borrow_mut().push((template, Rc::clone(&expr)));
    Ok(expr)
}

/// `template` written out with its placeholders replaced by `bindings` (each in parentheses
/// where it is more than one token).
pub fn write(
    template: &str,
    float: &Ident,
    bindings: &[(&str, TokenStream)],
) -> syn::Result<TokenStream> {
    let ts = tokens_of(template, float)?;
    Ok(tokens::substitute(ts, &mut |id| {
        bindings
            .iter()
            .find(|(n, _)| id == n)
            .map(|(_, t)| tokens::paren(t.clone()))
    }))
}

/// A path of the runtime written in the table (`::diffx::sigmoid`), as tokens.
pub fn path(path: &str) -> TokenStream {
    let segments = segments(path).map(|s| Ident::new(s, Span::call_site()));
    quote!(#(::#segments)*)
}

/// The names of a rule's function path, `f64::max`: `f64`, `max`.
pub fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split("::").filter(|s| !s.is_empty())
}

/// The placeholders `template` reads, in the order of [`PLACEHOLDERS`]: the operands of the
/// statement that applies it. Found once per template in the process (names have no spans).
pub fn placeholders(template: &'static str) -> Vec<&'static str> {
    thread_local! {
        static FOUND: RefCell<HashMap<&'static str, Vec<&'static str>>> = RefCell::default();
    }
    FOUND.with(|found| {
        found
            .borrow_mut()
            .entry(template)
            .or_insert_with(|| read_placeholders(template))
            .clone()
    })
}

fn read_placeholders(template: &str) -> Vec<&'static str> {
    let Ok(ts) = template.parse::<TokenStream>() else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    tokens::substitute(ts, &mut |id| {
        seen.insert(id.to_string());
        None
    });
    PLACEHOLDERS
        .into_iter()
        .filter(|p| seen.contains(*p))
        .collect()
}

/// The tokens of `template`, with `F`, `Tensor` and the float constants filled in.
///
/// For a function generic over its float type `T`, whose literals and `f64::from(bool)` Rust would
/// not make values of `T`, literals become `lit::<T>(…)`, `F::from` `from_bool::<T>` and the
/// constants `lit::<T>` of the `f64` ones.
fn tokens_of(template: &str, float: &Ident) -> syn::Result<TokenStream> {
    let generic = tokens::is_generic(float);
    let ts: TokenStream = syn::parse_str(template)?;
    let ts = match generic {
        true => tokens::typed_floats(from_bool(ts), &Ident::new("F", Span::call_site())),
        false => ts,
    };
    Ok(tokens::replace_all(
        ts,
        &mut |id| match id.to_string().as_str() {
            "F" => Some(float.to_token_stream()),
            "Tensor" => Some(quote!(::diffx::__private::Tensor::<#float>)),
            c @ ("LN_2" | "LN_10" | "PI") => {
                let c = Ident::new(c, Span::call_site());
                Some(match generic {
                    true => quote!(::diffx::__private::lit::<#float>(::core::f64::consts::#c)),
                    false => quote!(::core::#float::consts::#c),
                })
            }
            _ => None,
        },
    ))
}

/// `F::from(…)` (a bool as a float) replaced by `::diffx::__private::from_bool::<F>(…)`, at any
/// depth.
fn from_bool(ts: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        if is_f_from(&trees[i..]) {
            out.extend(quote!(::diffx::__private::from_bool::<F>));
            i += 4;
            continue;
        }
        out.push(match &trees[i] {
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), from_bool(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// Whether `trees` starts with `F :: from`.
fn is_f_from(trees: &[TokenTree]) -> bool {
    let colon = |t: &TokenTree, spacing| matches!(t, TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == spacing);
    matches!(trees, [TokenTree::Ident(f), c1, c2, TokenTree::Ident(from), ..]
        if f == "F" && from == "from" && colon(c1, Spacing::Joint) && colon(c2, Spacing::Alone))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::rules::{Deriv, Syntax, RULES};

    /// Every template of a row with the placeholders it may read.
    fn templates() -> Vec<(&'static str, &'static str, BTreeSet<&'static str>)> {
        let mut out = Vec::new();
        for rule in RULES {
            let operands = &OPERANDS[..rule.arity()];
            let with = |more: &[&'static str]| -> BTreeSet<&'static str> {
                operands
                    .iter()
                    .chain(["z"].iter())
                    .chain(more)
                    .copied()
                    .collect()
            };
            match &rule.deriv {
                Deriv::Partials(p) => out.extend(p.iter().map(|t| (rule.name, *t, with(&[])))),
                Deriv::Linear(maps) => {
                    for (jvp, vjp) in maps.iter() {
                        out.push((rule.name, *jvp, with(&["t"])));
                        out.push((rule.name, *vjp, with(&["g"])));
                    }
                }
            }
            if let Some(r) = &rule.residual {
                out.push((rule.name, r.forward, operands.iter().copied().collect()));
                out.extend(r.vjp.iter().map(|t| (rule.name, *t, with(&["g", "r"]))));
            }
        }
        out.retain(|(_, t, _)| !t.is_empty());
        out
    }

    #[test]
    fn every_template_parses_for_each_float_type() {
        for (name, template, _) in templates() {
            for float in ["f64", "f32", "T"] {
                let float = Ident::new(float, Span::call_site());
                let cache = Templates::default();
                let parsed = expr(&cache, template, &float);
                assert!(parsed.is_ok(), "`{name}`: `{template}` does not parse");
            }
        }
        let shape = Ident::new("f64", Span::call_site());
        assert!(write(crate::names::SHAPE_OF, &shape, &[]).is_ok());
    }

    #[test]
    fn every_template_reads_only_what_its_row_binds() {
        for (name, template, allowed) in templates() {
            let read: BTreeSet<_> = placeholders(template).into_iter().collect();
            let extra: Vec<_> = read.difference(&allowed).collect();
            assert!(extra.is_empty(), "`{name}`: `{template}` reads {extra:?}");
        }
    }

    #[test]
    fn linear_maps_are_linear_in_their_seed() {
        for rule in RULES {
            let Deriv::Linear(maps) = &rule.deriv else {
                continue;
            };
            for (jvp, vjp) in maps.iter().filter(|(j, _)| !j.is_empty()) {
                assert!(placeholders(jvp).contains(&"t"), "`{}`: `{jvp}`", rule.name);
                assert!(placeholders(vjp).contains(&"g"), "`{}`: `{vjp}`", rule.name);
            }
        }
    }

    #[test]
    fn every_row_has_its_operators_arity() {
        for rule in RULES {
            let arity = match rule.syntax {
                Syntax::Infix(_) => Some(2),
                Syntax::Prefix(_) => Some(1),
                _ => None,
            };
            assert!(arity.is_none_or(|n| n == rule.arity()), "`{}`", rule.name);
            // (An operator is one token: `Rule::operator`.)
            assert!(
                arity.is_none() || rule.syntax_op().len() == 1,
                "`{}`",
                rule.name
            );
            if let Some(r) = &rule.residual {
                assert_eq!(
                    r.vjp.len(),
                    rule.arity(),
                    "`{}`: one pullback per operand",
                    rule.name
                );
            }
            let fused = rule.tensors.fused;
            assert!(
                !fused || matches!(rule.deriv, Deriv::Linear(_)),
                "`{}`",
                rule.name
            );
        }
    }

    #[test]
    fn runtime_paths_are_written_as_paths() {
        for rule in RULES {
            if let Syntax::Func(p) = rule.syntax {
                assert_eq!(path(p).to_string().replace(' ', ""), p);
            }
        }
    }

    #[test]
    fn generic_floats_get_typed_literals_and_bools() {
        let t = Ident::new("T", Span::call_site());
        let out = write("F::from(a > 0.0) * 2.0", &t, &[("a", quote!(x))]).unwrap();
        assert_eq!(
            out.to_string(),
            quote!(
                ::diffx::__private::from_bool::<T>(x > ::diffx::__private::lit::<T>(0.0))
                    * ::diffx::__private::lit::<T>(2.0)
            )
            .to_string()
        );
    }
}
