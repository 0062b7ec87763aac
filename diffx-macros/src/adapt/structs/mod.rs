//! A result of the user's own shape, written as an array result: a struct of numbers (`fn
//! cauchy_green(&self) -> Self { Self { vals: [1.0 + 2.0 * v[0], …] } }`) or an array of arrays
//! (`-> [[f64; 3]; 3]`, or a type alias of one, `-> Mat3`). On the way in, each struct literal the
//! function returns becomes the array of its numbers, field after field as the first one lists
//! them, and an array of arrays its elements row after row; on the way out, the user's function
//! comes back as written, and the generated functions take and return the user's type (`jvp_` its
//! value and tangent, `vjp_` a cotangent of it), the hidden ones too, so that a caller's
//! `e.cauchy_green().det()` goes through both methods.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, ItemFn, Pat, ReturnType, Stmt, Type};

use crate::desugar::flat_literal;
use crate::parse;

mod dress;

pub use dress::Dress;

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
                    let v = crate::names::local_at("rows", Span::mixed_site());
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
                    let name = crate::names::numbered("field_", taken.len());
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
