//! A result of the user's own shape, written as an array result: a struct of numbers (`fn
//! cauchy_green(&self) -> Self { Self { vals: [1.0 + 2.0 * v[0], …] } }`) or an array of arrays
//! (`-> [[f64; 3]; 3]`, or a type alias of one, `-> Mat3`). On the way in, each struct literal the
//! function returns becomes the array of its numbers, field after field as the first one lists
//! them, and an array of arrays its elements row after row; on the way out, the user's function
//! comes back as written, and the generated functions take and return the user's type (`jvp_` its
//! value and tangent, `vjp_` a cotangent of it), the hidden ones too, so that a caller's
//! `e.cauchy_green().det()` goes through both methods.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Item, ItemFn, Pat, ReturnType, Stmt, Type};

use crate::desugar::flat_literal;
use crate::emit::{called, rewrite_calls};
use crate::names;
use crate::parse;

/// The shape of a result the function returns: the struct its literals write, or the rows and
/// columns of an array of arrays.
pub struct Layout {
    shape: Shape,
    /// The result type of the signature.
    ty: Type,
}

enum Shape {
    /// The struct's path (`Self`, `KM`) and its fields, each a number (`None`) or an array of
    /// `n` numbers written out.
    Struct {
        path: syn::Path,
        fields: Vec<(syn::Member, Option<usize>)>,
    },
    /// `[[F; cols]; rows]`.
    Rows { rows: usize, cols: usize },
}

