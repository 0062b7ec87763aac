//! The attribute's arguments and the function's signature: which parameters are differentiable.

use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

use crate::ir::Kind;

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

/// Types that are never differentiable parameters, though their names are capitalized.
const CONSTANT_TYPES: &[&str] = &[
    "String", "Vec", "Option", "Box", "Rc", "Arc", "HashMap", "BTreeMap", "HashSet", "BTreeSet",
    "Path", "PathBuf", "Range", "Duration", "Instant",
    // The type of an `impl`, as `self` is: a constant.
    "Self",
];

/// The type under `&`, if any.
fn owned(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => owned(&r.elem),
        Type::Paren(p) => owned(&p.elem),
        Type::Group(g) => owned(&g.elem),
        t => t,
    }
}

/// The last segment of a path type: `Tensor` in `diffx::Tensor<f64>`.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match owned(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// How a parameter of type `ty` is differentiated, if it is: `None` for constants.
fn kind_of(ty: &Type, g: &TypeParams) -> Option<Kind> {
    if float_type(ty, g).is_some() {
        return Some(Kind::Scalar);
    }
    if sequence_float(ty, g).is_some() {
        return Some(Kind::Slice);
    }
    if let Type::Tuple(t) = owned(ty) {
        // `(f64, [f64; 2])`: read by place (`p.0`, `p.1[k]`), as a parameter struct is.
        let numbers = |e: &Type| float_type(e, g).is_some() || sequence_float(e, g).is_some();
        return (!t.elems.is_empty() && t.elems.iter().all(numbers)).then_some(Kind::Other);
    }
    if nested_numbers(owned(ty), g) {
        // `&[[f64; 2]]`, `Vec<Vec<f64>>`: read by place (`p[i][j]`), as a parameter struct is.
        return Some(Kind::Other);
    }
    let seg = last_segment(ty)?;
    let name = seg.ident.to_string();
    if g.others.contains(&seg.ident) {
        // A value of another type parameter (`s: &S`) is a setting, not a number.
        None
    } else if name == "Tensor" {
        Some(Kind::Tensor)
    } else if name.starts_with(char::is_uppercase) && !CONSTANT_TYPES.contains(&name.as_str()) {
        Some(Kind::Other)
    } else {
        None
    }
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

/// The element type of `[F]`, `[F; N]` or `Vec<F>` (behind any `&`) when it is a float.
fn sequence_float(ty: &Type, g: &TypeParams) -> Option<Ident> {
    match owned(ty) {
        Type::Slice(s) => float_type(&s.elem, g),
        Type::Array(a) => float_type(&a.elem, g),
        _ => {
            let seg = last_segment(ty).filter(|s| s.ident == "Vec")?;
            match &seg.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
                    syn::GenericArgument::Type(t) => float_type(t, g),
                    _ => None,
                }),
                _ => None,
            }
        }
    }
}

/// Whether `ty` is a slice, array or `Vec` of arrays or `Vec`s of numbers (`[[f64; 2]]`,
/// `Vec<Vec<f64>>`, `[[f64; 3]; 3]`).
fn nested_numbers(ty: &Type, g: &TypeParams) -> bool {
    let element = match ty {
        Type::Slice(s) => &*s.elem,
        Type::Array(a) => &*a.elem,
        _ => match last_segment(ty)
            .filter(|s| s.ident == "Vec")
            .map(|s| &s.arguments)
        {
            Some(syn::PathArguments::AngleBracketed(a)) => match a.args.first() {
                Some(syn::GenericArgument::Type(t)) => t,
                _ => return false,
            },
            _ => return false,
        },
    };
    sequence_float(element, g).is_some() && !matches!(element, Type::Reference(_) | Type::Slice(_))
}

