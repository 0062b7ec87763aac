//! The function's signature: its parameters, which of them are differentiable, and its result;
//! which functions of an `#[autodiff]` `impl` block are differentiated.

use proc_macro2::Ident;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

use super::error;
use super::types::{
    float_named, float_type, grad_type, impl_float, is_type, kind_of, nested_numbers, own_result,
    owned, returned_sequence, sequence_float, tensor_float, type_params, TypeParams,
};
use super::Args;
use crate::ir::Kind;

/// A parameter of the function.
pub struct Param {
    pub name: Ident,
    pub ty: Type,
    /// The type without a leading `&`.
    pub owned: Type,
    /// The type of the parameter's gradient and tangent: `owned`, or `Vec<F>` for a slice `[F]`.
    pub grad: Type,
    /// The element type of a slice, `Vec` or array parameter.
    pub elem: Option<Ident>,
    pub kind: Kind,
    pub differentiable: bool,
    /// Numbers alone, whatever the kind: a number, a slice, a tuple or nested container of them.
    pub numbers: bool,
    /// Declared `mut x: T`: the body may write it, as a local of its own.
    pub mutable: bool,
}

/// What the derivative functions need to know of the signature.
pub struct Signature {
    pub params: Vec<Param>,
    /// `f64` or `f32`: the float type of the computation.
    pub float: Ident,
    /// The return type: the float type or a tensor of it.
    pub ret: Type,
    pub ret_kind: Kind,
    /// `&self` or `self` of a method: its derivative functions are methods too.
    pub receiver: Option<syn::Receiver>,
    /// The function is in an `impl`: it has a receiver, its signature names `Self`, or it is in
    /// an `#[autodiff]` `impl` block. Its derivative functions call each other through `self.`
    /// or `Self::`.
    pub associated: bool,
    /// The float type is a type parameter bounded by `Float` (the function's or its block's),
    /// not one guessed from the signature of a method (see `impl_float`).
    pub float_bounded: bool,
    /// The self type of the `impl` block the function is in, and the block's functions that
    /// return it ([`BlockFacts`]).
    pub self_type: Option<Ident>,
    pub returning_self: Vec<Ident>,
}

/// Whether the body decides on `name` as on an enum or a setting: `match name`, `if let … =
/// name`, `matches!(name, …)`, `name == …` or `name != …`. Such a parameter is a constant without
/// `wrt`: parameter structs are read for their numbers, not matched.
fn decided_on(body: &syn::Block, name: &Ident) -> bool {
    decided_in(body.to_token_stream(), name)
}

fn decided_in(tokens: proc_macro2::TokenStream, name: &Ident) -> bool {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let is_name = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Ident(i)) if i == name);
    let is_punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    trees.iter().enumerate().any(|(i, t)| match t {
        // `match name {`, `match &name {`, `match *name {`, and `if let P = name {`.
        TokenTree::Ident(k) if k == "match" || k == "let" => {
            let j = trees[i + 1..]
                .iter()
                .position(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace))
                .map_or(trees.len(), |p| i + 1 + p);
            let before = &trees[i + 1..j];
            if before.iter().any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';')) {
                // `let s = 0.0; for row in r {`: the statement ended before the block.
                return false;
            }
            let last = before.last();
            (k == "match" || before.iter().any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '=')))
                && is_name(last)
                && (k == "match" || j < trees.len())
        }
        TokenTree::Ident(n) if n == name => {
            (is_punct(trees.get(i + 1), '=') || is_punct(trees.get(i + 1), '!'))
                && is_punct(trees.get(i + 2), '=')
                || i >= 2 && is_punct(trees.get(i - 1), '=') && (is_punct(trees.get(i - 2), '=') || is_punct(trees.get(i - 2), '!'))
        }
        TokenTree::Ident(m) if m == "matches" && is_punct(trees.get(i + 1), '!') => {
            matches!(trees.get(i + 2), Some(TokenTree::Group(g)) if g.stream().into_iter().next().is_some_and(|t| matches!(t, TokenTree::Ident(f) if f == *name)))
        }
        TokenTree::Group(g) => decided_in(g.stream(), name),
        _ => false,
    })
}

