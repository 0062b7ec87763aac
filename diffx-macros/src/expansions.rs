//! Every `#[autodiff]` function and `impl` block of the repository (its tests, examples, benches, the tester and
//! the UI tests), expanded by the macro as it is now: the expansion must not panic and must be the
//! same twice. With `DIFFX_EXPANSIONS=FILE`, the test also writes every expansion to FILE, one
//! `==== name` block per function under a `#### path` line per file: expand before and after a
//! change that should not change the generated code, and compare the two files (a relative FILE
//! is taken from the workspace's root).
//!
//! ```text
//! DIFFX_EXPANSIONS=target/expansions-before.txt cargo test -p diffx-macros expansions
//! ```

use std::path::{Path, PathBuf};

fn is_autodiff(a: &syn::Attribute) -> bool {
    a.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "autodiff")
}

fn args(a: &syn::Attribute) -> proc_macro2::TokenStream {
    match &a.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => proc_macro2::TokenStream::new(),
    }
}

fn function(mut f: syn::ItemFn, out: &mut String) {
    for s in &f.block.stmts {
        if let syn::Stmt::Item(i) = s {
            item(i.clone(), out);
        }
    }
    if let Some(k) = f.attrs.iter().position(is_autodiff) {
        let a = f.attrs.remove(k);
        let item = quote::ToTokens::to_token_stream(&f);
        let r = crate::expand::autodiff(args(&a), item);
        out.push_str(&format!("==== {}\n{}\n", f.sig.ident, r));
    }
}

fn item(i: syn::Item, out: &mut String) {
    match i {
        syn::Item::Fn(f) => function(f, out),
        syn::Item::Mod(m) => {
            for i in m.content.map(|c| c.1).unwrap_or_default() {
                item(i, out);
            }
        }
        syn::Item::Impl(mut im) => {
            if let Some(k) = im.attrs.iter().position(is_autodiff) {
                let a = im.attrs.remove(k);
                let ty = &im.self_ty;
                let name = quote::quote!(#ty).to_string();
                let r = crate::items::autodiff(args(&a), quote::ToTokens::to_token_stream(&im));
                out.push_str(&format!("==== impl {name}\n{r}\n"));
                return;
            }
            for ii in im.items {
                if let syn::ImplItem::Fn(f) = ii {
                    function(
                        syn::ItemFn {
                            attrs: f.attrs,
                            vis: f.vis,
                            sig: f.sig,
                            block: Box::new(f.block),
                        },
                        out,
                    );
                }
            }
        }
        _ => {}
    }
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut es: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    es.sort();
    for p in es {
        if p.is_dir() {
            if !p.ends_with("target") {
                walk(&p, files);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            files.push(p);
        }
    }
}

/// The workspace's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Every expansion of the repository's functions, as text.
fn expansions() -> String {
    let root = workspace();
    let mut files = Vec::new();
    for d in ["tests", "examples", "src", "benches", "fuzz", "ui-tests"] {
        walk(&root.join(d), &mut files);
    }
    let mut out = String::new();
    for p in files {
        let text = std::fs::read_to_string(&p).expect("a source file");
        let Ok(file) = syn::parse_file(&text) else {
            continue;
        };
        let shown = p.strip_prefix(&root).unwrap_or(&p).display();
        out.push_str(&format!("#### {shown}\n"));
        for i in file.items {
            item(i, &mut out);
        }
    }
    out
}

#[test]
fn every_function_of_the_repository_expands_the_same_twice() {
    let first = expansions();
    assert!(
        first.matches("==== ").count() > 400,
        "the repository's functions were not found"
    );
    assert!(
        first == expansions(),
        "an expansion changed between two runs"
    );
    if let Ok(path) = std::env::var("DIFFX_EXPANSIONS") {
        // (A relative path is the workspace's, where `cargo test` was typed, not this crate's.)
        let path = workspace().join(path);
        std::fs::write(&path, first).expect("the expansions file");
    }
}