/// For a function returning struct literals of numbers and arrays of numbers, or an array of
/// arrays of numbers: the function returning the array of their numbers instead, with the
/// layout.
pub fn into_core(item: &ItemFn, args: &parse::Args) -> syn::Result<Option<(ItemFn, Layout)>> {
    let ReturnType::Type(arrow, ty) = &item.sig.output else {
        return Ok(None);
    };
    let widths = &args.block.field_widths;
    let shape = rows_of(ty, &item.block)
        .or_else(|| struct_of(ty, &item.block, widths))
        .or_else(|| local_of(ty, &item.block, &args.block.layout));
    let Some(shape) = shape else {
        return Ok(None);
    };
    let layout = Layout {
        shape,
        ty: (**ty).clone(),
    };
    let associated =
        args.associated || item.sig.receiver().is_some() || parse::names_self(&item.sig);
    if matches!(layout.shape, Shape::Struct { .. }) && !associated {
        return Err(syn::Error::new(ty.span(), "`#[autodiff]` differentiates a function returning a struct as a method or an associated function of an `#[autodiff]` `impl` block: put it in one"));
    }
    let float = float_of(item, args);
    let n = layout.width();
    let mut core = item.clone();
    core.sig.output = ReturnType::Type(*arrow, Box::new(syn::parse_quote!([#float; #n])));
    let written = super::rewrite_returned(&mut core.block, &mut |e| layout.as_array(e));
    if let Err(at) = written {
        let msg = match layout.shape {
            Shape::Struct { .. } => "a function returning a struct returns it written out here (`Self { x: a, vals: [b, c] }`, also in each arm), with the same fields each time and arrays written element by element: `#[autodiff]` differentiates it as the array of its numbers",
            Shape::Rows { .. } => "a function returning an array of arrays returns one of its shape here (`[[a, b], [c, d]]`, a local array of arrays, or a call returning one), also in each arm",
        };
        return Err(syn::Error::new(at, msg));
    }
    Ok(Some((core, layout)))
}

/// The struct the first struct literal the function returns writes, for a result named by a
/// path.
fn struct_of(ty: &Type, block: &syn::Block, widths: &[(syn::Member, usize)]) -> Option<Shape> {
    if !matches!(ty, Type::Path(p) if p.qself.is_none()) {
        return None;
    }
    let first = first_literal(block)?;
    Some(Shape::Struct {
        path: first.path.clone(),
        fields: first
            .fields
            .iter()
            .map(|f| {
                let known = || widths.iter().find(|(m, _)| *m == f.member).map(|(_, n)| *n);
                (f.member.clone(), width(&f.expr).or_else(known))
            })
            .collect(),
    })
}

/// The struct of the block's literals, for a function returning `Self` whose body returns a
/// local (`let mut r = Self::zero(); … r`) and no literal.
fn local_of(
    ty: &Type,
    block: &syn::Block,
    layout: &[(syn::Member, Option<usize>)],
) -> Option<Shape> {
    let is_self = matches!(ty, Type::Path(p) if p.path.is_ident("Self"));
    let local = matches!(block.stmts.last(), Some(Stmt::Expr(Expr::Path(p), None)) if p.path.get_ident().is_some());
    (is_self && local && !layout.is_empty()).then(|| Shape::Struct {
        path: syn::parse_quote!(Self),
        fields: layout.to_vec(),
    })
}

/// The rows and columns of a result that is an array of arrays: by its type (`[[f64; 3]; 2]`),
/// else, for a type alias, by the value the body returns (a literal, or a local bound to one).
fn rows_of(ty: &Type, block: &syn::Block) -> Option<Shape> {
    let shape = |e: &Expr| flat_literal(e).map(|(_, rows, cols)| Shape::Rows { rows, cols });
    match ty {
        Type::Array(outer) => {
            let Type::Array(inner) = &*outer.elem else {
                return None;
            };
            let (rows, cols) = (length(&outer.len)?, length(&inner.len)?);
            Some(Shape::Rows { rows, cols })
        }
        Type::Path(p) if p.qself.is_none() => match block.stmts.last()? {
            Stmt::Expr(Expr::Path(name), None) => {
                let name = name.path.get_ident()?;
                block.stmts.iter().rev().find_map(|s| match s {
                    Stmt::Local(l) if bound(&l.pat) == Some(name) => shape(&l.init.as_ref()?.expr),
                    _ => None,
                })
            }
            Stmt::Expr(e, None) => shape(e),
            _ => None,
        },
        _ => None,
    }
}

/// The name a `let` binds (`m`, `mut m`, `m: Mat3`).
fn bound(p: &Pat) -> Option<&Ident> {
    match p {
        Pat::Ident(pi) => Some(&pi.ident),
        Pat::Type(t) => bound(&t.pat),
        _ => None,
    }
}

fn length(e: &Expr) -> Option<usize> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        _ => None,
    }
}

/// The float type of the struct's numbers: the function's or its block's type parameter bounded
/// by `Float`, else `f32` where the signature names it, else `f64`.
fn float_of(item: &ItemFn, args: &parse::Args) -> Ident {
    if let Some(f) = parse::float_param(&item.sig.generics).or_else(|| args.impl_float.clone()) {
        return f;
    }
    parse::float_named(quote!(#item))
}

/// The width of a field's value: an array literal's length (`[a, b]`, `[x; 3]`), else a number.
pub fn width(e: &Expr) -> Option<usize> {
    match e {
        Expr::Array(a) => Some(a.elems.len()),
        Expr::Repeat(r) => length(&r.len),
        _ => None,
    }
}

/// The first struct literal the body returns: its tail's, or a `return`'s.
fn first_literal(block: &syn::Block) -> Option<syn::ExprStruct> {
    fn of(e: &Expr) -> Option<syn::ExprStruct> {
        match e {
            Expr::Struct(s) if s.rest.is_none() => Some(s.clone()),
            Expr::Block(b) => tail(&b.block),
            Expr::If(i) => {
                tail(&i.then_branch).or_else(|| i.else_branch.as_ref().and_then(|(_, e)| of(e)))
            }
            Expr::Match(m) => m.arms.iter().find_map(|a| of(&a.body)),
            Expr::Paren(p) => of(&p.expr),
            Expr::Return(r) => r.expr.as_deref().and_then(of),
            _ => None,
        }
    }
    fn tail(b: &syn::Block) -> Option<syn::ExprStruct> {
        b.stmts.iter().rev().find_map(|s| match s {
            Stmt::Expr(e, _) => of(e),
            _ => None,
        })
    }
    tail(block)
}

impl Layout {
    fn width(&self) -> usize {
        match &self.shape {
            Shape::Struct { fields, .. } => fields.iter().map(|(_, n)| n.unwrap_or(1)).sum(),
            Shape::Rows { rows, cols } => rows * cols,
        }
    }

    /// `e`, a value the function returns, rewritten as the array of its numbers: `Some(false)`
    /// where it is not of the layout, `None` where it is not written out (`rewrite_returned`
    /// then looks inside).
    fn as_array(&self, e: &mut Expr) -> Option<bool> {
        match &self.shape {
            Shape::Struct { .. } => match e {
                Expr::Struct(s) => Some(self.struct_array(s).map(|a| *e = a).is_some()),
                // A local of the type, read field by field.
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    *e = syn::parse2(self.flatten(&quote!(#e))).ok()?;
                    Some(true)
                }
                _ => None,
            },
            Shape::Rows { rows, cols } => match e {
                Expr::Array(_) | Expr::Repeat(_) => Some(match flat_literal(e) {
                    Some((flat, r, c)) if (r, c) == (*rows, *cols) => {
                        *e = flat;
                        true
                    }
                    _ => false,
                }),
                Expr::Block(_) | Expr::If(_) | Expr::Match(_) | Expr::Paren(_) => None,
                // A local array of arrays, read element by element (desugaring flattens it),
                // or any other value of the type, taken first.
                Expr::Path(_) => {
                    let items = self.elements(&quote!(#e));
                    *e = syn::parse_quote!([#(#items),*]);
                    Some(true)
                }
                _ => {
                    let v = Ident::new("__diffx_rows", Span::mixed_site());
                    let items = self.elements(&quote!(#v));
                    *e = syn::parse_quote!({ let #v = #e; [#(#items),*] });
                    Some(true)
                }
            },
        }
    }

    /// `s` as the array of its numbers, if it has the layout's fields.
    fn struct_array(&self, s: &syn::ExprStruct) -> Option<Expr> {
        let Shape::Struct { fields, .. } = &self.shape else {
            return None;
        };
        if s.rest.is_some() || s.fields.len() != fields.len() {
            return None;
        }
        let mut numbers: Vec<TokenStream> = Vec::new();
        // (A field's array given otherwise, `vals: self.vals.map(|v| v * s)`, is taken first.)
        let mut taken: Vec<TokenStream> = Vec::new();
        for (member, n) in fields {
            let field = s.fields.iter().find(|f| f.member == *member)?;
            match (n, &field.expr) {
                (None, e) => numbers.push(quote!(#e)),
                (Some(n), Expr::Array(a)) if a.elems.len() == *n => {
                    numbers.extend(a.elems.iter().map(|x| quote!(#x)));
                }
                (Some(n), Expr::Repeat(r)) if width(&field.expr) == Some(*n) => {
                    let x = &r.expr;
                    numbers.extend((0..*n).map(|_| quote!(#x)));
                }
                (Some(_), Expr::Array(_) | Expr::Repeat(_)) => return None,
                (Some(n), e) => {
                    let name = format_ident!("__diffx_field_{}", taken.len());
                    taken.push(quote!(let #name = #e;));
                    numbers.extend((0..*n).map(|k| quote!(#name[#k])));
                }
            }
        }
        if taken.is_empty() {
            return Some(syn::parse_quote!([#(#numbers),*]));
        }
        Some(syn::parse_quote!({ #(#taken)* [#(#numbers),*] }))
    }

    /// `m[0][0], m[0][1], …`: the elements of an array of arrays `m`, row after row.
    fn elements(&self, m: &TokenStream) -> Vec<TokenStream> {
        let Shape::Rows { rows, cols } = self.shape else {
            return Vec::new();
        };
        (0..rows)
            .flat_map(|i| (0..cols).map(move |j| quote!(#m[#i][#j])))
            .collect()
    }

    /// The value built from the array `v` of its numbers.
    fn rebuild(&self, v: &TokenStream) -> TokenStream {
        match &self.shape {
            Shape::Struct { path, fields } => {
                let mut at = 0usize;
                let fields = fields.iter().map(|(member, n)| {
                    let value = match n {
                        None => quote!(#v[#at]),
                        Some(n) => {
                            let items = (at..at + n).map(|k| quote!(#v[#k]));
                            quote!([#(#items),*])
                        }
                    };
                    at += n.unwrap_or(1);
                    quote!(#member: #value)
                });
                quote!(#path { #(#fields),* })
            }
            Shape::Rows { rows, cols } => {
                let rows = (0..*rows).map(|i| {
                    let items = (i * cols..(i + 1) * cols).map(|k| quote!(#v[#k]));
                    quote!([#(#items),*])
                });
                quote!([#(#rows),*])
            }
        }
    }

    /// The array of the numbers of the value `s`.
    fn flatten(&self, s: &TokenStream) -> TokenStream {
        let numbers: Vec<TokenStream> = match &self.shape {
            Shape::Struct { fields, .. } => fields
                .iter()
                .flat_map(|(member, n)| match n {
                    None => vec![quote!(#s.#member)],
                    Some(n) => (0..*n).map(|k| quote!(#s.#member[#k])).collect(),
                })
                .collect(),
            Shape::Rows { .. } => self.elements(s),
        };
        quote!([#(#numbers),*])
    }
}

/// `items`, written for the array version of `function`, for the user's `function` returning
/// the struct of `layout`.
pub fn dress(items: Vec<Item>, function: &ItemFn, layout: &Layout) -> Vec<Item> {
    let name = &function.sig.ident;
    let array = names::array(name);
    let (jvp, vjp) = (format_ident!("jvp_{}", name), format_ident!("vjp_{}", name));
    let (hidden_jvp, hidden_vjp) = (names::jvp(name), names::vjp(name));
    let hidden_hvp = names::hvp(name);
    let explain = format_ident!("explain_{}", name);
    let split = names::split(name);
    // (The hidden `vjp_` is the split function followed by its pullback: `emit::split`.)
    let cut = items.iter().any(|i| match i {
        Item::Fn(f) if f.sig.ident == hidden_vjp => {
            let mut calls = false;
            rewrite_calls(&mut f.block.clone(), &mut |c| {
                calls |= called(c, &|n| split == n).is_some();
                None
            });
            calls
        }
        _ => false,
    });
    let jacobian = format_ident!("jacobian_{}", name);
    let mut out = Vec::new();
    for item in items {
        let Item::Fn(mut f) = item else {
            out.push(item);
            continue;
        };
        if f.sig.ident == jacobian {
            out.push(Item::Fn(layout.jacobian(f, name, &array)));
            continue;
        }
        if f.sig.ident == *name {
            out.extend(super::user_beside_core(f, function, &array, true));
            continue;
        }
        if f.sig.ident == split {
            // The split function's value and cotangent are the user's type. A cut one is the
            // array version's, wrapped: the hidden `vjp_` calls that one, and converts.
            if cut {
                let mut array_split = f.clone();
                array_split.sig.ident = names::split(format_ident!("array_{}", name));
                out.push(Item::Fn(layout.split(&f, &array_split.sig.ident)));
                out.push(Item::Fn(array_split));
            } else {
                layout.recomputing_split(&mut f);
                out.push(Item::Fn(f));
            }
            continue;
        }
        // The generated functions call the array version.
        super::redirect_calls(&mut f.block, name, &array);
        if cut {
            let array_split = names::split(format_ident!("array_{}", name));
            rewrite_calls(&mut f.block, &mut |c| {
                called(c, &|n| split == n)?;
                let args = &c.args;
                Some(syn::parse_quote!(#array_split(#args)))
            });
        }
        // The hidden functions convert; the public ones hand the structs through.
        let id = &f.sig.ident;
        let ty = &layout.ty;
        if *id == hidden_jvp {
            layout.returns_pair(&mut f);
        } else if *id == hidden_vjp {
            layout.takes_cotangents(&mut f, 1);
            layout.returns_value_first(&mut f);
        } else if *id == hidden_hvp && !super::outputs::is_stub(&f) {
            // (The cotangent and its tangent, for callers' second order.)
            layout.takes_cotangents(&mut f, 2);
            layout.returns_value_first(&mut f);
        } else if *id == explain {
            layout.takes_cotangents(&mut f, 1);
        } else if *id == jvp {
            f.sig.output = syn::parse_quote!(-> (#ty, #ty));
        } else if *id == vjp {
            if let Some(FnArg::Typed(ct)) = f.sig.inputs.last_mut() {
                *ct.ty = ty.clone();
            }
        }
        out.push(Item::Fn(f));
    }
    out
}

impl Layout {
    /// `jvp_f`: the value and the tangent, each a struct.
    /// `jacobian_f` of the array version, a row per number of the result: in `Params`' order
    /// where the type derives it (a struct's fields as declared, a matrix's rows one after
    /// another), else as the literal writes the fields (`diffx::__private::Numbers` chooses at
    /// compile time). The tangents of `jvp_f` and the cotangents of `vjp_f` are converted
    /// between the value and the array of its numbers.
    fn jacobian(&self, mut f: ItemFn, name: &Ident, array: &Ident) -> ItemFn {
        super::redirect_calls(&mut f.block, name, array);
        let (jvp, vjp) = (format_ident!("jvp_{}", name), format_ident!("vjp_{}", name));
        let last = |c: &syn::ExprCall| match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
            _ => None,
        };
        rewrite_calls(&mut f.block, &mut |c| {
            let id = last(c)?;
            let numbers = quote!(
                use ::diffx::__private::{NoNumbers as _, ParamsNumbers as _};
            );
            if id == jvp {
                let t = self.flatten(&quote!(__t));
                return Some(syn::parse_quote!({
                    let (_, __t) = #c;
                    #numbers
                    let __n = (&::diffx::__private::Numbers(&__t)).numbers();
                    ((), __n.unwrap_or_else(|| #t.to_vec()))
                }));
            }
            if id != vjp {
                return None;
            }
            let mut c = c.clone();
            let ct = c.args.pop()?.into_value();
            let shaped = self.rebuild(&quote!((__ct)));
            c.args.push(syn::parse_quote!({
                let __ct = #ct;
                let __s = #shaped;
                #numbers
                let __n = (&::diffx::__private::Numbers(&__s)).shaped(&__ct[..]);
                __n.unwrap_or(__s)
            }));
            Some(Expr::Call(c))
        });
        f
    }

    fn returns_pair(&self, f: &mut ItemFn) {
        let (v, t) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__tangent", Span::mixed_site()),
        );
        let (rv, rt) = (self.rebuild(&quote!(#v)), self.rebuild(&quote!(#t)));
        let body = &f.block;
        f.block = syn::parse_quote!({ let (#v, #t) = #body; (#rv, #rt) });
        let ty = &self.ty;
        f.sig.output = syn::parse_quote!(-> (#ty, #ty));
    }

    /// `__diffx_vjp_f`, `__diffx_hvp_f`: the value, a struct, then the gradients (and their
    /// tangents).
    fn returns_value_first(&self, f: &mut ItemFn) {
        let v = Ident::new("__value", Span::mixed_site());
        // (The gradients, and for `__diffx_hvp_f` their tangents.)
        let n = match &f.sig.output {
            ReturnType::Type(_, ty) => match &**ty {
                Type::Tuple(t) => t.elems.len().saturating_sub(1),
                _ => 1,
            },
            ReturnType::Default => 1,
        };
        let rest: Vec<Ident> = (0..n)
            .map(|k| format_ident!("__rest{}", k, span = Span::mixed_site()))
            .collect();
        let rv = self.rebuild(&quote!(#v));
        let body = &f.block;
        f.block = syn::parse_quote!({ let (#v, #(#rest),*) = #body; (#rv, #(#rest),*) });
        if let ReturnType::Type(_, ty) = &mut f.sig.output {
            if let Type::Tuple(t) = &mut **ty {
                if let Some(first) = t.elems.first_mut() {
                    *first = self.ty.clone();
                }
            }
        }
    }

    /// `__diffx_split_f` (see `emit::split`) taking and returning the user's type, through
    /// `array_split`, the split function of the array version.
    fn split(&self, f: &ItemFn, array_split: &Ident) -> ItemFn {
        let mut out = f.clone();
        let inputs = self.split_signature(&mut out);
        let args: Vec<TokenStream> = f
            .sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                FnArg::Typed(pt) => Some(pt.pat.to_token_stream()),
                FnArg::Receiver(_) => None,
            })
            .collect();
        let (v, pullback, ct, rest) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__pullback", Span::mixed_site()),
            Ident::new("__ct", Span::mixed_site()),
            [
                Ident::new("__wanted", Span::mixed_site()),
                Ident::new("__slots", Span::mixed_site()),
            ],
        );
        let closure_params = args
            .iter()
            .chain([&quote!(#ct)])
            .chain(rest.iter().map(|r| quote!(#r)).collect::<Vec<_>>().iter())
            .zip(&inputs)
            .map(|(a, t)| quote!(#a: #t))
            .collect::<Vec<_>>();
        let (value, numbers) = (self.rebuild(&quote!(#v)), self.flatten(&quote!(#ct)));
        let [w, sl] = &rest;
        out.block = syn::parse_quote!({
            let (#v, #pullback) = #array_split(#(#args),*);
            (#value, move |#(#closure_params),*| #pullback(#(#args,)* #numbers, #w, #sl))
        });
        out
    }

    /// The split function's signature with the user's type for the value and for the
    /// pullback's cotangent; the pullback's parameter types.
    fn split_signature(&self, f: &mut ItemFn) -> Vec<Type> {
        let n = f.sig.inputs.len();
        let ReturnType::Type(_, ret) = &mut f.sig.output else {
            return Vec::new();
        };
        let Type::Tuple(pair) = &mut **ret else {
            return Vec::new();
        };
        pair.elems[0] = self.ty.clone();
        let mut inputs: Vec<Type> = Vec::new();
        if let Some(Type::ImplTrait(pullback)) = pair.elems.iter_mut().nth(1) {
            for bound in pullback.bounds.iter_mut() {
                let syn::TypeParamBound::Trait(t) = bound else {
                    continue;
                };
                let Some(last) = t.path.segments.last_mut() else {
                    continue;
                };
                if let syn::PathArguments::Parenthesized(a) = &mut last.arguments {
                    if let Some(ct) = a.inputs.iter_mut().nth(n) {
                        *ct = self.ty.clone();
                    }
                    inputs = a.inputs.iter().cloned().collect();
                }
            }
        }
        inputs
    }

    /// A split function that calls the function and its hidden `vjp_` (`emit::split::
    /// recomputing`), with the user's type for the value and the cotangent.
    fn recomputing_split(&self, f: &mut ItemFn) {
        let n = f.sig.inputs.len();
        self.split_signature(f);
        let Some(Stmt::Expr(Expr::Tuple(t), None)) = f.block.stmts.last_mut() else {
            return;
        };
        if let Some(Expr::Closure(c)) = t.elems.iter_mut().nth(1) {
            if let Some(Pat::Type(ct)) = c.inputs.iter_mut().nth(n) {
                *ct.ty = self.ty.clone();
            }
        }
    }

    /// The last `n` parameters (the cotangent, and its tangent) as values of the user's type.
    fn takes_cotangents(&self, f: &mut ItemFn, n: usize) {
        let count = f.sig.inputs.len();
        for input in f.sig.inputs.iter_mut().skip(count.saturating_sub(n)) {
            let FnArg::Typed(ct) = input else { continue };
            let Pat::Ident(pi) = &*ct.pat else { continue };
            let name = pi.ident.clone();
            *ct.ty = self.ty.clone();
            let numbers = self.flatten(&quote!(#name));
            f.block
                .stmts
                .insert(0, syn::parse_quote!(let #name = #numbers;));
        }
    }
}