/// Whether `f`, a function of an `#[autodiff]` `impl` block without an attribute of its own, is
/// differentiated: it returns what a derivative is taken of (a number, an array or `Vec` of them,
/// a tuple of those, a tensor) or writes it into a `&mut` output, takes a parameter of a
/// differentiable type, and not `&mut self`. The block's other functions (constructors, mutators, functions of other things) are
/// kept as written.
pub fn differentiable_alone(f: &ItemFn, args: &Args) -> bool {
    let mut g = type_params(&f.sig.generics, &mut Vec::new());
    if g.float.is_none() {
        g.float = args
            .impl_float
            .clone()
            .or_else(|| impl_float(f, true, args.self_type.as_ref()));
    }
    let numeric = |ty: &Type| {
        float_type(ty, &g).is_some()
            || tensor_float(ty, &g).is_some()
            || returned_sequence(ty, &g).is_some()
            || own_result(ty, &g)
    };
    // (A function returning nothing may write its result into a `&mut` output.)
    let output = f.sig.inputs.iter().any(|i| match i {
        FnArg::Typed(pt) => matches!(&*pt.ty, Type::Reference(r) if r.mutability.is_some()
            && matches!(kind_of(&r.elem, &g), Some(Kind::Scalar | Kind::Slice))),
        FnArg::Receiver(_) => false,
    });
    let result = match &f.sig.output {
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(numeric),
            ty => numeric(ty),
        },
        ReturnType::Default => output,
    };
    let wrt_self = args.wrt.iter().flatten().any(|n| n == "self");
    let taken = f.sig.inputs.iter().any(|i| match i {
        FnArg::Typed(pt) => kind_of(&pt.ty, &g).is_some(),
        FnArg::Receiver(_) => wrt_self,
    });
    let mutator = f.sig.receiver().is_some_and(|r| r.mutability.is_some());
    result && taken && !mutator
}

/// Whether `f` returns a value of a type of the user's (a struct, a type alias, an array of
/// arrays), not a number, a vector of them, a tuple or a tensor.
pub fn returns_own_type(f: &ItemFn, args: &Args) -> bool {
    let g = result_params(f, args);
    let ReturnType::Type(_, ty) = &f.sig.output else {
        return false;
    };
    let known = float_type(ty, &g).is_some()
        || tensor_float(ty, &g).is_some()
        || returned_sequence(ty, &g).is_some();
    !known && own_result(ty, &g)
}

/// Whether `f` returns something other than a number (its float type, or `f64`/`f32`): a
/// vector, a tuple, a struct. (A function returning nothing may write a number into a `&mut`
/// output.)
pub fn returns_other_than_number(f: &ItemFn, args: &Args) -> bool {
    let g = result_params(f, args);
    matches!(&f.sig.output, ReturnType::Type(_, ty) if float_type(ty, &g).is_none())
}

/// The type parameters the result of `f` may name: its own, and its block's float type.
fn result_params(f: &ItemFn, args: &Args) -> TypeParams {
    let mut g = type_params(&f.sig.generics, &mut Vec::new());
    if g.float.is_none() {
        g.float = args.impl_float.clone();
    }
    g
}

/// Whether the signature names `Self` (`fn loss(model: &Self, x: f64)`): the function is an
/// associated function of an `impl`.
pub fn names_self(sig: &syn::Signature) -> bool {
    let mut found = false;
    crate::tokens::replace_all(sig.to_token_stream(), &mut |id| {
        found |= id == "Self";
        None
    });
    found
}

