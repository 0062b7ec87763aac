//! A unit of generation: function `f{index}` with its signature, attribute and body, and the
//! helper `h{index}` it may call (itself a function under test).

use super::ast::{write_block_body, Block, Expr, If, Stmt};
use super::body::{Callee, Gen, SliceParam};
use super::rng::Rng;
use super::{Bug, Config, C};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Float,
    Usize,
    /// `&[f64]`
    Slice,
    /// `Vec<f64>`
    VecParam,
    /// `[f64; n]`
    Array(usize),
    /// `(f64, f64)`: two numbers packed by `pack`.
    Pair,
    /// `&P…`: two numbers as the fields of a parameter struct (`pack` with `fields`), named
    /// after them in [`Function::fields`].
    Fields,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    /// Differentiated (a float kind, and named by `wrt` if there is one).
    pub diff: bool,
}

impl Param {
    fn ty(&self) -> String {
        match self.kind {
            ParamKind::Float => "f64".into(),
            ParamKind::Usize => "usize".into(),
            ParamKind::Slice => "&[f64]".into(),
            ParamKind::VecParam => "Vec<f64>".into(),
            ParamKind::Array(n) => format!("[f64; {n}]"),
            ParamKind::Pair => "(f64, f64)".into(),
            // Named after its function: written by `Function::source`.
            ParamKind::Fields => "&P".into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub body: Block,
    /// The attribute's arguments: `wrt(x)`, `order = 2`.
    pub attr_args: Vec<String>,
    /// Whether the macro writes `hvp_`/`hessian_` (and `dhvp_`).
    pub hvp: bool,
    pub dhvp: bool,
    /// Whether the macro writes `explain_`: not for a function that passes a vector to a call
    /// (the callee's pullback returns a vector, which no row of the trace takes).
    pub explain: bool,
    /// The length of the slice or `Vec` argument the checks pass.
    pub slice_len: usize,
    /// How often each construct was generated, by [`C`].
    pub used: Vec<u32>,
    /// The elementary functions in the body.
    pub methods: Vec<String>,
    /// Whether it is written generic over its float type (`fn f<T: diffx::Float>`).
    pub generic: bool,
    /// The names of the two fields of its parameter struct, if it takes one
    /// ([`ParamKind::Fields`]).
    pub fields: Option<[String; 2]>,
    /// Whether the second field is an `Option` (always `Some`), and how the body reads it: by
    /// `match`, `unwrap_or` or `if let`.
    pub optional: Option<OptionRead>,
    /// Whether it writes its result into a last parameter `written: &mut f64` ([`C::Output`]).
    pub output: bool,
    /// Whether it is in an `#[autodiff]` `impl` block of the unit struct `U{name}`
    /// ([`C::ImplBlock`]).
    pub in_impl: bool,
    /// Whether its struct's fields are read through methods ([`C::OwnMethods`]), and whether one
    /// goes through `swapped()`, a method returning the struct.
    pub own_methods: Option<bool>,
    /// Whether its struct is also built through `zip_with` ([`C::OwnForms`]).
    pub own_forms: bool,
    /// Whether a local of its struct is changed by field and by compound assignments
    /// ([`C::OwnAssign`]).
    pub own_assign: bool,
}

/// How a body reads an optional field.
#[derive(Clone, Copy, Debug)]
pub enum OptionRead {
    Match,
    UnwrapOr,
    IfLet,
}

impl Function {
    pub fn source(&self) -> String {
        let mut s = String::new();
        let mut head = String::new();
        if let Some([a, b]) = &self.fields {
            // Generic over its float in a generic unit, as `struct Line<F: Float>` is written.
            let (generics, float) = match self.generic {
                true => ("<F: diffx::Float>", "F"),
                false => ("", "f64"),
            };
            let second = match self.optional {
                Some(_) => format!("Option<{float}>"),
                None => float.to_string(),
            };
            head = format!(
                "#[derive(Clone, Debug, diffx::Params)]\nstruct {}{generics} {{\n    {a}: {float},\n    {b}: {second},\n}}\n\n",
                self.struct_name()
            );
            if let Some(swap) = self.own_methods {
                head.push_str(&self.methods_block(generics, float, swap));
            }
        }
        let mut attr = "#[autodiff".to_string();
        if !self.attr_args.is_empty() {
            attr.push_str(&format!("({})", self.attr_args.join(", ")));
        }
        attr.push_str("]\n");
        if !self.in_impl {
            s.push_str(&attr);
        }
        let mut params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Fields if self.generic => {
                    format!("{}: &{}<f64>", p.name, self.struct_name())
                }
                ParamKind::Fields => format!("{}: &{}", p.name, self.struct_name()),
                _ => format!("{}: {}", p.name, p.ty()),
            })
            .collect();
        if self.output {
            params.push("written: &mut f64".into());
            s.push_str(&format!("fn {}({}) {{\n", self.name, params.join(", ")));
            s.push_str("    *written = {\n");
            write_block_body(&mut s, &self.body, 2);
            s.push_str("    };\n}\n");
        } else {
            s.push_str(&format!(
                "fn {}({}) -> f64 {{\n",
                self.name,
                params.join(", ")
            ));
            write_block_body(&mut s, &self.body, 1);
            s.push_str("}\n");
        }
        if self.generic {
            s = super::generic::rewrite(&s);
        }
        if self.in_impl {
            // (The function unindented: the runner finds functions by lines starting `fn `.)
            let block = self.impl_name();
            s = format!("struct {block};\n\n{attr}impl {block} {{\n{s}}}\n");
        }
        head + &s
    }

