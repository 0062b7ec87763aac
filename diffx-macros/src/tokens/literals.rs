//! Float types and literals: whether a type or a token is a float, a float literal as a value of
//! the function's float type (a type parameter needs a conversion), and the number a constant
//! operand stands for.

use proc_macro2::{Ident, TokenStream, TokenTree};

use super::replace_trees;

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
