//! The reverse-mode bookkeeping of the forward sweep: loop tapes and undo logs.

use std::collections::{HashMap, HashSet};

use proc_macro2::Ident;

use super::IfMark;
use crate::builder::Builder;
use crate::ir::{Branch, ControlId, LoopHead, LoopIter, Stmt, Tape, Var};

/// The reverse-mode bookkeeping added to the forward sweep: a tape on every loop (at any depth:
/// the forward sweep, and each recomputation of a body in the backward sweep, pushes each
/// iteration's entry state on it) and an undo log for every vector written element by element.
pub(super) struct Tapes<'a> {
    pub(super) b: &'a mut Builder,
    pub(super) logs: Vec<(Var, Ident)>,
    /// The vectors filled as they are made (`[a, b]`), whose writes need no log.
    pub(super) filled: Vec<Var>,
    /// Before an `if` whose arms write vectors, the lengths of their logs: the backward sweep
    /// rewinds the vectors to there before it recomputes the arm that ran.
    pub(super) if_marks: HashMap<ControlId, Vec<IfMark>>,
    /// Whether loops may record (`record.rs`) rather than recompute their bodies.
    pub(super) record: bool,
}

/// The vector a write or push changes, and its log.
fn logged(s: &Stmt) -> Option<(Var, Ident)> {
    match s {
        Stmt::SetElem {
            vec, log: Some(l), ..
        }
        | Stmt::Push {
            vec, log: Some(l), ..
        } => Some((*vec, l.clone())),
        _ => None,
    }
}

/// The values `stmts` and the statements nested in them declare: a vector declared inside a loop
/// body or an arm is made anew each time it runs, so nothing outside rewinds it.
pub(super) fn declared_in(stmts: &[Stmt]) -> HashSet<Var> {
    let mut out = HashSet::new();
    for s in stmts {
        s.walk(&mut |s| {
            if let Stmt::Let { dst, .. } = s {
                out.insert(*dst);
            }
        });
    }
    out
}

impl Tapes<'_> {
    fn log(&mut self, vec: Var) -> Ident {
        if let Some((_, l)) = self.logs.iter().find(|(v, _)| *v == vec) {
            return l.clone();
        }
        let l = self.b.fresh_name(&format!("{}_log", self.b.func.name(vec)));
        self.logs.push((vec, l.clone()));
        l
    }

    /// A new tape; a `for` over `a..b` (or `a..=b`) that always runs to its end keeps its range
    /// instead of pushing its index.
    fn tape(&mut self, head: &LoopHead) -> Tape {
        let range = match head {
            LoopHead::For {
                iter: LoopIter::Range(_),
                vars,
                exit: None,
                ..
            } if vars.len() == 1 => Some((vars[0].clone(), self.b.fresh_name("range"))),
            _ => None,
        };
        Tape {
            name: self.b.fresh_name("tape"),
            keep: None,
            range,
            calls: Vec::new(),
            record: false,
            nest: None,
            stacks: Vec::new(),
            checkpoint: None,
        }
    }

    pub(super) fn stmts(&mut self, stmts: &[Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            let s = self.stmt(s);
            if let Stmt::If { id, .. } = &s {
                let marks = self.if_marks(&s);
                for (_, log, mark) in &marks {
                    out.push(Stmt::Const {
                        name: mark.clone(),
                        mutable: false,
                        ty: None,
                        expr: quote::quote!(#log.len()).into(),
                    });
                }
                if !marks.is_empty() {
                    self.if_marks.insert(*id, marks);
                }
            }
            out.push(s);
        }
        out
    }

    /// A mark for each vector the arms of `if_` write.
    fn if_marks(&mut self, if_: &Stmt) -> Vec<IfMark> {
        let mut marks: Vec<IfMark> = Vec::new();
        let mut logs = Vec::new();
        if_.walk(&mut |s| logs.extend(logged(s)));
        let inside = declared_in(std::slice::from_ref(if_));
        for (vec, log) in logs {
            if !inside.contains(&vec) && !marks.iter().any(|(v, _, _)| *v == vec) {
                let mark = self.b.fresh_name(&format!("{log}_at_if"));
                marks.push((vec, log, mark));
            }
        }
        marks
    }

    /// A loop with its tape, and the logs of the vectors its body writes that it does not declare.
    fn taped_loop(&mut self, s: &Stmt) -> Stmt {
        let Stmt::Loop {
            id,
            head,
            cells,
            active,
            body,
            ..
        } = s
        else {
            return s.clone();
        };
        let inner = self.stmts(&body.body);
        let inside = declared_in(&inner);
        let mut logs = Vec::new();
        for s in &inner {
            s.walk(&mut |s| {
                if let Some((vec, l)) = logged(s) {
                    if !inside.contains(&vec) && !logs.iter().any(|(v, _)| *v == vec) {
                        logs.push((vec, l));
                    }
                }
            });
        }
        let mut tape = self.tape(head);
        tape.record = self.record && super::record::records(&self.b.func, cells, &inner);
        Stmt::Loop {
            id: *id,
            head: head.clone(),
            cells: cells.clone(),
            active: active.clone(),
            body: Branch {
                body: inner,
                yields: body.yields.clone(),
            },
            tape: Some(tape),
            logs,
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s {
            Stmt::Loop { .. } => self.taped_loop(s),
            Stmt::If {
                id,
                cond,
                then_,
                else_,
                outs,
            } => Stmt::If {
                id: *id,
                cond: cond.clone(),
                then_: Branch {
                    body: self.stmts(&then_.body),
                    yields: then_.yields.clone(),
                },
                else_: Branch {
                    body: self.stmts(&else_.body),
                    yields: else_.yields.clone(),
                },
                outs: outs.clone(),
            },
            Stmt::SetElem {
                vec,
                index,
                value,
                init,
                ..
            } => {
                let log = match init {
                    true => {
                        if !self.filled.contains(vec) {
                            self.filled.push(*vec);
                        }
                        None
                    }
                    false => Some(self.log(*vec)),
                };
                Stmt::SetElem {
                    vec: *vec,
                    index: index.clone(),
                    value: value.clone(),
                    log,
                    init: *init,
                }
            }
            Stmt::Push { vec, value, .. } => Stmt::Push {
                vec: *vec,
                value: value.clone(),
                log: Some(self.log(*vec)),
            },
            other => other.clone(),
        }
    }
}
