//! Normalizing control flow before lowering: `break`, `continue`, `loop` and early `return` become
//! flags and guarded remainders, so the rest of the compiler only sees `if`, `while` and `for`.
//!
//! - `break` sets the loop's `brk` flag and `continue` its `cont` flag; every statement after one
//!   that may set a flag runs under `if !(brk || cont) { … }`. `while c` becomes
//!   `while !brk && c`, `loop` becomes `while !brk`, and a `for` checks `brk` before each
//!   iteration (`__diffx_exit_if!(brk)`, read by lowering).
//! - An early `return e` stores `e` and sets `returned`; every later statement, in every enclosing
//!   block and loop, is guarded by it, and the function ends with the stored value.
//!
//! The flags are plain `bool` locals: in reverse mode they are taped with the loop state like any
//! other variable a loop body overwrites, so the backward sweep takes the same path.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Stmt};

use super::holds;
use crate::names;
use crate::tokens;

/// The flags in scope.
#[derive(Clone, Default)]
struct Ctx {
    /// `returned` and the stored value, when the function returns early.
    ret: Option<(Ident, Ident)>,
    /// The enclosing loops that have flags, innermost last.
    loops: Vec<Flags>,
}

/// A loop's `brk` and `cont` flags, and its label (`'outer`), which a labelled jump names.
#[derive(Clone)]
struct Flags {
    label: Option<String>,
    brk: Ident,
    cont: Ident,
}