/// Whether `ty`, a result type, is a value of the user's own type: a struct of numbers (`Self`,
/// `KM`, `V2<T>`), a type alias (`Mat3`) or an array of arrays of numbers (`[[f64; 3]; 3]`).
/// Its cotangent and tangent have its type.
fn own_result(ty: &Type, g: &TypeParams) -> bool {
    match ty {
        Type::Array(a) => sequence_float(&a.elem, g).is_some() || own_result(&a.elem, g),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            let constant = CONSTANT_TYPES.contains(&name.as_str()) && name != "Self";
            name.starts_with(char::is_uppercase) && !constant && name != "Tensor"
        }
        Type::Paren(p) => own_result(&p.elem, g),
        _ => false,
    }
}

/// Whether `ty` names a type of the user's (a struct, `Self`, a type alias), not a number, a
/// vector, a tensor or a type of the standard library.
pub fn is_own_type(ty: &Type) -> bool {
    matches!(ty, Type::Path(_)) && own_result(ty, &TypeParams::default())
}

/// The float type `tokens` (a signature, a function) name when none is a type parameter: `f32`
/// if they name it, else `f64`.
pub fn float_named(tokens: TokenStream) -> Ident {
    let mut f32 = false;
    crate::tokens::replace_all(tokens, &mut |id| {
        f32 |= id == "f32";
        None
    });
    Ident::new(
        if f32 { "f32" } else { "f64" },
        proc_macro2::Span::call_site(),
    )
}

/// The element type of a vector-valued result: `[F; M]` or `Vec<F>` (not a slice reference).
fn returned_sequence(ty: &Type, g: &TypeParams) -> Option<Ident> {
    match ty {
        Type::Reference(_) | Type::Slice(_) => None,
        _ => sequence_float(ty, g),
    }
}

/// The gradient type of a parameter of type `ty`: `Vec<F>` for a slice, else the owned type.
fn grad_type(ty: &Type) -> Type {
    match owned(ty) {
        Type::Slice(s) => {
            let elem = &s.elem;
            syn::parse_quote!(::std::vec::Vec<#elem>)
        }
        other => other.clone(),
    }
}

/// The element type of a tensor type: `f64` for `Tensor<f64>`, `f32` for `Tensor`.
fn tensor_float(ty: &Type, g: &TypeParams) -> Option<Ident> {
    let seg = last_segment(ty).filter(|s| s.ident == "Tensor")?;
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
            syn::GenericArgument::Type(t) => float_type(t, g),
            _ => None,
        }),
        _ => Some(Ident::new("f32", seg.ident.span())),
    }
}

fn error(span: proc_macro2::Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The float type `ty` names, if it is `f64`, `f32` or the function's float type parameter.
fn float_type(ty: &Type, g: &TypeParams) -> Option<Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .filter(|i| *i == "f64" || *i == "f32" || g.float.as_ref() == Some(*i))
            .cloned(),
        Type::Paren(p) => float_type(&p.elem, g),
        Type::Group(p) => float_type(&p.elem, g),
        _ => None,
    }
}

/// The float type parameter of the `impl` a method is in: in `impl<T: Float> Spring<T> { fn
/// energy(&self, x: T) -> T }` the method names `T` without declaring it. Taken to be the float
/// type when the function is in an `impl` (`in_impl`), returns a single
/// capitalized name that is not one of its own parameters' types or `Self`, and takes a parameter
/// of that type; the generated code then needs only that it is a num-traits `Float`.
fn impl_float(f: &ItemFn, in_impl: bool, self_type: Option<&Ident>) -> Option<Ident> {
    let ReturnType::Type(_, ty) = &f.sig.output else {
        return None;
    };
    let Type::Path(p) = &**ty else { return None };
    let name = p.path.get_ident()?;
    let declared = f.sig.generics.type_params().any(|t| t.ident == *name);
    let capitalized = name.to_string().starts_with(char::is_uppercase) && name != "Self";
    let known = CONSTANT_TYPES.contains(&name.to_string().as_str())
        || name == "Tensor"
        || self_type == Some(name);
    let taken = f.sig.inputs.iter().any(|i| match i {
        FnArg::Typed(pt) => {
            let o = owned(&pt.ty);
            let elem = match o {
                Type::Slice(s) => &*s.elem,
                Type::Array(a) => &*a.elem,
                t => t,
            };
            matches!(elem, Type::Path(q) if q.path.is_ident(name))
        }
        FnArg::Receiver(_) => false,
    });
    (in_impl && !declared && capitalized && !known && taken).then(|| name.clone())
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

/// The type parameter of `generics` bounded by a `Float` trait, if there is one.
pub fn float_param(generics: &syn::Generics) -> Option<Ident> {
    type_params(generics, &mut Vec::new()).float
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

/// Whether `ty` is the type parameter `t` itself (not a reference to it).
fn is_type(ty: &Type, t: &Ident) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(t))
}

