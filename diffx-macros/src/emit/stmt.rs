//! The lists written as Rust: operands, operations, statements, and bodies with values handed
//! over at their last read.

use std::collections::HashSet;

use proc_macro2::{Delimiter, Ident, Span, TokenStream};
use quote::quote;

use super::trees::{operand_trees, place_trees, Joined, Trees, Written};
use super::{calls, control, generic};
use crate::ir::operands::{by_ref, owned, place, value};
use crate::ir::{Atom, Func, Kind, Op, Stmt, Var};
use crate::liveness;
use crate::names;
use crate::rules::{template, Syntax};

/// Scalars by value, everything else by reference: `a + b` for numbers, `&a + &b` for tensors.
pub(super) fn operand(f: &Func, a: &Atom) -> TokenStream {
    // (Where every value is a number, so is a value of a kind the macro cannot see.)
    if f.atom_kind(a) == Kind::Scalar || (f.numbers && f.atom_kind(a) == Kind::Other) {
        place(f, a)
    } else {
        by_ref(f, a)
    }
}

/// The arguments of a call as the user passed them: vectors by reference, except those passed
/// by value, which get a copy (the derivative code reads them again).
pub(super) fn call_args(f: &Func, args: &[Atom]) -> Vec<TokenStream> {
    args.iter()
        .map(|a| match a {
            // (A value of a kind the macro cannot see, passed by value, is a number or a value
            // the callee takes whole: a copy either way.)
            Atom::Var(v)
                if f.vars[v.0].by_value
                    && !f.vars[v.0].is_ref
                    && matches!(f.kind(*v), Kind::Slice | Kind::Other) =>
            {
                owned(f, a)
            }
            _ => operand(f, a),
        })
        .collect()
}

