//! What the body does with its bindings, found once after desugaring and before lowering (the
//! annotations Google Tangent computes before it transforms), so that lowering reads them and
//! does not rediscover them.
//!
//! First [`scopes`] gives every binding a name of its own; the facts, keyed by name, are then
//! keyed by binding. [`uses`] reads them from syn's tree, for the whole body here and for the
//! expression or block at hand in lowering. [`activity`] says which bindings may carry
//! derivatives, which desugaring reads to rewrite only the code that may.

use std::collections::{BTreeMap, BTreeSet};

use crate::parse::Signature;
use crate::rules;

pub mod activity;
mod scopes;
pub mod uses;

/// What the body does with each name.
#[derive(Default)]
pub struct Facts {
    /// Local vectors written element by element (`v[i] = …`, `v.push(…)`): a constant read from
    /// one is kept in a local where it is read, since the backward sweep evaluates partials
    /// later, after the vector may have changed.
    pub written: BTreeSet<String>,
    /// Names a method that may change its receiver is called on (`stack` of `stack.pop()`), or
    /// that are borrowed mutably, anywhere.
    pub changed_in_place: BTreeSet<String>,
    /// Names indexed (`k1[0]`): a call bound to one returns a vector (`let k1 = rhs(s, k);`).
    pub indexed: BTreeSet<String>,
    /// Names passed by reference as whole arguments (`g(x, &k1)`): in a function of numbers, a
    /// call bound to one returns a vector.
    pub referenced: BTreeSet<String>,
    /// Names whose tuple components are read (`t.0`): a call bound to one returns a tuple.
    pub tuple_read: BTreeSet<String>,
    /// Names a method of no number, vector or rule is called on (`e` of `e.det()`): values of
    /// the user's types, whose operators are their `#[autodiff]` impls'.
    pub own_types: BTreeSet<String>,
    /// Names read by two indices (`m[i][j]`): a call bound to one returns an array of arrays
    /// (`let m = self.to_matrix();`), a value of the user's shape read by place.
    pub rows_read: BTreeSet<String>,
    /// Whether the body reads like tensor code: it names `Tensor` or calls a method only tensors
    /// have (`x.matmul(w)`, `h.sum()`). A parameter of a type the macro cannot see is then taken
    /// for a tensor under another name (`type T = Tensor<f64>`) at an operator, and for a value
    /// of the user's type otherwise.
    pub tensor_code: bool,
    /// Names a float method that tensors have too is called on (`x` of `x.exp()`): a parameter
    /// among them is a tensor at an operator, like all of them in [`Facts::tensor_code`].
    pub float_receivers: BTreeSet<String>,
    /// Names of values that have fields: read by field (`d.x`), or operands of the operators
    /// such a value is bound to (`a` and `b` of `let d = *a - *b;`). Tensors have no fields: in
    /// tensor code, a parameter among them is a value of the user's type at an operator.
    pub with_fields: BTreeSet<String>,
    /// Each binding renamed apart ([`scopes`]), with the user's name: values are named after it.
    pub user_names: BTreeMap<String, String>,
}

/// The user's body with its bindings renamed apart ([`scopes`]), for desugaring, and the user's
/// name of each binding renamed.
pub fn scopes(block: &syn::Block, sig: &Signature) -> (syn::Block, BTreeMap<String, String>) {
    apart(block.clone(), sig)
}

fn apart(block: syn::Block, sig: &Signature) -> (syn::Block, BTreeMap<String, String>) {
    let params: Vec<String> = sig.params.iter().map(|p| p.name.to_string()).collect();
    scopes::apart(block, &params)
}

/// A desugared body with the bindings desugaring made renamed apart too, and its facts;
/// `user_names` are [`scopes`]'s.
pub fn body(
    block: syn::Block,
    sig: &Signature,
    mut user_names: BTreeMap<String, String>,
) -> (syn::Block, Facts) {
    let (block, again) = apart(block, sig);
    for (new, old) in again {
        let user = user_names.get(&old).cloned().unwrap_or(old);
        user_names.insert(new, user);
    }
    let facts = Facts {
        user_names,
        ..facts(&block)
    };
    (block, facts)
}

