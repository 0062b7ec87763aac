//! Code kept as written ([`Code`]): a constant expression, a statement such as `println!`, a
//! loop's head. AD does not look inside it, but the passes must know which values it reads, so
//! the names are found once, where the code is made, and kept beside its tokens.

use std::cell::OnceCell;
use std::rc::Rc;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// Tokens opaque to AD, with the names they mention.
#[derive(Clone)]
pub struct Code {
    tokens: TokenStream,
    names: Rc<Names>,
}

struct Names {
    /// The identifiers that name a variable (not a field, method, macro or path segment), once
    /// per mention, in order: the values the code reads are among them.
    variables: Vec<String>,
    /// Every identifier, sorted, each once: what the code may refer to by name.
    all: Vec<String>,
    /// The number the code is, if it is a float literal ([`crate::tokens::literal_value`]):
    /// found when first asked, since products ask it of every constant factor.
    value: OnceCell<Option<String>>,
}

impl Code {
    /// `tokens`, with the names found in them.
    pub fn new(tokens: TokenStream) -> Code {
        let (variables, all) = crate::tokens::names(tokens.clone());
        Code {
            tokens,
            names: Rc::new(Names {
                variables,
                all,
                value: OnceCell::new(),
            }),
        }
    }

    /// A literal (`2.0`, `"text"`), which names nothing.
    pub fn literal(tokens: TokenStream) -> Code {
        Code {
            tokens,
            names: Rc::new(Names {
                variables: Vec::new(),
                all: Vec::new(),
                value: OnceCell::new(),
            }),
        }
    }

    /// The code as written.
    pub fn tokens(&self) -> &TokenStream {
        &self.tokens
    }

    /// The identifiers in variable position, once per mention (`x` and `n` in `x.len() + n`).
    pub fn variables(&self) -> &[String] {
        &self.names.variables
    }

    /// Every identifier, each once (`x`, `len` and `n` in `x.len() + n`).
    pub fn idents(&self) -> &[String] {
        &self.names.all
    }

    /// The number the code is, if it is a float literal, possibly negated: `"1.0"`, `"- 1.0"`.
    pub fn literal_value(&self) -> Option<&str> {
        let value = &self.names.value;
        value
            .get_or_init(|| crate::tokens::literal_value(&self.tokens))
            .as_deref()
    }

    /// Whether the code is the name `name` alone.
    pub fn is_name(&self, name: &str) -> bool {
        self.name() == Some(name)
    }

    /// The name the code is, if it is one name alone (`k`, not `k + 1` or `f(k)`).
    pub fn name(&self) -> Option<&str> {
        let [name] = &self.names.variables[..] else {
            return None;
        };
        let mut trees = self.tokens.clone().into_iter();
        match (trees.next(), trees.next()) {
            (Some(TokenTree::Ident(_)), None) => Some(name),
            _ => None,
        }
    }

    /// Whether the code is `()`.
    pub fn is_unit(&self) -> bool {
        let mut trees = self.tokens.clone().into_iter();
        matches!(
            (trees.next(), trees.next()),
            (Some(TokenTree::Group(g)), None)
                if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty()
        )
    }
}

impl quote::ToTokens for Code {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.tokens.to_tokens(out);
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.tokens)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.tokens)
    }
}

impl From<TokenStream> for Code {
    fn from(tokens: TokenStream) -> Code {
        Code::new(tokens)
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::Code;

    #[test]
    fn names_are_found_once_with_their_positions() {
        let c = Code::new(quote!(x.len() + n * x[i] + f64::from(k) + m!(y)));
        // Variables: not fields, methods, path segments or macro names; once per mention.
        assert_eq!(c.variables(), ["x", "n", "x", "i", "k", "y"]);
        assert_eq!(
            c.idents(),
            ["f64", "from", "i", "k", "len", "m", "n", "x", "y"]
        );
    }

    #[test]
    fn a_name_alone_and_unit_are_told_by_their_tokens() {
        assert_eq!(Code::new(quote!(k)).name(), Some("k"));
        assert!(Code::new(quote!(k)).is_name("k"));
        assert_eq!(Code::new(quote!((k))).name(), None);
        assert_eq!(Code::new(quote!(k + 1)).name(), None);
        assert!(Code::new(quote!(())).is_unit());
        assert!(!Code::new(quote!((1.0))).is_unit());
        assert!(!Code::new(quote!(() + ())).is_unit());
    }

    #[test]
    fn a_literal_names_nothing() {
        let c = Code::literal(quote!(2.5));
        assert!(c.variables().is_empty() && c.idents().is_empty());
        assert_eq!(c.tokens().to_string(), "2.5");
    }
}
