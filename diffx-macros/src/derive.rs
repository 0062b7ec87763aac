//! `#[derive(Params)]`: a struct of numbers, tensors, parameter structs and `Vec`s or arrays of
//! them becomes one differentiable parameter, visited field by field in declaration order. Fields marked
//! `#[params(skip)]` (an activation choice, a size) are not parameters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Index, Member};

pub fn params(input: TokenStream) -> TokenStream {
    expand(input).unwrap_or_else(|e| e.to_compile_error())
}

/// How a field is visited: as a `Params` value (tensors, parameter structs) or as plain numbers
/// (`f64`, `[f64; N]`, `Vec<f64>`, …) through the runtime's `Leaves`.
struct Field<'a> {
    member: Member,
    ty: &'a syn::Type,
    numbers: bool,
}

impl Field<'_> {
    fn visitor(&self) -> TokenStream {
        if self.numbers {
            quote!(::diffx::__private::Leaves)
        } else {
            quote!(::diffx::Params)
        }
    }
}

fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Params)]` works on structs whose fields are numbers, tensors or parameter structs",
        ));
    };
    let floats = float_params(&input.generics);
    let (fields, skipped) = parameter_fields(&data.fields, &floats)?;
    let Some(first) = fields.first() else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Params)]` needs at least one parameter field",
        ));
    };
    let (first_ty, first_trait) = (first.ty, first.visitor());
    // A struct generic over its float (`struct Line<F: Float>`) has `F` for its elements; naming
    // them through the first field's type would make `F: Leaves<Elem = <F as Leaves>::Elem>` a
    // bound of a second field of type `F`, which rustc cannot resolve.
    let elem = match floats.first() {
        Some(f) => quote!(#f),
        None => quote!(<#first_ty as #first_trait>::Elem),
    };
    let name = &input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let predicates = bounds(&input.generics, &fields, &floats, &elem);
    let f = format_ident!("f");
    let Calls {
        visit,
        visit_mut,
        zip,
        zeros,
        unset,
        settle,
        accumulate,
    } = calls(&fields, &f);
    let fit = fit_impls(name, &impl_generics, &ty_generics, &predicates);
    Ok(quote! {
        impl #impl_generics ::diffx::Params for #name #ty_generics where #(#predicates),* {
            type Elem = #elem;
            fn visit(&self, #f: &mut dyn FnMut(::diffx::Leaf<'_, Self::Elem>)) {
                #(#visit)*
            }
            fn visit_mut(&mut self, #f: &mut dyn FnMut(::diffx::LeafMut<'_, Self::Elem>)) {
                #(#visit_mut)*
            }
            fn zip_mut(
                &mut self,
                other: &Self,
                #f: &mut dyn FnMut(::diffx::LeafMut<'_, Self::Elem>, ::diffx::Leaf<'_, Self::Elem>),
            ) {
                #(#zip)*
            }
            fn zeros_like(&self) -> Self {
                Self {
                    #(#zeros)*
                    #(#skipped: ::core::clone::Clone::clone(&self.#skipped),)*
                }
            }
            fn unset_like(&self) -> Self {
                Self {
                    #(#unset)*
                    #(#skipped: ::core::clone::Clone::clone(&self.#skipped),)*
                }
            }
            fn settle(&mut self) {
                #(#settle)*
            }
            fn accumulate(&mut self, other: &Self) {
                #(#accumulate)*
            }
        }
        #fit
    })
}

