//! Reducing a failing unit to a small program that fails the same way: each round builds every
//! program one edit away (a statement deleted, a branch or loop replaced by its body, an
//! expression replaced by a variable, a parameter or the helper dropped) together in one scratch
//! build, and keeps the smallest that still fails with the same signature. Findings are then
//! polished by hand into `fuzz/findings/`.

use std::io;

use diffx_fuzz::gen::ast::{Block, Else, Expr, If, Stmt};
use diffx_fuzz::gen::{Function, ParamKind, Unit};

use super::findings::Finding;
use super::Runner;

/// Candidates built together per round.
const CHUNK: usize = 120;

/// Reduces `unit`; the smallest unit found that fails like it, and its finding.
pub fn reduce(runner: &mut Runner, seed: u64, unit: &Unit) -> io::Result<Option<(Unit, Finding)>> {
    // More points, the same for every copy: a failure at some inputs only still shows.
    runner.scratch.points = 12;
    let o = runner.evaluate(seed, std::slice::from_ref(unit))?;
    let Some(first) = o.findings.get(&0).and_then(|f| f.first()) else {
        println!("{} does not fail", unit.main.name);
        return Ok(None);
    };
    let signature = first.signature();
    println!(
        "reducing {} ({} bytes): {signature}",
        unit.main.name,
        unit.source().len()
    );
    let mut best = (unit.clone(), first.clone());
    let mut round = 0;
    'rounds: loop {
        round += 1;
        let mut cands = candidates(&best.0);
        // Strictly smaller, so that the rounds end.
        let size = best.0.source().len();
        cands.retain(|c| c.source().len() < size && c.functions().all(|f| well_formed(&f.body)));
        let mut seen = std::collections::HashSet::new();
        cands.retain(|c| seen.insert(c.source()));
        cands.sort_by_key(|c| c.source().len());
        for chunk in cands.chunks(CHUNK) {
            let named: Vec<Unit> = chunk
                .iter()
                .enumerate()
                .map(|(j, c)| renamed(c, j))
                .collect();
            let o = runner.evaluate(seed, &named)?;
            for (j, c) in chunk.iter().enumerate() {
                // The same kind and one of its errors the same (their order may change).
                let same = o
                    .findings
                    .get(&j)
                    .and_then(|fs| fs.iter().find(|f| f.messages().contains(&signature)));
                if let Some(f) = same {
                    println!("  round {round}: {} bytes", c.source().len());
                    best = (c.clone(), f.clone());
                    continue 'rounds;
                }
            }
        }
        break;
    }
    Ok(Some(best))
}

/// Whether every jump is last in its block (no unreachable statements).
fn well_formed(b: &Block) -> bool {
    let n = b.stmts.len();
    b.stmts.iter().enumerate().all(|(i, s)| {
        let jump = matches!(s, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_));
        (!jump || (i + 1 == n && b.tail.is_none()))
            && match s {
                Stmt::If(i) => if_well_formed(i),
                Stmt::Match { arms, .. } => arms.iter().all(|(_, b)| well_formed(b)),
                Stmt::For { body, .. }
                | Stmt::While { body, .. }
                | Stmt::Loop { body }
                | Stmt::Block(body) => well_formed(body),
                _ => true,
            }
    })
}

fn if_well_formed(i: &If) -> bool {
    well_formed(&i.then)
        && match i.els.as_deref() {
            Some(Else::Block(b)) => well_formed(b),
            Some(Else::If(e)) => if_well_formed(e),
            None => true,
        }
}

/// A counter's increment or a progress variable's step: what makes a loop end, never deleted.
fn is_step(s: &Stmt) -> bool {
    match s {
        Stmt::Assign {
            op: "+=",
            value: Expr::Text(v),
            ..
        } => v == "1" || v.starts_with("0.25 + 0.25 *"),
        _ => false,
    }
}

/// The unit with its functions called `…_c{j}` (calls renamed too).
fn renamed(u: &Unit, j: usize) -> Unit {
    let mut u = u.clone();
    let names: Vec<String> = u.functions().map(|f| f.name.clone()).collect();
    let mut rename = |t: &str| -> String {
        let mut t = t.to_string();
        for n in &names {
            t = t.replace(&format!("{n}("), &format!("{n}_c{j}("));
        }
        t
    };
    for f in u.helper.iter_mut().chain(std::iter::once(&mut u.main)) {
        f.body.map_text(&mut rename);
        f.name = format!("{}_c{j}", f.name);
    }
    u
}

