//! Unit tests of the pipeline on token streams, without rustc, by subject: the lists each stage
//! makes (`lists.rs`), errors (`errors.rs`), the programs written as Rust (`emission.rs`), higher
//! orders (`orders.rs`), loops in reverse mode (`loops.rs`) and calls (`calls.rs`). This file
//! holds the helpers they share.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;
use crate::parse;

mod calls;
mod emission;
mod errors;
mod lists;
mod loops;
mod orders;

/// The primal, tangent and adjoint lists of `item`, as text.
fn lists(item: proc_macro2::TokenStream) -> (String, String, String) {
    let mut item: syn::ItemFn = syn::parse2(item).unwrap();
    let sig = parse::signature(&item, &parse::Args::default()).unwrap();
    let (block, facts) = crate::analyze::body(
        crate::desugar::body((*item.block).clone(), &sig).unwrap(),
        &sig,
        Default::default(),
    );
    *item.block = block;
    let (primal, params) = crate::lower::function(&item, &sig, facts, false).unwrap();
    let fwd = crate::forward::transform(&primal, &params).unwrap();
    let typed: Vec<_> = params.iter().map(|v| v.map(|v| (v, quote!(f64)))).collect();
    let rev = crate::reverse::transform(&primal, &typed, crate::ir::Kind::Scalar, true).unwrap();
    (
        primal.func.to_string(),
        fwd.b.func.to_string(),
        rev.b.func.to_string(),
    )
}

/// The tokens of the item called `name` in `out`.
fn item_named(out: &proc_macro2::TokenStream, name: &str) -> String {
    let file: syn::File = syn::parse2(out.clone()).unwrap();
    file.items
        .iter()
        .find_map(|i| match i {
            syn::Item::Fn(f) if f.sig.ident == name => Some(quote!(#f).to_string()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no `{name}` in {out}"))
}

/// The reverse program `#[autodiff]` writes for `item`, as token text.
fn vjp_text(item: proc_macro2::TokenStream) -> String {
    let name = syn::parse2::<syn::ItemFn>(item.clone()).unwrap().sig.ident;
    let out = crate::expand::autodiff(proc_macro2::TokenStream::new(), item);
    reverse_program(&out, &name.to_string())
}

/// The function holding the reverse program of `name` in `out`: `__diffx_split_name` if it has
/// one cut between the sweeps, which `__diffx_vjp_name` then calls, else `__diffx_vjp_name`.
fn reverse_program(out: &proc_macro2::TokenStream, name: &str) -> String {
    let vjp = item_named(out, &format!("__diffx_vjp_{name}"));
    match vjp.contains(&format!("__diffx_split_{name} (")) {
        true => item_named(out, &format!("__diffx_split_{name}")),
        false => vjp,
    }
}

/// The item `#[autodiff(attr)]` writes for `item`, as text.
fn expanded(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
    expand::expand(attr, item).unwrap().to_string()
}

/// What `#[autodiff(attr)]` writes for `item`, and the body of its `__diffx_vjp_loss` in it.
fn vjp_code(attr: TokenStream, item: TokenStream) -> (String, String) {
    let out = expand::expand(attr, item).unwrap().to_string();
    let code = vjp_body(&out);
    (out, code)
}

/// The body of the generated `__diffx_vjp_loss`, without white space (`hvp_` repeats the reverse
/// code, so whole-output counts would see it twice).
fn vjp_body(out: &str) -> String {
    let code: String = out.split_whitespace().collect();
    let start = code
        .find("fn__diffx_split_loss")
        .filter(|_| code.contains("=__diffx_split_loss("))
        .or_else(|| code.find("fn__diffx_vjp_loss"))
        .expect("a vjp function");
    let len = code[start..].find("#[").unwrap_or(code.len() - start);
    code[start..start + len].to_string()
}
