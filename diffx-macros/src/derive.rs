//! `#[derive(Params)]`: a struct of tensors (and of `Vec`s or structs of such) becomes one
//! differentiable parameter, visited field by field in declaration order. Fields marked
//! `#[params(skip)]` (an activation choice, a size) are not parameters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Index, Member};

pub fn params(input: TokenStream) -> TokenStream {
    expand(input).unwrap_or_else(|e| e.to_compile_error())
}

fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Params)]` works on structs whose fields are tensors or parameter structs",
        ));
    };
    let (fields, skipped) = parameter_fields(&data.fields)?;
    let Some((_, first)) = fields.first() else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`#[derive(Params)]` needs at least one parameter field",
        ));
    };
    let elem = quote!(<#first as ::diffx::Params>::Elem);
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    if !input.generics.params.is_empty() {
        // Concrete field types need no bounds: rustc checks them where they are used.
        predicates.push(quote!(#first: ::diffx::Params));
        predicates.extend(
            fields[1..]
                .iter()
                .map(|(_, ty)| quote!(#ty: ::diffx::Params<Elem = #elem>)),
        );
    }
    let members: Vec<&Member> = fields.iter().map(|(m, _)| m).collect();
    let f = format_ident!("f");
    Ok(quote! {
        impl #impl_generics ::diffx::Params for #name #ty_generics where #(#predicates),* {
            type Elem = #elem;
            fn visit(&self, #f: &mut dyn FnMut(&::diffx::Tensor<Self::Elem>)) {
                #(::diffx::Params::visit(&self.#members, #f);)*
            }
            fn visit_mut(&mut self, #f: &mut dyn FnMut(&mut ::diffx::Tensor<Self::Elem>)) {
                #(::diffx::Params::visit_mut(&mut self.#members, #f);)*
            }
            fn zip_mut(
                &mut self,
                other: &Self,
                #f: &mut dyn FnMut(&mut ::diffx::Tensor<Self::Elem>, &::diffx::Tensor<Self::Elem>),
            ) {
                #(::diffx::Params::zip_mut(&mut self.#members, &other.#members, #f);)*
            }
            fn zeros_like(&self) -> Self {
                Self {
                    #(#members: ::diffx::Params::zeros_like(&self.#members),)*
                    #(#skipped: ::core::clone::Clone::clone(&self.#skipped),)*
                }
            }
            fn unset_like(&self) -> Self {
                Self {
                    #(#members: ::diffx::Params::unset_like(&self.#members),)*
                    #(#skipped: ::core::clone::Clone::clone(&self.#skipped),)*
                }
            }
        }
    })
}

/// The fields that are parameters, with their types, and the members of the skipped ones.
#[allow(clippy::type_complexity)]
fn parameter_fields(fields: &Fields) -> syn::Result<(Vec<(Member, &syn::Type)>, Vec<Member>)> {
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
        } else {
            params.push((member, &field.ty));
        }
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
