//! The way out: the functions written for the array version of a function returning the user's
//! shape, dressed as emission writes them to take and return that shape ([`Dress`]).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Item, ItemFn};

use super::Layout;
use crate::emit::form::{self, Parts, Ret, Role};
use crate::emit::signature::Typed;
use crate::names;

/// The way out of a struct result: the user's `function`, returning the struct of `layout`.
pub struct Dress {
    pub function: ItemFn,
    pub layout: Layout,
}

impl Dress {
    fn name(&self) -> &Ident {
        &self.function.sig.ident
    }

    /// The split function of the array version, which the user's calls when it cuts.
    fn array_split(&self) -> Ident {
        names::split(format_ident!("array_{}", self.name()))
    }
}

impl form::Dress for Dress {
    fn primal(&self, items: Vec<Item>) -> Vec<Item> {
        super::super::at_primal(items, self.name(), |f| {
            vec![
                super::super::user(&self.function, true),
                super::super::hidden_core(f, names::array(self.name())),
            ]
        })
    }

    // The generated functions call the array version; the split function of a cut one is the
    // array version's, and a wrapper in the user's type calls it.
    fn callee(&self, caller: Role, callee: &Ident) -> Option<Ident> {
        match caller {
            Role::SplitAgain => None,
            _ if callee == self.name() => Some(names::array(self.name())),
            _ if *callee == names::split(self.name()) => Some(self.array_split()),
            _ => None,
        }
    }

    // `jacobian_f`'s reverse passes take their unit cotangent as a value of the user's type.
    fn args(&self, caller: Role, callee: &Ident, args: &mut Vec<TokenStream>) {
        if caller != Role::Jacobian || *callee != format_ident!("vjp_{}", self.name()) {
            return;
        }
        let Some(ct) = args.pop() else { return };
        let (shaped, numbers) = (self.layout.rebuild(&quote!((__ct))), numbers());
        args.push(quote!({
            let __ct = #ct;
            let __s = #shaped;
            #numbers
            let __n = (&::diffx::__private::Numbers(&__s)).shaped(&__ct[..]);
            __n.unwrap_or(__s)
        }));
    }

