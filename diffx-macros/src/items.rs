//! The item `#[autodiff]` is on: a function, differentiated by the pipeline in `expand`, or an
//! `impl` block, each of whose functions is differentiated as if annotated alone, with the options
//! of its own `#[autodiff(…)]` if it has one, else the block's.
//!
//! In a block the macro knows what it cannot see on a function alone: every function is an
//! associated function (so one whose signature does not name `Self` still calls its siblings as
//! `Self::f`), and the self type. The derivative functions of a trait impl's methods are not
//! members of the trait: they go into an inherent `impl` of the self type, so `vol.grad_psi(j)`
//! works on the value. Functions the block cannot differentiate without being asked
//! (constructors, mutators, functions of no number) are kept as written. An impl of an operator
//! trait (`Add`, `Sub`, `Mul`, `Div`, `Neg`, and the compound assignments `AddAssign`, …) is
//! differentiated in both operands; those of a number (`impl Mul<V2> for f64`) become methods of
//! the other operand's type (see [`Operator`]).

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{ImplItem, ImplItemFn, Item, ItemFn, ItemImpl};

use crate::expand;
use crate::parse;

/// `#[autodiff]` on any item: what it writes for a function or an `impl` block, or an error
/// saying where the attribute goes.
pub fn autodiff(attr: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Impl(block)) => impl_block(attr, block),
        Ok(Item::Trait(t)) => {
            let e = syn::Error::new(
                t.trait_token.span,
                "`#[autodiff]` differentiates functions with bodies of a type, not a trait's default methods: put it on the `impl` of the trait for your type (`#[autodiff] impl Energy for Spring { … }`), and write the method there",
            )
            .to_compile_error();
            quote!(#item #e)
        }
        Ok(Item::Fn(f)) => expand::autodiff_fn(attr, f, item),
        _ => expand::autodiff(attr, item),
    }
}

/// The block with each function and its derivative functions; for a trait impl, the derivative
/// functions in an inherent `impl` beside it. A function that fails is kept as written, with its
/// error.
fn impl_block(block_args: TokenStream, mut block: ItemImpl) -> TokenStream {
    let mut errors = Vec::new();
    let mut derived: Vec<ImplItem> = Vec::new();
    let trait_impl = block.trait_.is_some();
    let mut types = AssociatedTypes::of(&block);
    let operator = Operator::of(&block);
    let home = operator.as_ref().map_or(&*block.self_ty, Operator::home);
    let facts = block_facts(&block, type_name(home).as_ref());
    let mut items = Vec::new();
    for item in std::mem::take(&mut block.items) {
        let ImplItem::Fn(mut method) = item else {
            items.push(item);
            continue;
        };
        let own = own_attribute(&mut method);
        let asked = own.is_some() || operator.is_some();
        let block_options = own.is_none();
        let attr = own.unwrap_or_else(|| block_args.clone());
        let context = Context {
            trait_impl,
            self_ty: home,
            types: &mut types,
            generics: &block.generics,
            operator: operator.as_ref(),
            self_type: type_name(home),
            block_options,
            facts: &facts,
        };
        match function(&method, attr, asked, context) {
            Ok(None) => items.push(ImplItem::Fn(method)),
            Err(e) => {
                errors.push(e.to_compile_error());
                items.push(ImplItem::Fn(method));
            }
            Ok(Some(written)) => {
                for (item, primal) in written {
                    match (trait_impl, primal) {
                        // The trait's method stays as the user wrote it.
                        (true, true) => items.push(ImplItem::Fn(method.clone())),
                        (true, false) => derived.push(item),
                        (false, _) => items.push(item),
                    }
                }
            }
        }
    }
    // (`block.items` is empty here: the clone copies the header alone.)
    let inherent = (!derived.is_empty()).then(|| ItemImpl {
        attrs: Vec::new(),
        trait_: None,
        items: derived,
        self_ty: Box::new(
            operator
                .as_ref()
                .map_or(&*block.self_ty, Operator::home)
                .clone(),
        ),
        ..block.clone()
    });
    block.items = items;
    let marker = operator.as_ref().and_then(|o| o.marker(&block));
    quote!(#block #inherent #marker #(#errors)*)
}

/// What the block's functions say to each other: the widths of the self type's array fields in
/// its struct literals, and which functions return the self type.
fn block_facts(block: &ItemImpl, self_type: Option<&syn::Ident>) -> parse::BlockFacts {
    let is_self = |p: &syn::Path| {
        p.is_ident("Self") || (p.segments.len() == 1 && Some(&p.segments[0].ident) == self_type)
    };
    let mut facts = parse::BlockFacts::default();
    let mut first: Vec<syn::Member> = Vec::new();
    for item in &block.items {
        let ImplItem::Fn(f) = item else { continue };
        if let syn::ReturnType::Type(_, ty) = &f.sig.output {
            if matches!(&**ty, syn::Type::Path(p) if p.qself.is_none() && is_self(&p.path)) {
                facts.returning_self.push(f.sig.ident.clone());
            }
        }
        let mut literals = Literals {
            is_self: &is_self,
            widths: &mut facts.field_widths,
            first: &mut first,
        };
        literals.visit_block_mut(&mut f.block.clone());
    }
    let widths = &facts.field_widths;
    facts.layout = first
        .iter()
        .map(|m| {
            (
                m.clone(),
                widths.iter().find(|(w, _)| w == m).map(|(_, n)| *n),
            )
        })
        .collect();
    facts
}

/// Collects the widths of the array fields of the self type's struct literals.
struct Literals<'a> {
    is_self: &'a dyn Fn(&syn::Path) -> bool,
    widths: &'a mut Vec<(syn::Member, usize)>,
    /// The fields of the first literal.
    first: &'a mut Vec<syn::Member>,
}