    /// The `impl` block of its struct's methods ([`Function::own_methods`]): one reading each
    /// field, and with `swap` one returning the struct with its fields swapped.
    fn methods_block(&self, generics: &str, float: &str, swap: bool) -> String {
        let Some([a, b]) = &self.fields else {
            return String::new();
        };
        let order = match self.hvp {
            true => ", order = 2",
            false => "",
        };
        let ty = match self.generic {
            true => format!("{}<F>", self.struct_name()),
            false => self.struct_name(),
        };
        let mut s = format!("#[autodiff(wrt(self){order})]\nimpl{generics} {ty} {{\n");
        for f in [a, b] {
            s.push_str(&format!(
                "fn {f}_of(&self) -> {float} {{\n    self.{f}\n}}\n"
            ));
        }
        if swap {
            // (At second order too, where the function has it: its Hessian goes through.)
            s.push_str(&format!("#[autodiff(wrt(self){order})]\nfn swapped(&self) -> Self {{\n    Self {{ {a}: self.{b}, {b}: self.{a} }}\n}}\n"));
        }
        if self.own_forms {
            let ty = self.struct_name();
            s.push_str(&format!(
                "fn zero() -> Self {{\n    Self {{ {a}: 0.0, {b}: 0.0 }}\n}}\n"
            ));
            s.push_str(&format!("fn zip_with(p: {ty}, q: {ty}, op: impl Fn(f64, f64) -> f64) -> Self {{\n    let mut r = Self::zero();\n    r.{a} = op(p.{a}, q.{a});\n    r.{b} = op(p.{b}, q.{b});\n    r\n}}\n"));
        }
        s.push_str("}\n\n");
        if swap {
            // The operators the function applies to the swapped value.
            let op_attr = match self.hvp {
                true => "#[autodiff(order = 2)]",
                false => "#[autodiff]",
            };
            s.push_str(&format!("{op_attr}\nimpl{generics} std::ops::Add for {ty} {{\ntype Output = Self;\nfn add(self, rhs: Self) -> Self {{\n    Self {{ {a}: self.{a} + rhs.{a}, {b}: self.{b} + rhs.{b} }}\n}}\n}}\n\n"));
            s.push_str(&format!("{op_attr}\nimpl{generics} std::ops::Mul<{float}> for {ty} {{\ntype Output = Self;\nfn mul(self, k: {float}) -> Self {{\n    Self {{ {a}: self.{a} * k, {b}: self.{b} * k }}\n}}\n}}\n\n"));
            if !self.generic {
                s.push_str(&format!("{op_attr}\nimpl std::ops::Mul<{ty}> for f64 {{\ntype Output = {ty};\nfn mul(self, p: {ty}) -> {ty} {{\n    {ty} {{ {a}: self * p.{a}, {b}: self * p.{b} }}\n}}\n}}\n\n"));
            }
            if self.own_assign {
                // One written by field, one whole.
                s.push_str(&format!("{op_attr}\nimpl std::ops::AddAssign for {ty} {{\nfn add_assign(&mut self, rhs: Self) {{\n    self.{a} += rhs.{a};\n    self.{b} += rhs.{b};\n}}\n}}\n\n"));
                s.push_str(&format!("{op_attr}\nimpl std::ops::MulAssign<f64> for {ty} {{\nfn mul_assign(&mut self, k: f64) {{\n    *self = {ty} {{ {a}: self.{a} * k, {b}: self.{b} * k }};\n}}\n}}\n\n"));
            }
        }
        s
    }

