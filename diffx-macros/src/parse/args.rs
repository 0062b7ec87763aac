//! The attribute's arguments (`wrt`, `order`, `loops`, `checkpoint`), and what an `#[autodiff]`
//! `impl` block tells each of its functions.

use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;

/// `#[autodiff(wrt(x, y), order = 3, loops = "recompute")]`.
#[derive(Clone, Default)]
pub struct Args {
    pub wrt: Option<Vec<Ident>>,
    /// `order = n`: the highest order of derivative functions asked for, which must then be
    /// written (an error says why not otherwise). Without it, first order only.
    pub order: Option<Order>,
    /// `loops = "recompute"`: reverse mode's loops run their bodies again in the backward sweep
    /// instead of recording what it reads (`loops = "record"`, the default, where a loop can).
    pub recompute: bool,
    /// `checkpoint = s`: reverse mode's top-level loops keep at most `s + 1` snapshots of their
    /// state and run iterations again by a binomial schedule (`reverse/checkpoint.rs`), instead of
    /// recording every iteration. The span is the argument's, where an error points.
    pub checkpoint: Option<(usize, proc_macro2::Span)>,
    /// Not an argument: set for the functions of an `#[autodiff]` `impl` block, which are
    /// associated functions whatever their signatures name.
    pub associated: bool,
    /// Not an argument: the float type parameter of the `#[autodiff]` `impl` block the function
    /// is in (`impl<T: Float> Spring<T>`), which its signature names without declaring.
    pub impl_float: Option<Ident>,
    /// Not an argument: parameters that are constants whatever their types (an output the body
    /// only writes, `adapt::outputs`).
    pub constants: Vec<Ident>,
    /// Not an argument: the name of the self type of the `#[autodiff]` `impl` block the function
    /// is in (`KM` in `impl Add for KM`), which is never its float type.
    pub self_type: Option<Ident>,
    /// Not an argument: what the other functions of the `#[autodiff]` `impl` block say.
    pub block: BlockFacts,
}

/// What an `#[autodiff]` `impl` block tells each of its functions about the others, which a
/// function alone cannot see.
#[derive(Clone, Default)]
pub struct BlockFacts {
    /// The widths of the self type's array fields, as the block's struct literals write them
    /// (`vals: [a, b, c]`, `vals: [0.0; 6]`): a literal may give a field another way
    /// (`vals: self.vals.map(|v| v * s)`).
    pub field_widths: Vec<(syn::Member, usize)>,
    /// The functions of the block that return the self type: a call of one (`Self::f(…)`,
    /// `T::f(…)`) is a value of the user's type, whose operators are its impls'.
    pub returning_self: Vec<Ident>,
    /// The fields of the self type as the block's first struct literal of it lists them, each
    /// a number (`None`) or an array of that many: a function returning a local of the type
    /// (`let mut r = Self::zero(); … r`) returns these.
    pub layout: Vec<(syn::Member, Option<usize>)>,
}

/// An `order = n` argument: 1, 2 or 3.
#[derive(Clone, Copy)]
pub struct Order {
    pub n: u8,
}

pub fn args(attr: TokenStream) -> syn::Result<Args> {
    let mut args = Args::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("wrt") {
            let content;
            syn::parenthesized!(content in meta.input);
            // `Ident::parse_any` also takes `self` (`wrt(self, x)`).
            let names = content
                .parse_terminated(<Ident as syn::ext::IdentExt>::parse_any, syn::Token![,])?;
            args.wrt = Some(names.into_iter().collect());
            Ok(())
        } else if meta.path.is_ident("order") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            match lit.base10_parse::<u8>() {
                Ok(n @ 1..=3) => {
                    args.order = Some(Order { n });
                    Ok(())
                }
                _ => Err(syn::Error::new(
                    lit.span(),
                    "`order` is 1, 2 or 3: the highest derivative to write (`order = 2` adds `hvp_`/`grad_and_hvp_`/`hessian_`, `order = 3` adds `dhvp_`)",
                )),
            }
        } else if meta.path.is_ident("loops") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            match lit.value().as_str() {
                "record" => Ok(()),
                "recompute" => {
                    args.recompute = true;
                    Ok(())
                }
                _ => Err(syn::Error::new(
                    lit.span(),
                    "`loops` is \"record\" (the default: the forward sweep keeps what the backward sweep reads) or \"recompute\" (the backward sweep runs each loop body again, keeping less)",
                )),
            }
        } else if meta.path.is_ident("checkpoint") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            match lit.base10_parse::<usize>() {
                Ok(n @ 1..) => {
                    args.checkpoint = Some((n, meta.path.span()));
                    Ok(())
                }
                _ => Err(syn::Error::new(
                    lit.span(),
                    "`checkpoint` is the number of snapshots of a loop's state reverse mode may keep, at least 1 (`checkpoint = 16`)",
                )),
            }
        } else {
            let name = meta.path.to_token_stream().to_string().replace(' ', "");
            Err(meta.error(format!(
                "unknown argument `{name}`: `#[autodiff]` takes `wrt(x, y)` to choose the parameters to differentiate, `order = 2` or `order = 3` for higher derivatives, and `loops = \"recompute\"` or `checkpoint = 16` to keep less memory in reverse mode"
            )))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    if let (Some((_, at)), true) = (args.checkpoint, args.recompute) {
        return Err(syn::Error::new(
            at,
            "`checkpoint` and `loops = \"recompute\"` are two ways to keep less memory: choose one (`checkpoint` bounds it by the number of snapshots)",
        ));
    }
    Ok(args)
}