/// Every unit one edit away from `u`.
fn candidates(u: &Unit) -> Vec<Unit> {
    let mut out = Vec::new();
    if let Some(h) = &u.helper {
        let mut c = u.clone();
        c.helper = None;
        out.push(c);
        for f in function_variants(h) {
            let mut c = u.clone();
            c.helper = Some(f);
            out.push(c);
        }
    }
    for f in function_variants(&u.main) {
        let mut c = u.clone();
        c.main = f;
        out.push(c);
    }
    out
}

fn function_variants(f: &Function) -> Vec<Function> {
    let mut out = Vec::new();
    let simple = f
        .params
        .iter()
        .find(|p| p.kind == ParamKind::Float)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| "w[0]".into());
    let mut bodies = Vec::new();
    block_variants(&f.body, &simple, &mut bodies);
    for b in bodies {
        let mut g = f.clone();
        g.body = b;
        out.push(g);
    }
    // Parameters the body does not read, and the attribute's arguments.
    let text = f.source();
    for (i, p) in f.params.iter().enumerate() {
        let body_text = text.split_once('{').map_or("", |x| x.1);
        if !diffx_fuzz::gen::reads(body_text, &p.name)
            && (p.kind == ParamKind::Usize
                || f.params.iter().filter(|q| q.diff).count() > 1
                || !p.diff)
        {
            let mut g = f.clone();
            g.params.remove(i);
            if g.attr_args.iter().any(|a| a.starts_with("wrt")) {
                g.attr_args.retain(|a| !a.starts_with("wrt"));
                for p in &mut g.params {
                    p.diff = p.kind != ParamKind::Usize;
                }
            }
            out.push(g);
        }
    }
    // Without `wrt` and `order = 3`: second order stays if it was asked for (it is written only
    // on request), so that a failure of `hvp_` can still be reduced.
    let kept: Vec<String> = if f.hvp {
        vec!["order = 2".into()]
    } else {
        Vec::new()
    };
    if f.attr_args != kept {
        let mut g = f.clone();
        g.attr_args = kept;
        for p in &mut g.params {
            p.diff = p.kind != ParamKind::Usize;
        }
        g.dhvp = false;
        out.push(g);
    }
    out
}

fn block_variants(b: &Block, simple: &str, out: &mut Vec<Block>) {
    let n = b.stmts.len();
    if n >= 4 {
        // Halves and quarters at once, as delta debugging does.
        for (lo, hi) in [
            (0, n / 2),
            (n / 2, n),
            (0, n / 4),
            (n / 4, n / 2),
            (n / 2, 3 * n / 4),
            (3 * n / 4, n),
        ] {
            let mut c = b.clone();
            let mut k = 0;
            c.stmts.retain(|s| {
                k += 1;
                !(lo..hi).contains(&(k - 1)) || is_step(s)
            });
            out.push(c);
        }
    }
    for i in 0..n {
        if is_step(&b.stmts[i]) {
            continue;
        }
        let mut c = b.clone();
        c.stmts.remove(i);
        out.push(c);
        for rep in stmt_variants(&b.stmts[i], simple) {
            let mut c = b.clone();
            c.stmts.splice(i..=i, rep);
            out.push(c);
        }
    }
    if let Some(t) = &b.tail {
        for v in expr_variants(t, simple) {
            let mut c = b.clone();
            c.tail = Some(Box::new(v));
            out.push(c);
        }
    }
}

/// Whether a block holds a `break`/`continue` of the loop it is the body of.
fn breaks_here(b: &Block) -> bool {
    b.stmts
        .iter()
        .any(|s| s.jumps_out() && !matches!(s, Stmt::Return(_)))
}

