//! Calls of other functions: a function of the rule table (`sigmoid(x)`, `f64::sin(x)`), a
//! constant, or another `#[autodiff]` function called through its derivative functions, with its
//! arguments (a function of the table passed by path goes with its partials).

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::Expr;

use super::messages::err;
use super::Lowerer;
use crate::ir::{Atom, Kind, Op};
use crate::names;
use crate::rules::{self, template, Rule};

impl Lowerer<'_> {
    /// A call: a function of the rule table (`sigmoid(x)`, `f64::sin(x)`), a constant, or another
    /// `#[autodiff]` function, called through its derivative functions.
    pub(super) fn call(&mut self, c: &syn::ExprCall, e: &Expr) -> syn::Result<Atom> {
        let before = self.b.func.body.len();
        let vector = std::mem::take(&mut self.vector_call);
        let tuple = std::mem::take(&mut self.tuple_call);
        let Expr::Path(fp) = &*c.func else {
            return err(c.func.span(), "call a function by its name or path here");
        };
        let path = &fp.path;
        let last = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if rules::CONSTANT_FUNCTIONS.contains(&last.as_str()) && is_runtime_path(path) {
            return Ok(self.constant_atom(e));
        }
        // `f64::floor(x)`: piecewise constant in path form too.
        if rules::PIECEWISE_CONSTANT.contains(&last.as_str()) && float_path(path, &self.b.float) {
            return Ok(self.constant_atom(e));
        }
        let mut args = Vec::new();
        for a in &c.args {
            args.push(self.call_arg(a)?);
        }
        if let Some(rule) = function_rule(path, &self.b.float) {
            self.check_arity(rule, args.len(), path.span())?;
            // These functions take numbers: a parameter struct's field (or a value computed from
            // one) passed to one is a number.
            let args = args
                .into_iter()
                .map(|a| match a {
                    Atom::Field(..) | Atom::Var(_) if self.b.func.atom_kind(&a) == Kind::Other => {
                        Atom::Var(
                            self.b
                                .op_of_kind(Op::Id, vec![a], path.span(), Kind::Scalar),
                        )
                    }
                    a => a,
                })
                .collect();
            return self.apply_or_fold(rule, args, e, before);
        }
        if path
            .get_ident()
            .is_some_and(|i| self.lookup(&i.to_string()).is_some())
        {
            return err(path.span(), "calling a local value is not supported: write a separate `#[autodiff]` function and call it");
        }
        let kind = match vector {
            true => Kind::Slice,
            false => self.b.call_kind,
        };
        let parts = parts_path(path);
        let own_value = self.returns_self(path);
        let mut path = path.clone();
        if let (true, Some(last)) = (tuple, path.segments.last_mut()) {
            last.ident = names::array(&last.ident);
        }
        // (With a function argument, the callee's version taking it with its partials.)
        let functions = c.args.iter().any(|a| self.function_argument(a).is_some());
        if let (true, Some(last)) = (functions, path.segments.last_mut()) {
            last.ident = names::with_partials(&last.ident);
        }
        let v = self
            .b
            .op_of_kind(Op::Call(path.clone()), args, path.span(), kind);
        if vector {
            // Read element by element, as a local vector is.
            self.vectors.insert(v);
        }
        if tuple {
            self.tuple_values.insert(v, parts);
        }
        if own_value {
            self.b.func.vars[v.0].kind = Kind::Other;
            self.b.func.own_values.push(v);
        }
        Ok(Atom::Var(v))
    }

    /// A function of the derivative table passed by path (`f64::add`, `f64::max`), as a callee's
    /// function parameter takes it in derivative code: with its partials
    /// (`diffx::with_partials(f64::max, |a, b, z| [∂a, ∂b])`, see `adapt/functions.rs`).
    fn function_argument(&self, a: &Expr) -> Option<TokenStream> {
        let Expr::Path(p) = a else { return None };
        let float = &self.b.float;
        if p.qself.is_some() || !float_path(&p.path, float) {
            return None;
        }
        let name = p.path.segments.last()?.ident.to_string();
        let rule = rules::find_method(&name, false)
            .filter(|r| r.syntax == rules::Syntax::Method)
            .or_else(|| {
                rules::find(&name).filter(|r| matches!(r.syntax, rules::Syntax::Infix(_)))
            })?;
        let rules::Deriv::Partials(partials) = rule.deriv else {
            return None;
        };
        if !(1..=2).contains(&partials.len()) || partials.iter().any(|d| d.is_empty()) {
            return None;
        }
        let operands: Vec<Ident> = ["a", "b"][..partials.len()]
            .iter()
            .map(|n| Ident::new(n, p.span()))
            .collect();
        let z = Ident::new("z", p.span());
        let bindings: Vec<(&str, TokenStream)> = ["a", "b", "z"]
            .iter()
            .map(|n| (*n, Ident::new(n, p.span()).to_token_stream()))
            .collect();
        let written = partials
            .iter()
            .map(|d| template::write(d, float, &bindings).ok())
            .collect::<Option<Vec<_>>>()?;
        let (path, n) = (&p.path, partials.len());
        let floats = vec![float; n];
        // (As function pointers: the argument is written again at each use, one type each time.)
        Some(quote! {
            ::diffx::with_partials(
                #path as fn(#(#floats),*) -> #float,
                (|#(#operands: #float,)* #z: #float| [#(#written),*]) as fn(#(#floats,)* #float) -> [#float; #n],
            )
        })
    }

    /// Whether `path` (`Self::f`, `KM::f`) names a function of the `impl` block that returns
    /// the block's type.
    fn returns_self(&self, path: &syn::Path) -> bool {
        let [ty, f] = path.segments.iter().collect::<Vec<_>>()[..] else {
            return false;
        };
        let own = ty.ident == "Self" || Some(&ty.ident) == self.self_type.as_ref();
        own && self.returning_self.contains(&f.ident)
    }

    /// An argument of a call, lowered: a local vector passed by value goes as a copy of its own, a
    /// field passed by value as a number.
    pub(super) fn call_arg(&mut self, a: &Expr) -> syn::Result<Atom> {
        if let Some(f) = self.function_argument(a) {
            return Ok(Atom::constant(f));
        }
        // `&g(…)` passed on: a call's vector, by reference.
        self.vector_call = self.b.call_kind == Kind::Scalar
            && matches!(a, Expr::Reference(r) if matches!(&*r.expr, Expr::Call(_)));
        let mut arg = self.expr(a)?;
        self.vector_call = false;
        // (A loop's element bound by reference, `layer` of `for layer in &model.layers`, is a
        // reference already.)
        let bound_by_ref = matches!(a, Expr::Path(p)
            if p.path.get_ident().is_some_and(|i| self.refs.contains(&i.to_string())));
        let by_value = !matches!(a, Expr::Reference(_)) && !bound_by_ref;
        match &arg {
            // A local vector passed by value (`g(p)` for `p: [f64; 2]`) goes as a copy of its
            // own, so that `h(&p)` elsewhere still passes a reference.
            Atom::Var(v)
                if by_value
                    && self.b.func.kind(*v) == Kind::Slice
                    && !self.b.func.vars[v.0].is_ref =>
            {
                let copy = self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Slice);
                self.b.func.vars[copy.0].by_value = true;
                arg = Atom::Var(copy);
            }
            // A value of a type the macro cannot see passed by value (`from_matrix(m)`) goes as
            // a copy of its own too, so that `g(&m)` elsewhere still passes a reference.
            Atom::Var(v)
                if by_value
                    && self.b.func.kind(*v) == Kind::Other
                    && !self.b.func.vars[v.0].is_ref
                    && self.param_types.contains_key(v) =>
            {
                let copy = self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Other);
                self.b.func.vars[copy.0].by_value = true;
                arg = Atom::Var(copy);
            }
            Atom::Var(v) if by_value => self.b.func.vars[v.0].by_value = true,
            _ => {}
        }
        if by_value && matches!(arg, Atom::Field(..)) && self.b.func.atom_kind(&arg) == Kind::Other
        {
            // A field passed by value is `Copy`: a number (a tensor would be moved out).
            arg = Atom::Var(self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Scalar));
        }
        Ok(arg)
    }
}