impl VisitMut for Literals<'_> {
    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        if (self.is_self)(&s.path) {
            if self.first.is_empty() && s.rest.is_none() {
                *self.first = s.fields.iter().map(|f| f.member.clone()).collect();
            }
            for f in &s.fields {
                let Some(n) = crate::adapt::structs::width(&f.expr) else {
                    continue;
                };
                if !self.widths.iter().any(|(m, _)| *m == f.member) {
                    self.widths.push((f.member.clone(), n));
                }
            }
        }
        syn::visit_mut::visit_expr_struct_mut(self, s);
    }
}

/// The name of a path type: `KM` of `KM` or `geometry::KM<T>`.
fn type_name(ty: &syn::Type) -> Option<syn::Ident> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    }
}

/// Removes and returns the arguments of the function's own `#[autodiff(…)]`, if it has one.
fn own_attribute(method: &mut ImplItemFn) -> Option<TokenStream> {
    let at = method.attrs.iter().position(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "autodiff")
    })?;
    let a = method.attrs.remove(at);
    Some(match a.meta {
        syn::Meta::List(l) => l.tokens,
        _ => TokenStream::new(),
    })
}

/// What a block's functions are differentiated in: its associated types, its generic
/// parameters, and the operator it implements, if it does.
struct Context<'a> {
    /// The block implements a trait: the derivative functions are public, in an `impl` of
    /// their own.
    trait_impl: bool,
    /// The type the derivative functions are methods of.
    self_ty: &'a syn::Type,
    types: &'a mut AssociatedTypes,
    generics: &'a syn::Generics,
    operator: Option<&'a Operator>,
    /// The name of the type the derivative functions are methods of.
    self_type: Option<syn::Ident>,
    facts: &'a parse::BlockFacts,
    /// The function has no `#[autodiff(…)]` of its own: the block's options apply where they
    /// can (`wrt(self)` to methods, `order = 2` to functions of a number).
    block_options: bool,
}

