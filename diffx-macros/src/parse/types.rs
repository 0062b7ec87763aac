//! The types of a signature: the float type (a type parameter, the `impl`'s, `f64`/`f32`), how a
//! parameter of a type is differentiated, what a result type is.

use proc_macro2::{Ident, TokenStream};
use syn::{FnArg, ItemFn, ReturnType, Type};

use super::error;
use crate::ir::Kind;

/// Types that are never differentiable parameters, though their names are capitalized.
pub(super) const CONSTANT_TYPES: &[&str] = &[
    "String", "Vec", "Option", "Box", "Rc", "Arc", "HashMap", "BTreeMap", "HashSet", "BTreeSet",
    "Path", "PathBuf", "Range", "Duration", "Instant",
    // The type of an `impl`, as `self` is: a constant.
    "Self",
];

/// The type under `&`, if any.
pub(super) fn owned(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => owned(&r.elem),
        Type::Paren(p) => owned(&p.elem),
        Type::Group(g) => owned(&g.elem),
        t => t,
    }
}

/// The last segment of a path type: `Tensor` in `diffx::Tensor<f64>`.
pub(super) fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match owned(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// How a parameter of type `ty` is differentiated, if it is: `None` for constants.
pub(super) fn kind_of(ty: &Type, g: &TypeParams) -> Option<Kind> {
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

/// The element type of `[F]`, `[F; N]` or `Vec<F>` (behind any `&`) when it is a float.
pub(super) fn sequence_float(ty: &Type, g: &TypeParams) -> Option<Ident> {
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
pub(super) fn nested_numbers(ty: &Type, g: &TypeParams) -> bool {
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
pub(super) fn own_result(ty: &Type, g: &TypeParams) -> bool {
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
pub(super) fn returned_sequence(ty: &Type, g: &TypeParams) -> Option<Ident> {
    match ty {
        Type::Reference(_) | Type::Slice(_) => None,
        _ => sequence_float(ty, g),
    }
}

/// The gradient type of a parameter of type `ty`: `Vec<F>` for a slice, else the owned type.
pub(super) fn grad_type(ty: &Type) -> Type {
    match owned(ty) {
        Type::Slice(s) => {
            let elem = &s.elem;
            syn::parse_quote!(::std::vec::Vec<#elem>)
        }
        other => other.clone(),
    }
}

/// The element type of a tensor type: `f64` for `Tensor<f64>`, `f32` for `Tensor`.
pub(super) fn tensor_float(ty: &Type, g: &TypeParams) -> Option<Ident> {
    let seg = last_segment(ty).filter(|s| s.ident == "Tensor")?;
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
            syn::GenericArgument::Type(t) => float_type(t, g),
            _ => None,
        }),
        _ => Some(Ident::new("f32", seg.ident.span())),
    }
}

/// The float type `ty` names, if it is `f64`, `f32` or the function's float type parameter.
pub(super) fn float_type(ty: &Type, g: &TypeParams) -> Option<Ident> {
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
pub(super) fn impl_float(f: &ItemFn, in_impl: bool, self_type: Option<&Ident>) -> Option<Ident> {
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

/// The type parameter of `generics` bounded by a `Float` trait, if there is one.
pub fn float_param(generics: &syn::Generics) -> Option<Ident> {
    type_params(generics, &mut Vec::new()).float
}

/// Whether `ty` is the type parameter `t` itself (not a reference to it).
pub(super) fn is_type(ty: &Type, t: &Ident) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(t))
}

/// The function's type parameters: the one bounded by a `Float` trait (num-traits' or diffx's) is
/// its float type; values of the others are constants.
#[derive(Default)]
pub(super) struct TypeParams {
    pub(super) float: Option<Ident>,
    pub(super) others: Vec<Ident>,
    /// Those of `others` bounded by `Copy`.
    pub(super) copy: Vec<Ident>,
}

/// Reads the generic parameters of a signature; two float type parameters are an error.
pub(super) fn type_params(generics: &syn::Generics, errors: &mut Vec<syn::Error>) -> TypeParams {
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