pub fn signature(f: &ItemFn, args: &Args) -> syn::Result<Signature> {
    let mut errors: Vec<syn::Error> = Vec::new();
    let sig = &f.sig;
    refuse_qualifiers(sig, &mut errors);
    let mut g = type_params(&sig.generics, &mut errors);
    let associated = args.associated || sig.receiver().is_some() || names_self(sig);
    if g.float.is_none() {
        g.float = args.impl_float.clone();
    }
    let float_bounded = g.float.is_some();
    if g.float.is_none() {
        g.float = impl_float(f, associated, args.self_type.as_ref());
    }
    let ret = match &sig.output {
        ReturnType::Type(_, ty) => Some((**ty).clone()),
        ReturnType::Default => None,
    };
    let float = result_float(sig, &g);
    // (A `&mut` parameter that is not an output has an error of its own, which says more.)
    let mut_param = sig.inputs.iter().any(
        |i| matches!(i, FnArg::Typed(pt) if matches!(&*pt.ty, Type::Reference(r) if r.mutability.is_some())),
    );
    let float = match float {
        Err(_) if mut_param && matches!(sig.output, ReturnType::Default) => None,
        f => f.map_err(|e| errors.push(e)).ok(),
    };
    let params = params(f, args, float.as_ref(), &g, &mut errors);
    if errors.is_empty() && !params.iter().any(|p| p.differentiable) {
        errors.push(error(
            sig.paren_token.span.join(),
            "this function has no parameter to differentiate: give it an `f64`, `f32` or `Tensor` parameter",
        ));
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => {
            let ret = ret.expect("no errors");
            let ret_kind = ret_kind(&ret, &g);
            let receiver = f.sig.inputs.iter().find_map(|i| match i {
                FnArg::Receiver(r) => Some(r.clone()),
                FnArg::Typed(_) => None,
            });
            Ok(Signature {
                params,
                float: float.expect("no errors"),
                ret,
                ret_kind,
                receiver,
                associated,
                float_bounded,
                self_type: args.self_type.clone(),
                returning_self: args.block.returning_self.clone(),
            })
        }
    }
}

/// Errors for `async` and `unsafe`, which a function to differentiate cannot be.
fn refuse_qualifiers(sig: &syn::Signature, errors: &mut Vec<syn::Error>) {
    if let Some(a) = &sig.asyncness {
        errors.push(error(
            a.span,
            "`async` functions cannot be differentiated: make it a plain `fn`",
        ));
    }
    if let Some(u) = &sig.unsafety {
        errors.push(error(
            u.span,
            "`unsafe` functions cannot be differentiated: make it a safe `fn`",
        ));
    }
}

