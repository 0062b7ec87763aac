//! Lowering: the body of a function (syn's AST) to the Wengert list of [`crate::ir`].
//!
//! Every expression that depends on a differentiable input is split into primitive operations from
//! the rule table, one fresh value each; `let` names such a value after the user's variable, and
//! reassignment (`s += x`) binds the name to a new value, so the list never overwrites anything.
//! Expressions that do not depend on the inputs (integer arithmetic, `n as f64`, comparisons) are
//! kept as written, as constants. What cannot be differentiated is a `syn::Error` at its span.
//!
//! The lowering is spread over files by what it lowers: `scope.rs` the names in scope and what an
//! expression reads through them; `stmt.rs` statements, `let` and assignment; `expr.rs`
//! operators, casts and methods; `calls.rs` calls of other functions (the table's, other
//! `#[autodiff]` functions) and their arguments; `own.rs` values of the user's own types;
//! `places.rs` fields, indexing and the parts of a call's
//! tuple; `constants.rs` code kept as written; `messages.rs` the errors; `branches.rs` `if` and
//! `match`; `loops.rs` loops; `vectors.rs` local vectors written element by element;
//! `function.rs` the function as a whole.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;

use crate::builder::Builder;
use crate::ir::{self, Atom, Index};
use crate::rules::{self, template, Rule};

mod branches;
mod calls;
mod constants;
mod expr;
mod function;
mod loops;
mod messages;
mod own;
mod places;
mod scope;
mod stmt;
mod vectors;

use crate::analyze::uses;

pub use function::function;

/// Lowers statements into a [`Builder`], with the user's names in scope.
pub struct Lowerer<'b> {
    pub b: &'b mut Builder,
    scopes: Vec<Vec<(String, Atom)>>,
    pub errors: Vec<syn::Error>,
    /// How many arms or loop bodies enclose the statement being lowered.
    nesting: usize,
    /// How many loop bodies / `if` arms enclose it.
    loop_depth: usize,
    arm_depth: usize,
    /// Local vectors written element by element, carrying derivatives.
    vectors: std::collections::HashSet<crate::ir::Var>,
    /// Vectors a loop body writes differentiable values into while they are still constants: the
    /// loop is lowered again with them made differentiable before it.
    pending: Vec<String>,
    /// The first scope of the innermost arm or loop body (0 at top level): a name declared at or
    /// after it lives only there.
    local_from: usize,
    /// Loop elements bound by reference (`for e in w.iter()`): in code kept as written they
    /// stand for `(&w[i])`, so that `*e` reads the element.
    refs: BTreeSet<String>,
    /// Lowering a rule's template, whose operands are all floats: a method of constants is
    /// written in path form (`f64::ln(3.0)`) so that its literal has a type.
    in_template: bool,
    /// The declared types of the constants lowered to a `let` of their own, by name: a constant
    /// assigned to the same variable later keeps the type (`a = 0.5; a.sin()`).
    const_types: std::collections::HashMap<String, syn::Type>,
    /// The constants bound to struct literals (see `Lowerer::struct_constant`).
    struct_consts: BTreeSet<String>,
    /// Constant locals declared `let mut`: a loop body that calls a method on one may change it
    /// (`stack.pop()`, `rng.next()`), so the loop carries it as a cell (the backward sweep
    /// recomputes the body from the value it had).
    pub(super) mutable_consts: BTreeSet<String>,
    /// What the body does with each name, found before lowering.
    pub(super) facts: crate::analyze::Facts,
    /// Those of them that hold floats: even a constant written into one makes it a vector with
    /// an undo log, since the backward sweep recomputes code that reads it.
    pub(super) float_vectors: BTreeSet<String>,
    /// The call being lowered returns a vector.
    vector_call: bool,
    /// The call being lowered returns a tuple that is read by component (`f(x).0`, `let (a, b) =
    /// f(x);`): it is called through its array version (`adapt/tuples.rs`), `__diffx_array_f`.
    tuple_call: bool,
    /// The values of such calls, arrays of their components, with the callee's const of where
    /// each part starts (`__DIFFX_PARTS_f`, `Self::__DIFFX_PARTS_f` for a method).
    tuple_values: std::collections::HashMap<crate::ir::Var, TokenStream>,
    /// The parts read from such values (`p` of `let (p, z) = f(x);`), read as numbers where they
    /// are used whole, and the tuple and offset they index when they are indexed (`p[1]`).
    tuple_parts: std::collections::HashMap<crate::ir::Var, (crate::ir::Var, Index)>,
    /// Names bound to a place by value (`let x = p.x;`, not `&p.x`): a `Copy` value, a number, which
    /// kept code reads by value too.
    copied: BTreeSet<String>,
    /// The values that code kept as written (a loop's range, an `if`'s condition, a constant)
    /// names: they keep their names, which that code holds as tokens.
    named_in_code: std::collections::HashSet<crate::ir::Var>,
    /// The declared types of the parameters read by place (tuples, nested containers, parameter
    /// structs): a place whose type is a float there is a number (`p.0`, `pts[i][1]`).
    pub param_types: std::collections::HashMap<crate::ir::Var, syn::Type>,
    /// The self type of the `impl` block the function is in, and the block's functions that
    /// return it: their calls' values are of the user's type.
    pub self_type: Option<proc_macro2::Ident>,
    pub returning_self: Vec<proc_macro2::Ident>,
    /// The function returns a value of the user's type (`-> KM`): an operator it returns is of
    /// that type.
    pub own_result: bool,
    /// The expression being lowered is the value the function returns, of the user's type.
    expect_own: bool,
}

