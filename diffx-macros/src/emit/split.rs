//! `__diffx_split_f`: the reverse program of `f` cut between its sweeps, for callers that pair a
//! call with its pullback (`reverse/pullbacks.rs`). It returns `f`'s value and a closure that takes
//! the arguments again with the cotangent and runs only the backward sweep, over the forward
//! sweep's values it has taken with it:
//!
//! ```text
//! fn __diffx_split_f(x: &[f64], k: f64)
//!     -> (f64, impl FnOnce(&[f64], f64, f64, [bool; 2]) -> (Vec<f64>, f64) + use<>)
//! ```
//!
//! The closure also takes which gradients the caller wants (`[true, false]` for a layer and its
//! data): the backward sweep skips the statements that compute only unwanted ones (`guards`).
//!
//! The closure holds no borrow (`use<>`): a forward sweep whose backward sweep reads a reference
//! it made (a loop's tape of a slice's elements, a kept `let r = &rows[0];`) is not cut, and its
//! closure calls `__diffx_vjp_f` with the arguments instead, as an unpaired pullback would.

use std::collections::{BTreeSet, HashSet};

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{quote, ToTokens};

use super::form::{Function, Ret, Role};
use super::signature::param_list as params;
use crate::ir::{Atom, Func, Kind, LoopHead, Op, Stmt, Var};
use crate::liveness;
use crate::names;
use crate::parse::Signature;

/// What the split function repeats of the function's signature.
pub struct Parts<'a> {
    pub item: &'a syn::ItemFn,
    pub sig: &'a Signature,
    pub form: &'a super::form::Form,
    /// The cotangent's name.
    pub ct: &'a Ident,
}

/// Whether `f` gets a split function: a free function does. One in an `impl` (associated, or
/// generic over a float type the `impl` declares) does not, as `use<…>` would
/// have to name the `impl`'s generic parameters; its callers do not pair its calls either.
pub fn wanted(item: &syn::ItemFn, sig: &Signature) -> bool {
    let float_declared = !crate::tokens::is_generic(&sig.float)
        || item
            .sig
            .generics
            .type_params()
            .any(|t| t.ident == sig.float);
    !sig.associated && float_declared
}

/// The names the backward sweep (`f.body[at..]`) mentions, and whether the forward sweep before
/// it can be handed over to the pullback closure.
pub fn cut(f: &Func, at: usize) -> Option<BTreeSet<String>> {
    let mut mentioned = BTreeSet::new();
    liveness::mentions(f, &f.body[at..], &mut mentioned);
    hands_over(&f.body[..at], f, &mentioned).then_some(mentioned)
}