    /// The unit struct whose `impl` block holds it ([`Function::in_impl`]).
    pub fn impl_name(&self) -> String {
        format!("U{}", self.name)
    }

    /// The path its generated functions are called by: `Uf3::` in an `impl` block.
    pub fn path(&self) -> String {
        match self.in_impl {
            true => format!("{}::", self.impl_name()),
            false => String::new(),
        }
    }

    /// The name of its parameter struct ([`ParamKind::Fields`]).
    pub fn struct_name(&self) -> String {
        format!("P{}", self.name)
    }

    /// The number of scalar components of a parameter.
    pub fn width(&self, p: &Param) -> usize {
        match p.kind {
            ParamKind::Float => 1,
            ParamKind::Usize => 0,
            ParamKind::Slice | ParamKind::VecParam => self.slice_len,
            ParamKind::Array(n) => n,
            ParamKind::Pair | ParamKind::Fields => 2,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Unit {
    pub index: u64,
    pub helper: Option<Function>,
    pub main: Function,
}

impl Unit {
    /// The helper's source (if any) and the function's.
    pub fn source(&self) -> String {
        match &self.helper {
            Some(h) => format!("{}\n{}", h.source(), self.main.source()),
            None => self.main.source(),
        }
    }

    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.helper.iter().chain(std::iter::once(&self.main))
    }
}

/// Function `index` of `seed`.
pub fn unit(seed: u64, index: u64, cfg: &Config) -> Unit {
    let mut rng = Rng::for_function(seed, index);
    let w = |c: C| cfg.weights[c as usize];
    let helper = if rng.chance(w(C::Helper) as f64 / 100.0) {
        let mut h = if rng.chance(w(C::RecursiveHelper) as f64 / 100.0) {
            recursive_helper(&mut rng, cfg, index)
        } else {
            function(&mut rng, cfg, format!("h{index}"), None, true)
        };
        h.used[C::Helper as usize] += 1;
        Some(h)
    } else {
        None
    };
    let mut main = function(&mut rng, cfg, format!("f{index}"), helper.as_ref(), false);
    // Drawn last, so the rest of the unit is the same whatever its weight. A generic function
    // calls its helper at its own float type, so both are generic or neither.
    let mut helper = helper;
    if rng.chance(w(C::Generic) as f64 / 100.0) {
        main.generic = true;
        main.used[C::Generic as usize] += 1;
        if let Some(h) = &mut helper {
            h.generic = true;
        }
    }
    if rng.chance(w(C::Packed) as f64 / 100.0) {
        pack(&mut main, false);
    } else if rng.chance(w(C::Fields) as f64 / 100.0) {
        pack(&mut main, true);
        // The second field optional, read one of three ways (drawn last, as the rest).
        if main.fields.is_some() && rng.chance(0.5) {
            let read = *rng.pick(&[OptionRead::Match, OptionRead::UnwrapOr, OptionRead::IfLet]);
            optional(&mut main, read);
        }
    }
    if main.fields.is_some()
        && main.optional.is_none()
        && !main.dhvp
        && rng.chance(w(C::OwnMethods) as f64 / 100.0)
    {
        let forms = rng.chance(w(C::OwnForms) as f64 / 100.0);
        let assign = rng.chance(w(C::OwnAssign) as f64 / 100.0);
        own_methods(&mut main, forms, assign);
    }
    // (Drawn last too.)
    if rng.chance(w(C::Changed) as f64 / 100.0) {
        changed(&mut main);
    }
    // A function with a `&mut` output may not return early.
    if rng.chance(w(C::Output) as f64 / 100.0) && !main.source().contains("return") {
        main.output = true;
        main.used[C::Output as usize] += 1;
        // (Its body is then one block, `*written = { … };`: no loop at the top level.)
        if main.used[C::Checkpoint as usize] > 0 {
            main.attr_args.retain(|a| !a.starts_with("checkpoint"));
            main.used[C::Checkpoint as usize] = 0;
        }
    }
    if rng.chance(w(C::ImplBlock) as f64 / 100.0) {
        main.in_impl = true;
        main.used[C::ImplBlock as usize] += 1;
    }
    Unit {
        index,
        helper,
        main,
    }
}

/// `f`'s first two differentiable numbers `x`, `y` as one parameter: `xy: (f64, f64)`, destructured
/// by the first statement, or with `fields` `p: &P` (a `#[derive(Params)]` struct with fields `x`
/// and `y`), read by the first two. Not with `wrt`, which names the numbers.
fn pack(f: &mut Function, fields: bool) {
    let numbers: Vec<usize> = (0..f.params.len())
        .filter(|&i| f.params[i].kind == ParamKind::Float && f.params[i].diff)
        .collect();
    if numbers.len() < 2 || f.attr_args.iter().any(|a| a.starts_with("wrt")) {
        return;
    }
    let (i, j) = (numbers[0], numbers[1]);
    let (a, b) = (f.params[i].name.clone(), f.params[j].name.clone());
    f.params.remove(j);
    let (name, kind, reads, construct) = match fields {
        false => (
            "xy",
            ParamKind::Pair,
            vec![format!("let ({a}, {b}) = xy;")],
            C::Packed,
        ),
        true => (
            "pf",
            ParamKind::Fields,
            vec![format!("let {a} = pf.{a};"), format!("let {b} = pf.{b};")],
            C::Fields,
        ),
    };
    f.params[i] = Param {
        name: name.into(),
        kind,
        diff: true,
    };
    for (k, r) in reads.into_iter().enumerate() {
        f.body.stmts.insert(k, Stmt::Raw(r));
    }
    if fields {
        f.fields = Some([a, b]);
        // `explain_` lists a struct's fields as the body reads them (it cannot see the struct):
        // its rows do not line up with the gradient's fields.
        f.explain = false;
    }
    f.used[construct as usize] += 1;
}

/// `f`'s struct with its second field an `Option` (given as `Some`), read by `read` instead of
/// `let b = pf.b;`.
fn optional(f: &mut Function, read: OptionRead) {
    let Some([_, b]) = f.fields.clone() else {
        return;
    };
    let plain = format!("let {b} = pf.{b};");
    let with = match read {
        OptionRead::Match => format!(
            "let {b} = match pf.{b} {{\n        Some(v) => v,\n        None => 0.0,\n    }};"
        ),
        OptionRead::UnwrapOr => format!("let {b} = pf.{b}.unwrap_or(0.0);"),
        OptionRead::IfLet => format!("let {b} = if let Some(v) = pf.{b} {{ v }} else {{ 0.0 }};"),
    };
    for s in &mut f.body.stmts {
        if matches!(s, Stmt::Raw(r) if *r == plain) {
            *s = Stmt::Raw(with.clone());
        }
    }
    f.optional = Some(read);
}

/// `f`'s struct fields read through its methods: `let a = pf.a_of();` and `let b =
/// pf.swapped().a_of();` (a method returning the struct, chained, at second order too).
fn own_methods(f: &mut Function, forms: bool, assign: bool) {
    let Some([a, b]) = f.fields.clone() else {
        return;
    };
    let swap = true;
    // (`zip_with` takes a function: first order only; and is not written generic.)
    let forms = forms && !f.hvp && !f.generic;
    // (Literals `0.5` are of `f64`: not written generic.)
    let assign = assign && !f.generic;
    let reads = [
        (
            format!("let {a} = pf.{a};"),
            match assign {
                // `acc` = (a + b/4, b): `acc.a − acc.b/4` is `a`.
                true => format!("let mut acc = pf.clone();\n    acc.{a} += acc.{b} * 0.5;\n    acc += pf.clone();\n    acc *= 0.5;\n    let {a} = acc.{a}_of() - acc.{b}_of() * 0.25;"),
                false => format!("let {a} = pf.{a}_of();"),
            },
        ),
        (
            format!("let {b} = pf.{b};"),
            match swap {
                // `(s + s) * 0.5` is `s`: its operators' derivatives, and the method's (the struct is not
                // `Copy`: the left operand a clone).
                true if f.generic => format!("let sw = pf.swapped();\n    let {b} = sw.{b}_of() * 0.0 + ((sw.clone() + sw) * 0.5).{a}_of();"),
                // (A number on the left: `impl Mul<P> for f64`, not written generic.)
                // `max(b, a) + min(b, a) − a` through `zip_with`, after the operators on `sw`
                // (which the body calls a method of: a value of the type) times zero.
                true if forms => {
                    let ty = f.struct_name();
                    format!("let sw = pf.swapped();\n    let {b} = sw.{b}_of() * 0.0 + (0.5 * (sw.clone() + sw.clone())).{a}_of() * 0.0 + {ty}::zip_with(pf.clone(), sw.clone(), f64::max).{b}_of() + {ty}::zip_with(pf.clone(), sw, f64::min).{b}_of() - pf.{a}_of();")
                }
                true => format!("let sw = pf.swapped();\n    let {b} = sw.{b}_of() * 0.0 + (0.5 * (sw.clone() + sw)).{a}_of();"),
                false => format!("let {b} = pf.{b}_of();"),
            },
        ),
    ];
    for s in &mut f.body.stmts {
        for (plain, with) in &reads {
            if matches!(s, Stmt::Raw(r) if r == plain) {
                *s = Stmt::Raw(with.clone());
            }
        }
    }
    f.own_methods = Some(swap);
    f.used[C::OwnMethods as usize] += 1;
    if forms {
        f.own_forms = true;
        f.used[C::OwnForms as usize] += 1;
    }
    if assign {
        f.own_assign = true;
        f.used[C::OwnAssign as usize] += 1;
    }
}

/// `f` with `let mut stack = vec![…];` first and up to three of its `0.5` literals popped from it
/// (`stack.pop().unwrap_or(0.5)`), outside constant items and macros.
fn changed(f: &mut Function) {
    let mut left = 3;
    let mut pop = |text: &str| -> String {
        if text.contains('"') || text.trim_start().starts_with("const") {
            return text.to_string();
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("0.5") {
            let before = rest[..at].chars().last();
            let after = rest[at + 3..].chars().next();
            let word =
                |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_');
            out.push_str(&rest[..at]);
            if left > 0 && !word(before) && !word(after) {
                out.push_str("stack.pop().unwrap_or(0.5)");
                left -= 1;
            } else {
                out.push_str("0.5");
            }
            rest = &rest[at + 3..];
        }
        out.push_str(rest);
        out
    };
    f.body.map_text(&mut pop);
    if left < 3 {
        // (In (0, 0.5]: a `0.5` of the generator may guard a domain, `asin(0.5 * s)`, `sqrt(z * z + 0.5)`.)
        let stack =
            Stmt::Raw("let mut stack = vec![0.25, 0.5, 0.125, 0.375, 0.0625, 0.4375];".into());
        f.body.stmts.insert(0, stack);
        f.used[C::Changed as usize] += 1;
    }
}

/// Chooses the parameters: one to three floats, maybe a slice, `Vec` or array, maybe `n`.
fn params(rng: &mut Rng, cfg: &Config, helper: bool) -> (Vec<Param>, usize) {
    let w = |c: C| cfg.weights[c as usize];
    let nf = if helper {
        rng.range(1, 2)
    } else {
        rng.range(1, 3)
    };
    let mut params: Vec<Param> = ["x", "y", "z"][..nf]
        .iter()
        .map(|n| Param {
            name: n.to_string(),
            kind: ParamKind::Float,
            diff: true,
        })
        .collect();
    let mut len = rng.range(2, 4);
    let slice = if helper {
        // A helper takes what its callers may pass: slices (form G), arrays (form H).
        let g = cfg.bugs.allows(Bug::SliceToCall) && rng.chance(0.3);
        let h = cfg.bugs.allows(Bug::ArrayToCall) && rng.chance(0.3);
        if g {
            len = 2;
            Some(ParamKind::Slice)
        } else if h {
            Some(ParamKind::Array(3))
        } else {
            None
        }
    } else {
        match rng.weighted(&[100, w(C::SliceParam), w(C::VecParam), w(C::ArrayParam)]) {
            0 => None,
            1 => Some(ParamKind::Slice),
            2 => Some(ParamKind::VecParam),
            _ => Some(ParamKind::Array(len)),
        }
    };
    if let Some(kind) = slice {
        if let ParamKind::Array(n) = kind {
            len = n;
        }
        params.push(Param {
            name: "w".into(),
            kind,
            diff: true,
        });
    }
    if rng.chance(w(C::IntParam) as f64 / 100.0) {
        params.push(Param {
            name: "n".into(),
            kind: ParamKind::Usize,
            diff: false,
        });
    }
    rng.shuffle(&mut params);
    (params, len)
}

fn function(
    rng: &mut Rng,
    cfg: &Config,
    name: String,
    helper: Option<&Function>,
    is_helper: bool,
) -> Function {
    let (mut params, slice_len) = params(rng, cfg, is_helper);
    // A helper (called by the function) with `wrt` is form Y.
    let wrt = if is_helper && !cfg.bugs.allows(Bug::CallWrtFunction) {
        None
    } else {
        choose_wrt(rng, cfg, &mut params, is_helper)
    };
    let mut g = Gen::new(rng, cfg);
    for p in &params {
        match p.kind {
            ParamKind::Float => {
                g.declare_float(&p.name, false, true, p.diff);
                if !p.diff {
                    g.const_params.push(p.name.clone());
                }
            }
            ParamKind::Usize => g.declare_int(&p.name, true),
            kind => {
                g.slice = Some(SliceParam {
                    name: p.name.clone(),
                    kind,
                    len: slice_len,
                    active: p.diff,
                });
                g.used[match kind {
                    ParamKind::Slice => C::SliceParam,
                    ParamKind::VecParam => C::VecParam,
                    _ => C::ArrayParam,
                } as usize] += 1;
            }
        }
    }
    if params.iter().any(|p| p.kind == ParamKind::Usize) {
        g.used[C::IntParam as usize] += 1;
    }
    if let Some(h) = helper {
        g.callees.push(Callee {
            name: h.name.clone(),
            params: h.params.iter().map(|p| (p.kind, p.diff)).collect(),
            second_order: h.hvp,
        });
    }
    let (lo, hi) = if is_helper {
        (2, 4)
    } else {
        (3, cfg.max_stmts.max(3))
    };
    g.budget = g.rng.range(lo, hi) as i32;
    let mut stmts = Vec::new();
    while g.budget > 0 {
        stmts.extend(g.stmt());
    }
    let tail = g.tail();
    let body = Block {
        stmts,
        tail: Some(Box::new(tail)),
    };
    let calls = g.used[C::Call as usize] > 0;
    let takes_vector = helper.is_some_and(|h| {
        h.params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Slice | ParamKind::Array(_)))
    });
    // (`explain_` does not record calls returning vectors, nor so tuples: `grad_h(x, y).1`.)
    let explain = !(calls && takes_vector) && g.used[C::Nested as usize] == 0;
    let mut used = g.used;
    let methods = g.methods;
    // A caller of the helper's `grad_` or `jvp_` has first order only (its second order would
    // need the helper's third).
    let nested = used[C::Nested as usize] > 0;
    let callee_second_order = helper.is_none_or(|h| h.hvp) && !nested;
    let (mut attr_args, hvp, dhvp) = order(rng, cfg, calls, callee_second_order, &mut used);
    if let Some(w) = wrt {
        used[C::Wrt as usize] += 1;
        attr_args.insert(0, w);
    }
    // Checkpointing where the function has a `for` loop at its top level (else an error).
    let top_for = body.stmts.iter().any(|s| matches!(s, Stmt::For { .. }));
    let w_checkpoint = cfg.weights[C::Checkpoint as usize] as f64 / 100.0;
    if !is_helper && top_for && rng.chance(w_checkpoint) {
        used[C::Checkpoint as usize] += 1;
        attr_args.push(format!("checkpoint = {}", rng.range(1, 3)));
    }
    Function {
        name,
        params,
        body,
        attr_args,
        hvp,
        dhvp,
        explain,
        slice_len,
        used,
        methods,
        generic: false,
        fields: None,
        optional: None,
        output: false,
        in_impl: false,
        own_methods: None,
        own_forms: false,
        own_assign: false,
    }
}

/// The `order` argument: `order = 2` writes `hvp_` (with calls, if the callee has one), `order = 3`
/// adds `dhvp_` (without calls); `order = 1` or no argument writes first order only.
fn order(
    rng: &mut Rng,
    cfg: &Config,
    calls: bool,
    callee_second_order: bool,
    used: &mut [u32],
) -> (Vec<String>, bool, bool) {
    let w = |c: C| cfg.weights[c as usize] as f64 / 100.0;
    if calls {
        if callee_second_order && rng.chance(w(C::Order2)) {
            used[C::Order2 as usize] += 1;
            return (vec!["order = 2".into()], true, false);
        }
        return (Vec::new(), false, false);
    }
    let r = rng.unit();
    if r < w(C::Order1) {
        used[C::Order1 as usize] += 1;
        // First order, asked for or by default.
        let args = if rng.chance(0.5) {
            vec!["order = 1".into()]
        } else {
            Vec::new()
        };
        (args, false, false)
    } else if r < w(C::Order1) + w(C::Order3) {
        used[C::Order3 as usize] += 1;
        (vec!["order = 3".into()], true, true)
    } else {
        used[C::Order2 as usize] += 1;
        (vec!["order = 2".into()], true, false)
    }
}

/// Now and then, `wrt(…)` names some of the differentiable parameters (in order). A helper
/// leaves out only numbers, for which its callers pass constants.
fn choose_wrt(
    rng: &mut Rng,
    cfg: &Config,
    params: &mut [Param],
    is_helper: bool,
) -> Option<String> {
    let diff: Vec<usize> = (0..params.len()).filter(|&i| params[i].diff).collect();
    let mut droppable: Vec<usize> = diff
        .iter()
        .copied()
        .filter(|&i| !is_helper || params[i].kind == ParamKind::Float)
        .collect();
    if diff.len() < 2
        || droppable.is_empty()
        || !rng.chance(cfg.weights[C::Wrt as usize] as f64 / 100.0)
    {
        return None;
    }
    let drop = rng.range(1, droppable.len().min(diff.len() - 1));
    rng.shuffle(&mut droppable);
    droppable.truncate(drop);
    let chosen: Vec<usize> = diff
        .iter()
        .copied()
        .filter(|i| !droppable.contains(i))
        .collect();
    for &i in &diff {
        params[i].diff = chosen.contains(&i);
    }
    let names: Vec<&str> = chosen.iter().map(|&i| params[i].name.as_str()).collect();
    Some(format!("wrt({})", names.join(", ")))
}

/// `h(x, n)`: `x` transformed `n` times through a call of itself.
fn recursive_helper(rng: &mut Rng, cfg: &Config, index: u64) -> Function {
    let name = format!("h{index}");
    let mut g = Gen::new(rng, cfg);
    g.declare_float("x", false, true, true);
    let base = g.bounded(2).s;
    // Bounded, or `n` nested calls could make it as large as x^(2^n).
    let arg = g.bounded(1).s;
    g.declare_float("a", false, false, true);
    let f = g.factor(1);
    let b = g.bounded(1);
    let mut used = g.used;
    used[C::RecursiveHelper as usize] += 1;
    used[C::Call as usize] += 1;
    let methods = g.methods;
    let body = Block {
        stmts: vec![
            Stmt::If(If {
                cond: "n == 0".into(),
                active: false,
                then: Block::new(vec![Stmt::Return(Expr::Text(base))]),
                els: None,
            }),
            Stmt::Let {
                name: "a".into(),
                mutable: false,
                ty: None,
                init: Expr::Text(format!("{name}({arg}, n - 1)")),
            },
        ],
        tail: Some(Box::new(Expr::Text(format!(
            "a * {} + {}",
            f.at(1),
            b.at(2)
        )))),
    };
    let second = rng.chance(0.5);
    let params = vec![
        Param {
            name: "x".into(),
            kind: ParamKind::Float,
            diff: true,
        },
        Param {
            name: "n".into(),
            kind: ParamKind::Usize,
            diff: false,
        },
    ];
    Function {
        name,
        params,
        body,
        attr_args: if second {
            vec!["order = 2".into()]
        } else {
            Vec::new()
        },
        hvp: second,
        dhvp: false,
        explain: true,
        slice_len: 2,
        used,
        methods,
        generic: false,
        fields: None,
        optional: None,
        output: false,
        in_impl: false,
        own_methods: None,
        own_forms: false,
        own_assign: false,
    }
}
