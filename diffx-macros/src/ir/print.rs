//! The list printed as text (`v2 = mul(x1, x2)`), which unit tests compare and the walk-through
//! shows: `Display` for [`Func`], a statement at a time.

use core::fmt;

use super::{Atom, Branch, CallKind, Func, LoopHead, Op, Stmt, Var};

impl Func {
    fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.name(*v).to_string(),
            Atom::Field(v, path) => {
                let path = quote::ToTokens::to_token_stream(path).to_string();
                format!("{}{}", self.name(*v), path.replace(' ', ""))
            }
            Atom::Const(t) => t.to_string(),
        }
    }

    pub(crate) fn atoms(&self, args: &[Atom]) -> String {
        args.iter()
            .map(|a| self.atom(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn opt_atoms(&self, args: &[Option<Atom>]) -> String {
        args.iter()
            .map(|t| t.as_ref().map_or("_".to_string(), |t| self.atom(t)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn opt_names(&self, vs: &[Option<Var>]) -> String {
        let name = |v: &Option<Var>| v.map_or("_".to_string(), |v| self.name(v).to_string());
        vs.iter().map(name).collect::<Vec<_>>().join(", ")
    }

    fn fmt_stmt(&self, s: &Stmt, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match s {
            Stmt::Loop {
                head, cells, body, ..
            } => {
                let head = match head {
                    LoopHead::For { pat, iter, .. } => {
                        format!("for {pat} in {}", iter.tokens())
                    }
                    LoopHead::While { cond } => format!("while {cond}"),
                };
                let cells: Vec<Option<Var>> = cells.iter().copied().map(Some).collect();
                writeln!(f, "loop [{}] {head} {{", self.opt_names(&cells))?;
                self.fmt_branch(body, f)?;
                writeln!(f, "}}")
            }
            Stmt::LoopBack { tape, body, .. } => {
                writeln!(f, "back over {} {{", tape.name)?;
                for s in body {
                    write!(f, "  ")?;
                    self.fmt_stmt(s, f)?;
                }
                writeln!(f, "}}")
            }
            Stmt::Set { dst, value } => writeln!(f, "{} := {}", self.name(*dst), self.atom(value)),
            Stmt::SetElem {
                vec, index, value, ..
            } => {
                writeln!(f, "{}[{index}] := {}", self.name(*vec), self.atom(value))
            }
            Stmt::Undo { vec, log, .. } => writeln!(f, "undo {} from {log}", self.name(*vec)),
            Stmt::If {
                cond,
                then_,
                else_,
                outs,
                ..
            } => {
                let outs: Vec<Option<Var>> = outs.iter().copied().map(Some).collect();
                writeln!(f, "({}) = if {cond} {{", self.opt_names(&outs))?;
                self.fmt_branch(then_, f)?;
                writeln!(f, "}} else {{")?;
                self.fmt_branch(else_, f)?;
                writeln!(f, "}}")
            }
            // (An adjoint's first value reads as the assignment it is.)
            Stmt::Let {
                dst,
                op: Op::Fit,
                args,
                ..
            } => writeln!(f, "{} = {}", self.name(*dst), self.atom(&args[0])),
            Stmt::Let { dst, op, args, .. } => {
                writeln!(
                    f,
                    "{} = {}({})",
                    self.name(*dst),
                    op.name(),
                    self.atoms(args)
                )
            }
            Stmt::Accum {
                dst, value, first, ..
            } => {
                let op = if *first { "=" } else { "+=" };
                writeln!(f, "{} {op} {}", self.atom(dst), self.name(*value))
            }
            Stmt::Const { name, expr, .. } => writeln!(f, "{name} = const {expr}"),
            Stmt::Verbatim { tokens, .. } => writeln!(f, "{tokens}"),
            Stmt::Item(tokens) => writeln!(f, "{tokens}"),
            Stmt::Push { vec, value, .. } => {
                writeln!(f, "{}.push({})", self.name(*vec), self.atom(value))
            }
            Stmt::Pop { dst, vec } => {
                writeln!(f, "{} = {}.pop()", self.name(*dst), self.name(*vec))
            }
            Stmt::Record { stack, value } => writeln!(f, "record {} on {stack}", self.atom(value)),
            Stmt::Call(call) => {
                let kind = &call.kind;
                let mut outs = self.opt_names(&call.outs);
                if let CallKind::Split { pullback, .. } = kind {
                    outs = format!("{outs}, {pullback}");
                }
                let cts = call.ct.iter().map(|ct| self.name(*ct).to_string());
                let cts: Vec<String> = cts.chain(kind.ct_dot().map(|t| self.atom(t))).collect();
                let rest = [self.opt_atoms(&call.tangents), cts.join(", ")];
                let rest = rest.into_iter().filter(|p| !p.is_empty());
                let ins = [self.atoms(&call.args)].into_iter().chain(rest);
                let ins = ins.collect::<Vec<_>>().join("; ");
                writeln!(f, "({outs}) = {}({ins})", kind.name())
            }
        }
    }
}

impl Func {
    fn fmt_branch(&self, b: &Branch, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &b.body {
            write!(f, "  ")?;
            self.fmt_stmt(s, f)?;
        }
        writeln!(f, "  yield ({})", self.atoms(&b.yields))
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.body {
            self.fmt_stmt(s, f)?;
        }
        match &self.ret {
            Some(r) => writeln!(f, "return {}", self.atom(r)),
            None => Ok(()),
        }
    }
}