fn stmt_variants(s: &Stmt, simple: &str) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    let sub = |b: &Block, f: &dyn Fn(Block) -> Stmt, out: &mut Vec<Vec<Stmt>>| {
        let mut bs = Vec::new();
        block_variants(b, simple, &mut bs);
        out.extend(bs.into_iter().map(|b| vec![f(b)]));
    };
    match s {
        Stmt::Let {
            name,
            mutable,
            ty,
            init,
        } => {
            for v in expr_variants(init, simple) {
                out.push(vec![Stmt::Let {
                    name: name.clone(),
                    mutable: *mutable,
                    ty: if matches!(v, Expr::Text(_)) {
                        Some("f64")
                    } else {
                        *ty
                    },
                    init: v,
                }]);
            }
        }
        Stmt::Assign { target, op, value } => {
            for v in expr_variants(value, simple) {
                out.push(vec![Stmt::Assign {
                    target: target.clone(),
                    op,
                    value: v,
                }]);
            }
        }
        Stmt::If(i) => {
            out.push(i.then.stmts.clone());
            match i.els.as_deref() {
                Some(Else::Block(b)) => out.push(b.stmts.clone()),
                Some(Else::If(e)) => out.push(vec![Stmt::If(e.clone())]),
                None => {}
            }
            if i.els.is_some() {
                out.push(vec![Stmt::If(If {
                    els: None,
                    ..i.clone()
                })]);
            }
            for v in if_variants(i, simple) {
                out.push(vec![Stmt::If(v)]);
            }
        }
        Stmt::Match {
            scrutinee,
            arms,
            expr_arms,
        } => {
            out.push(arms[0].1.stmts.clone());
            for k in 0..arms.len() {
                if k + 1 < arms.len() {
                    let mut a = arms.clone();
                    a.remove(k);
                    out.push(vec![Stmt::Match {
                        scrutinee: scrutinee.clone(),
                        arms: a,
                        expr_arms: *expr_arms,
                    }]);
                }
                let mut bs = Vec::new();
                block_variants(&arms[k].1, simple, &mut bs);
                for b in bs {
                    let mut a = arms.clone();
                    a[k].1 = b;
                    out.push(vec![Stmt::Match {
                        scrutinee: scrutinee.clone(),
                        arms: a,
                        expr_arms: *expr_arms,
                    }]);
                }
            }
        }
        Stmt::For { pat, iter, body } => {
            if !breaks_here(body) && pat == "_" {
                out.push(body.stmts.clone());
            }
            sub(
                body,
                &|b| Stmt::For {
                    pat: pat.clone(),
                    iter: iter.clone(),
                    body: b,
                },
                &mut out,
            );
        }
        Stmt::While { cond, body } => {
            if !breaks_here(body) {
                out.push(body.stmts.clone());
            }
            sub(
                body,
                &|b| Stmt::While {
                    cond: cond.clone(),
                    body: b,
                },
                &mut out,
            );
        }
        Stmt::Loop { body } => sub(body, &|b| Stmt::Loop { body: b }, &mut out),
        Stmt::Block(b) => {
            out.push(b.stmts.clone());
            sub(b, &Stmt::Block, &mut out);
        }
        Stmt::Return(e) => {
            for v in expr_variants(e, simple) {
                out.push(vec![Stmt::Return(v)]);
            }
        }
        Stmt::Break(_) | Stmt::Continue(_) | Stmt::Raw(_) => {}
    }
    out
}

fn if_variants(i: &If, simple: &str) -> Vec<If> {
    let mut out = Vec::new();
    let mut bs = Vec::new();
    block_variants(&i.then, simple, &mut bs);
    out.extend(bs.into_iter().map(|b| If {
        then: b,
        ..i.clone()
    }));
    match i.els.as_deref() {
        Some(Else::Block(e)) => {
            let mut bs = Vec::new();
            block_variants(e, simple, &mut bs);
            out.extend(bs.into_iter().map(|b| If {
                els: Some(Box::new(Else::Block(b))),
                ..i.clone()
            }));
        }
        Some(Else::If(e)) => {
            out.extend(if_variants(e, simple).into_iter().map(|v| If {
                els: Some(Box::new(Else::If(v))),
                ..i.clone()
            }));
        }
        None => {}
    }
    out
}

fn expr_variants(e: &Expr, simple: &str) -> Vec<Expr> {
    let mut out = Vec::new();
    match e {
        Expr::Text(t) => {
            if t != simple {
                out.push(Expr::Text(simple.to_string()));
            }
        }
        Expr::If(i) => {
            if let Some(t) = &i.then.tail {
                out.push((**t).clone());
            }
            if let Some(Else::Block(b)) = i.els.as_deref() {
                if let Some(t) = &b.tail {
                    out.push((**t).clone());
                }
            }
            out.extend(
                if_variants(i, simple)
                    .into_iter()
                    .map(|v| Expr::If(Box::new(v))),
            );
        }
        Expr::Match { scrutinee, arms } => {
            if let Some(t) = &arms[0].1.tail {
                out.push((**t).clone());
            }
            for k in 0..arms.len() {
                let mut bs = Vec::new();
                block_variants(&arms[k].1, simple, &mut bs);
                for b in bs {
                    if b.tail.is_some() {
                        let mut a = arms.clone();
                        a[k].1 = b;
                        out.push(Expr::Match {
                            scrutinee: scrutinee.clone(),
                            arms: a,
                        });
                    }
                }
            }
        }
    }
    out
}
