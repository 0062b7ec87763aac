//! Appending statements to a [`Func`]: fresh names, and products and sums simplified on the way
//! (`1·x = x`), so that derivative code is as short as a hand-written one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use proc_macro2::{Ident, Span};

use crate::ir::{Atom, Call, CallKind, ControlId, Func, Kind, Op, Stmt, Var, VarInfo};
use crate::rules::template::{self, Templates};
use crate::rules::{self, Out};

/// A function under construction.
#[derive(Clone)]
pub struct Builder {
    pub func: Func,
    /// Every identifier of the user's function: generated names avoid them.
    used: HashSet<String, Quick>,
    /// The names given to values so far (every value's: the largest set of names there is).
    taken: HashSet<String, Quick>,
    /// The bindings analysis renamed apart, with the user's names: values are named after those.
    pub user_names: BTreeMap<String, String>,
    /// Per base name, the first suffix `k` not known to be taken: `base_1` … `base_{k-1}` are, and
    /// names are never released, so a search for a fresh `base_k` starts there (a variable
    /// reassigned n times would otherwise make naming quadratic in n).
    next_suffix: HashMap<String, usize, Quick>,
    temps: usize,
    /// The number of `if`s and loops lowered so far: the next one's [`ControlId`].
    controls: usize,
    /// `f64` or `f32`.
    pub float: Ident,
    /// The kind of what calls of other `#[autodiff]` functions return: scalars in a function of
    /// scalars, unknown otherwise.
    pub call_kind: Kind,
    /// Forward mode over an adjoint program (`hvp_`): every value gets a tangent, zero where
    /// nothing flows yet, since adjoints are accumulated into later.
    pub dense: bool,
    /// Over reverse mode: the undo log of each vector's tangent, by the vector's own log (a fresh
    /// name, so a third-order pass over `hvp_` gives the logs of `hvp_` their own).
    pub tangent_logs: Vec<(Ident, Ident)>,
    /// Over a recording reverse program: the stack of each recorded value's tangent, by the
    /// value's own stack (declared with it by the outermost recording loop).
    pub tangent_stacks: Vec<(Ident, Ident)>,
    /// Forward mode: the tangent cell of each loop cell that has one. A recording loop's backward
    /// sweep pops a nested loop's cells, which no recomputed body defines again, with their
    /// tangents under these names.
    pub cell_tangents: HashMap<Var, Var>,
    /// The rule templates parsed so far in this expansion.
    pub templates: Templates,
}

impl Builder {
    pub fn new(used: BTreeSet<String>, float: Ident) -> Self {
        Builder {
            func: Func {
                float: Some(float.clone()),
                ..Func::default()
            },
            used: used.into_iter().collect(),
            taken: HashSet::default(),
            user_names: BTreeMap::new(),
            next_suffix: HashMap::default(),
            temps: 0,
            controls: 0,
            float,
            call_kind: Kind::Other,
            dense: false,
            tangent_logs: Vec::new(),
            tangent_stacks: Vec::new(),
            cell_tangents: HashMap::new(),
            templates: Templates::default(),
        }
    }

    /// A name based on `base` that is not in use yet.
    pub fn fresh_name(&mut self, base: &str) -> Ident {
        self.unique(base, true)
    }

    /// `base` itself if no value has it yet (the user's own variable names), else `base_1`, ….
    pub fn user_name(&mut self, base: &str) -> Ident {
        self.unique(base, false)
    }

    fn unique(&mut self, base: &str, avoid_user: bool) -> Ident {
        let base = match self.user_names.get(base) {
            Some(user) => user.clone(),
            None => base.to_string(),
        };
        // (Taken where it is new: one search of the names, not a test and then an insertion.)
        if !(avoid_user && self.used.contains(&base)) && self.taken.insert(base.clone()) {
            return Ident::new(&base, Span::call_site());
        }
        let base = base.as_str();
        let taken =
            |s: &Self, n: &str, user: bool| s.taken.contains(n) || (user && s.used.contains(n));
        // Suffixed names always avoid the user's identifiers: `y_1` may be one of them.
        let mut k = self.next_suffix.get(base).copied().unwrap_or(1);
        while taken(self, &format!("{base}_{k}"), true) {
            k += 1;
        }
        self.next_suffix.insert(base.to_string(), k + 1);
        let name = format!("{base}_{k}");
        self.taken.insert(name.clone());
        Ident::new(&name, Span::call_site())
    }

