//! Last uses: which values a statement reads for the last time, so emission can hand a tensor over
//! (`t1 + &b` reuses `t1`'s buffer, an adjoint takes its contribution without a copy) instead of
//! borrowing it and allocating anew.
//!
//! Also what statements read or mention at all, on the IR: [`reads`] for last uses, [`mentions`]
//! for the passes that drop what nothing mentions.

use std::collections::{BTreeSet, HashMap, HashSet};

use proc_macro2::Ident;

use crate::ir::{
    Atom, Call, CallKind, Code, Func, Index, Kind, LoopHead, Nested, Op, Stmt, Tape, Var,
};
use crate::rules::{template, Syntax};

/// `(statement index, value)` pairs where the statement is the value's last reader and the value is
/// an owned tensor (or a value of another type, such as a contribution to a parameter-struct field)
/// read once there: it may be moved.
pub fn movable(f: &Func, params: &HashSet<Var>) -> HashSet<(usize, Var)> {
    let ret = f.ret.iter().cloned().collect::<Vec<_>>();
    single_last_reads(f, &f.body, &ret, &|v| !params.contains(&v))
}

/// [`movable`] for a loop body or an arm (`body`, then its `yields` read at index `body.len()`):
/// only values defined in it, since one defined outside may be read again by the next iteration.
pub fn movable_in(f: &Func, body: &[Stmt], yields: &[Atom]) -> HashSet<(usize, Var)> {
    // (What is defined here is asked only of a value that could be handed over.)
    let defined = std::cell::OnceCell::new();
    let defined = |v| {
        (defined.get_or_init(|| body.iter().flat_map(defines).collect::<HashSet<Var>>()))
            .contains(&v)
    };
    single_last_reads(f, body, yields, &defined)
}

/// The values a statement of a list binds with `let`.
fn defines(s: &Stmt) -> Vec<Var> {
    match s {
        Stmt::Let { dst, .. } | Stmt::Pop { dst, .. } => vec![*dst],
        Stmt::Call(Call {
            kind: CallKind::Split { .. },
            outs,
            ..
        }) => outs.iter().flatten().copied().collect(),
        Stmt::If { outs, .. } => outs.clone(),
        _ => Vec::new(),
    }
}

/// The values that `keep` admits, owned (not references) and not numbers, whose last read in
/// `body` followed by `tail` is a single read, with where it is.
fn single_last_reads(
    f: &Func,
    body: &[Stmt],
    tail: &[Atom],
    keep: &dyn Fn(Var) -> bool,
) -> HashSet<(usize, Var)> {
    // (Values are dense indices: a table by index, where a hash map per read cost most of the
    // pass. A function of numbers has no candidate, and its statements need no reading.)
    let candidate: Vec<bool> = (f.vars.iter().enumerate())
        .map(|(i, v)| matches!(v.kind, Kind::Tensor | Kind::Other) && !v.is_ref && keep(Var(i)))
        .collect();
    if !candidate.contains(&true) {
        return HashSet::new();
    }
    let by_name = by_name(f);
    // Per value, the list of its last reads and how many times that list reads it.
    let mut last: Vec<Option<(usize, usize)>> = vec![None; f.vars.len()];
    let tail_reads = tail.iter().filter_map(Atom::var).collect::<Vec<_>>();
    let lists = body.iter().map(|s| reads(s, &by_name)).chain([tail_reads]);
    for (i, list) in lists.enumerate() {
        for v in list {
            match &mut last[v.0] {
                Some((at, count)) if *at == i => *count += 1,
                entry => *entry = Some((i, 1)),
            }
        }
    }
    let mut out = HashSet::new();
    for (v, entry) in last.into_iter().enumerate() {
        if let (Some((i, 1)), true) = (entry, candidate[v]) {
            out.insert((i, Var(v)));
        }
    }
    out
}

/// Values by name, for code kept as written (hashed cheaply: built per pass, asked per name).
pub(crate) type ByName<'f> = HashMap<&'f str, Var, crate::builder::Quick>;