/// `text` (a message, a printed list) with each binding renamed apart under the user's name: what
/// the user reads names their bindings as they wrote them.
pub fn as_written(text: &str, user_names: &BTreeMap<String, String>) -> String {
    if user_names.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        out.push_str(user_names.get(&word).unwrap_or(&word));
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// `e` with its messages [`as_written`].
pub fn error_as_written(e: syn::Error, user_names: &BTreeMap<String, String>) -> syn::Error {
    let mut each = e
        .clone()
        .into_iter()
        .map(|e| syn::Error::new(e.span(), as_written(&e.to_string(), user_names)));
    match each.next() {
        Some(first) => each.fold(first, |mut all, e| {
            all.combine(e);
            all
        }),
        None => e,
    }
}

/// The facts of a body whose bindings have names of their own.
fn facts(block: &syn::Block) -> Facts {
    let uses = uses::of_block(block);
    let mut tree = TreeFacts::default();
    syn::visit::Visit::visit_block(&mut tree, block);
    Facts {
        written: uses.element_written,
        changed_in_place: uses.changed.into_keys().collect(),
        indexed: uses.indexed,
        referenced: uses.referenced,
        tuple_read: uses.tuple_read,
        own_types: uses.others,
        rows_read: tree.rows_read,
        tensor_code: tree.tensor_code,
        float_receivers: tree.float_receivers,
        with_fields: with_fields(tree.field_bases, &tree.bindings),
        user_names: BTreeMap::new(),
    }
}

/// See [`Facts::with_fields`]: the names read by field, and the operands of what they are bound
/// to, to a fixpoint.
fn with_fields(mut names: BTreeSet<String>, bindings: &[(String, syn::Expr)]) -> BTreeSet<String> {
    loop {
        let before = names.len();
        let mut found = BTreeSet::new();
        for (_, value) in bindings.iter().filter(|(n, _)| names.contains(n)) {
            operands(value, &mut found);
        }
        names.extend(found);
        if names.len() == before {
            return names;
        }
    }
}

/// The names an operator expression combines (`a`, `b` of `-(*a + b.clone())`).
fn operands(e: &syn::Expr, out: &mut BTreeSet<String>) {
    use syn::Expr;
    match e {
        Expr::Binary(b) => {
            operands(&b.left, out);
            operands(&b.right, out);
        }
        Expr::Unary(u) => operands(&u.expr, out),
        Expr::Paren(p) => operands(&p.expr, out),
        Expr::Reference(r) => operands(&r.expr, out),
        Expr::MethodCall(m) if m.method == "clone" => operands(&m.receiver, out),
        Expr::Path(p) => {
            if let Some(id) = p.path.get_ident() {
                out.insert(id.to_string());
            }
        }
        _ => {}
    }
}

/// What a walk of the syn tree finds: [`Facts::rows_read`] and [`Facts::tensor_code`].
#[derive(Default)]
struct TreeFacts {
    rows_read: BTreeSet<String>,
    tensor_code: bool,
    float_receivers: BTreeSet<String>,
    /// Names read by field (`d` of `d.x`).
    field_bases: BTreeSet<String>,
    /// Each name with what a `let` or an assignment binds it to.
    bindings: Vec<(String, syn::Expr)>,
}

impl<'ast> syn::visit::Visit<'ast> for TreeFacts {
    fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
        if let syn::Expr::Index(inner) = &*i.expr {
            if let syn::Expr::Path(p) = &*inner.expr {
                if let Some(name) = p.path.get_ident() {
                    self.rows_read.insert(name.to_string());
                }
            }
        }
        syn::visit::visit_expr_index(self, i);
    }
    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let syn::Expr::Path(p) = &*f.base {
            if let Some(id) = p.path.get_ident() {
                self.field_bases.insert(id.to_string());
            }
        }
        syn::visit::visit_expr_field(self, f);
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        if let (syn::Pat::Ident(pi), Some(init)) = (pat, &l.init) {
            self.bindings
                .push((pi.ident.to_string(), (*init.expr).clone()));
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let syn::Expr::Path(p) = &*a.left {
            if let Some(id) = p.path.get_ident() {
                self.bindings.push((id.to_string(), (*a.right).clone()));
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.tensor_code |= p.segments.iter().any(|s| s.ident == "Tensor");
        syn::visit::visit_path(self, p);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        // (A tensor row preferred to a float row means there is no float row: `sum`, `matmul`.)
        let row = rules::find_method(&name, false);
        self.tensor_code |= row.is_some_and(|r| r.syntax == rules::Syntax::TensorMethod);
        if let (syn::Expr::Path(p), Some(r)) = (&*m.receiver, row) {
            let tensors_too = r.tensors.method
                || rules::find_method(&name, true)
                    .is_some_and(|t| t.syntax == rules::Syntax::TensorMethod);
            if let (Some(id), true) = (p.path.get_ident(), tensors_too) {
                self.float_receivers.insert(id.to_string());
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// Methods of numbers, vectors, options and the rule table: a value they are called on may be
/// any of those, not necessarily one of the user's types.
fn known_method(m: &str) -> bool {
    const KNOWN: &[&str] = &[
        "len",
        "is_empty",
        "iter",
        "iter_mut",
        "into_iter",
        "get",
        "contains",
        "clone",
        "first",
        "last",
        "to_vec",
        "as_slice",
        "push",
        "pop",
        "extend",
        "extend_from_slice",
        "swap",
        "fill",
        "copy_from_slice",
        "reverse",
        "insert",
        "remove",
        "truncate",
        "resize",
        "clear",
        "is_finite",
        "is_nan",
        "is_infinite",
        "is_sign_positive",
        "is_sign_negative",
        "is_normal",
        "classify",
        "to_bits",
        "partial_cmp",
        "total_cmp",
        "to_string",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "unwrap",
        "unwrap_or",
        "expect",
        "is_some",
        "is_none",
        "map",
        "signum",
        "floor",
        "ceil",
        "round",
        "trunc",
        "clamp",
        "shape",
        "rows",
        "cols",
        "data",
    ];
    KNOWN.contains(&m)
        || rules::find_method(m, false).is_some()
        || rules::find_method(m, true).is_some()
}