impl Ctx {
    /// The condition under which the rest of a block must not run: a jump to any enclosing loop
    /// (a labelled one may target an outer loop) or a return.
    fn stop(&self) -> TokenStream {
        let mut parts = Vec::new();
        for l in &self.loops {
            let (brk, cont) = (&l.brk, &l.cont);
            parts.push(quote!(#brk));
            parts.push(quote!(#cont));
        }
        if let Some((returned, _)) = &self.ret {
            parts.push(quote!(#returned));
        }
        quote!(#(#parts)||*)
    }

    /// The condition under which the innermost loop must stop iterating: its own `break`, a jump
    /// to an enclosing loop (`break 'outer`, `continue 'outer`), or a return.
    fn exit(&self) -> TokenStream {
        let mut parts = Vec::new();
        if let Some((own, outer)) = self.loops.split_last() {
            let brk = &own.brk;
            parts.push(quote!(#brk));
            for l in outer {
                let (brk, cont) = (&l.brk, &l.cont);
                parts.push(quote!(#brk));
                parts.push(quote!(#cont));
            }
        }
        if let Some((returned, _)) = &self.ret {
            parts.push(quote!(#returned));
        }
        quote!(#(#parts)||*)
    }

    /// The loop a jump goes to: the innermost, or the one its label names.
    fn target(&self, label: Option<&syn::Lifetime>) -> Option<&Flags> {
        match label {
            None => self.loops.last(),
            Some(l) => {
                let name = l.ident.to_string();
                self.loops
                    .iter()
                    .rev()
                    .find(|f| f.label.as_deref() == Some(name.as_str()))
            }
        }
    }
}

/// The placeholder value of a block that stopped early (see [`stmts`]).
pub(crate) const NEVER: NeverMarker = NeverMarker;

/// Writes `__diffx_never`.
pub(crate) struct NeverMarker;

impl ToTokens for NeverMarker {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        quote!(::diffx::__private::never).to_tokens(tokens);
    }
}

/// Whether `s` is the placeholder `::diffx::__private::never()`: lowering gives it a value of the
/// other arm's kind; in code kept as written it is `Default::default()`, never read.
pub(crate) fn is_never(s: &Stmt) -> bool {
    let Stmt::Expr(Expr::Call(c), None) = s else {
        return false;
    };
    let Expr::Path(p) = &*c.func else {
        return false;
    };
    c.args.is_empty() && crate::tokens::segment_names(&p.path) == ["diffx", "__private", "never"]
}

/// Whether `e` is written for its effect and has no value (`()`): an assignment, a loop, an `if`
/// without `else`, a macro statement, or a block, `if` or `match` whose arms all end so.
pub(crate) fn is_unit(e: &Expr) -> bool {
    let block_unit = |b: &syn::Block| match b.stmts.last() {
        Some(Stmt::Expr(e, None)) => is_unit(e),
        _ => true,
    };
    match e {
        Expr::Assign(_) | Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => true,
        Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.starts_with("print")
                || name.starts_with("eprint")
                || name.contains("assert")
                || name == "panic"
        }),
        Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Binary(b) => matches!(
            b.op,
            BinOp::AddAssign(_) | BinOp::SubAssign(_) | BinOp::MulAssign(_) | BinOp::DivAssign(_)
        ),
        Expr::If(i) => match &i.else_branch {
            None => true,
            Some((_, els)) => block_unit(&i.then_branch) && is_unit(els),
        },
        Expr::Block(b) => block_unit(&b.block),
        Expr::Match(m) => !m.arms.is_empty() && m.arms.iter().all(|a| is_unit(&a.body)),
        Expr::Paren(p) => is_unit(&p.expr),
        _ => false,
    }
}

pub(super) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The function body with its control flow normalized; `float` is the float type, `ret` the return
/// type (an array result's early returns fill an array of its length).
pub fn body(block: &Block, float: &Ident, ret: &syn::Type) -> syn::Result<Block> {
    let last_is_tail = matches!(block.stmts.last(), Some(Stmt::Expr(_, None)));
    let early = block.stmts.iter().enumerate().any(|(i, s)| {
        let is_last = i + 1 == block.stmts.len();
        match s {
            Stmt::Expr(Expr::Return(_), _) if is_last => false,
            _ => holds::stmt(s, &["return"]),
        }
    });
    if !early {
        let mut counter = 0;
        let stmts = stmts(&block.stmts, &Ctx::default(), &mut counter)?;
        return Ok(Block {
            brace_token: block.brace_token,
            stmts,
        });
    }
    let (returned, value) = (ident(names::RETURNED), ident(names::VALUE));
    let ctx = Ctx {
        ret: Some((returned.clone(), value.clone())),
        loops: Vec::new(),
    };
    let mut body = block.stmts.clone();
    if last_is_tail {
        if let Some(Stmt::Expr(tail, None)) = body.pop() {
            body.push(syn::parse_quote_spanned!(tail.span()=> #value = #tail;));
        }
    }
    let mut counter = 0;
    let zero = crate::tokens::float_lit(float, "0.0");
    let declared: Stmt = match ret {
        syn::Type::Array(a) => {
            let n = &a.len;
            syn::parse_quote!(let mut #value: #ret = [#zero; #n];)
        }
        _ => syn::parse_quote!(let mut #value: #float = #zero;),
    };
    let mut out: Vec<Stmt> = vec![syn::parse_quote!(let mut #returned = false;), declared];
    out.extend(stmts(&body, &ctx, &mut counter)?);
    out.push(Stmt::Expr(syn::parse_quote!(#value), None));
    Ok(Block {
        brace_token: block.brace_token,
        stmts: out,
    })
}

/// Statements, each after one that may stop the block guarded by the context's flags.
fn stmts(list: &[Stmt], ctx: &Ctx, counter: &mut usize) -> syn::Result<Vec<Stmt>> {
    let mut out = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let (s, stops) = stmt(s, ctx, counter)?;
        out.push(s);
        if stops && i + 1 < list.len() {
            let rest = stmts(&list[i + 1..], ctx, counter)?;
            let stop = ctx.stop();
            // Spanned at the statements it guards, where an error about the guard belongs.
            let span = list[i + 1].span();
            // A block ending in a value keeps one when it stops early: a placeholder that nothing
            // reads (everything after the block is guarded by the same flags).
            let value = matches!(list.last(), Some(Stmt::Expr(e, None)) if !is_unit(e));
            let never = value.then(|| quote_spanned!(span=> else { #NEVER() }));
            out.push(syn::parse_quote_spanned!(span=> if !(#stop) { #(#rest)* } #never));
            break;
        }
    }
    Ok(out)
}

fn stmt(s: &Stmt, ctx: &Ctx, counter: &mut usize) -> syn::Result<(Stmt, bool)> {
    match s {
        Stmt::Expr(e, semi) => {
            let (e, stops) = expr(e, ctx, counter)?;
            Ok((Stmt::Expr(e, *semi), stops))
        }
        // `let v = match n { 1 => return x, _ => … };`
        // (A loop used as a value stays as it is, for lowering to explain.)
        Stmt::Local(local)
            if local.init.as_ref().is_some_and(|i| {
                !matches!(*i.expr, Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_))
            }) =>
        {
            let mut local = local.clone();
            let init = local.init.as_mut().expect("checked");
            let (e, stops) = expr(&init.expr, ctx, counter)?;
            *init.expr = e;
            Ok((Stmt::Local(local), stops))
        }
        other => Ok((other.clone(), false)),
    }
}

fn block(b: &Block, ctx: &Ctx, counter: &mut usize) -> syn::Result<(Block, bool)> {
    let stops = b.stmts.iter().any(|s| may_stop(s, ctx));
    Ok((
        Block {
            brace_token: b.brace_token,
            stmts: stmts(&b.stmts, ctx, counter)?,
        },
        stops,
    ))
}

/// Whether code may set one of the context's flags (nested loops keep their own `break`s).
fn may_stop(code: &Stmt, ctx: &Ctx) -> bool {
    let mut names = Vec::new();
    if ctx.ret.is_some() {
        names.push("return");
    }
    if !ctx.loops.is_empty() {
        names.extend(["break", "continue"]);
    }
    !names.is_empty() && holds::stmt(code, &names)
}

fn expr(e: &Expr, ctx: &Ctx, counter: &mut usize) -> syn::Result<(Expr, bool)> {
    match e {
        Expr::Return(r) => return_expr(r, e, ctx),
        Expr::Break(b) => break_expr(b, e, ctx),
        Expr::Continue(c) => continue_expr(c, e, ctx),
        Expr::If(i) => if_expr(i, ctx, counter),
        Expr::Block(b) if b.label.is_none() => {
            let (inner, stops) = block(&b.block, ctx, counter)?;
            let mut b = b.clone();
            b.block = inner;
            Ok((Expr::Block(b), stops))
        }
        // `b = if c { break; } else { y };`, `s += match k { … }`: a jump leaves `b` as it was,
        // so the assignment happens only if the right side did not stop.
        Expr::Assign(a) => {
            let (right, stops) = expr(&a.right, ctx, counter)?;
            let mut a = a.clone();
            *a.right = right;
            Ok((
                guarded_assignment(Expr::Assign(a), stops, ctx, counter),
                stops,
            ))
        }
        Expr::Binary(b) if is_unit(e) => {
            let (right, stops) = expr(&b.right, ctx, counter)?;
            let mut b = b.clone();
            *b.right = right;
            Ok((
                guarded_assignment(Expr::Binary(b), stops, ctx, counter),
                stops,
            ))
        }
        Expr::Paren(p) => {
            let (inner, stops) = expr(&p.expr, ctx, counter)?;
            let mut p = p.clone();
            *p.expr = inner;
            Ok((Expr::Paren(p), stops))
        }
        Expr::Match(m) => {
            let mut m = m.clone();
            let mut stops = false;
            for arm in &mut m.arms {
                let (body, s) = expr(&arm.body, ctx, counter)?;
                *arm.body = body;
                stops |= s;
            }
            Ok((Expr::Match(m), stops))
        }
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => loop_expr(e, ctx, counter),
        other => Ok((other.clone(), false)),
    }
}

/// `return v` as the return flags set: `v` into the value, `returned` true. Left as written
/// where the body has no return flags.
fn return_expr(r: &syn::ExprReturn, e: &Expr, ctx: &Ctx) -> syn::Result<(Expr, bool)> {
    let Some((returned, value)) = &ctx.ret else {
        return Ok((e.clone(), false));
    };
    let v = r
        .expr
        .as_ref()
        .ok_or_else(|| syn::Error::new(r.span(), "`return` needs a value here"))?;
    Ok((
        syn::parse_quote_spanned!(r.span()=> { #value = #v; #returned = true; }),
        true,
    ))
}

/// `break` as its loop's break flag set.
fn break_expr(b: &syn::ExprBreak, e: &Expr, ctx: &Ctx) -> syn::Result<(Expr, bool)> {
    if let Some(v) = &b.expr {
        return Err(syn::Error::new(v.span(), "`break` with a value is supported in `let v = loop { … };`: assign the value to a variable before the `break` elsewhere"));
    }
    let Some(flags) = ctx.target(b.label.as_ref()) else {
        return unknown_label(b.label.as_ref(), e);
    };
    let brk = &flags.brk;
    Ok((syn::parse_quote_spanned!(b.span()=> { #brk = true; }), true))
}

/// `continue` as its loop's continue flag set.
fn continue_expr(c: &syn::ExprContinue, e: &Expr, ctx: &Ctx) -> syn::Result<(Expr, bool)> {
    let Some(flags) = ctx.target(c.label.as_ref()) else {
        return unknown_label(c.label.as_ref(), e);
    };
    let cont = &flags.cont;
    Ok((
        syn::parse_quote_spanned!(c.span()=> { #cont = true; }),
        true,
    ))
}

/// An `if` with its branches rewritten; it stops if either branch may.
fn if_expr(i: &syn::ExprIf, ctx: &Ctx, counter: &mut usize) -> syn::Result<(Expr, bool)> {
    let (then_branch, t) = block(&i.then_branch, ctx, counter)?;
    let (else_branch, f) = match &i.else_branch {
        Some((tok, e)) => {
            let (e, f) = expr(e, ctx, counter)?;
            (Some((*tok, Box::new(e))), f)
        }
        None => (None, false),
    };
    let mut i = i.clone();
    i.then_branch = then_branch;
    i.else_branch = else_branch;
    Ok((Expr::If(i), t || f))
}

/// A jump outside any loop with flags: left as written (a loop of its own, not rewritten, keeps
/// it), or an error for a label no enclosing loop has.
fn unknown_label(label: Option<&syn::Lifetime>, e: &Expr) -> syn::Result<(Expr, bool)> {
    match label {
        None => Ok((e.clone(), false)),
        Some(l) => Err(syn::Error::new(
            l.span(),
            format!("no enclosing loop is labelled `{l}`"),
        )),
    }
}

/// `{ let tmp = rhs; if !(stop) { place = tmp; } }` for an assignment whose right side may stop.
fn guarded_assignment(e: Expr, stops: bool, ctx: &Ctx, counter: &mut usize) -> Expr {
    if !stops {
        return e;
    }
    *counter += 1;
    let tmp = names::numbered("rhs_", *counter);
    let stop = ctx.stop();
    let span = e.span();
    let assigned = match e {
        Expr::Assign(mut a) => {
            let right = std::mem::replace(&mut *a.right, syn::parse_quote!(#tmp));
            (right, Expr::Assign(a))
        }
        Expr::Binary(mut b) => {
            let right = std::mem::replace(&mut *b.right, syn::parse_quote!(#tmp));
            (right, Expr::Binary(b))
        }
        other => return other,
    };
    let (right, assign) = assigned;
    syn::parse_quote_spanned!(span=> { let #tmp = #right; if !(#stop) { #assign; } })
}

/// A loop with its own `brk`/`cont` flags when its body uses them.
fn loop_expr(e: &Expr, ctx: &Ctx, counter: &mut usize) -> syn::Result<(Expr, bool)> {
    let (label, body) = match e {
        Expr::ForLoop(f) => (&f.label, &f.body),
        Expr::While(w) => (&w.label, &w.body),
        Expr::Loop(l) => (&l.label, &l.body),
        _ => return Ok((e.clone(), false)),
    };
    let own = tokens::find_ident(body.to_token_stream(), &["break", "continue"]).is_some()
        || matches!(e, Expr::Loop(_));
    let returns =
        ctx.ret.is_some() && tokens::find_ident(body.to_token_stream(), &["return"]).is_some();
    if !own && !returns {
        return Ok((unlabelled(e), returns));
    }
    *counter += 1;
    let (brk, cont) = (
        names::numbered("break_", *counter),
        names::numbered("continue_", *counter),
    );
    let mut inner = ctx.clone();
    inner.loops.push(Flags {
        label: label.as_ref().map(|l| l.name.ident.to_string()),
        brk: brk.clone(),
        cont: cont.clone(),
    });
    // (A jump to an enclosing loop leaves this one through its exit condition, and stops the
    // enclosing body as a `break` there would.)
    let outer: Vec<String> = ctx.loops.iter().filter_map(|l| l.label.clone()).collect();
    let jumps_out = labelled_jump(body.to_token_stream(), &outer);
    let guarded = stmts(&body.stmts, &inner, counter)?;
    let exit = inner.exit();
    let span = e.span();
    let body: TokenStream = quote_spanned!(span=> #cont = false; #(#guarded)*);
    let looped: TokenStream = match e {
        Expr::ForLoop(f) => {
            let (pat, iter) = (&f.pat, &f.expr);
            let exit_if = Ident::new(names::EXIT_IF, span);
            quote_spanned!(span=> for #pat in #iter { ::diffx::#exit_if!(#exit); #body })
        }
        Expr::While(w) => {
            let cond = &w.cond;
            // (The flag first: a condition with an effect, `stack.pop()`, runs no more after a `break`.)
            quote_spanned!(span=> while !(#exit) && (#cond) { #body })
        }
        _ => quote_spanned!(span=> while !(#exit) { #body }),
    };
    let wrapped: Expr = syn::parse2(quote_spanned!(span=> {
        let mut #brk = false;
        let mut #cont = false;
        #looped
    }))?;
    Ok((wrapped, returns || jumps_out))
}

/// Whether `code` holds a `break 'l` or `continue 'l` for a label `l` among `labels`.
fn labelled_jump(code: TokenStream, labels: &[String]) -> bool {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = code.into_iter().collect();
    trees.iter().enumerate().any(|(i, t)| match t {
        TokenTree::Group(g) => labelled_jump(g.stream(), labels),
        TokenTree::Ident(kw) if kw == "break" || kw == "continue" => {
            matches!((trees.get(i + 1), trees.get(i + 2)),
                (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(name)))
                    if p.as_char() == '\'' && labels.iter().any(|l| name == l))
        }
        _ => false,
    })
}

/// A loop that holds no jump, without its label and those of the loops in it (no jump names
/// them).
fn unlabelled(e: &Expr) -> Expr {
    struct Labels;
    impl VisitMut for Labels {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            match e {
                Expr::ForLoop(f) => f.label = None,
                Expr::While(w) => w.label = None,
                Expr::Loop(l) => l.label = None,
                _ => {}
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut e = e.clone();
    Labels.visit_expr_mut(&mut e);
    e
}