/// Each value of `f` by its name (code kept as written mentions values by name).
pub(crate) fn by_name(f: &Func) -> ByName<'_> {
    f.vars
        .iter()
        .enumerate()
        .map(|(i, v)| (v.text(), Var(i)))
        .collect()
}

/// The values statement `s` reads (once per mention).
pub(crate) fn reads(s: &Stmt, by_name: &ByName) -> Vec<Var> {
    let named = |names: &[&str]| {
        names
            .iter()
            .filter_map(|n| by_name.get(*n).copied())
            .collect::<Vec<_>>()
    };
    let code = |c: &Code| {
        c.variables()
            .iter()
            .filter_map(|n| by_name.get(n.as_str()).copied())
            .collect::<Vec<_>>()
    };
    // A constant operand may still name values (`f64::from(t13 > 0.0)`, a partial's condition).
    let atoms = |a: &[Atom]| {
        a.iter()
            .flat_map(|x| match x {
                Atom::Const(c) => code(c),
                _ => x.var().into_iter().collect(),
            })
            .collect::<Vec<_>>()
    };
    match s {
        Stmt::If {
            cond, then_, else_, ..
        } => {
            let mut r: Vec<Var> = by_name
                .get(cond.to_string().as_str())
                .copied()
                .into_iter()
                .collect();
            for b in [then_, else_] {
                r.extend(b.body.iter().flat_map(|s| reads(s, by_name)));
                r.extend(atoms(&b.yields));
            }
            r
        }
        Stmt::Loop {
            head, cells, body, ..
        } => {
            let mut r = match head {
                LoopHead::For { iter, exit, .. } => {
                    let mut r: Vec<Var> = iter.codes().flat_map(code).collect();
                    r.extend(exit.iter().flat_map(code));
                    r
                }
                LoopHead::While { cond } => code(cond),
            };
            r.extend(cells.iter().copied());
            r.extend(body.body.iter().flat_map(|s| reads(s, by_name)));
            r.extend(atoms(&body.yields));
            r
        }
        Stmt::LoopBack { body, tape, .. } => {
            let mut r: Vec<Var> = body.iter().flat_map(|s| reads(s, by_name)).collect();
            // A checkpointed loop's backward sweep runs its body again, forward.
            if let Some(c) = &tape.checkpoint {
                r.extend(c.state.iter().copied());
                r.extend(c.again.iter().flat_map(|s| reads(s, by_name)));
                r.extend(c.primal.body.iter().flat_map(|s| reads(s, by_name)));
                r.extend(atoms(&c.primal.yields));
            }
            r
        }
        Stmt::Set { value, .. } => value.var().into_iter().collect(),
        Stmt::SetElem {
            vec, index, value, ..
        } => {
            let mut r = vec![*vec];
            r.extend(value.var());
            r.extend(named(&index.variables()));
            r
        }
        Stmt::Undo { vec, at, .. } => {
            let mut r = vec![*vec];
            r.extend(at.iter().flat_map(|i| named(&i.variables())));
            r
        }
        Stmt::Pop { vec, .. } => vec![*vec],
        Stmt::Record { value, .. } => atoms(std::slice::from_ref(value)),
        Stmt::Push { vec, value, .. } => {
            let mut r = vec![*vec];
            r.extend(value.var());
            r
        }
        Stmt::Let { args, .. } => atoms(args),
        Stmt::Accum {
            dst, value, like, ..
        } => {
            let mut r = vec![*value];
            r.extend(dst.var());
            r.extend(like.as_ref().and_then(Atom::var));
            r
        }
        Stmt::Const { expr, .. } => code(expr),
        Stmt::Verbatim { binds, tokens } => {
            let mut r: Vec<Var> = binds.iter().filter_map(|(_, a)| a.var()).collect();
            r.extend(code(tokens));
            r
        }
        Stmt::Item(_) => Vec::new(),
        Stmt::Call(c) => {
            let mut r = atoms(&c.args);
            let tangents = c.tangents.iter().flatten().chain(c.kind.ct_dot());
            r.extend(tangents.filter_map(Atom::var));
            r.extend(c.ct.iter().chain(c.into.iter().flatten()));
            r
        }
    }
}

