//! A `&mut` output (`fn rhs(y: &[f64], k: f64, dy: &mut [f64])`): on the way in, the pipeline gets
//! the function taking the output by value (`mut dy: Vec<f64>`) and returning it; on the way out,
//! the user's function comes back as written, and the generated functions take the output as it
//! does: `jvp_` writes the value into it and the tangent into `dy_dot`, `vjp_`, `grad_` and
//! `value_and_grad_` write the value, and the others leave it as it was.
//!
//! The output is an input too when the body reads it (`dy[i] += …`, or a read of an element it has
//! not written): its incoming value is then differentiated like any parameter, its incoming tangent
//! is what `dy_dot` holds when `jvp_` is called, and `vjp_` returns its gradient with the others.
//! An output the body only writes is a constant of the core.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Item, ItemFn, Pat, Stmt, Type};

use crate::emit::{called, rewrite_calls};
use crate::names;
use crate::parse;

/// The output parameter.
pub struct Output {
    name: Ident,
    shape: Shape,
    /// Its type in the user's signature, `&mut [f64]`.
    user: Type,
}

/// What the output is a `&mut` of.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Slice,
    Vec,
    Array,
    Number,
    /// A value of the user's type (`&mut KM`), written whole (`*tau = …`) or by field (`tau.x =
    /// …`, where the fields not written keep the caller's values: the output is an input too).
    Own,
}