/// The float type the function's result is made of: a number, a tensor's, a sequence's or a
/// type of the user's; an error for no result or another one.
fn result_float(sig: &syn::Signature, g: &TypeParams) -> syn::Result<Ident> {
    match &sig.output {
        ReturnType::Type(_, ty) => float_type(ty, g)
            .or_else(|| tensor_float(ty, g))
            .or_else(|| returned_sequence(ty, g))
            .or_else(|| own_result(ty, g).then(|| g.float.clone().unwrap_or_else(|| float_named(quote::quote!(#sig)))))
            .ok_or_else(|| {
                error(
                    ty.span(),
                    "`#[autodiff]` functions must return `f64` or `f32` (the value to differentiate), `[f64; M]`, `Vec<f64>`, a tuple of numbers or a `Tensor`",
                )
            }),
        ReturnType::Default => Err(error(
            sig.ident.span(),
            "`#[autodiff]` functions must return `f64` or `f32`: add `-> f64`",
        )),
    }
}

/// What the result is: a number, a sequence, a type of the user's or a tensor.
fn ret_kind(ret: &Type, g: &TypeParams) -> Kind {
    if float_type(ret, g).is_some() {
        Kind::Scalar
    } else if returned_sequence(ret, g).is_some() {
        Kind::Slice
    } else if own_result(ret, g) {
        Kind::Other
    } else {
        Kind::Tensor
    }
}

fn params(
    f: &ItemFn,
    args: &Args,
    float: Option<&Ident>,
    g: &TypeParams,
    errors: &mut Vec<syn::Error>,
) -> Vec<Param> {
    let mut out = Vec::new();
    for input in &f.sig.inputs {
        let pt = match input {
            FnArg::Receiver(r) if r.mutability.is_some() || r.colon_token.is_some() => {
                errors.push(error(r.span(), "`#[autodiff]` methods take `&self` or `self`: for `&mut self`, take the numbers as parameters and return the result"));
                continue;
            }
            // `self` is a constant: the body reads it as any name that is not a parameter.
            FnArg::Receiver(_) => continue,
            FnArg::Typed(pt) => pt,
        };
        let Pat::Ident(pi) = &*pt.pat else {
            errors.push(error(
                pt.pat.span(),
                "use a plain name for this parameter: `name: Type`",
            ));
            continue;
        };
        if let Type::Reference(r) = &*pt.ty {
            if let Some(m) = r.mutability {
                errors.push(error(
                    m.span,
                    "`#[autodiff]` takes `&mut` outputs of numbers (`out: &mut [f64]`, `&mut Vec<f64>`, `&mut [f64; 3]`, `&mut f64`): for another type, take the value and return the result",
                ));
                continue;
            }
        }
        if let (Some(t), Some(f)) = (float_type(&pt.ty, g), float) {
            if t != *f {
                errors.push(error(pt.ty.span(), format!("this parameter is `{t}` but the function returns `{f}`: use one float type")));
            }
        }
        if let Some(t) = g.others.iter().find(|t| is_type(&pt.ty, t)) {
            if !g.copy.contains(t) {
                errors.push(error(pt.ty.span(), format!("`{}` has the generic type `{t}` and is taken by value, but the derivative functions read it more than once: take it by reference (`{}: &{t}`) or bound `{t}: Copy`", pi.ident, pi.ident)));
                continue;
            }
        }
        out.push(param(f, args, pi, pt, g));
    }
    check_wrt(&out, args, g, errors);
    out
}

/// The parameter `pi: pt.ty` as the derivative functions see it: its kind, its types, and
/// whether it is differentiated.
fn param(f: &ItemFn, args: &Args, pi: &syn::PatIdent, pt: &syn::PatType, g: &TypeParams) -> Param {
    // `self` of `wrt(self, x)`, as a parameter (`adapt::receiver::into_core`).
    let kind = match pi.ident == crate::names::SELF_PARAM {
        true => Some(Kind::Other),
        false => kind_of(&pt.ty, g),
    };
    let named = match &args.wrt {
        Some(w) => w.contains(&pi.ident),
        None => kind != Some(Kind::Other) || !decided_on(&f.block, &pi.ident),
    } && !args.constants.contains(&pi.ident);
    let numbers = matches!(kind, Some(Kind::Scalar | Kind::Slice))
        || nested_numbers(owned(&pt.ty), g)
        || matches!(owned(&pt.ty), Type::Tuple(_)) && kind == Some(Kind::Other);
    Param {
        name: pi.ident.clone(),
        ty: (*pt.ty).clone(),
        owned: owned(&pt.ty).clone(),
        grad: grad_type(&pt.ty),
        elem: sequence_float(&pt.ty, g),
        kind: kind.unwrap_or(Kind::Other),
        differentiable: kind.is_some() && named,
        numbers,
        mutable: pi.mutability.is_some(),
    }
}

/// Errors for the names `wrt` gives that are no parameter, or no differentiable one.
fn check_wrt(out: &[Param], args: &Args, g: &TypeParams, errors: &mut Vec<syn::Error>) {
    for name in args.wrt.iter().flatten() {
        match out.iter().find(|p| p.name == *name) {
            None => errors.push(error(
                name.span(),
                format!("`wrt` names `{name}`, which is not a parameter of this function"),
            )),
            Some(p) if kind_of(&p.ty, g).is_none() && p.name != crate::names::SELF_PARAM => {
                let ty = p.ty.to_token_stream().to_string().replace(' ', "");
                errors.push(error(name.span(), format!("`{name}` has type `{ty}`, which is not differentiable: `wrt` takes `f64`, `f32`, their slices, `Vec`s and arrays, `Tensor` and parameter-struct parameters")));
            }
            Some(_) => {}
        }
    }
}