/// The split function cut where [`cut`] found `mentioned`, from the forward and backward sweeps'
/// tokens.
pub fn function(
    p: &Parts,
    mentioned: &BTreeSet<String>,
    (forward, backward): (TokenStream, TokenStream),
    ret: TokenStream,
    grads: &[TokenStream],
) -> TokenStream {
    let ret_name = ret.to_string();
    // The value goes to the caller, and the closure keeps its own copy if the backward sweep
    // reads it (`exp`'s pullback does).
    let value = if mentioned.contains(&ret_name) {
        quote!(::core::clone::Clone::clone(&#ret))
    } else {
        ret
    };
    let (ct, wanted, n) = (p.ct, wanted_flags(), p.sig.params.len());
    let (params, ret_ty, into) = (params(p.sig), &p.sig.ret, into_slots());
    let slots = slot_types(p.sig);
    signature(
        p,
        Role::Split,
        quote! {
            #forward
            (#value, move |#(#params,)* #ct: #ret_ty, #wanted: [bool; #n], #into: (#(#slots,)*)| {
                #backward
                (#(#grads,)*)
            })
        },
    )
}

/// The name of the pullback's parameter that holds its caller's [`slot_types`] offers.
pub fn into_slots() -> Ident {
    Ident::new("__into", proc_macro2::Span::mixed_site())
}

/// Whether parameter `q`'s gradient may be added into its caller's buffer in place: a
/// differentiable slice or `Vec`, whose gradient is a `Vec`.
pub fn slot_param(q: &crate::parse::Param) -> bool {
    let vec = matches!(&q.grad, syn::Type::Path(t)
        if t.path.segments.last().is_some_and(|s| s.ident == "Vec"));
    q.differentiable && !q.mutable && q.kind == Kind::Slice && vec && q.elem.is_some()
}

/// The parameters whose adjoints (`grads`) start as their caller's offer: slice and `Vec`
/// parameters whose adjoint the backward sweep only adds to (the body does not write the
/// parameter, so no adjoint of an overwritten element is reset), with their adjoints.
pub fn slotted(f: &Func, sig: &Signature, grads: &[Option<Var>]) -> Vec<(usize, Var)> {
    let mut out: Vec<(usize, Var)> = (sig.params.iter().zip(grads))
        .enumerate()
        .filter(|(_, (q, _))| slot_param(q))
        .filter_map(|(i, (_, g))| g.map(|g| (i, g)))
        .collect();
    for s in &f.body {
        s.walk(&mut |s| {
            let written = match s {
                Stmt::Set { dst, .. } => Some(*dst),
                Stmt::SetElem { vec, .. }
                | Stmt::Push { vec, .. }
                | Stmt::Pop { vec, .. }
                | Stmt::Undo { vec, .. } => Some(*vec),
                Stmt::Let { dst, op, .. } if !matches!(op, Op::Zeros(_)) => Some(*dst),
                _ => None,
            };
            out.retain(|(_, g)| Some(*g) != written);
        });
    }
    out
}

/// The local that holds a slotted adjoint `g`'s own buffer when its caller offers none (and the
/// gradient the pullback returns: empty when the offer was taken).
pub fn own(f: &Func, g: Var) -> Ident {
    Ident::new(
        &format!("{}_own", f.name(g)),
        proc_macro2::Span::mixed_site(),
    )
}

/// `f` with every first contribution to a `slotted` adjoint (`ā[i] = c`, which a fresh adjoint
/// of zeros allows) made an addition: the adjoint may be the caller's, holding its own.
pub fn added_only(f: &Func, slotted: &[(usize, Var)]) -> Func {
    fn visit(list: &mut [Stmt], slotted: &[(usize, Var)]) {
        for s in list {
            match s {
                Stmt::Accum { dst, first, .. }
                    if slotted.iter().any(|(_, g)| dst.var() == Some(*g)) =>
                {
                    *first = false;
                }
                Stmt::If { then_, else_, .. } => {
                    visit(&mut then_.body, slotted);
                    visit(&mut else_.body, slotted);
                }
                Stmt::Loop { body, .. } => visit(&mut body.body, slotted),
                Stmt::LoopBack { body, .. } => visit(body, slotted),
                _ => {}
            }
        }
    }
    let mut out = f.clone();
    visit(&mut out.body, slotted);
    out
}

/// The type of what a caller offers the pullback for each parameter's gradient
/// (`diffx::__private::Slot`): its own adjoint of a slice or `Vec` parameter, or nothing.
fn slot_types(sig: &Signature) -> Vec<TokenStream> {
    sig.params
        .iter()
        .map(|q| match &q.elem {
            Some(elem) if slot_param(q) => quote!(::core::option::Option<&mut [#elem]>),
            _ => quote!(()),
        })
        .collect()
}

/// An offer of nothing for every parameter: the caller takes the gradients returned.
fn no_slots(sig: &Signature) -> TokenStream {
    let none = sig
        .params
        .iter()
        .map(|_| quote!(::diffx::__private::NoSlot::none()));
    quote!((#(#none,)*))
}

/// `__diffx_vjp_f` as the split function followed by its pullback, wanting every gradient: the
/// reverse program is written once (the compiler reads half as much). For a function whose
/// arguments can be passed twice without a copy (references and numbers, arrays of them).
pub fn vjp_through_split(p: &Parts) -> Option<TokenStream> {
    let float = &p.sig.float;
    if !p.sig.params.iter().all(|q| passed_twice(&q.ty, float)) {
        return None;
    }
    let split = names::split(&p.item.sig.ident);
    let (ct, n) = (p.ct, p.sig.params.len());
    let args: Vec<&Ident> = p.sig.params.iter().map(|q| &q.name).collect();
    let none = no_slots(p.sig);
    let (value, pullback) = (
        Ident::new("__value", proc_macro2::Span::mixed_site()),
        Ident::new("__pullback", proc_macro2::Span::mixed_site()),
    );
    let call = p.form.call(Role::HiddenVjp, &split, quote!(#(#args),*));
    let body = quote! {
        let (#value, #pullback) = #call;
        (#value, #pullback(#(#args,)* #ct, [true; #n], #none))
    };
    Some(
        p.form
            .function(super::functions::hidden_vjp(p.item, p.sig, ct, body)),
    )
}

/// Whether a value of type `ty` is `Copy` as written: a reference, a number, `bool`, the float
/// type, or an array or tuple of such.
fn passed_twice(ty: &syn::Type, float: &Ident) -> bool {
    const COPY: &[&str] = &[
        "f32", "f64", "usize", "isize", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64",
        "bool",
    ];
    match ty {
        syn::Type::Reference(_) => true,
        syn::Type::Paren(t) => passed_twice(&t.elem, float),
        syn::Type::Array(a) => passed_twice(&a.elem, float),
        syn::Type::Tuple(t) => t.elems.iter().all(|e| passed_twice(e, float)),
        syn::Type::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| i == float || COPY.contains(&i.to_string().as_str())),
        _ => false,
    }
}

/// The split function of a function whose forward sweep is not handed over (or that has a rule
/// written by hand): the value from the function itself, the pullback from `__diffx_vjp_f`
/// (which returns every gradient: the caller's offers are declined).
pub fn recomputing(p: &Parts) -> TokenStream {
    let name = &p.item.sig.ident;
    let vjp = names::vjp(name);
    let args: Vec<&Ident> = p.sig.params.iter().map(|q| &q.name).collect();
    let (ct, params, ret_ty, n) = (p.ct, params(p.sig), &p.sig.ret, p.sig.params.len());
    let slots = slot_types(p.sig);
    let (value, pullback) = (
        p.form.call(Role::SplitAgain, name, quote!(#(#args),*)),
        p.form.call(Role::SplitAgain, &vjp, quote!(#(#args,)* #ct)),
    );
    // (The value's type as the form gives it: the user's for an adapted result.)
    let ret_ty = p.form.value_type(Role::SplitAgain, quote!(#ret_ty));
    signature(
        p,
        Role::SplitAgain,
        quote! {
            (#value, move |#(#params,)* #ct: #ret_ty, _: [bool; #n], _: (#(#slots,)*)| {
                #pullback.1
            })
        },
    )
}

fn signature(p: &Parts, role: Role, body: TokenStream) -> TokenStream {
    let vis = &p.item.vis;
    let ret_ty = p.form.value_type(role, p.sig.ret.to_token_stream());
    let name = names::split(&p.item.sig.ident);
    let params = params(p.sig);
    let tys = p.sig.params.iter().map(|q| q.ty.to_token_stream());
    let grads = super::signature::grad_types(p.sig);
    let n = p.sig.params.len();
    let generics = p.item.sig.generics.params.iter().map(|g| match g {
        syn::GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
        syn::GenericParam::Type(t) => t.ident.to_token_stream(),
        syn::GenericParam::Const(c) => c.ident.to_token_stream(),
    });
    let slots = slot_types(p.sig);
    let allow = super::allow();
    p.form.function(Function {
        attrs: quote!(#[doc(hidden)] #[inline(always)] #allow),
        vis: vis.clone(),
        name: name.clone(),
        role,
        valued: None,
        stub: None,
        params,
        ret: Some(Ret::Split {
            value: ret_ty.clone(),
            inputs: tys
                .chain([ret_ty, quote!([bool; #n]), quote!((#(#slots,)*))])
                .collect(),
            ct: n,
            grads: quote!((#(#grads,)*)),
            uses: quote!(#(#generics),*),
        }),
        body,
    })
}

/// Whether every value of the forward sweep (`f.body[..at]`) that the backward
/// sweep mentions is owned, so the closure can take it: not a loop's tape (its entries may borrow
/// the arguments), a reference a kept statement made, or a copy of a borrowed parameter. (The
/// results of operations, calls, shapes and residuals are owned.)
fn hands_over(forward: &[Stmt], f: &Func, mentioned: &BTreeSet<String>) -> bool {
    // Constants that may borrow (`let mut steps = x.iter();`): a loop cell copied from one
    // borrows too.
    let mut borrowing: BTreeSet<String> = BTreeSet::new();
    let mut borrowing_cells = BTreeSet::new();
    for s in forward {
        match s {
            Stmt::Const { name, expr, .. } if borrows(expr.tokens()) => {
                borrowing.insert(name.to_string());
            }
            Stmt::Let {
                dst,
                op: Op::Id,
                args,
                ..
            } if matches!(&args[..], [Atom::Const(c)] if c.idents().iter().any(|n| borrowing.contains(n))) =>
            {
                borrowing_cells.insert(*dst);
            }
            _ => {}
        }
    }
    let owned = |s: &Stmt| owned_after(s, f, mentioned, &borrowing_cells);
    // The function's own stacks (a recording `if`'s) hold numbers and conditions, and tapes of
    // loops whose entries are owned.
    let root: HashSet<&Ident> = f.stacks.iter().collect();
    let mut stacks_owned = true;
    for s in forward {
        s.walk(&mut |s| match s {
            Stmt::Record { stack, value } if root.contains(stack) => {
                stacks_owned &= match value {
                    Atom::Var(v) => matches!(f.kind(*v), Kind::Scalar | Kind::Tensor),
                    Atom::Const(_) => true,
                    Atom::Field(..) => false,
                }
            }
            Stmt::Loop { tape: Some(t), .. } if root.contains(&t.name) => {
                stacks_owned &= owned(s);
            }
            _ => {}
        });
    }
    stacks_owned
        && forward.iter().all(|s| match s {
            // A recording loop's stacks hold what its whole nest keeps.
            Stmt::Loop {
                tape: Some(t),
                body,
                ..
            } if t.record => {
                let mut all = owned(s);
                for s in &body.body {
                    s.walk(&mut |s| all &= owned(s));
                }
                all
            }
            s => owned(s),
        })
}

/// Whether what the closure would take of `s` is owned: see [`hands_over`].
fn owned_after(
    s: &Stmt,
    f: &Func,
    mentioned: &BTreeSet<String>,
    borrowing_cells: &BTreeSet<Var>,
) -> bool {
    match s {
        Stmt::Loop { cells, .. } if cells.iter().any(|c| borrowing_cells.contains(c)) => false,
        // A loop's tape holds its cells and loop variables: owned over a range or in a `while`
        // (over a slice, its elements would be references).
        Stmt::Loop { head, .. } => match head {
            LoopHead::While { .. } => true,
            LoopHead::For { iter, .. } => iter.is_range(),
        },
        Stmt::LoopBack { .. } => false,
        // (A copy of a reference is the reference.)
        Stmt::Let {
            dst,
            op: Op::Id,
            args,
            ..
        } => {
            let copied_ref = match &args[..] {
                [Atom::Var(v)] => f.vars[v.0].is_ref,
                _ => borrowing_cells.contains(dst),
            };
            !copied_ref
                || matches!(f.kind(*dst), Kind::Scalar | Kind::Tensor)
                || !mentioned.contains(&f.name(*dst).to_string())
        }
        Stmt::Const { name, ty, expr, .. } => {
            !(borrows(expr.tokens()) || ty.as_ref().is_some_and(|t| borrows(&t.to_token_stream())))
                || !mentioned.contains(&name.to_string())
        }
        Stmt::Verbatim { tokens, .. } => {
            !(borrows(tokens.tokens()) && tokens.idents().iter().any(|n| n == "let"))
        }
        Stmt::If { outs, .. } => outs.iter().all(|o| {
            matches!(f.kind(*o), Kind::Scalar | Kind::Tensor)
                || !mentioned.contains(&f.name(*o).to_string())
        }),
        _ => true,
    }
}

/// Whether `tokens` take a reference anywhere (`&`, `ref`, `.iter()`, `as_slice`).
fn borrows(tokens: &TokenStream) -> bool {
    let text = tokens.to_string();
    text.contains('&') || text.contains("ref ") || text.contains("iter") || text.contains("as_")
}

fn wanted_flags() -> Ident {
    Ident::new("__wanted", proc_macro2::Span::mixed_site())
}

/// For each statement of the backward sweep (`f.body[at..]`), the parameters whose gradients it
/// is computed for, if it is skipped when the caller wants none of them: a value or contribution
/// that flows only to those gradients, whose readers are skipped with it.
pub fn guards(f: &Func, at: usize, grads: &[Option<Var>]) -> Vec<Option<Vec<usize>>> {
    let backward = &f.body[at..];
    // (Only a statement that writes a tensor or a contribution is ever skipped: a function of
    // numbers has none, and needs no reading.)
    if backward.iter().all(|s| defined(f, s).is_none()) {
        return vec![None; backward.len()];
    }
    let by_name = liveness::by_name(f);
    let reads: Vec<Vec<Var>> = backward
        .iter()
        .map(|s| liveness::reads(s, &by_name))
        .collect();
    let all: BTreeSet<usize> = (0..grads.len()).collect();
    // (By value index: values are dense.)
    let mut feeds: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); f.vars.len()];
    for (i, g) in grads.iter().enumerate() {
        if let Some(g) = g {
            feeds[g.0].insert(i);
        }
    }
    let mut sets: Vec<Option<BTreeSet<usize>>> = vec![None; backward.len()];
    for (k, s) in backward.iter().enumerate().rev() {
        let set = match defined(f, s) {
            Some(d) => feeds[d.0].clone(),
            None => all.clone(),
        };
        for r in &reads[k] {
            feeds[r.0].extend(set.iter().copied());
        }
        sets[k] = (defined(f, s).is_some() && !set.is_empty() && set != all).then_some(set);
    }
    // A skipped value's readers are skipped too: a statement whose value a statement that always
    // runs reads always runs. Readers come later, so one backward pass settles it.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); f.vars.len()];
    for (j, r) in reads.iter().enumerate() {
        for v in r {
            readers[v.0].push(j);
        }
    }
    for k in (0..backward.len()).rev() {
        let Some(d) = sets[k].as_ref().and(defines_value(&backward[k])) else {
            continue;
        };
        let always_read = readers[d.0].iter().any(|&j| j > k && sets[j].is_none());
        if always_read {
            sets[k] = None;
        }
    }
    sets.into_iter()
        .map(|s| s.map(|s| s.into_iter().collect()))
        .collect()
}

/// The value or adjoint a statement that can be skipped writes: a tensor it binds, or the adjoint
/// it adds a tensor to. (Numbers are not worth a branch: the compiler drops the arithmetic whose
/// result is not used.)
fn defined(f: &Func, s: &Stmt) -> Option<Var> {
    match s {
        Stmt::Let {
            op: Op::Zeros(_), ..
        } => None,
        Stmt::Let { dst, .. } if f.kind(*dst) == Kind::Tensor => Some(*dst),
        // A rule's contribution to a parameter struct's field: a tensor or a number.
        Stmt::Let {
            dst,
            op: Op::Map { .. },
            ..
        } if f.kind(*dst) == Kind::Other => Some(*dst),
        Stmt::Accum { dst, value, .. } if f.kind(*value) != Kind::Scalar => dst.var(),
        _ => None,
    }
}

/// The value a statement binds (`let`), which a skipped statement must still bind.
fn defines_value(s: &Stmt) -> Option<Var> {
    match s {
        Stmt::Let { dst, .. } => Some(*dst),
        _ => None,
    }
}

/// The statement `s`, written as `tokens`, run only if the caller wants one of the gradients of
/// `guard`: a `let` binds a placeholder otherwise (an unset tensor, a zero).
pub fn guarded(s: &Stmt, guard: Option<&Vec<usize>>, tokens: TokenStream) -> TokenStream {
    let Some(guard) = guard else { return tokens };
    let wanted = wanted_flags();
    let cond = quote!(#(#wanted[#guard])||*);
    if defines_value(s).is_none() {
        return quote!(if #cond { #tokens });
    }
    // `let [mut] name = value;`, cut at its first `=`.
    let mut parts = tokens.clone().into_iter();
    let binding: TokenStream = parts
        .by_ref()
        .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == '='))
        .collect();
    let mut value: Vec<TokenTree> = parts.collect();
    if !matches!(value.pop(), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
        return tokens;
    }
    let value: TokenStream = value.into_iter().collect();
    quote!(#binding = if #cond { #value } else { ::diffx::__private::NotWanted::not_wanted() };)
}