/// For a function with a `&mut` output: the function as one that takes the output by value and
/// returns it, with `args` marking an output the body only writes as a constant.
pub fn into_core(item: &ItemFn, args: &mut parse::Args) -> syn::Result<Option<(ItemFn, Output)>> {
    let outputs: Vec<(usize, Ident, Shape, Type)> = item
        .sig
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(i, input)| {
            let FnArg::Typed(pt) = input else { return None };
            let Pat::Ident(pi) = &*pt.pat else {
                return None;
            };
            let (shape, core) = output_shape(&pt.ty, &item.sig.generics, args.impl_float.as_ref())?;
            Some((i, pi.ident.clone(), shape, core))
        })
        .collect();
    let Some((at, name, shape, core)) = outputs.first().cloned() else {
        return Ok(None);
    };
    if let Some((_, second, ..)) = outputs.get(1) {
        return Err(syn::Error::new(second.span(), "`#[autodiff]` differentiates one `&mut` output per function: return the others (`-> [f64; 2]`), or write them into one slice"));
    }
    if let syn::ReturnType::Type(_, ty) = &item.sig.output {
        return Err(syn::Error::new_spanned(ty, format!("a function with the `&mut` output `{name}` returns nothing in `#[autodiff]`: write this result into `{name}` too, or return `{name}`'s values instead of taking it")));
    }
    let FnArg::Typed(pt) = &item.sig.inputs[at] else {
        return Ok(None);
    };
    let mut early = Early(None);
    early.visit_block_mut(&mut (*item.block).clone());
    if let Some(at) = early.0 {
        return Err(syn::Error::new(at, format!("`#[autodiff]` does not yet take `return` in a function with the `&mut` output `{name}`: put the rest of the body in an `else` (`if done {{ … }} else {{ … }}`)")));
    }
    let user = (*pt.ty).clone();
    let mut reads = Reads {
        name: &name,
        read: false,
    };
    // (A visitor over a copy: the crate's `syn` visits mutably alone.)
    reads.visit_block_mut(&mut (*item.block).clone());
    // (Named in `wrt`, an output is an input too: the elements the body does not write pass
    // their derivatives through, as a caller reusing one buffer needs.)
    let asked = args.wrt.as_ref().is_some_and(|w| w.contains(&name));
    if !reads.read && !asked {
        args.constants.push(name.clone());
    }
    let mut core_fn = item.clone();
    core_fn.sig.inputs[at] = syn::parse_quote!(mut #name: #core);
    core_fn.sig.output = syn::parse_quote!(-> #core);
    let mut block = (*item.block).clone();
    AsValue {
        name: &name,
        whole: shape != Shape::Slice,
    }
    .visit_block_mut(&mut block);
    if let Some(Stmt::Expr(_, semi @ None)) = block.stmts.last_mut() {
        *semi = Some(Default::default());
    }
    // (A value of the user's type written last, `*tau = k * b;`, is the value returned: an
    // operator there is the type's.)
    let last = match block.stmts.last() {
        Some(Stmt::Expr(Expr::Assign(a), _))
            if shape == Shape::Own
                && matches!(&*a.left, Expr::Path(p) if p.path.is_ident(&name)) =>
        {
            Some((*a.right).clone())
        }
        _ => None,
    };
    let tail = match last {
        Some(value) => {
            block.stmts.pop();
            value
        }
        None => syn::parse_quote!(#name),
    };
    let stmts = &block.stmts;
    *core_fn.block = syn::parse_quote!({ #(#stmts)* #tail });
    let output = Output { name, shape, user };
    Ok(Some((core_fn, output)))
}

/// The shape and core type of `ty` if it is a `&mut` of numbers: `[F]`, `Vec<F>`, `[F; N]`, `F`
/// (`f64`, `f32`, a type parameter of the function or the `impl`'s float type), or of a value of
/// the user's type (`&mut KM`).
fn output_shape(
    ty: &Type,
    generics: &syn::Generics,
    impl_float: Option<&Ident>,
) -> Option<(Shape, Type)> {
    let Type::Reference(r) = ty else { return None };
    r.mutability?;
    let number = |t: &Type| match t {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|i| {
            i == "f64"
                || i == "f32"
                || Some(i) == impl_float
                || generics.type_params().any(|t| t.ident == *i)
        }),
        _ => false,
    };
    let elem = &*r.elem;
    let shape = match elem {
        Type::Slice(s) if number(&s.elem) => {
            let e = &s.elem;
            return Some((Shape::Slice, syn::parse_quote!(::std::vec::Vec<#e>)));
        }
        Type::Array(a) if number(&a.elem) => Shape::Array,
        Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(s) if s.ident == "Vec" => match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) if number(t) => Shape::Vec,
                    _ => return None,
                },
                _ => return None,
            },
            _ if number(elem) => Shape::Number,
            _ if parse::is_own_type(elem) => Shape::Own,
            _ => return None,
        },
        _ => return None,
    };
    Some((shape, elem.clone()))
}

/// Whether the body reads the output: anything but writing an element (`out[i] = …`), writing
/// it whole (`*out = …`) or asking its length.
struct Reads<'a> {
    name: &'a Ident,
    read: bool,
}

impl Reads<'_> {
    fn is_name(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.path.is_ident(self.name))
    }
}

impl VisitMut for Reads<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a) => {
                match &mut *a.left {
                    Expr::Index(i) if self.is_name(&i.expr) => self.visit_expr_mut(&mut i.index),
                    Expr::Unary(u)
                        if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) => {}
                    left => self.visit_expr_mut(left),
                }
                self.visit_expr_mut(&mut a.right);
            }
            Expr::MethodCall(m) if m.method == "len" && self.is_name(&m.receiver) => {}
            Expr::Path(p) if p.path.is_ident(self.name) => self.read = true,
            e => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let mut found = false;
        crate::tokens::replace_all(m.tokens.clone(), &mut |id| {
            found |= id == self.name;
            None
        });
        self.read |= found;
    }
}

/// Where the body returns early, if it does (a closure's `return` is its own).
struct Early(Option<Span>);