/// `sigmoid`, `diffx::sigmoid`, `::diffx::sigmoid`, `diffx_runtime::sigmoid`.
fn is_runtime_path(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.len() == 1 || (segs.len() == 2 && matches!(segs[0].as_str(), "diffx" | "diffx_runtime"))
}

/// Whether `path` is a float method in path form: `f64::sin`, `T::sin` where the function
/// computes in the type parameter `T`, or the trait's `Float::sin`, `num_traits::Float::sin`.
fn float_path(path: &syn::Path, float: &Ident) -> bool {
    let n = path.segments.len();
    n >= 2 && {
        let owner = &path.segments[n - 2].ident;
        owner == "Float" || n == 2 && (owner == "f64" || owner == "f32" || owner == float)
    }
}

/// The rule for `f64::sin(x)`-style paths and the runtime's functions.
fn function_rule(path: &syn::Path, float: &Ident) -> Option<&'static Rule> {
    let last = path.segments.last()?.ident.to_string();
    if float_path(path, float) {
        return rules::find_method(&last, false).filter(|r| r.syntax == rules::Syntax::Method);
    }
    rules::find_function(&last).filter(|_| is_runtime_path(path))
}

/// The const holding where the parts of `f`'s tuple result start in its array version, by the
/// path of `f` (`m::__DIFFX_PARTS_f`, `Self::__DIFFX_PARTS_f` for a method called `self.f(…)`).
fn parts_path(path: &syn::Path) -> TokenStream {
    let mut p = path.clone();
    if p.segments
        .first()
        .is_some_and(|s| s.ident == names::SELF_PARAM)
    {
        p.segments[0].ident = Ident::new("Self", p.segments[0].ident.span());
    }
    if let Some(last) = p.segments.last_mut() {
        last.ident = names::parts(&last.ident);
        last.arguments = syn::PathArguments::None;
    }
    quote!(#p)
}