/// The call of the function at `path` with `args`: `path(args)`, or for lowering's call of a
/// method on a value (`__diffx_method::g`, see [`names::METHOD`]) `args[0].g(args[1..])`.
pub(super) fn call(path: &syn::Path, args: Vec<TokenStream>) -> TokenStream {
    match path.segments.iter().collect::<Vec<_>>().as_slice() {
        // `a + b` of a user type written as the operator (its trait need not be in scope).
        [first, op] if first.ident == names::OPERATOR && symbol(&op.ident).is_some() => {
            let (o, reflected) = symbol(&op.ident).unwrap_or_default();
            let assign = op.ident.to_string().contains("_assign");
            match args.as_slice() {
                [a] => quote!((#o (#a))),
                // (`acc += v` through the type's `AddAssign`, as a value.)
                [a, b] if assign => {
                    let o = compound(&o, op.ident.span());
                    let acc = names::local("acc");
                    quote!({ let mut #acc = #a; #acc #o #b; #acc })
                }
                // (`v.__diffx_vjp_rmul(k, ct)` is `k * v`: the method's receiver is on the right.)
                [a, b] if reflected => quote!(((#b) #o (#a))),
                [a, b] => quote!(((#a) #o (#b))),
                _ => quote!(),
            }
        }
        [first, method]
            if (first.ident == names::METHOD || first.ident == names::OPERATOR)
                && !args.is_empty() =>
        {
            let (mut recv, rest) = (args[0].clone(), &args[1..]);
            let m = &method.ident;
            // (An operator's derivative: its receiver asserted to have it, so that an impl
            // without `#[autodiff]` is reported by name.)
            if let (true, Some(check)) = (first.ident == names::OPERATOR, operator_check(m)) {
                recv = quote::quote_spanned!(m.span()=> ::diffx::__private::#check(#recv));
            }
            // (`&p` and `*p` as receivers need parentheses: `&p.g()` is `&(p.g())`.)
            let prefixed = matches!(
                recv.clone().into_iter().next(),
                Some(proc_macro2::TokenTree::Punct(_))
            );
            match prefixed {
                true => quote!((#recv).#m(#(#rest),*)),
                false => quote!(#recv.#m(#(#rest),*)),
            }
        }
        // (Another method of the `impl`, called through `self` as the user wrote it.)
        [first, method] if first.ident == names::SELF_PARAM => {
            let m = &method.ident;
            quote!(self.#m(#(#args),*))
        }
        _ => quote!(#path(#(#args),*)),
    }
}

/// The runtime's check that an operator's derivative method `method` (`__diffx_vjp_add`,
/// `__diffx_jvp_mul_by_number`, `__diffx_vjp_rmul`) exists, by the form of the impl that writes
/// it: `differentiable_add`, `differentiable_mul_number`, `differentiable_number_mul`.
fn operator_check(method: &Ident) -> Option<Ident> {
    const OPS: [&str; 5] = ["add", "sub", "mul", "div", "neg"];
    let name = method.to_string();
    let (base, number) = match name.strip_suffix("_by_number") {
        Some(base) => (base, true),
        None => (name.as_str(), false),
    };
    let (base, assign) = match base.strip_suffix("_assign") {
        Some(base) => (base, "_assign"),
        None => (base, ""),
    };
    let last = base.rsplit('_').next()?;
    let check = match (last.strip_prefix('r'), number) {
        (Some(op), false) if OPS.contains(&op) => format!("differentiable_number_{op}"),
        _ if !OPS.contains(&last) => return None,
        (_, true) => format!("differentiable_{last}{assign}_number"),
        (_, false) => format!("differentiable_{last}{assign}"),
    };
    Some(Ident::new(&check, method.span()))
}

/// `+=` of the operator `+`.
fn compound(op: &TokenStream, span: Span) -> TokenStream {
    let mut out = TokenStream::new();
    for tt in op.clone() {
        if let proc_macro2::TokenTree::Punct(p) = tt {
            let mut joint = proc_macro2::Punct::new(p.as_char(), proc_macro2::Spacing::Joint);
            joint.set_span(span);
            out.extend([proc_macro2::TokenTree::Punct(joint)]);
        }
    }
    let mut eq = proc_macro2::Punct::new('=', proc_macro2::Spacing::Alone);
    eq.set_span(span);
    out.extend([proc_macro2::TokenTree::Punct(eq)]);
    out
}

/// The operator an operator impl's method stands for (`+` for `add`, `add_by_number` and
/// `add_assign`), and whether its operands are the other way round (`radd`, see
/// `names::reflected`).
fn symbol(method: &Ident) -> Option<(TokenStream, bool)> {
    let name = method.to_string();
    let op = name.strip_suffix("_by_number").unwrap_or(&name);
    let op = op.strip_suffix("_assign").unwrap_or(op);
    let (op, reflected) = match op.strip_prefix('r') {
        Some(rest) if ["add", "sub", "mul", "div"].contains(&rest) => (rest, true),
        _ => (op, false),
    };
    let o = match op {
        "add" => quote!(+),
        "sub" | "neg" => quote!(-),
        "mul" => quote!(*),
        "div" => quote!(/),
        _ => return None,
    };
    Some((o, reflected))
}

/// The right-hand side of `dst = op(args)` as Rust: `x1.ln()`, `a * b`.
#[cfg_attr(not(feature = "explain"), allow(dead_code))]
pub fn op_expr(f: &Func, dst: Var, op: &Op, args: &[Atom]) -> TokenStream {
    op_expr_moving(f, dst, op, args, &|_| false).into_stream()
}

/// [`op_expr`], handing over the operands for which `moved` holds: `t1 + &b`, not `&t1 + &b`.
/// The common forms (operators, methods, the table's functions, copies) are written as trees.
pub(super) fn op_expr_moving(
    f: &Func,
    dst: Var,
    op: &Op,
    args: &[Atom],
    moved: &dyn Fn(&Atom) -> bool,
) -> Trees {
    // An operand as the operator or function takes it: by value if handed over here.
    let operator_operand = |k: usize| match moved(&args[k]) {
        true => place_trees(f, &args[k]),
        false => operand_trees(f, &args[k]),
    };
    let mut t = Trees::default();
    if let Some(name) = in_place(f, op, args, moved) {
        t.path("::diffx::__private::owned").punct("::").word(name);
        t.list(Delimiter::Parenthesis, vec![place_trees(f, &args[0])]);
        return t;
    }
    match op {
        Op::Id if f.kind(dst) == Kind::Scalar || moved(&args[0]) => {
            return place_trees(f, &args[0])
        }
        Op::Id => {
            t.append(place_trees(f, &args[0])).punct(".").word("clone");
            t.list(Delimiter::Parenthesis, Vec::new());
        }
        Op::Rule(rule) => match &rule.syntax {
            Syntax::Infix(_) => {
                t.append(operator_operand(0))
                    .tree(rule.operator_punct().into());
                t.append(operator_operand(1));
            }
            Syntax::Prefix(_) => {
                t.tree(rule.operator_punct().into())
                    .append(operator_operand(0));
            }
            Syntax::Method | Syntax::TensorMethod => {
                let rest = args[1..].iter().map(|x| match rule.syntax {
                    Syntax::Method => place_trees(f, x),
                    _ => Trees::from(by_ref(f, x)),
                });
                match (&args[0], &f.float) {
                    // `f64::atan2(0.5 * -0.3, x)`: a literal receiver has no type of its own.
                    (Atom::Const(_), Some(float)) if rule.syntax == Syntax::Method => {
                        // (`#float::#m(#recv, #(#rest),*)`: a comma after the receiver always.)
                        let mut inner = place_trees(f, &args[0]);
                        inner.punct(",");
                        let rest: Vec<Trees> = rest.collect();
                        inner.separated(rest);
                        t.ident(float).punct("::").word(rule.name);
                        t.list(Delimiter::Parenthesis, vec![inner]);
                    }
                    _ => {
                        t.append(place_trees(f, &args[0]))
                            .punct(".")
                            .word(rule.name);
                        t.list(Delimiter::Parenthesis, rest.collect());
                    }
                }
            }
            Syntax::Func(path) => {
                // (Forward over reverse's product of numbers: an element of a nested container,
                // a value of a kind the macro cannot see, is a number there, passed by value.)
                let by_value = *path == names::TANGENT_PRODUCT_PATH;
                let a = args.iter().map(|x| match by_value {
                    true => place_trees(f, x),
                    false => operand_trees(f, x),
                });
                t.path(path).list(Delimiter::Parenthesis, a.collect());
            }
        },
        _ => return Trees::from(other_op_expr(f, op, args, moved)),
    }
    t
}

/// [`op_expr_moving`] of the operations written with `quote!`: fits, zeros, recalls, maps, set
/// parts and calls.
fn other_op_expr(f: &Func, op: &Op, args: &[Atom], moved: &dyn Fn(&Atom) -> bool) -> TokenStream {
    match op {
        Op::Fit => fit(f, args, moved),
        Op::Zeros(ty) => zeros(f, ty, &args[0]),
        Op::Recall(stack) => {
            let pop = match f.slots.contains(stack) {
                true => quote!(take),
                false => quote!(pop),
            };
            quote!(#stack.#pop().unwrap_or_else(|| ::core::unreachable!(
                "a recording loop's backward sweep takes what its forward sweep kept"
            )))
        }
        Op::Map { template, binds } => map(f, template, binds, args),
        Op::SetPart(path) => {
            let take = |a: &Atom| match moved(a) {
                true => place(f, a),
                false => owned(f, a),
            };
            let (base, value) = (take(&args[0]), take(&args[1]));
            let set = names::local("set");
            quote!({ let mut #set = #base; #set #path = #value; #set })
        }
        Op::Call(path) => call(path, call_args(f, args)),
        Op::Id | Op::Rule(_) => TokenStream::new(),
    }
}

/// An adjoint's first value: the operand as it is, or summed to the shape of the second.
fn fit(f: &Func, args: &[Atom], moved: &dyn Fn(&Atom) -> bool) -> TokenStream {
    let v = place(f, &args[0]);
    match args.get(1).filter(|_| !f.numbers) {
        None => v,
        Some(like) => {
            let l = by_ref(f, like);
            let v = if moved(&args[0]) { v } else { quote!(&#v) };
            quote!(::diffx::__private::fit(#v, #l))
        }
    }
}

/// The zeros an adjoint starts from: of a vector, or a parameter struct's, unset until
/// contributions arrive, zeros where none does (`settled` as it is returned).
fn zeros(f: &Func, ty: &TokenStream, like: &Atom) -> TokenStream {
    match f.atom_kind(like) {
        Kind::Slice => {
            let l = by_ref(f, like);
            quote!(::diffx::__private::zeros_for::<#ty, _>(#l))
        }
        _ => {
            let l = place(f, like);
            quote!(::diffx::__private::unset_like::<#ty, _>(&#l))
        }
    }
}

/// A map of the rule table written out, its placeholders bound to the operands.
fn map(f: &Func, template: &str, binds: &[&str], args: &[Atom]) -> TokenStream {
    let float = f
        .float
        .clone()
        .unwrap_or_else(|| Ident::new("f64", Span::call_site()));
    let bindings: Vec<_> = binds
        .iter()
        .zip(args)
        .map(|(&n, a)| (n, value(f, a)))
        .collect();
    template::write(template, &float, &bindings).expect("the table's templates parse")
}

/// The method's name if `op` is a rule the runtime has in place ([`OnTensors::in_place`]) on a
/// tensor read here for the last time.
pub(super) fn in_place(
    f: &Func,
    op: &Op,
    args: &[Atom],
    moved: &dyn Fn(&Atom) -> bool,
) -> Option<&'static str> {
    let Op::Rule(rule) = op else { return None };
    let unary = args.len() == 1 && rule.tensors.in_place;
    let method = matches!(rule.syntax, Syntax::Method | Syntax::TensorMethod);
    (unary && method && f.atom_kind(&args[0]) == Kind::Tensor && moved(&args[0]))
        .then_some(rule.name)
}

pub(super) fn stmt(
    f: &Func,
    s: &Stmt,
    mutable: &Mutable,
    moved: &dyn Fn(&Atom) -> bool,
) -> Written {
    let stream = Written::Stream;
    match s {
        Stmt::If { .. }
        | Stmt::Loop { .. }
        | Stmt::LoopBack { .. }
        | Stmt::Set { .. }
        | Stmt::SetElem { .. }
        | Stmt::Push { .. }
        | Stmt::Pop { .. }
        | Stmt::Record { .. }
        | Stmt::Undo { .. } => stream(control::stmt(f, s, mutable)),
        Stmt::Let { dst, op, args, .. } => {
            let mut t = Trees::default();
            t.word("let");
            if mutable.contains(dst) {
                t.word("mut");
            }
            t.ident(f.name(*dst)).punct("=");
            t.append(op_expr_moving(f, *dst, op, args, moved))
                .punct(";");
            Written::Trees(t)
        }
        Stmt::Accum {
            dst,
            value,
            like,
            first,
        } => {
            let (d, v) = (place_trees(f, dst), f.name(*value));
            if f.atom_kind(dst) == Kind::Slice {
                return stream(quote!(::diffx::__private::add_elems(&mut #d, &#v);));
            }
            // (Where every value is a number, a field's adjoint needs no fitting to its shape; a
            // whole value of the user's type, a callee's gradient of it, is added leaf by leaf.)
            let whole = matches!(dst, Atom::Var(_)) && f.atom_kind(dst) == Kind::Other;
            let like = like.as_ref().filter(|_| !f.numbers || whole);
            match (like, first) {
                // `a = a + b`: `+=` is not among num-traits' `Float` operations.
                // (Written as trees, as `let`s are: the commonest statements of an adjoint.)
                (None, false) if generic(f) => {
                    let mut t = d.clone();
                    t.punct("=").append(d).punct("+").ident(v).punct(";");
                    Written::Trees(t)
                }
                (None, first) => {
                    let mut t = d;
                    t.punct(if *first { "=" } else { "+=" });
                    t.ident(v).punct(";");
                    Written::Trees(t)
                }
                (Some(like), false) => {
                    let l = by_ref(f, like);
                    stream(quote!(::diffx::__private::accumulate(&mut #d, &#v, #l);))
                }
                (Some(like), true) => {
                    let l = by_ref(f, like);
                    let v = if moved(&Atom::Var(*value)) {
                        quote!(#v)
                    } else {
                        quote!(&#v)
                    };
                    stream(quote!(#d = ::diffx::__private::fit(#v, #l);))
                }
            }
        }
        Stmt::Const {
            name,
            mutable,
            ty,
            expr,
        } => {
            let mt = mutable.then(|| quote!(mut));
            let ty = ty.as_ref().map(|t| quote!(: #t));
            stream(quote!(let #mt #name #ty = #expr;))
        }
        Stmt::Verbatim { binds, tokens } if binds.is_empty() => stream(tokens.tokens().clone()),
        Stmt::Verbatim { binds, tokens } => {
            let names = binds.iter().map(|(n, _)| n);
            // A value of a kind the macro cannot see (a number from a call, a field) is bound as
            // a copy: the statement may pass it on by value (`h(b)`) or by reference (`h(&b)`).
            let unseen = |a: &Atom| matches!(a, Atom::Var(_)) && f.atom_kind(a) == Kind::Other;
            let values = binds.iter().map(|(_, a)| match unseen(a) {
                true => {
                    let p = place(f, a);
                    quote!(::core::clone::Clone::clone(&#p))
                }
                false => operand(f, a),
            });
            // A vector or tensor is bound by reference here: `&v` in the statement is `v`, so
            // that `h(&v)` still passes a `&[T; 3]` (a `&&[T; 3]` does not coerce while `T` is
            // inferred).
            let borrowed: Vec<String> = binds
                .iter()
                .filter(|(_, a)| {
                    matches!(a, Atom::Var(_)) && f.atom_kind(a) != Kind::Scalar && !unseen(a)
                })
                .map(|(n, _)| n.to_string())
                .collect();
            let tokens = crate::tokens::without_borrow(tokens.tokens().clone(), &borrowed);
            stream(quote!({ #(let #names = #values;)* #tokens }))
        }
        Stmt::Item(tokens) => stream(tokens.clone()),
        Stmt::Call(c) => stream(calls::stmt(f, c, mutable)),
    }
}

/// The values a body writes after binding them (accumulated into, set, loop cells, vectors
/// written in place), which it binds with `mut`: by value index (values are dense, and every
/// `let` asks).
pub(super) struct Mutable(Vec<bool>);

impl Mutable {
    pub fn contains(&self, v: &Var) -> bool {
        self.0.get(v.0).copied().unwrap_or(false)
    }

    fn insert(&mut self, v: Option<Var>) {
        if let Some(v) = v {
            self.0[v.0] = true;
        }
    }
}

/// The statements of `f`, with `mut` on exactly the values that are accumulated into.
pub fn body(f: &Func) -> TokenStream {
    body_parts(f, None, &|_, t| t).0
}

/// [`body`] cut before statement `at`, if given: the forward and backward sweeps of a reverse
/// program, each statement `k` of the backward one written by `wrap(k, written)`.
pub(super) fn body_parts(
    f: &Func,
    at: Option<usize>,
    wrap: &dyn Fn(usize, Written) -> Written,
) -> (TokenStream, TokenStream) {
    let mut mutable = Mutable(vec![false; f.vars.len()]);
    for s in &f.body {
        s.walk(&mut |s| match s {
            Stmt::Accum { dst, .. } => mutable.insert(dst.var()),
            Stmt::Set { dst, .. } => mutable.insert(Some(*dst)),
            Stmt::Loop { cells, .. } => cells.iter().for_each(|c| mutable.insert(Some(*c))),
            Stmt::SetElem { vec, .. }
            | Stmt::Undo { vec, .. }
            | Stmt::Push { vec, .. }
            | Stmt::Pop { vec, .. } => mutable.insert(Some(*vec)),
            _ => {}
        });
    }
    let params: HashSet<Var> = f
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_ref)
        .map(|(i, _)| Var(i))
        .collect();
    let moves = liveness::movable(f, &params);
    let moved = |i: usize, a: &Atom| matches!(a, Atom::Var(v) if moves.contains(&(i, *v)));
    let same = |_: usize, w: Written| w;
    let stacks = f.stacks.iter().filter(|s| !f.slots.contains(s));
    let slots = f.slots.iter();
    let declared = quote! {
        #(let mut #stacks = ::std::vec::Vec::new();)*
        #(let mut #slots = ::core::option::Option::None;)*
    };
    // (Streams joined as streams: `extend` with a stream would take it apart tree by tree, each
    // tree crossing the compiler's bridge twice.)
    match at {
        None => {
            let forward = TokenStream::from_iter([declared, list(f, &f.body, &mutable, &moved)]);
            (forward, TokenStream::new())
        }
        Some(at) => {
            let forward = list_with(f, &f.body[..at], &mutable, &moved, &same);
            let backward = list_with(f, &f.body[at..], &mutable, &|i, a| moved(i + at, a), wrap);
            (TokenStream::from_iter([declared, forward]), backward)
        }
    }
}

/// The statements of a list, each told what it may hand over (by its index). An iteration taking
/// the adjoint carried into it (`let g = x.clone(); x = zero;`) takes it without a copy:
/// `let g = ::core::mem::replace(&mut x, zero);`.
pub(super) fn list(
    f: &Func,
    body: &[Stmt],
    mutable: &Mutable,
    moved: &dyn Fn(usize, &Atom) -> bool,
) -> TokenStream {
    list_with(f, body, mutable, moved, &|_, t| t)
}

/// [`list`], each single statement `i` written by `wrap(i, written)`.
pub(super) fn list_with(
    f: &Func,
    body: &[Stmt],
    mutable: &Mutable,
    moved: &dyn Fn(usize, &Atom) -> bool,
    wrap: &dyn Fn(usize, Written) -> Written,
) -> TokenStream {
    // (The statements joined once, as streams: see `body_parts`.)
    let mut out = Joined::default();
    let mut i = 0;
    while i < body.len() {
        if let Some(taken) = taken(f, &body[i], body.get(i + 1), mutable) {
            out.push(Written::Stream(taken));
            i += 2;
            continue;
        }
        out.push(wrap(i, stmt(f, &body[i], mutable, &|a| moved(i, a))));
        i += 1;
    }
    out.into_stream()
}

/// `let g = ::core::mem::replace(&mut x, zero);` for `g = x` followed by `x = zero` (not for
/// numbers, whose copy costs nothing).
pub(super) fn taken(
    f: &Func,
    s: &Stmt,
    next: Option<&Stmt>,
    mutable: &Mutable,
) -> Option<TokenStream> {
    let (
        Stmt::Let {
            dst,
            op: Op::Id,
            args,
            ..
        },
        Some(Stmt::Set { dst: reset, value }),
    ) = (s, next)
    else {
        return None;
    };
    let [Atom::Var(x)] = args.as_slice() else {
        return None;
    };
    if x != reset || f.kind(*x) == Kind::Scalar {
        return None;
    }
    let mt = mutable.contains(dst).then(|| quote!(mut));
    let (g, x, v) = (f.name(*dst), f.name(*x), owned(f, value));
    Some(quote!(let #mt #g = ::core::mem::replace(&mut #x, #v);))
}