impl<'b> Lowerer<'b> {
    pub fn new(b: &'b mut Builder) -> Self {
        Lowerer {
            b,
            scopes: vec![Vec::new()],
            errors: Vec::new(),
            nesting: 0,
            loop_depth: 0,
            arm_depth: 0,
            vectors: std::collections::HashSet::new(),
            pending: Vec::new(),
            local_from: 0,
            refs: BTreeSet::new(),
            in_template: false,
            const_types: std::collections::HashMap::new(),
            struct_consts: BTreeSet::new(),
            mutable_consts: BTreeSet::new(),
            facts: crate::analyze::Facts::default(),
            float_vectors: BTreeSet::new(),
            vector_call: false,
            tuple_call: false,
            tuple_values: std::collections::HashMap::new(),
            tuple_parts: std::collections::HashMap::new(),
            copied: BTreeSet::new(),
            param_types: std::collections::HashMap::new(),
            named_in_code: std::collections::HashSet::new(),
            self_type: None,
            returning_self: Vec::new(),
            own_result: false,
            expect_own: false,
        }
    }
}

/// Lowers the partial derivatives of `rule` at operands `args` with result `z` into `b`, for the
/// operands where `needed` holds.
pub fn partials(
    b: &mut Builder,
    rule: &Rule,
    args: &[Atom],
    z: &Atom,
    needed: &[bool],
) -> syn::Result<Vec<Option<Atom>>> {
    let float = b.float.clone();
    let rules::Deriv::Partials(templates) = &rule.deriv else {
        return Ok(vec![None; args.len()]);
    };
    templates
        .iter()
        .zip(needed)
        .map(|(template, &needed)| {
            if template.is_empty() || !needed {
                return Ok(None);
            }
            let expr = template::expr(&b.templates, template, &float)?;
            if let Some(a) = direct(b, &expr, args, z) {
                return Ok(Some(a));
            }
            let mut l = Lowerer::new(b);
            l.in_template = true;
            for (name, a) in ["a", "b", "c"].iter().zip(args) {
                l.bind(name, a.clone());
            }
            l.bind("z", z.clone());
            l.expr(&expr).map(Some)
        })
        .collect()
}

/// A partial that is a literal (`1.0`, `-1.0`) or one of the placeholders (`b` of a product, `z`
/// of `exp`), as lowering it gives it, without a [`Lowerer`]: the commonest partials, each
/// lowered once per operation and mode.
fn direct(b: &Builder, expr: &syn::Expr, args: &[Atom], z: &Atom) -> Option<Atom> {
    use quote::ToTokens;
    use syn::{Expr, UnOp};
    match expr {
        Expr::Lit(_) => Some(Atom::Const(ir::Code::literal(expr.to_token_stream()))),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) && matches!(&*u.expr, Expr::Lit(_)) => {
            Some(Atom::Const(ir::Code::literal(expr.to_token_stream())))
        }
        Expr::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?;
            let mut bound = ["a", "b", "c"].iter().zip(args);
            let a = match bound.find(|(name, _)| id == *name) {
                Some((_, a)) => a,
                None if id == "z" => z,
                None => return None,
            };
            Some(match a {
                Atom::Var(_) | Atom::Field(..) => a.clone(),
                // (A constant operand is written in: `constant` replaces the placeholder by the
                // operand's place.)
                Atom::Const(_) => Atom::constant(ir::operands::place(&b.func, a)),
            })
        }
        _ => None,
    }
}