/// Every name the statements of `body` mention, at any depth: the values it reads or writes
/// (destinations, loop cells, tapes and logs), every identifier of the code it keeps as written
/// (constants, loop heads, indices: the names each [`crate::ir::Code`] found when it was made),
/// and the functions it calls. Types and items are not read: they cannot name a local.
/// For passes that drop what nothing mentions (`tape::trim`), so it errs on the side of more: a
/// name missing here would drop a value the derivative reads.
pub(crate) fn mentions(f: &Func, body: &[Stmt], out: &mut BTreeSet<String>) {
    let mut m = Mentions {
        f,
        out,
        values: vec![false; f.vars.len()],
    };
    m.body(body);
    // (Values by index first, named once each: a value is mentioned many times.)
    let named = m.values.iter().enumerate().filter(|(_, seen)| **seen);
    m.out.extend(named.map(|(v, _)| f.name(Var(v)).to_string()));
}

struct Mentions<'a> {
    f: &'a Func,
    out: &'a mut BTreeSet<String>,
    /// The values mentioned, by index.
    values: Vec<bool>,
}

impl Mentions<'_> {
    fn name(&mut self, v: Var) {
        self.values[v.0] = true;
    }

    /// A called function's path: a local closure is called by its name.
    fn path(&mut self, path: Option<&syn::Path>) {
        let segments = path.into_iter().flat_map(|p| &p.segments);
        self.out.extend(segments.map(|s| s.ident.to_string()));
    }

    fn code(&mut self, c: &Code) {
        self.out.extend(c.idents().iter().cloned());
    }

    fn index(&mut self, i: &Index) {
        self.out.extend(i.idents().into_iter().map(str::to_string));
    }

    fn atom(&mut self, a: &Atom) {
        match a {
            Atom::Var(v) => self.name(*v),
            Atom::Field(v, path) => {
                self.name(*v);
                self.out.extend(path.idents());
            }
            Atom::Const(c) => self.code(c),
        }
    }

    fn atoms<'b>(&mut self, atoms: impl IntoIterator<Item = &'b Atom>) {
        atoms.into_iter().for_each(|a| self.atom(a));
    }

    fn names(&mut self, vars: impl IntoIterator<Item = Var>) {
        vars.into_iter().for_each(|v| self.name(v));
    }

    fn body(&mut self, body: &[Stmt]) {
        body.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { dst, op, args, .. } => {
                self.name(*dst);
                self.op(op, args);
            }
            Stmt::Accum {
                dst, value, like, ..
            } => {
                self.atom(dst);
                self.name(*value);
                // Accumulated into a vector, elementwise: the shape of `like` is not needed.
                if self.f.atom_kind(dst) != Kind::Slice {
                    self.atoms(like);
                }
            }
            // (Its type names no local value: Rust types cannot.)
            Stmt::Const { name, expr, .. } => {
                self.out.insert(name.to_string());
                self.code(expr);
            }
            Stmt::Verbatim { binds, tokens } => {
                for (name, a) in binds {
                    self.out.insert(name.to_string());
                    self.atom(a);
                }
                self.code(tokens);
            }
            // An item cannot read the function's locals.
            Stmt::Item(_) => {}
            Stmt::Call(c) => {
                self.path(c.kind.path());
                self.atoms(&c.args);
                self.atoms(c.tangents.iter().flatten().chain(c.kind.ct_dot()));
                let outs = c.outs.iter().chain(&c.into).flatten();
                self.names(c.ct.iter().chain(outs).copied());
            }
            Stmt::Push { vec, value, .. } => {
                self.name(*vec);
                self.atom(value);
            }
            Stmt::Pop { dst, vec } => self.names([*dst, *vec]),
            Stmt::Record { stack, value } => {
                self.atom(value);
                self.out.insert(stack.to_string());
            }
            Stmt::If { .. } | Stmt::Loop { .. } | Stmt::LoopBack { .. } => self.control(s),
            Stmt::Set { dst, value } => {
                self.name(*dst);
                self.atom(value);
            }
            Stmt::SetElem {
                vec,
                index,
                value,
                log,
                ..
            } => {
                self.name(*vec);
                self.index(index);
                self.atom(value);
                self.out.extend(log.iter().map(Ident::to_string));
            }
            Stmt::Undo {
                vec, log, mark, at, ..
            } => {
                if let Some(at) = at {
                    self.index(at);
                }
                self.name(*vec);
                self.out.insert(log.to_string());
                self.out.extend(mark.iter().map(Ident::to_string));
            }
        }
    }

    /// An operation mentions its operands, and the method, function or map it applies.
    fn op(&mut self, op: &Op, args: &[Atom]) {
        match op {
            // A map's operands are its arguments; what else it names is the runtime's.
            Op::Map { .. } => {}
            Op::Zeros(_) => {}
            Op::Fit => {}
            Op::Recall(stack) => {
                self.out.insert(stack.to_string());
            }
            Op::Call(path) => self.path(Some(path)),
            Op::Rule(rule) => match rule.syntax {
                Syntax::Method | Syntax::TensorMethod => {
                    self.out.insert(rule.name.to_string());
                }
                Syntax::Func(path) => self
                    .out
                    .extend(template::segments(path).map(str::to_string)),
                Syntax::Infix(_) | Syntax::Prefix(_) => {}
            },
            Op::Id => {}
            Op::SetPart(path) => self.out.extend(path.idents()),
        }
        self.atoms(args);
    }

    fn control(&mut self, s: &Stmt) {
        match s {
            Stmt::If {
                cond,
                then_,
                else_,
                outs,
                ..
            } => {
                self.out.insert(cond.to_string());
                self.names(outs.iter().copied());
                for b in [then_, else_] {
                    self.body(&b.body);
                    // An `if` that binds nothing yields nothing.
                    if !outs.is_empty() {
                        self.atoms(&b.yields);
                    }
                }
            }
            Stmt::Loop {
                head,
                cells,
                body,
                tape,
                logs,
                ..
            } => {
                match head {
                    LoopHead::For {
                        pat, iter, exit, ..
                    } => {
                        self.code(pat);
                        iter.codes().for_each(|c| self.code(c));
                        exit.iter().for_each(|x| self.code(x));
                    }
                    LoopHead::While { cond } => self.code(cond),
                }
                self.names(cells.iter().copied());
                self.body(&body.body);
                // The body's yields are written back to the cells.
                if !cells.is_empty() {
                    self.atoms(&body.yields);
                }
                if let Some(t) = tape {
                    self.tape(t);
                    self.out.extend(logs.iter().map(|(_, l)| l.to_string()));
                }
            }
            Stmt::LoopBack {
                tape, names, body, ..
            } => {
                self.tape(tape);
                // What the tape no longer pushes, the backward loop no longer pops.
                for (i, n) in names.iter().enumerate() {
                    if tape.pushes(i, &n.to_string()) {
                        self.out.insert(n.to_string());
                    }
                }
                self.body(body);
            }
            _ => unreachable!("not control flow"),
        }
    }

    fn tape(&mut self, t: &Tape) {
        self.out.insert(t.name.to_string());
        if let Some(c) = &t.checkpoint {
            self.out
                .extend([&c.iter, &c.schedule, &c.snaps].map(Ident::to_string));
            self.names(c.state.iter().copied());
            self.body(&c.primal.body);
            self.atoms(&c.primal.yields);
            if let Some(again) = &c.again {
                self.body(std::slice::from_ref(again));
            }
        }
        match &t.nest {
            Some(Nested::Runs(runs)) => {
                self.out.insert(runs.to_string());
            }
            Some(Nested::Again(range)) => range.codes().for_each(|c| self.code(c)),
            None => {}
        }
        if let Some((var, range)) = &t.range {
            self.out.extend([var.to_string(), range.to_string()]);
        }
    }
}