    /// `id` as the user wrote it, if analysis renamed it apart, at its place.
    pub fn as_written(&self, id: &Ident) -> Ident {
        match self.user_names.get(&id.to_string()) {
            Some(user) => Ident::new(user, id.span()),
            None => id.clone(),
        }
    }

    /// A new value named after `base`.
    pub fn fresh(&mut self, base: &str, kind: Kind) -> Var {
        let name = self.fresh_name(base);
        self.func.vars.push(VarInfo {
            name,
            text: Default::default(),
            kind,
            is_ref: false,
            by_value: false,
        });
        Var(self.func.vars.len() - 1)
    }

    /// A value with the user's own `name` (a parameter: unique already).
    pub fn named(&mut self, name: Ident, kind: Kind, is_ref: bool) -> Var {
        self.taken.insert(name.to_string());
        self.func.vars.push(VarInfo {
            name,
            text: Default::default(),
            kind,
            is_ref,
            by_value: false,
        });
        Var(self.func.vars.len() - 1)
    }

    /// Keeps `name` (a parameter that is a constant) from being given to any value: a value named
    /// after it would shadow it in derivative code that reads the parameter.
    pub fn reserve(&mut self, name: &Ident) {
        self.taken.insert(name.to_string());
    }

    /// A new temporary `t1`, `t2`, …
    pub fn temp(&mut self, kind: Kind) -> Var {
        self.temps += 1;
        self.fresh(&format!("t{}", self.temps), kind)
    }

    /// The id of an `if` or loop being lowered.
    pub fn control_id(&mut self) -> ControlId {
        self.controls += 1;
        ControlId(self.controls - 1)
    }

    /// Renames `v`, created by the current statement, after a derivative (`x_bar`, `x_dot`).
    pub fn rename(&mut self, v: Var, base: &str) {
        let name = self.fresh_name(base);
        self.func.vars[v.0] = VarInfo {
            name,
            text: Default::default(),
            ..self.func.vars[v.0].clone()
        };
    }

    /// Renames `v`, created by the current statement, after the user's variable.
    pub fn rename_user(&mut self, v: Var, name: &str) {
        let name = self.user_name(name);
        self.func.vars[v.0] = VarInfo {
            name,
            text: Default::default(),
            ..self.func.vars[v.0].clone()
        };
    }

    pub fn push(&mut self, s: Stmt) {
        self.func.body.push(s);
    }

    /// `dst = op(args)` with a new temporary `dst`.
    pub fn op(&mut self, op: Op, args: Vec<Atom>, span: Span) -> Var {
        let kind = self.result_kind(&op, &args);
        self.op_of_kind(op, args, span, kind)
    }

    pub fn op_of_kind(&mut self, op: Op, args: Vec<Atom>, span: Span, kind: Kind) -> Var {
        let dst = self.temp(kind);
        self.push(Stmt::Let {
            dst,
            op,
            args,
            span,
        });
        dst
    }

    /// `dst = value`, the first contribution to an adjoint, summed to the shape of `like` if
    /// given ([`Op::Fit`]).
    pub fn adjoint(&mut self, dst: Var, value: Atom, like: Option<Atom>) {
        let args = std::iter::once(value).chain(like).collect();
        self.push(Stmt::Let {
            dst,
            op: Op::Fit,
            args,
            span: Span::call_site(),
        });
    }