/// The function's type parameters: the one bounded by a `Float` trait (num-traits' or diffx's) is
/// its float type; values of the others are constants.
#[derive(Default)]
struct TypeParams {
    float: Option<Ident>,
    others: Vec<Ident>,
    /// Those of `others` bounded by `Copy`.
    copy: Vec<Ident>,
}

/// Reads the generic parameters of a signature; two float type parameters are an error.
fn type_params(generics: &syn::Generics, errors: &mut Vec<syn::Error>) -> TypeParams {
    let is = |name: &'static str| move |b: &syn::TypeParamBound| matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == name));
    let (is_float, is_copy) = (is("Float"), is("Copy"));
    let mut floats: Vec<Ident> = Vec::new();
    let mut out = TypeParams::default();
    for p in generics.type_params() {
        if p.bounds.iter().any(is_float) {
            floats.push(p.ident.clone());
        } else {
            out.others.push(p.ident.clone());
        }
        if p.bounds.iter().any(is_copy) {
            out.copy.push(p.ident.clone());
        }
    }
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        let syn::WherePredicate::Type(t) = pred else {
            continue;
        };
        let Type::Path(bounded) = &t.bounded_ty else {
            continue;
        };
        let Some(id) = bounded.path.get_ident() else {
            continue;
        };
        if t.bounds.iter().any(is_float) {
            if let Some(i) = out.others.iter().position(|o| o == id) {
                floats.push(out.others.remove(i));
            }
        }
        if t.bounds.iter().any(is_copy) {
            out.copy.push(id.clone());
        }
    }
    if let [_, second, ..] = floats.as_slice() {
        errors.push(error(second.span(), "a `#[autodiff]` function computes in one float type: bound only one type parameter by `Float`"));
    }
    out.float = floats.into_iter().next();
    out
}

pub fn signature(f: &ItemFn, args: &Args) -> syn::Result<Signature> {
    let mut errors: Vec<syn::Error> = Vec::new();
    let sig = &f.sig;
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
    let float = match &sig.output {
        ReturnType::Type(_, ty) => float_type(ty, &g)
            .or_else(|| tensor_float(ty, &g))
            .or_else(|| returned_sequence(ty, &g))
            .or_else(|| own_result(ty, &g).then(|| g.float.clone().unwrap_or_else(|| float_named(quote::quote!(#sig)))))
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
    };
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
            let ret_kind = if float_type(&ret, &g).is_some() {
                Kind::Scalar
            } else if returned_sequence(&ret, &g).is_some() {
                Kind::Slice
            } else if own_result(&ret, &g) {
                Kind::Other
            } else {
                Kind::Tensor
            };
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
        out.push(Param {
            name: pi.ident.clone(),
            ty: (*pt.ty).clone(),
            owned: owned(&pt.ty).clone(),
            grad: grad_type(&pt.ty),
            elem: sequence_float(&pt.ty, g),
            kind: kind.unwrap_or(Kind::Other),
            differentiable: kind.is_some() && named,
            numbers,
            mutable: pi.mutability.is_some(),
        });
    }
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
    out
}
