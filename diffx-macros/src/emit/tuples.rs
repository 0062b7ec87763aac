//! The layout of a tuple result (`fn polar(r: f64, t: f64) -> (f64, f64)`), which the pipeline
//! differentiates as the array of its numbers (`adapt/tuples.rs`): how the parts sit in the array.

use proc_macro2::TokenStream;
use quote::quote;

use crate::names;

/// The parts of a tuple result: a number (`None`) or an array of that many numbers.
#[derive(Clone)]
pub struct Layout(pub Vec<Option<usize>>);

impl Layout {
    /// How many numbers the parts hold: the length of the array the pipeline differentiates.
    pub fn width(&self) -> usize {
        self.0.iter().map(|p| p.unwrap_or(1)).sum()
    }

    /// `__DIFFX_PARTS_f`: where each part starts in the array of the numbers, which a caller's
    /// `t.1[j]` reads as element `__DIFFX_PARTS_f[1] + j`.
    pub fn starts_const(&self, vis: &syn::Visibility, f: &syn::Ident) -> TokenStream {
        let name = names::parts(f);
        let (n, mut at) = (self.0.len(), 0);
        let starts = self.0.iter().map(|p| {
            let start = at;
            at += p.unwrap_or(1);
            start
        });
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, dead_code)]
            #vis const #name: [usize; #n] = [#(#starts),*];
        }
    }

    /// Whether some part is an array.
    pub fn nested(&self) -> bool {
        self.0.iter().any(Option::is_some)
    }

    /// The tuple of `v`'s elements, parted: `(v[0], [v[1], v[2]])`.
    pub fn parts(&self, v: &syn::Ident) -> TokenStream {
        let mut at = 0;
        let parts = self.0.iter().map(|p| match p {
            None => {
                at += 1;
                let k = at - 1;
                quote!(#v[#k])
            }
            Some(n) => {
                let idx = at..at + n;
                at += n;
                quote!([#(#v[#idx]),*])
            }
        });
        quote!((#(#parts,)*))
    }

    /// The array of the numbers of the tuple `t`: `[t.0, t.1[0], t.1[1]]`.
    pub(crate) fn flattened(&self, t: &TokenStream) -> TokenStream {
        let elems = self.0.iter().enumerate().flat_map(|(i, p)| {
            let i = syn::Index::from(i);
            match p {
                None => vec![quote!(#t.#i)],
                Some(n) => (0..*n).map(|k| quote!(#t.#i[#k])).collect(),
            }
        });
        quote!([#(#elems),*])
    }
}