    /// `dst = template(…)` of kind `kind`: a map of the rule table (see [`map_op`]).
    pub fn map(
        &mut self,
        template: &'static str,
        operands: &[Atom],
        z: Var,
        more: &[(&'static str, Atom)],
        span: Span,
        kind: Kind,
    ) -> Var {
        let (op, args) = map_op(template, operands, z, more);
        self.op_of_kind(op, args, span, kind)
    }

    fn result_kind(&self, op: &Op, args: &[Atom]) -> Kind {
        let joined = || {
            let active = args.iter().filter(|a| a.var().is_some());
            active
                .map(|a| self.func.atom_kind(a))
                .reduce(Kind::join)
                .unwrap_or(Kind::Scalar)
        };
        match op {
            Op::Rule(r) if r.out == Out::Scalar => Kind::Scalar,
            // A tensor row that numbers have too (`tanh`), applied to a value of unseen kind (a
            // parameter struct's field, which may be a number), has a result of unseen kind.
            Op::Rule(r)
                if r.out == Out::Tensor
                    && joined() == Kind::Other
                    && crate::rules::find_method(r.name, false)
                        .is_some_and(|s| s.syntax != r.syntax) =>
            {
                Kind::Other
            }
            Op::Rule(r) if r.out == Out::Tensor => Kind::Tensor,
            Op::Rule(_) | Op::Id => joined(),
            Op::SetPart(_) => self.func.atom_kind(&args[0]),
            Op::Call(_) => self.call_kind,
            Op::Map { .. } | Op::Zeros(_) | Op::Fit | Op::Recall(_) => Kind::Other,
        }
    }

    /// `rule(args)`.
    pub fn rule(&mut self, name: &str, args: Vec<Atom>, span: Span) -> Atom {
        let rule = rules::find(name).unwrap_or_else(|| panic!("no rule `{name}` in the table"));
        Atom::Var(self.op(Op::Rule(rule), args, span))
    }

    /// `a · b`, with `1·b = b` and `−1·b = −b`.
    pub fn mul(&mut self, a: Atom, b: Atom, span: Span) -> Atom {
        match (&a, &b) {
            (x, y) if x.is_unit(false) => y.clone(),
            (x, y) if y.is_unit(false) => x.clone(),
            (x, y) if x.is_unit(true) => self.rule("neg", vec![y.clone()], span),
            (x, y) if y.is_unit(true) => self.rule("neg", vec![x.clone()], span),
            _ => self.rule("mul", vec![a, b], span),
        }
    }

    /// The sum of `terms` (`None` if empty).
    pub fn sum(&mut self, terms: Vec<Atom>, span: Span) -> Option<Atom> {
        terms
            .into_iter()
            .reduce(|acc, t| self.rule("add", vec![acc, t], span))
    }

    /// Whether `v` was created at or after the mark `since` (see [`Builder::mark`]).
    pub fn is_new(&self, v: &Atom, since: usize) -> bool {
        matches!(v, Atom::Var(v) if v.0 >= since)
    }

    /// Whether `v` is the value the last statement made: nothing has named it yet.
    pub fn made_last(&self, v: Var) -> bool {
        match self.func.body.last() {
            Some(Stmt::Let { dst, .. }) => *dst == v,
            Some(Stmt::Call(Call {
                kind: CallKind::Jvp { .. },
                outs,
                ..
            })) => outs.first() == Some(&Some(v)),
            Some(Stmt::If { outs, .. }) => outs.contains(&v),
            _ => false,
        }
    }

    /// The number of values so far, to tell later which ones a step created.
    pub fn mark(&self) -> usize {
        self.func.vars.len()
    }
}

/// The hasher of the macro's own keys, names and values: FNV-1a, a value's index mixed in one
/// step. The standard one, built unoptimised with the macro as users build it, cost more than the
/// searches it served, and these keys need no defence against chosen collisions.
pub(crate) type Quick = BuildHasherDefault<Fnv>;

#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x0100_0000_01b3);
    }
}

/// A map of the rule table applied to the operands of the rule's statement `z = rule(operands)`
/// and to the `more` placeholders (`t`, `g`, `r`), binding only the placeholders it reads.
pub fn map_op(
    template: &'static str,
    operands: &[Atom],
    z: Var,
    more: &[(&'static str, Atom)],
) -> (Op, Vec<Atom>) {
    let mut binds = Vec::new();
    let mut args = Vec::new();
    for p in template::placeholders(template) {
        let operand = template::OPERANDS.iter().position(|&o| o == p);
        let arg = match operand {
            Some(i) => operands.get(i).cloned(),
            None if p == "z" => Some(Atom::Var(z)),
            None => more.iter().find(|(n, _)| *n == p).map(|(_, a)| a.clone()),
        };
        if let Some(arg) = arg {
            binds.push(p);
            args.push(arg);
        }
    }
    (Op::Map { template, binds }, args)
}
