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

use std::cell::RefCell;
use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Item, ItemFn, Pat, Stmt, Type};

use crate::emit::form::{self, Function, Parts, Role};
use crate::emit::signature::Typed;
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

/// The way out of a `&mut` output: the functions written for the core of `function`, for the
/// user's `function` with its `&mut` output. The generated functions call each other's core
/// versions (`jacobian_f` calls `jvp_f`), kept hidden as `__diffx_returning_jvp_f`.
pub struct Dress {
    pub function: ItemFn,
    pub output: Output,
    /// The functions that take the output as the user's function does, besides it.
    wrapped: RefCell<BTreeSet<Ident>>,
    /// Those called by the others, which get a hidden core version.
    called: RefCell<BTreeSet<Ident>>,
    /// The core versions of the wrapped functions (with their names), in order.
    cores: RefCell<Vec<(Ident, Parts)>>,
}

impl Dress {
    pub fn new(function: ItemFn, output: Output) -> Dress {
        Dress {
            function,
            output,
            wrapped: RefCell::default(),
            called: RefCell::default(),
            cores: RefCell::default(),
        }
    }
}

/// Whether a function of `role` is public: one the user calls.
fn public(role: Role) -> bool {
    !matches!(
        role,
        Role::HiddenJvp
            | Role::HiddenVjp
            | Role::Split
            | Role::SplitAgain
            | Role::HiddenHvp
            | Role::Companion
    )
}

impl form::Dress for Dress {
    // The core's version kept hidden; the user may call only a derivative.
    fn primal(&self, items: Vec<Item>) -> Vec<Item> {
        let name = &self.function.sig.ident;
        super::at_primal(items, name, |f| {
            vec![
                super::hidden_core(f, names::returning(name)),
                super::user(&self.function, true),
            ]
        })
    }

    fn callee(&self, _: Role, callee: &Ident) -> Option<Ident> {
        let ours = *callee == self.function.sig.ident || self.wrapped.borrow().contains(callee);
        if !ours {
            return None;
        }
        self.called.borrow_mut().insert(callee.clone());
        Some(names::returning(callee))
    }

    fn function(&self, p: &mut Parts) -> Vec<Parts> {
        let f = &mut p.f;
        let takes = f
            .params
            .iter()
            .any(|q| q.name.as_ref() == Some(&self.output.name));
        if !public(f.role) || f.stub.is_some() || !takes {
            return Vec::new();
        }
        self.wrapped.borrow_mut().insert(f.name.clone());
        let mut core = Parts {
            f: f.clone(),
            receiver: p.receiver.clone(),
        };
        core.f.name = names::returning(&f.name);
        core.f.valued = None;
        let attrs = &core.f.attrs;
        core.f.attrs = quote!(#attrs #[doc(hidden)] #[allow(dead_code)]);
        self.cores.borrow_mut().push((f.name.clone(), core));
        if let Some(valued) = f.valued.take() {
            f.body = valued;
        }
        self.output.take_as_written(f);
        Vec::new()
    }

    fn pullback_value(&self, role: Role, value: &Ident) -> Option<TokenStream> {
        matches!(role, Role::Vjp | Role::Grad)
            .then(|| self.output.write(&written(), &quote!(#value)))
    }

    // The core versions the others call.
    fn after(&self) -> (TokenStream, Vec<Parts>) {
        let called = self.called.borrow();
        let cores = (self.cores.take().into_iter())
            .filter(|(name, _)| called.contains(name))
            .map(|(_, core)| core)
            .collect();
        (TokenStream::new(), cores)
    }
}

/// The local that holds the user's output while the core's value of it is computed.
fn written() -> Ident {
    crate::names::local_at("written", Span::mixed_site())
}

impl Output {
    /// `f`, a generated function over the core, taking the output as the user's function does.
    fn take_as_written(&self, f: &mut Function) {
        let (name, user) = (&self.name, &self.user);
        let written = written();
        for param in f.params.iter_mut() {
            if param.name.as_ref() == Some(name) {
                param.ty = quote!(#user);
            }
        }
        let taken = self.taken(&written);
        let mut prologue = vec![quote!(let #written = #name;), quote!(let #name = #taken;)];
        match f.role {
            Role::Jvp => self.write_value_and_tangent(f, &written, &mut prologue),
            Role::ValueAndGrad => {
                let (body, write) = (&f.body, self.write(&written, &quote!(__result.0)));
                f.body = quote!(let __result = { #body }; #write __result);
            }
            _ => {}
        }
        f.prepend(quote!(#(#prologue)*));
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
    fn write(&self, written: &Ident, value: &TokenStream) -> TokenStream {
        match self.shape {
            Shape::Slice => quote!(#written.copy_from_slice(&#value);),
            _ => quote!(*#written = #value;),
        }
    }

    /// `jvp_f`: the output's tangent `out_dot` moves last, as the user's output of the tangent
    /// (and its incoming tangent, if the output is read); both results are written.
    fn write_value_and_tangent(
        &self,
        f: &mut Function,
        written: &Ident,
        prologue: &mut Vec<TokenStream>,
    ) {
        let (user, dot) = (&self.user, format_ident!("{}_dot", self.name));
        let written_dot = crate::names::local_at("written_dot", Span::mixed_site());
        let had_dot = f.params.iter().any(|q| q.name.as_ref() == Some(&dot));
        f.params.retain(|q| q.name.as_ref() != Some(&dot));
        f.params.push(Typed::new(&dot, user));
        prologue.push(quote!(let #written_dot = #dot;));
        if had_dot {
            let taken = self.taken(&written_dot);
            prologue.push(quote!(let #dot = #taken;));
        }
        f.ret = None;
        let (value, tangent) = (quote!(__value), quote!(__tangent));
        let (wv, wt) = (
            self.write(written, &value),
            self.write(&written_dot, &tangent),
        );
        let body = &f.body;
        f.body = quote!(let (#value, #tangent) = { #body }; #wv #wt);
    }
}