/// An operator trait the block implements (`impl Add for V2`, `impl Mul<f64> for V2`): both
/// operands are differentiable, and a number on the right names the derivative functions
/// `mul_by_number` (see `names::by_number`).
struct Operator {
    self_ty: syn::Type,
    by_number: bool,
    /// The user's type on the right of a number's operator (`V2` of `impl Mul<V2> for f64`):
    /// the derivative functions are methods of it (`v.__diffx_vjp_rmul(k, ct)`), as no `impl`
    /// of `f64` can hold them.
    reflected: Option<syn::Type>,
    /// The right operand is a reference (`impl Mul<&V2> for f64`): the method is `rmul_ref`.
    by_ref: bool,
    /// A compound assignment (`impl AddAssign for V2`): the method, which changes `*self`, is
    /// differentiated as the function of `self` by value that returns the changed value.
    assign: bool,
}

impl Operator {
    fn of(block: &ItemImpl) -> Option<Self> {
        let (_, path, _) = block.trait_.as_ref()?;
        let last = path.segments.last()?;
        let name = last.ident.to_string();
        let assign = name.ends_with("Assign");
        if !["Add", "Sub", "Mul", "Div", "Neg"].contains(&name.trim_end_matches("Assign")) {
            return None;
        }
        let float = parse::float_param(&block.generics);
        let is_number = |t: &syn::Type| {
            matches!(t, syn::Type::Path(p)
                if p.path.get_ident().is_some_and(|i| i == "f64" || i == "f32" || Some(i) == float.as_ref()))
        };
        let rhs = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            }),
            _ => None,
        };
        let by_number = rhs.as_ref().is_some_and(is_number);
        let reflected = rhs.filter(|r| is_number(&block.self_ty) && !is_number(r) && !assign);
        // (`impl Mul<&V2> for f64`: a method of `V2` too, beside the one of `impl Mul<V2>`.)
        let by_ref = matches!(reflected, Some(syn::Type::Reference(_)));
        let reflected = reflected.map(|r| match r {
            syn::Type::Reference(r) => *r.elem,
            r => r,
        });
        Some(Operator {
            self_ty: (*block.self_ty).clone(),
            by_number,
            reflected,
            by_ref,
            assign,
        })
    }

    /// `impl diffx::__private::DifferentiableAdd for V2 {}` (`…AddNumber` for a number on the
    /// right, `…NumberAdd` on the left, of the right operand's type): what derivative code
    /// asserts of an operator's operand. (A number's impl of a reference, `Mul<&V2>`, has none:
    /// operators call the impl by value.)
    fn marker(&self, block: &ItemImpl) -> Option<TokenStream> {
        let (_, path, _) = block.trait_.as_ref()?;
        let op = &path.segments.last()?.ident;
        let name = match (self.reflected.is_some(), self.by_number) {
            _ if self.by_ref => return None,
            (true, _) => format!("DifferentiableNumber{op}"),
            (false, true) => format!("Differentiable{op}Number"),
            (false, false) => format!("Differentiable{op}"),
        };
        let marker = syn::Ident::new(&name, op.span());
        let ty = self.home();
        let (generics, _, bounds) = block.generics.split_for_impl();
        Some(quote!(impl #generics ::diffx::__private::#marker for #ty #bounds {}))
    }

    /// Where the derivative functions go: an inherent `impl` of the self type, or of the right
    /// operand's type for a number's operator.
    fn home(&self) -> &syn::Type {
        self.reflected.as_ref().unwrap_or(&self.self_ty)
    }

    /// A number's operator (`fn mul(self, v: V2) -> V2` of `impl Mul<V2> for f64`) as a method
    /// of the right operand's type: `fn rmul(self, lhs: f64) -> V2 { let v = self; … }`, the
    /// number's `self` (and `Self`) renamed in the body.
    fn reflect(&self, item: &mut ItemFn) {
        let (syn::FnArg::Typed(rhs), Some(syn::FnArg::Receiver(_))) = (
            item.sig.inputs[item.sig.inputs.len() - 1].clone(),
            item.sig.inputs.first(),
        ) else {
            return;
        };
        let number = &self.self_ty;
        let lhs = crate::names::local("lhs");
        let block = &item.block;
        let body =
            crate::tokens::replace_all(quote!(#block), &mut |id| match id.to_string().as_str() {
                "self" => Some(quote!(#lhs)),
                "Self" => Some(quote!(#number)),
                _ => None,
            });
        let Ok(block) = syn::parse2::<syn::Block>(body) else {
            return;
        };
        let pat = &rhs.pat;
        item.sig.inputs = syn::parse_quote!(self, #lhs: #number);
        item.sig.ident = crate::names::reflected(&item.sig.ident, self.by_ref);
        let stmts = &block.stmts;
        *item.block = syn::parse_quote!({ let #pat = self; #(#stmts)* });
    }

    /// A compound assignment's method (`fn add_assign(&mut self, rhs: V2) { self.x += rhs.x; … }`)
    /// as the function of `self` by value that returns what `*self` becomes: `fn add_assign(self,
    /// rhs: V2) -> V2 { let mut __diffx_acc = self; __diffx_acc.x += rhs.x; …; __diffx_acc }`.
    fn by_value(&self, item: &mut ItemFn) {
        struct Acc(syn::Ident);
        impl VisitMut for Acc {
            fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
                let is_self =
                    |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident("self"));
                let deref_self = matches!(e, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && is_self(&u.expr));
                if deref_self || is_self(e) {
                    let acc = &self.0;
                    *e = syn::parse_quote!(#acc);
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        let Some(syn::FnArg::Receiver(r)) = item.sig.inputs.first_mut() else {
            return;
        };
        let acc = crate::names::local("acc");
        *r = syn::parse_quote!(self);
        let ty = self.home();
        item.sig.output = syn::parse_quote!(-> #ty);
        let mut block = (*item.block).clone();
        Acc(acc.clone()).visit_block_mut(&mut block);
        for s in &mut block.stmts {
            if let syn::Stmt::Expr(_, semi @ None) = s {
                *semi = Some(Default::default());
            }
        }
        let stmts = &block.stmts;
        *item.block = syn::parse_quote!({ let mut #acc = self; #(#stmts)* #acc });
    }

    /// The operator's method as the pipeline takes it: parameters of type `Self` of the self
    /// type, both operands differentiable unless `wrt` says otherwise, named `_by_number` for
    /// a number on the right.
    fn adapt(&self, item: &mut ItemFn, args: &mut parse::Args) {
        if self.reflected.is_some() {
            self.reflect(item);
        }
        if self.assign {
            self.by_value(item);
        }
        let ty = self.home();
        let mut names = vec![syn::Ident::new("self", proc_macro2::Span::call_site())];
        for input in item.sig.inputs.iter_mut() {
            if let syn::FnArg::Typed(pt) = input {
                if matches!(&*pt.ty, syn::Type::Path(p) if p.path.is_ident("Self")) {
                    *pt.ty = ty.clone();
                }
                if let syn::Pat::Ident(pi) = &*pt.pat {
                    names.push(pi.ident.clone());
                }
            }
        }
        args.wrt.get_or_insert(names);
        if self.by_number {
            item.sig.ident = crate::names::by_number(&item.sig.ident);
        }
    }
}

/// The function and its derivative functions as associated functions, each with whether it is the
/// function itself; `None` when the function is kept as written (not
/// `asked` for by an attribute of its own, and not differentiable by its signature). The trait's
/// associated types are written out first.
fn function(
    method: &ImplItemFn,
    attr: TokenStream,
    asked: bool,
    context: Context,
) -> syn::Result<Option<Vec<(ImplItem, bool)>>> {
    let mut item = ItemFn {
        attrs: method.attrs.clone(),
        vis: method.vis.clone(),
        sig: method.sig.clone(),
        block: Box::new(method.block.clone()),
    };
    context.types.visit_item_fn_mut(&mut item);
    if context.trait_impl {
        // A derivative function of a trait's method, public as the trait's method is.
        item.vis = syn::parse_quote!(pub);
    }
    let mut args = parse::args(attr)?;
    args.associated = true;
    args.impl_float = parse::float_param(context.generics);
    args.self_type = context.self_type.clone();
    args.block = context.facts.clone();
    if let Some(op) = context.operator {
        op.adapt(&mut item, &mut args);
    }
    if context.block_options {
        fit_block_options(&item, &mut args);
    }
    named_self_params(&mut item, &args, context.self_ty);
    if !asked && !parse::differentiable_alone(&item, &args) {
        return Ok(None);
    }
    // (A function returning a value of a type of the user's, not asked for, is differentiated
    // where it can be, and kept as written, without an error, where not: a constructor may do
    // anything.)
    let lenient = !asked && parse::returns_own_type(&item, &args);
    let written = match expand::function(item, args) {
        Err(_) if lenient => return Ok(None),
        w => w?,
    };
    Ok(Some(vec![
        (ImplItem::Verbatim(written.primal), true),
        (
            ImplItem::Verbatim(written.derived.into_iter().collect()),
            false,
        ),
    ]))
}

/// The block's options as they apply to `item`: `self` in `wrt` names the receiver of methods
/// only (an associated function is differentiated in all its parameters, or in the others
/// named), an `order` above 2 applies to functions returning a number (a vector or a struct has
/// the second order its callers go through), and none above 1 to a function taking a function.
fn fit_block_options(item: &ItemFn, args: &mut parse::Args) {
    if item.sig.receiver().is_none() {
        if let Some(wrt) = &mut args.wrt {
            wrt.retain(|n| n != "self");
            if wrt.is_empty() {
                args.wrt = None;
            }
        }
    }
    if parse::returns_other_than_number(item, args) && args.order.is_some_and(|o| o.n > 2) {
        args.order = Some(parse::Order { n: 2 });
    }
    // (A function parameter's argument brings first partials only.)
    if crate::adapt::functions::takes_function(item) {
        args.order = None;
    }
}

/// Parameters of type `Self` (`other: &Self`) that `wrt` names, of the self type: the macro
/// differentiates a parameter struct by its type's name (`Self` alone is the receiver's type,
/// a constant unless named).
fn named_self_params(item: &mut ItemFn, args: &parse::Args, self_ty: &syn::Type) {
    let Some(wrt) = &args.wrt else { return };
    for input in item.sig.inputs.iter_mut() {
        let syn::FnArg::Typed(pt) = input else {
            continue;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        if !wrt.contains(&pi.ident) {
            continue;
        }
        let mut ty = &mut *pt.ty;
        while let syn::Type::Reference(r) = ty {
            ty = &mut *r.elem;
        }
        if matches!(ty, syn::Type::Path(p) if p.path.is_ident("Self")) {
            *ty = self_ty.clone();
        }
    }
}

/// Rewrites `Self::Name` into the type the trait impl gives `Name` (`type Output = V2;`): the
/// derivative functions of a trait's method are not in the trait impl, where these names are.
struct AssociatedTypes(Vec<(syn::Ident, syn::Type)>);

impl AssociatedTypes {
    fn of(block: &ItemImpl) -> Self {
        let types = block.items.iter().filter_map(|i| match i {
            ImplItem::Type(t) => Some((t.ident.clone(), t.ty.clone())),
            _ => None,
        });
        Self(types.collect())
    }

    /// The type `Self::Name` stands for, if `segments` start with it.
    fn named<'a>(
        &self,
        segments: impl IntoIterator<Item = &'a syn::PathSegment>,
    ) -> Option<&syn::Type> {
        let mut s = segments.into_iter();
        let (first, name) = (s.next()?, s.next()?);
        (first.ident == "Self")
            .then(|| {
                self.0
                    .iter()
                    .find(|(n, _)| *n == name.ident)
                    .map(|(_, t)| t)
            })
            .flatten()
    }
}

impl VisitMut for AssociatedTypes {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty {
            if p.qself.is_none() && p.path.segments.len() == 2 {
                if let Some(t) = self.named(&p.path.segments) {
                    *ty = t.clone();
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    /// `Self::Scalar::from(…)` as `<f64>::from(…)`.
    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        if e.qself.is_none() && e.path.segments.len() > 2 {
            if let Some(t) = self.named(&e.path.segments).cloned() {
                let rest: Vec<_> = e.path.segments.iter().skip(2).collect();
                *e = syn::parse_quote!(<#t>::#(#rest)::*);
                return;
            }
        }
        syn::visit_mut::visit_expr_path_mut(self, e);
    }
}
