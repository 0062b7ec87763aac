//! A parameter that is a function of numbers (`op: impl Fn(f64, f64) -> f64`): the macro cannot
//! see its body, so its argument brings its partial derivatives (`diffx::DiffFn`). On the way in,
//! the pipeline gets the function taking `op: impl DiffFn<f64, 2>`, and each call `op(a, b)`
//! written as the value and partials `op` gives at `(a, b)`, carried to `a` and `b` by the
//! derivative table's `linear2` row. On the way out, the user's function comes back as written;
//! the derivative functions take the `DiffFn`, which a caller's `#[autodiff]` body builds for a
//! path of the table (`f64::add`, `f64::max`) and anyone else with `diffx::with_partials`.
//!
//! First order only: the partials are numbers, not functions the second order could
//! differentiate again.

use proc_macro2::{Ident, Span};
use quote::format_ident;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, FnArg, Item, ItemFn, Pat, Type};

use crate::emit::form::{self, Parts, Role};
use crate::parse;

/// For a function with parameters that are functions of one or two numbers: the function taking
/// them as `impl DiffFn`, its calls of them linearized, with `args` marking them constants.
pub fn into_core(item: &ItemFn, args: &mut parse::Args) -> syn::Result<Option<ItemFn>> {
    // (Most functions take none: no copy of them then.)
    if !takes_function(item) {
        return Ok(None);
    }
    let mut core = item.clone();
    let mut params = Vec::new();
    let mut generics: Vec<syn::GenericParam> = Vec::new();
    for input in core.sig.inputs.iter_mut() {
        let FnArg::Typed(pt) = input else { continue };
        let Pat::Ident(pi) = &*pt.pat else { continue };
        let Some((n, float)) = function_type(&pt.ty) else {
            continue;
        };
        if !(1..=2).contains(&n) {
            return Err(syn::Error::new_spanned(&pt.ty, "`#[autodiff]` differentiates through a function parameter of one or two numbers (`impl Fn(f64, f64) -> f64`): pass the others' results instead"));
        }
        // (A type parameter, not `impl DiffFn`: the split function's pullback names it.)
        let g = format_ident!("__DiffFn{}", params.len());
        generics.push(syn::parse_quote!(#g: ::diffx::DiffFn<#float, #n> + Copy));
        *pt.ty = syn::parse_quote!(#g);
        params.push((pi.ident.clone(), n));
    }
    core.sig.generics.params.extend(generics);
    if params.is_empty() {
        return Ok(None);
    }
    if args.order.is_some_and(|o| o.n > 1) {
        return Err(syn::Error::new(
            item.sig.ident.span(),
            "a function with a function parameter is differentiated to first order: its argument brings first partial derivatives, not second ones (remove `order`)",
        ));
    }
    let mut calls = Calls {
        params: &params,
        counter: 0,
    };
    calls.visit_block_mut(&mut core.block);
    args.constants.extend(params.iter().map(|(p, _)| p.clone()));
    Ok(Some(core))
}

/// Whether `item` takes a function parameter.
pub fn takes_function(item: &ItemFn) -> bool {
    let typed = |i: &FnArg| matches!(i, FnArg::Typed(pt) if function_type(&pt.ty).is_some());
    item.sig.inputs.iter().any(typed)
}

/// `impl Fn(F, …) -> F`, `&dyn Fn(F, …) -> F` or `fn(F, …) -> F`: the number of arguments and
/// the float type.
fn function_type(ty: &Type) -> Option<(usize, Type)> {
    let (inputs, output) = match ty {
        Type::ImplTrait(t) => fn_bound(t.bounds.iter())?,
        Type::Reference(r) => match &*r.elem {
            Type::TraitObject(t) => fn_bound(t.bounds.iter())?,
            _ => return None,
        },
        Type::BareFn(f) => {
            let inputs: Vec<Type> = f.inputs.iter().map(|a| a.ty.clone()).collect();
            let syn::ReturnType::Type(_, out) = &f.output else {
                return None;
            };
            (inputs, (**out).clone())
        }
        _ => return None,
    };
    // (The same single name: `f64`, `f32` or the float type parameter.)
    let number = |t: &Type| match t {
        Type::Path(p) => p.path.get_ident().cloned(),
        _ => None,
    };
    let float = number(&output)?;
    inputs
        .iter()
        .all(|t| number(t).as_ref() == Some(&float))
        .then_some((inputs.len(), output))
}

/// The argument and result types of an `Fn`, `FnMut` or `FnOnce` bound among `bounds`.
fn fn_bound<'a>(
    bounds: impl Iterator<Item = &'a syn::TypeParamBound>,
) -> Option<(Vec<Type>, Type)> {
    for b in bounds {
        let syn::TypeParamBound::Trait(t) = b else {
            continue;
        };
        let last = t.path.segments.last()?;
        if !["Fn", "FnMut", "FnOnce"].iter().any(|f| last.ident == f) {
            continue;
        }
        let syn::PathArguments::Parenthesized(a) = &last.arguments else {
            continue;
        };
        let syn::ReturnType::Type(_, out) = &a.output else {
            return None;
        };
        return Some((a.inputs.iter().cloned().collect(), (**out).clone()));
    }
    None
}

/// Rewrites `op(a, b)` of a function parameter into
/// `{ let x0 = a; let x1 = b; diffx::linear2(diffx::stop_gradient(DiffFn::value_and_partials(&op, [x0, x1])), x0, x1) }`.
struct Calls<'a> {
    params: &'a [(Ident, usize)],
    counter: usize,
}

impl VisitMut for Calls<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        let Expr::Call(c) = e else { return };
        let Expr::Path(p) = &*c.func else { return };
        let Some(op) = p.path.get_ident() else { return };
        if !self
            .params
            .iter()
            .any(|(n, k)| n == op && *k == c.args.len())
        {
            return;
        }
        let names: Vec<Ident> = (0..c.args.len())
            .map(|k| {
                self.counter += 1;
                format_ident!("{}_arg{}_{}", op, k, self.counter, span = Span::call_site())
            })
            .collect();
        let values = c.args.iter();
        let linear = format_ident!("linear{}", c.args.len());
        *e = syn::parse_quote_spanned!(c.func_span()=> {
            #(let #names = #values;)*
            diffx::#linear(
                diffx::stop_gradient(::diffx::DiffFn::value_and_partials(&#op, [#(#names),*])),
                #(#names),*
            )
        });
    }
}

trait FuncSpan {
    fn func_span(&self) -> Span;
}

impl FuncSpan for syn::ExprCall {
    fn func_span(&self) -> Span {
        syn::spanned::Spanned::span(&self.func)
    }
}

/// The way out of function parameters: what was written for the core, for the user's
/// `function`. The core's own function comes back as the user wrote it, and the derivative
/// functions call the core's version of it under a name of its own.
pub struct Dress {
    pub function: ItemFn,
}

impl form::Dress for Dress {
    fn primal(&self, items: Vec<Item>) -> Vec<Item> {
        let name = &self.function.sig.ident;
        super::at_primal(items, name, |f| {
            vec![
                super::user(&self.function, true),
                super::hidden_core(f, crate::names::with_partials(name)),
            ]
        })
    }

    fn callee(&self, _: Role, callee: &Ident) -> Option<Ident> {
        (*callee == self.function.sig.ident).then(|| crate::names::with_partials(callee))
    }

    fn function(&self, _: &mut Parts) -> Vec<Parts> {
        Vec::new()
    }
}