impl VisitMut for Early {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => {}
            Expr::Return(r) => {
                self.0.get_or_insert(r.return_token.span);
            }
            e => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The body over the output as a value: `*out` of a number, an array or a `Vec` (written whole,
/// `*out = [a, b];`) is `out`.
struct AsValue<'a> {
    name: &'a Ident,
    whole: bool,
}

impl VisitMut for AsValue<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // A closure's `return` is its own.
            Expr::Closure(_) => return,
            Expr::Unary(u)
                if self.whole
                    && matches!(u.op, syn::UnOp::Deref(_))
                    && matches!(&*u.expr, Expr::Path(p) if p.path.is_ident(self.name)) =>
            {
                *e = (*u.expr).clone();
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// `items`, written for the core of `function`, for the user's `function` with its `&mut` output.
/// The generated functions call each other's core versions (`jacobian_f` calls `jvp_f`), kept
/// hidden as `__diffx_returning_jvp_f`.
pub fn dress(items: Vec<Item>, function: &ItemFn, out: &Output) -> Vec<Item> {
    let name = &function.sig.ident;
    let mut fns: Vec<ItemFn> = Vec::new();
    let mut dressed = Vec::new();
    for item in items {
        match item {
            Item::Fn(f) => fns.push(f),
            other => dressed.push(other),
        }
    }
    let wrapped: Vec<String> = fns
        .iter()
        .filter(|f| {
            let n = f.sig.ident.to_string();
            f.sig.ident == *name || !names::is_generated(&n) && !is_stub(f) && takes(f, &out.name)
        })
        .map(|f| f.sig.ident.to_string())
        .collect();
    let core = |id: &Ident| names::returning(id);
    let called = std::cell::RefCell::new(std::collections::BTreeSet::new());
    for f in &mut fns {
        rewrite_calls(&mut f.block, &mut |c| {
            let id = called_name(c, &wrapped)?;
            called.borrow_mut().insert(id.to_string());
            let args = &c.args;
            let to = core(id);
            Some(syn::parse_quote!(#to(#args)))
        });
        super::rename_self_calls(&mut f.block, &wrapped, &|id| {
            called.borrow_mut().insert(id.to_string());
            core(id)
        });
    }
    let called = called.into_inner();
    for mut f in fns {
        let public = f.sig.ident.to_string();
        if f.sig.ident == *name || called.contains(&public) {
            let mut hidden = f.clone();
            hidden.sig.ident = core(&hidden.sig.ident);
            hidden.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            hidden.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            dressed.push(Item::Fn(hidden));
        }
        if f.sig.ident == *name {
            // The user may call only a derivative.
            let mut user = function.clone();
            user.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            dressed.push(Item::Fn(user));
            continue;
        }
        if wrapped.contains(&public) {
            let kind = public.strip_suffix(&name.to_string()).unwrap_or("");
            out.take_as_written(&mut f, kind);
        }
        dressed.push(Item::Fn(f));
    }
    dressed
}

/// The name a call calls, if it is one of `names`.
fn called_name<'c>(c: &'c syn::ExprCall, names: &[String]) -> Option<&'c Ident> {
    called(c, &|n| names.iter().any(|w| w == n))
}

/// Whether `f` is a stub that only reports a misuse (`hessian_f` without `order = 2`): its type
/// parameter is bounded by one of the runtime's marker traits.
pub(super) fn is_stub(f: &ItemFn) -> bool {
    f.sig.generics.type_params().any(|t| {
        t.bounds.iter().any(|b| match b {
            syn::TypeParamBound::Trait(t) => t.path.segments.iter().any(|s| s.ident == "__private"),
            _ => false,
        })
    })
}

/// Whether `f` has a parameter called `name`.
fn takes(f: &ItemFn, name: &Ident) -> bool {
    f.sig.inputs.iter().any(|i| param_name(i) == Some(name))
}

fn param_name(input: &FnArg) -> Option<&Ident> {
    match input {
        FnArg::Typed(pt) => match &*pt.pat {
            Pat::Ident(pi) => Some(&pi.ident),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }
}

impl Output {
    /// `f`, the generated function `kind` (`jvp_`, `vjp_`, …) over the core, taking the output as
    /// the user's function does.
    fn take_as_written(&self, f: &mut ItemFn, kind: &str) {
        let (name, user) = (&self.name, &self.user);
        let written = crate::names::local_at("written", Span::mixed_site());
        for input in f.sig.inputs.iter_mut() {
            if param_name(input) == Some(name) {
                *input = syn::parse_quote!(#name: #user);
            }
        }
        let taken = self.taken(&written);
        let mut prologue: Vec<Stmt> = vec![
            syn::parse_quote!(let #written = #name;),
            syn::parse_quote!(let #name = #taken;),
        ];
        match kind {
            "jvp_" => self.write_value_and_tangent(f, &written, &mut prologue),
            "vjp_" | "grad_" => self.write_value_of_pullback(f, &written),
            "value_and_grad_" => {
                let stmts = std::mem::take(&mut f.block.stmts);
                let write = self.write(&written, &quote!(__result.0));
                f.block.stmts = syn::parse_quote!(let __result = { #(#stmts)* }; #write __result);
            }
            _ => {}
        }
        f.block.stmts.splice(0..0, prologue);
    }

    /// The core's value of the output from the user's (`written`).
    fn taken(&self, written: &Ident) -> TokenStream {
        match self.shape {
            Shape::Slice => quote!(#written.to_vec()),
            Shape::Vec | Shape::Own => quote!(::core::clone::Clone::clone(&*#written)),
            Shape::Array | Shape::Number => quote!(*#written),
        }
    }

    /// `value` written into the user's output `written`.
    fn write(&self, written: &Ident, value: &TokenStream) -> Stmt {
        match self.shape {
            Shape::Slice => syn::parse_quote!(#written.copy_from_slice(&#value);),
            _ => syn::parse_quote!(*#written = #value;),
        }
    }

    /// `jvp_f`: the output's tangent `out_dot` moves last, as the user's output of the tangent
    /// (and its incoming tangent, if the output is read); both results are written.
    fn write_value_and_tangent(&self, f: &mut ItemFn, written: &Ident, prologue: &mut Vec<Stmt>) {
        let (user, dot) = (&self.user, format_ident!("{}_dot", self.name));
        let written_dot = crate::names::local_at("written_dot", Span::mixed_site());
        let had_dot = takes(f, &dot);
        f.sig.inputs = std::mem::take(&mut f.sig.inputs)
            .into_iter()
            .filter(|i| param_name(i) != Some(&dot))
            .collect();
        f.sig.inputs.push(syn::parse_quote!(#dot: #user));
        prologue.push(syn::parse_quote!(let #written_dot = #dot;));
        if had_dot {
            let taken = self.taken(&written_dot);
            prologue.push(syn::parse_quote!(let #dot = #taken;));
        }
        f.sig.output = syn::ReturnType::Default;
        let stmts = std::mem::take(&mut f.block.stmts);
        let (value, tangent) = (quote!(__value), quote!(__tangent));
        let (wv, wt) = (
            self.write(written, &value),
            self.write(&written_dot, &tangent),
        );
        f.block.stmts = syn::parse_quote!(let (#value, #tangent) = { #(#stmts)* }; #wv #wt);
    }

    /// `vjp_f`, `grad_f`: the hidden pullback's value (`let (_, g) = …`, which they drop) is
    /// written.
    fn write_value_of_pullback(&self, f: &mut ItemFn, written: &Ident) {
        let value = Ident::new("__value", Span::mixed_site());
        let at = f.block.stmts.iter_mut().position(|s| match s {
            Stmt::Local(l) => match &mut l.pat {
                Pat::Tuple(t) if matches!(t.elems.first(), Some(Pat::Wild(_))) => {
                    t.elems[0] = syn::parse_quote!(#value);
                    true
                }
                _ => false,
            },
            _ => false,
        });
        if let Some(at) = at {
            let write = self.write(written, &quote!(#value));
            f.block.stmts.insert(at + 1, write);
        }
    }
}
