//! `jacobian_g` of a vector-valued `g`: a row per number of its result, by forward or reverse
//! passes, whichever are fewer.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use super::form::{Form, Function, Ret, Role};
use super::second::{cloned_args, doc};
use super::signature::param_list;
use crate::parse::Signature;

/// `jacobian_g` for a vector-valued `g` of scalar parameters: M rows, one column per parameter,
/// by N forward passes or M reverse passes, whichever is fewer. A value of the user's type
/// (`sig.ret_kind` is `Other`) has a row per number, in `Params`' order.
pub fn jacobian(item: &ItemFn, sig: &Signature, form: &Form) -> TokenStream {
    let (vis, name, float, ret) = (&item.vis, &item.sig.ident, &sig.float, &sig.ret);
    let diff: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect();
    // (Of numbers only: a row per result number, a column per parameter.)
    if !(diff.iter()).all(|i| sig.params[*i].kind == crate::ir::Kind::Scalar) {
        return TokenStream::new();
    }
    let [jvp, vjp, jac] = ["jvp", "vjp", "jacobian"].map(|p| format_ident!("{p}_{name}"));
    let params = param_list(sig);
    let args = cloned_args(sig);
    let locals = Locals::new();
    let Locals {
        value,
        m,
        c,
        r,
        t,
        j,
        g,
        ct,
    } = &locals;
    let n = diff.len();
    let (one, zero) = (form.lit("1.0"), form.lit("0.0"));
    let units = (0..n).map(|k| quote!(if #c == #k { #one } else { #zero }));
    let row = match n {
        1 => quote!(::std::vec![#g]),
        _ => {
            let idx = (0..n).map(syn::Index::from);
            quote!(::std::vec![#(#g.#idx),*])
        }
    };
    let doc = doc(format!(
        "The Jacobian of [`{name}`]: one row per component of its result, one column per differentiable parameter — by forward passes (`jvp_{name}`) or reverse passes (`vjp_{name}`), whichever are fewer."
    ));
    let (len, numbers, unit) = result_numbers(sig, form, name, &locals);
    let primal = form.call(Role::Jacobian, name, quote!(#(#args),*));
    let along = form.call(Role::Jacobian, &jvp, quote!(#(#args,)* #(#units),*));
    // (The cotangent apart: an adaptation may write it in the user's type.)
    let args_ct = args.iter().map(|a| quote!(#a)).chain([quote!(#ct)]);
    let back = form.call_with(Role::Jacobian, &vjp, args_ct.collect());
    form.function(Function {
        attrs: quote! {
            #doc
            #[allow(dead_code, clippy::too_many_arguments, clippy::needless_range_loop)]
        },
        vis: vis.clone(),
        name: jac.clone(),
        role: Role::Jacobian,
        valued: None,
        stub: None,
        params,
        ret: Some(Ret::Type(quote!(::std::vec::Vec<::std::vec::Vec<#float>>))),
        body: quote! {
            let #value: #ret = #primal;
            let #m = #len;
            if #n <= #m {
                let mut #j = ::std::vec![::std::vec![#zero; #n]; #m];
                for #c in 0..#n {
                    let (_, #t) = #along;
                    #numbers
                    for #r in 0..#m {
                        #j[#r][#c] = #t[#r];
                    }
                }
                #j
            } else {
                (0..#m)
                    .map(|#r| {
                        #unit
                        let #g = #back;
                        #row
                    })
                    .collect()
            }
        },
    })
}

/// The locals of `jacobian_g`: its result `value` of `m` numbers, the column `c` and row `r`, a
/// tangent `t`, the matrix `j`, a gradient `g` and a unit cotangent `ct`.
struct Locals {
    value: Ident,
    m: Ident,
    c: Ident,
    r: Ident,
    t: Ident,
    j: Ident,
    g: Ident,
    ct: Ident,
}

impl Locals {
    fn new() -> Locals {
        let id = |s: &str| Ident::new(s, Span::mixed_site());
        Locals {
            value: id("__value"),
            m: id("__m"),
            c: id("__c"),
            r: id("__r"),
            t: id("__t"),
            j: id("__j"),
            g: id("__g"),
            ct: id("__ct"),
        }
    }
}

/// How `jacobian_g` reads the numbers of its result `value`: their count, the statement that
/// turns a tangent `t` into its numbers, and the unit cotangent `ct` of number `r` of `m`.
fn result_numbers(
    sig: &Signature,
    form: &Form,
    name: &Ident,
    locals: &Locals,
) -> (TokenStream, TokenStream, TokenStream) {
    let Locals {
        value, t, ct, m, r, ..
    } = locals;
    let ret = &sig.ret;
    // (A value of the user's type is read and made through its numbers, `Params`' order.)
    let own = sig.ret_kind == crate::ir::Kind::Other;
    let (one, zero) = (form.lit("1.0"), form.lit("0.0"));
    match own {
        false => (
            quote!(#value.len()),
            quote!(),
            quote!(let mut #ct: #ret = ::diffx::__private::zero_elems(&#value); #ct[#r] = #one;),
        ),
        true => {
            // (Through `Params`, which the type must derive: otherwise a clear panic, not an
            // error in a function the caller may never use.)
            let numbers = quote!(
                use ::diffx::__private::{NoNumbers as _, ParamsNumbers as _};
            );
            let why = format!("jacobian_{name}: its result's type must derive `Params`, which gives the order of its numbers");
            (
                quote!({ #numbers (&::diffx::__private::Numbers(&#value)).numbers().expect(#why).len() }),
                quote!(let #t = { #numbers (&::diffx::__private::Numbers(&#t)).numbers().expect(#why) };),
                quote!(
                    let mut #ct = ::std::vec![#zero; #m];
                    #ct[#r] = #one;
                    let #ct: #ret = { #numbers (&::diffx::__private::Numbers(&#value)).shaped(&#ct).expect(#why) };
                ),
            )
        }
    }
}