/// The impls' bounds: the struct's own, and for a generic struct each field's type visiting the
/// struct's elements (`fields` holds at least one).
fn bounds(
    generics: &syn::Generics,
    fields: &[Field],
    floats: &[syn::Ident],
    elem: &TokenStream,
) -> Vec<TokenStream> {
    let (first_ty, first_trait) = (fields[0].ty, fields[0].visitor());
    let (_, _, where_clause) = generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    if !generics.params.is_empty() {
        // Concrete field types need no bounds: rustc checks them where they are used.
        let rest = match floats.is_empty() {
            true => {
                predicates.push(quote!(#first_ty: #first_trait));
                &fields[1..]
            }
            false => fields,
        };
        predicates.extend(rest.iter().map(|field| {
            let (ty, visitor) = (field.ty, field.visitor());
            quote!(#ty: #visitor<Elem = #elem>)
        }));
    }
    predicates
}

/// Each field's statement in each method of `Params`, in declaration order: through `Leaves` for
/// plain numbers, through `Params` otherwise.
struct Calls {
    visit: Vec<TokenStream>,
    visit_mut: Vec<TokenStream>,
    zip: Vec<TokenStream>,
    zeros: Vec<TokenStream>,
    unset: Vec<TokenStream>,
    settle: Vec<TokenStream>,
    accumulate: Vec<TokenStream>,
}

/// The statements of `Params`' methods for `fields`, with `f` the visitors' closure.
fn calls(fields: &[Field], f: &syn::Ident) -> Calls {
    let (mut visit, mut visit_mut, mut zip, mut zeros, mut unset, mut settle, mut accumulate) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for field in fields {
        let (m, v) = (&field.member, field.visitor());
        if field.numbers {
            visit.push(quote!(#v::visit_leaves(&self.#m, #f);));
            visit_mut.push(quote!(#v::visit_leaves_mut(&mut self.#m, #f);));
            zip.push(quote!(#v::zip_leaves(&mut self.#m, &other.#m, #f);));
            zeros.push(quote!(#m: #v::zero_leaves(&self.#m),));
            unset.push(quote!(#m: #v::zero_leaves(&self.#m),));
            accumulate.push(quote!(#v::accumulate_leaves(&mut self.#m, &other.#m);));
        } else {
            visit.push(quote!(#v::visit(&self.#m, #f);));
            visit_mut.push(quote!(#v::visit_mut(&mut self.#m, #f);));
            zip.push(quote!(#v::zip_mut(&mut self.#m, &other.#m, #f);));
            zeros.push(quote!(#m: #v::zeros_like(&self.#m),));
            unset.push(quote!(#m: #v::unset_like(&self.#m),));
            settle.push(quote!(#v::settle(&mut self.#m);));
            accumulate.push(quote!(#v::accumulate(&mut self.#m, &other.#m);));
        }
    }
    Calls {
        visit,
        visit_mut,
        zip,
        zeros,
        unset,
        settle,
        accumulate,
    }
}

/// `Fit` and `FitArg` for the struct: a callee's gradient of it, added into the caller's gradient
/// of the part passed.
fn fit_impls(
    name: &syn::Ident,
    impl_generics: &syn::ImplGenerics,
    ty_generics: &syn::TypeGenerics,
    predicates: &[TokenStream],
) -> TokenStream {
    quote! {
        // A callee's gradient of this struct, added into the caller's gradient of the part passed.
        impl #impl_generics ::diffx::__private::Fit<Self> for #name #ty_generics where #(#predicates),* {
            #[inline]
            fn fit(&self, _: &Self) -> Self {
                ::core::clone::Clone::clone(self)
            }
            #[inline]
            fn fit_owned(self, _: &Self) -> Self {
                self
            }
            #[inline]
            fn accumulate_into(&self, acc: &mut Self, _: &Self) {
                ::diffx::Params::accumulate(acc, self);
            }
        }
        impl #impl_generics ::diffx::__private::FitArg<Self> for #name #ty_generics where #(#predicates),* {
            #[inline]
            fn fit_arg(self, _: &Self) -> Self {
                self
            }
        }
    }
}

/// The struct's type parameters bounded by a `Float` trait (`F: Float`, `where F: num_traits::Float`):
/// fields of these types are numbers.
fn float_params(generics: &syn::Generics) -> Vec<syn::Ident> {
    let is_float = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().any(|b| {
            matches!(b, syn::TypeParamBound::Trait(t)
                if t.path.segments.last().is_some_and(|s| s.ident == "Float"))
        })
    };
    let mut floats: Vec<syn::Ident> = generics
        .type_params()
        .filter(|p| is_float(&p.bounds))
        .map(|p| p.ident.clone())
        .collect();
    for predicate in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let syn::WherePredicate::Type(t) = predicate {
            if let syn::Type::Path(p) = &t.bounded_ty {
                if let Some(id) = p.path.get_ident().filter(|_| is_float(&t.bounds)) {
                    floats.push(id.clone());
                }
            }
        }
    }
    floats
}

/// The containers around the numbers of a field type, outermost first: `""` for `f64` or a float
/// parameter, `"va"` for `Vec<[f64; 2]>`; `None` when the type is not made of numbers alone.
fn number_nesting(ty: &syn::Type, floats: &[syn::Ident]) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(id) = p.path.get_ident() {
                return (id == "f64" || id == "f32" || floats.contains(id)).then(String::new);
            }
            let last = p.path.segments.last().filter(|s| s.ident == "Vec")?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first() {
                Some(syn::GenericArgument::Type(inner)) if args.args.len() == 1 => {
                    number_nesting(inner, floats).map(|n| format!("v{n}"))
                }
                _ => None,
            }
        }
        syn::Type::Array(a) => number_nesting(&a.elem, floats).map(|n| format!("a{n}")),
        syn::Type::Group(g) => number_nesting(&g.elem, floats),
        syn::Type::Paren(p) => number_nesting(&p.elem, floats),
        _ => None,
    }
}

/// `T` of `Option<T>` (an optional field of numbers is visited as its numbers when `Some`), or
/// the type itself.
fn optional_inner(ty: &syn::Type) -> &syn::Type {
    let syn::Type::Path(p) = ty else { return ty };
    let Some(last) = p.path.segments.last().filter(|s| s.ident == "Option") else {
        return ty;
    };
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(inner) => inner,
            _ => ty,
        },
        _ => ty,
    }
}

/// The fields that are parameters, and the members of the skipped ones.
fn parameter_fields<'a>(
    fields: &'a Fields,
    floats: &[syn::Ident],
) -> syn::Result<(Vec<Field<'a>>, Vec<Member>)> {
    let (mut params, mut others) = (Vec::new(), Vec::new());
    for (i, field) in fields.iter().enumerate() {
        let member = match &field.ident {
            Some(id) => Member::Named(id.clone()),
            None => Member::Unnamed(Index {
                index: i as u32,
                span: field.span(),
            }),
        };
        if skipped(field)? {
            others.push(member);
            continue;
        }
        // The containers of numbers the runtime's `Leaves` visits.
        const NESTINGS: [&str; 6] = ["", "a", "aa", "v", "va", "vv"];
        let numbers = match number_nesting(optional_inner(&field.ty), floats) {
            None => false,
            Some(n) if NESTINGS.contains(&n.as_str()) => true,
            Some(_) => {
                return Err(syn::Error::new(
                    field.ty.span(),
                    "a parameter field holds numbers as `F`, `[F; N]`, `[[F; N]; M]`, `Vec<F>`, `Vec<[F; N]>` or `Vec<Vec<F>>`: use one of these, a `Tensor`, or a `Vec` of parameter structs",
                ))
            }
        };
        params.push(Field {
            member,
            ty: &field.ty,
            numbers,
        });
    }
    Ok((params, others))
}

fn skipped(field: &syn::Field) -> syn::Result<bool> {
    let mut skip = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("params")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                skip = true;
                Ok(())
            } else {
                Err(meta.error("`#[params(…)]` takes `skip`: the field is not a parameter"))
            }
        })?;
    }
    Ok(skip)
}
