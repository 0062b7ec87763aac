//! Where a local closure's name is used as a value rather than called, which desugaring refuses:
//! a closure is written out where it is called.

use proc_macro2::{Span, TokenStream, TokenTree};

/// Where `name` is used other than called or given to an adaptor, in `tokens`: passed on,
/// stored, or named inside a macro (whose tokens are kept as written).
pub(super) fn value_use(tokens: TokenStream, name: &str, in_adaptor: bool) -> Option<Span> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        let next = trees.get(i + 1);
        let prev_dot = i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
        match tt {
            TokenTree::Ident(id) if id == name && !prev_dot => {
                let called = matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                if !called && !in_adaptor {
                    return Some(id.span());
                }
            }
            TokenTree::Group(g) => {
                let method = i >= 2
                    && matches!(&trees[i - 2], TokenTree::Punct(p) if p.as_char() == '.')
                    && matches!(&trees[i - 1], TokenTree::Ident(m) if ADAPTOR_ARGS.contains(&m.to_string().as_str()));
                let in_macro =
                    i >= 1 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!');
                if in_macro {
                    if let Some(span) = first_mention(g.stream(), name) {
                        return Some(span);
                    }
                } else if let Some(span) = value_use(g.stream(), name, method) {
                    return Some(span);
                }
            }
            _ => {}
        }
    }
    None
}

const ADAPTOR_ARGS: &[&str] = &["map", "filter", "fold", "reduce", "max_by", "min_by"];

fn first_mention(tokens: TokenStream, name: &str) -> Option<Span> {
    tokens.into_iter().find_map(|tt| match tt {
        TokenTree::Ident(id) if id == name => Some(id.span()),
        TokenTree::Group(g) => first_mention(g.stream(), name),
        _ => None,
    })
}
