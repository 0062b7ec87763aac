//! The derivative functions of a generic function, generic in the same way: each gets the
//! function's generic parameters and `where` clause (`grad_f::<f64>(&x)` names the same `T` as
//! `f::<f64>(&x)`), and in the functions that hold no code of the user's, float literals become
//! values of the float type parameter.
//!
//! The functions are written as for a function of one float type and dressed here, so no other
//! stage knows about generic parameters.

use proc_macro2::Ident;
use syn::visit_mut::VisitMut;
use syn::{GenericParam, Generics, Item};

use crate::emit::{called, rewrite_calls};
use crate::names;
use crate::tokens;

/// `items` (the function and its derivative functions) with the generics of `primal`; `float` is
/// its float type, a type parameter or `f64`/`f32` (`fn norm<const N: usize>(x: [f64; N])`),
/// `bounded` if the user bounds it by `Float`; `containers`: whether it differentiates nested
/// containers or tuples of its float.
pub fn dress(
    items: Vec<Item>,
    primal: &syn::ItemFn,
    float: &Ident,
    bounded: bool,
    containers: bool,
) -> Vec<Item> {
    let name = &primal.sig.ident;
    let own_generics: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) if !f.sig.generics.params.is_empty() => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    let through_f64 = tokens::is_generic(float)
        && items.iter().any(
            |i| matches!(i, Item::Fn(f) if f.sig.ident != *name && calls_through_f64(&f.block)),
        );
    let mut out = Vec::new();
    for item in items {
        let mut f = match item {
            Item::Fn(f) => f,
            // `const _: () = { let _ = f; };` names `f` without its parameters, which a generic
            // function cannot be; the function allows itself to be unused instead.
            Item::Const(c) if c.ident == "_" => continue,
            other => {
                out.push(other);
                continue;
            }
        };
        if f.sig.ident == *name {
            f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
        } else {
            with_const_arguments(&mut f.block, primal, &own_generics);
            let ident = f.sig.ident.to_string();
            if through_f64 {
                // Desugaring's guard (`desugar/conversions.rs`): these functions compute the
                // function's `f64` part in `float`, which is its own computation at `f64` alone.
                let w = f.sig.generics.make_where_clause();
                w.predicates
                    .push(syn::parse_quote!(#float: ::diffx::__private::ThroughF64));
            }
            f.sig.generics = merged(&primal.sig.generics, &f.sig.generics);
            float_bounds(&mut f, primal, float, bounded, containers, &ident);
            if is_wrapper(&ident) && tokens::is_generic(float) {
                // A wrapper holds none of the user's code: its literals (the seed `1.0` of
                // `grad_`) are the macro's.
                TypedFloats(float).visit_block_mut(&mut f.block);
            }
        }
        out.push(Item::Fn(f));
    }
    out
}

/// Adds to `f`, a function written from `primal`, the bounds its float type needs where that is a
/// type parameter: a float type guessed from the signature, `diffx::Float` and `Params` for
/// nested containers, and what `explain_` records.
fn float_bounds(
    f: &mut syn::ItemFn,
    primal: &syn::ItemFn,
    float: &Ident,
    bounded: bool,
    containers: bool,
    ident: &str,
) {
    let declared = primal.sig.generics.type_params().any(|t| t.ident == *float);
    if tokens::is_generic(float) && !declared {
        // The `impl`'s float type, guessed from the signature: checked at it.
        let at = match &primal.sig.output {
            syn::ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
            syn::ReturnType::Default => float.span(),
        };
        let w = f.sig.generics.make_where_clause();
        w.predicates
            .push(syn::parse_quote_spanned!(at=> #float: ::diffx::__private::FloatType));
    }
    if containers && tokens::is_generic(float) && !ident.starts_with("explain_") {
        // Nested containers and tuples of `T` are visited through `diffx::Params`, which
        // `f32` and `f64` are (the function may be bound by num-traits' `Float` only).
        add_bound(
            &mut f.sig.generics,
            float,
            syn::parse_quote!(::diffx::Float),
        );
        add_bound(
            &mut f.sig.generics,
            float,
            syn::parse_quote!(::diffx::Params<Elem = #float>),
        );
    }
    if ident.starts_with("explain_") && tokens::is_generic(float) {
        // The trace records numbers of diffx's own float types, and their values (of a
        // type parameter bounded by `Float`: a guessed one is checked above).
        let w = f.sig.generics.make_where_clause();
        w.predicates.push(syn::parse_quote!(#float: ::diffx::Float));
        if declared || bounded {
            w.predicates
                .push(syn::parse_quote!(#float: ::diffx::explain::ToValue<#float>));
            w.predicates
                .push(syn::parse_quote!(#float: ::diffx::explain::FromValue<#float>));
        }
    }
}

/// Whether `block` calls `::diffx::__private::through_f64`, desugaring's guard of a function that
/// converts to `f64` and back.
fn calls_through_f64(block: &syn::Block) -> bool {
    struct Finds(bool);
    impl VisitMut for Finds {
        fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let s: Vec<_> = p.path.segments.iter().map(|s| &s.ident).collect();
                self.0 |= matches!(s.as_slice(), [d, p, t] if *d == "diffx" && *p == "__private" && *t == "through_f64");
            }
            syn::visit_mut::visit_expr_call_mut(self, c);
        }
    }
    let mut finds = Finds(false);
    finds.visit_block_mut(&mut block.clone());
    finds.0
}

/// Float literals as values of the type parameter: `1.0` → `::diffx::__private::lit::<T>(1.0)`
/// (in expressions and in macros' tokens alike).
struct TypedFloats<'a>(&'a Ident);

impl VisitMut for TypedFloats<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Float(l),
                ..
            }) if l.suffix().is_empty() => {
                let float = self.0;
                *e = syn::parse_quote!(::diffx::__private::lit::<#float>(#l));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = tokens::typed_floats(std::mem::take(&mut m.tokens), self.0);
    }
}

/// `bound` on the type parameter `t` where the user bounds it: in its `where` predicate if it has
/// one, else at the parameter (clippy's `multiple_bound_locations` would flag a second place).
fn add_bound(generics: &mut Generics, t: &Ident, bound: syn::TypeParamBound) {
    let own = |ty: &syn::Type| matches!(ty, syn::Type::Path(p) if p.path.is_ident(t));
    if let Some(w) = &mut generics.where_clause {
        for p in w.predicates.iter_mut() {
            if let syn::WherePredicate::Type(pt) = p {
                if own(&pt.bounded_ty) {
                    pt.bounds.push(bound);
                    return;
                }
            }
        }
    }
    for p in generics.params.iter_mut() {
        if let GenericParam::Type(tp) = p {
            if tp.ident == *t {
                tp.bounds.push(bound);
                return;
            }
        }
    }
}

/// Whether the generated function `name` only calls the hidden ones (`dhvp_`, `explain_` and
/// the hidden functions hold the user's code).
fn is_wrapper(name: &str) -> bool {
    [
        "jvp_",
        "vjp_",
        "grad_",
        "value_and_grad_",
        "hvp_",
        "hessian_",
        "jacobian_",
        "d3_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || nested_companion(name)
}

/// Whether `name` is one of the functions `emit/nested.rs` writes for a caller of `grad_g` or
/// `jvp_g`, which only call `g`'s.
fn nested_companion(name: &str) -> bool {
    [names::JVP, names::VJP, names::ARRAY]
        .iter()
        .filter_map(|p| name.strip_prefix(p))
        .any(|rest| rest.starts_with("grad_") || rest.starts_with("jvp_"))
}

/// The calls among the generated functions of a function with a const parameter, given the
/// user's generic parameters explicitly (`__diffx_vjp_f::<T, FORWARD>(…)`): a const parameter read
/// only in the body (`if FORWARD`) is not inferred from the arguments. (Not the calls of
/// functions with generic parameters of their own, which would need those too.)
fn with_const_arguments(block: &mut syn::Block, primal: &syn::ItemFn, own_generics: &[String]) {
    let generics = &primal.sig.generics;
    if !generics
        .params
        .iter()
        .any(|p| matches!(p, GenericParam::Const(_)))
    {
        return;
    }
    let args: Vec<&Ident> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(&t.ident),
            GenericParam::Const(c) => Some(&c.ident),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let name = primal.sig.ident.to_string();
    let suffix = format!("_{name}");
    let name = name.as_str();
    let ours = |n: &str| {
        let generated = n == name
            || (names::is_generated(n) && n.ends_with(&suffix))
            || n.strip_suffix(&name).is_some_and(is_wrapper);
        generated && !own_generics.iter().any(|o| o == n)
    };
    rewrite_calls(block, &mut |c| {
        let id = called(c, &ours)?;
        let call_args = &c.args;
        Some(syn::parse_quote!(#id::<#(#args),*>(#call_args)))
    });
}

/// The user's generic parameters before a generated function's own (`__A` of a `grad_` that
/// reports a misuse), lifetimes first as Rust requires, and both `where` clauses.
fn merged(user: &Generics, own: &Generics) -> Generics {
    let (lifetimes, rest): (Vec<&GenericParam>, Vec<&GenericParam>) = user
        .params
        .iter()
        .chain(&own.params)
        .partition(|p| matches!(p, GenericParam::Lifetime(_)));
    let mut g: Generics = syn::parse_quote!(<#(#lifetimes,)* #(#rest),*>);
    let predicates: Vec<_> = user
        .where_clause
        .iter()
        .chain(&own.where_clause)
        .flat_map(|w| w.predicates.iter())
        .collect();
    if !predicates.is_empty() {
        g.where_clause = Some(syn::parse_quote!(where #(#predicates),*));
    }
    g
}