    // `jacobian_f`'s forward passes read their tangent's numbers in `Params`' order where the
    // type derives it (a struct's fields as declared, a matrix's rows one after another), else as
    // the literal writes the fields (`diffx::__private::Numbers` chooses at compile time).
    fn around(&self, caller: Role, callee: &Ident, call: TokenStream) -> TokenStream {
        if caller != Role::Jacobian || *callee != format_ident!("jvp_{}", self.name()) {
            return call;
        }
        let (t, numbers) = (self.layout.flatten(&quote!(__t)), numbers());
        quote!({
            let (_, __t) = #call;
            #numbers
            let __n = (&::diffx::__private::Numbers(&__t)).numbers();
            ((), __n.unwrap_or_else(|| #t.to_vec()))
        })
    }

    fn value_type(&self, role: Role) -> Option<TokenStream> {
        let ty = &self.layout.ty;
        (role == Role::SplitAgain).then(|| quote!(#ty))
    }

    // The hidden functions convert; the public ones hand the structs through.
    fn function(&self, p: &mut Parts) -> Vec<Parts> {
        let ty = &self.layout.ty;
        match p.f.role {
            Role::HiddenJvp => self.returns_pair(p),
            Role::HiddenVjp => {
                self.takes_cotangents(p, 1);
                self.returns_value_first(p);
            }
            Role::HiddenHvp if p.f.stub.is_none() => {
                // (The cotangent and its tangent, for callers' second order.)
                self.takes_cotangents(p, 2);
                self.returns_value_first(p);
            }
            Role::Explain => self.takes_cotangents(p, 1),
            Role::Jvp => p.f.ret = Some(Ret::Type(quote!((#ty, #ty)))),
            Role::Vjp => {
                if let Some(ct) = p.f.params.last_mut() {
                    ct.ty = quote!(#ty);
                }
            }
            Role::Split => return vec![self.cut_split(p)],
            _ => {}
        }
        Vec::new()
    }
}

/// The runtime's traits through which `jacobian_f` reads a value's numbers.
fn numbers() -> TokenStream {
    quote!(
        use ::diffx::__private::{NoNumbers as _, ParamsNumbers as _};
    )
}

impl Dress {
    /// `__diffx_jvp_f`: the value and the tangent, each a struct.
    fn returns_pair(&self, p: &mut Parts) {
        let (v, t) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__tangent", Span::mixed_site()),
        );
        let (rv, rt) = (
            self.layout.rebuild(&quote!(#v)),
            self.layout.rebuild(&quote!(#t)),
        );
        let body = &p.f.body;
        p.f.body = quote!(let (#v, #t) = { #body }; (#rv, #rt));
        let ty = &self.layout.ty;
        p.f.ret = Some(Ret::Type(quote!((#ty, #ty))));
    }

    /// `__diffx_vjp_f`, `__diffx_hvp_f`: the value, a struct, then the gradients (and their
    /// tangents).
    fn returns_value_first(&self, p: &mut Parts) {
        let Some(Ret::Tuple(parts)) = &mut p.f.ret else {
            return;
        };
        let v = Ident::new("__value", Span::mixed_site());
        let rest: Vec<Ident> = (1..parts.len())
            .map(|k| format_ident!("__rest{}", k - 1, span = Span::mixed_site()))
            .collect();
        let ty = &self.layout.ty;
        parts[0] = quote!(#ty);
        let rv = self.layout.rebuild(&quote!(#v));
        let body = &p.f.body;
        p.f.body = quote!(let (#v, #(#rest),*) = { #body }; (#rv, #(#rest),*));
    }

    /// The last `n` parameters (the cotangent, and its tangent) as values of the user's type.
    fn takes_cotangents(&self, p: &mut Parts, n: usize) {
        let ty = &self.layout.ty;
        let count = p.f.params.len();
        let mut reads = Vec::new();
        for param in p.f.params.iter_mut().skip(count.saturating_sub(n)) {
            let Some(name) = param.name.clone() else {
                continue;
            };
            param.ty = quote!(#ty);
            let numbers = self.layout.flatten(&quote!(#name));
            reads.push(quote!(let #name = #numbers;));
        }
        // (Each read before the others: the last parameter's first.)
        for read in reads {
            p.f.prepend(read);
        }
    }

    /// `__diffx_split_f` (see `emit::split`) taking and returning the user's type, through the
    /// cut split function of the array version, `split` renamed.
    fn cut_split(&self, split: &mut Parts) -> Parts {
        let mut user = Parts {
            f: split.f.clone(),
            receiver: split.receiver.clone(),
        };
        split.f.name = self.array_split();
        let ty = &self.layout.ty;
        let Some(Ret::Split {
            value, inputs, ct, ..
        }) = &mut user.f.ret
        else {
            return user;
        };
        *value = quote!(#ty);
        inputs[*ct] = quote!(#ty);
        let args: Vec<&Ident> = user
            .f
            .params
            .iter()
            .filter_map(|p| p.name.as_ref())
            .collect();
        let (v, pullback, ct_name) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__pullback", Span::mixed_site()),
            Ident::new("__ct", Span::mixed_site()),
        );
        let rest = [
            Ident::new("__wanted", Span::mixed_site()),
            Ident::new("__slots", Span::mixed_site()),
        ];
        let closure_params: Vec<Typed> = (args.iter().copied())
            .chain([&ct_name])
            .chain(&rest)
            .zip(inputs.iter())
            .map(|(a, t)| Typed::new(a, t))
            .collect();
        let (value, numbers) = (
            self.layout.rebuild(&quote!(#v)),
            self.layout.flatten(&quote!(#ct_name)),
        );
        let (array_split, [w, sl]) = (&split.f.name, &rest);
        user.f.body = quote! {
            let (#v, #pullback) = #array_split(#(#args),*);
            (#value, move |#(#closure_params),*| #pullback(#(#args,)* #numbers, #w, #sl))
        };
        user
    }
}
