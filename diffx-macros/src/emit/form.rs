//! The form of the functions written for one function, so that each is written right the first
//! time: generic like the user's function (`grad_f::<f64>(&x)` names the same `T` as
//! `f::<f64>(&x)`), and methods of its `impl` (`spring.grad_energy(x)` calls
//! `self.__diffx_vjp_energy(x, 1.0)`), and with the adaptations of `adapt/` undone ([`Dress`]).
//! The programs are the same for every form; only the signatures, the calls among the generated
//! functions, the macro's own literals and what an adaptation changes differ. Nothing written is
//! read back: each function is handed over in parts ([`Function`]) and written once.

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::{GenericParam, Generics, ItemFn, Receiver};

use super::signature::Typed;
use crate::parse::Signature;
use crate::tokens;

/// The form of the functions written for one function.
pub struct Form {
    /// The adaptations undone on the way out, the innermost first (`adapt/`).
    steps: Vec<Box<dyn Dress>>,
    /// The function's float type: a type parameter, or `f64`/`f32`.
    float: Ident,
    generic: Option<Generic>,
    /// For an associated function (its signature names `Self`, or it is a method): its receiver,
    /// if it has one.
    associated: Option<Option<Receiver>>,
}

/// The generics of a generic function, and the bounds its derivative functions need.
struct Generic {
    /// The user's generic parameters and `where` clause.
    user: Generics,
    /// Whether the user bounds the float type by `Float`.
    bounded: bool,
    /// Whether it differentiates nested containers or tuples of its float.
    containers: bool,
    /// Whether the body converts its float to `f64` and back (`desugar/conversions.rs`).
    through_f64: bool,
    /// The user's generic arguments, for calls among the generated functions when a const
    /// parameter is among them: one read only in the body (`if FORWARD`) is not inferred.
    explicit: Option<Vec<Ident>>,
    /// Where a float type guessed from the signature (not a declared parameter) is checked.
    guessed: Option<proc_macro2::Span>,
}

/// Which generated function a function is: what its form adds to it, and what an adaptation
/// changes in it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The hidden functions: `__diffx_jvp_f`, `__diffx_vjp_f`, `__diffx_split_f`,
    /// `__diffx_hvp_f`.
    HiddenJvp,
    HiddenVjp,
    /// The split function: the forward sweep, and the backward one as a closure.
    Split,
    /// The split function that recomputes: the function's value, and its `__diffx_vjp_`.
    SplitAgain,
    HiddenHvp,
    /// The public ones.
    Jvp,
    Vjp,
    Grad,
    ValueAndGrad,
    Hvp,
    GradAndHvp,
    Hessian,
    Jacobian,
    Dhvp,
    D3,
    /// What a caller of `grad_f` or `jvp_f` differentiates them through (`nested.rs`).
    Companion,
    /// `explain_`: it records numbers of diffx's own float types.
    Explain,
}

/// A function whose call is a compile error that says what to add: generic in the type parameter
/// `param`, whose `bound` no type has.
#[derive(Clone)]
pub struct Stub {
    pub param: Ident,
    pub bound: TokenStream,
}

/// A function to write: everything but what its form adds.
#[derive(Clone)]
pub struct Function {
    pub attrs: TokenStream,
    pub vis: syn::Visibility,
    pub name: Ident,
    pub role: Role,
    pub stub: Option<Stub>,
    /// `x: f64, n: usize`, without the receiver.
    pub params: Vec<Typed>,
    /// The result's type; `None` for `()`.
    pub ret: Option<Ret>,
    pub body: TokenStream,
    /// For `vjp_` and `grad_`, whose body drops the value of their pullback's call: the body that
    /// uses it as an adaptation asks ([`Form::pullback_value`]).
    pub valued: Option<TokenStream>,
}

impl Function {
    /// `stmts` before the body (each body, with `valued`).
    pub fn prepend(&mut self, stmts: TokenStream) {
        let body = &self.body;
        self.body = quote!(#stmts #body);
        if let Some(v) = &mut self.valued {
            *v = quote!(#stmts #v);
        }
    }
}

/// The result type of a generated function, in the parts an adaptation may change.
#[derive(Clone)]
pub enum Ret {
    Type(TokenStream),
    /// `(a, b, …)`: a hidden function's value and gradients.
    Tuple(Vec<TokenStream>),
    /// The split function's: the value, and the pullback `impl FnOnce(inputs) -> grads +
    /// use<uses>`, whose input `ct` is the cotangent.
    Split {
        value: TokenStream,
        inputs: Vec<TokenStream>,
        ct: usize,
        grads: TokenStream,
        uses: TokenStream,
    },
}

impl Ret {
    /// Written into `out`.
    fn write(self, out: &mut TokenStream) {
        match self {
            Ret::Type(t) => out.extend(t),
            Ret::Tuple(parts) => out.extend(quote!((#(#parts),*))),
            Ret::Split {
                value,
                inputs,
                grads,
                uses,
                ..
            } => out.extend(quote! {
                (#value, impl ::core::ops::FnOnce(#(#inputs),*) -> #grads + use<#uses>)
            }),
        }
    }
}

/// A function as an adaptation sees it: as emission wrote it, and the receiver its form gives it.
pub struct Parts {
    pub f: Function,
    pub receiver: Option<Receiver>,
}

/// An adaptation's way out (`adapt/`), undone as each function is written: what it changes in
/// the functions written for the core, so that they take and give the user's form.
pub trait Dress {
    /// The items written for the core's own function, the user's function among them.
    fn primal(&self, items: Vec<syn::Item>) -> Vec<syn::Item>;

    /// The function `f` changed to the user's form; the functions written before it.
    fn function(&self, f: &mut Parts) -> Vec<Parts>;

    /// The function a call of `callee` from a function of role `caller` goes to, if another.
    fn callee(&self, _caller: Role, _callee: &Ident) -> Option<Ident> {
        None
    }

    /// The arguments of a call of `callee` from a function of role `caller`, changed.
    fn args(&self, _caller: Role, _callee: &Ident, _args: &mut Vec<TokenStream>) {}

    /// The call `call` of `callee` from a function of role `caller`, changed.
    fn around(&self, _caller: Role, _callee: &Ident, call: TokenStream) -> TokenStream {
        call
    }

    /// The type of the value of a function of role `role` (and of its cotangent), if the
    /// adaptation gives it its own.
    fn value_type(&self, _role: Role) -> Option<TokenStream> {
        None
    }

    /// A statement that uses `value`, the value a pullback's call gives `vjp_` and `grad_` (which
    /// drop it otherwise).
    fn pullback_value(&self, _role: Role, _value: &Ident) -> Option<TokenStream> {
        None
    }

    /// What is written after the functions: items, and functions (each through the adaptations
    /// outside this one).
    fn after(&self) -> (TokenStream, Vec<Parts>) {
        (TokenStream::new(), Vec::new())
    }
}

impl Form {
    /// The form of the functions written for `core`, read through `sig`; `through_f64`: whether
    /// desugaring guarded its body as computed at `f64` alone.
    pub fn new(core: &ItemFn, sig: &Signature, through_f64: bool) -> Form {
        let float = sig.float.clone();
        let generic = (!core.sig.generics.params.is_empty() || tokens::is_generic(&float))
            .then(|| Generic::new(core, sig, through_f64));
        Form {
            steps: Vec::new(),
            float,
            generic,
            associated: sig.associated.then(|| sig.receiver.clone()),
        }
    }

    /// The form of a free function of one float type: the functions as the core writes them.
    pub fn plain(float: &Ident) -> Form {
        Form {
            steps: Vec::new(),
            float: float.clone(),
            generic: None,
            associated: None,
        }
    }

    /// This form with `steps` undone on the way out, the innermost first.
    pub fn undoing(self, steps: Vec<Box<dyn Dress>>) -> Form {
        Form { steps, ..self }
    }

    /// The float literal `text` in a function that only calls the others: a value of the float
    /// type parameter in a generic function (`::diffx::__private::lit::<T>(1.0)`).
    pub fn lit(&self, text: &str) -> TokenStream {
        tokens::float_lit(&self.float, text)
    }

    /// A call of `callee`, a function written for this one (or the function itself), with `args`:
    /// through `self` or `Self::` in an `impl`, with the user's generic arguments where a const
    /// parameter needs them.
    pub fn call(&self, caller: Role, callee: &Ident, args: TokenStream) -> TokenStream {
        self.call_with(caller, callee, vec![args])
    }

    /// [`Form::call`] from a function of role `caller`, with the arguments apart.
    pub fn call_with(&self, caller: Role, callee: &Ident, args: Vec<TokenStream>) -> TokenStream {
        let mut callee = callee.clone();
        for step in &self.steps {
            if let Some(to) = step.callee(caller, &callee) {
                callee = to;
            }
        }
        let mut args = args;
        for step in &self.steps {
            step.args(caller, &callee, &mut args);
        }
        let explicit = self.generic.as_ref().and_then(|g| g.explicit.as_ref());
        let turbofish = explicit.map(|a| quote!(::<#(#a),*>));
        let call = match &self.associated {
            Some(Some(_)) => quote!(self.#callee #turbofish(#(#args),*)),
            Some(None) => quote!(Self::#callee #turbofish(#(#args),*)),
            None => quote!(#callee #turbofish(#(#args),*)),
        };
        (self.steps.iter()).fold(call, |call, step| step.around(caller, &callee, call))
    }

    /// The user's function itself, `item`, beside its derivative functions (the user may call only
    /// those), and what the adaptations keep of the core's version of it.
    pub fn primal(&self, item: &ItemFn) -> (TokenStream, Option<TokenStream>) {
        if self.generic.is_none() && self.associated.is_none() && self.steps.is_empty() {
            // (As written: the body is not copied.)
            return (quote!(#item), None);
        }
        let mut item = item.clone();
        let allow: syn::Attribute = syn::parse_quote!(#[allow(dead_code)]);
        if self.generic.is_some() {
            item.attrs.push(allow.clone());
        }
        if self.associated.is_some() {
            item.attrs.push(allow);
        }
        let name = item.sig.ident.clone();
        let items =
            (self.steps.iter()).fold(vec![syn::Item::Fn(item)], |items, step| step.primal(items));
        let (user, core): (Vec<_>, Vec<_>) =
            (items.into_iter()).partition(|i| matches!(i, syn::Item::Fn(f) if f.sig.ident == name));
        (quote!(#(#user)*), Some(quote!(#(#core)*)))
    }

    /// The type of the value of a function of role `role`, `ret` as the core has it.
    pub fn value_type(&self, role: Role, ret: TokenStream) -> TokenStream {
        (self.steps.iter()).fold(ret, |ret, s| s.value_type(role).unwrap_or(ret))
    }

    /// The statement through which `vjp_` or `grad_` (`role`) uses `value`, the value of its
    /// pullback's call, if an adaptation uses it.
    pub fn pullback_value(&self, role: Role, value: &Ident) -> Option<TokenStream> {
        (self.steps.iter()).find_map(|s| s.pullback_value(role, value))
    }

    /// What the adaptations write after the functions.
    pub fn after(&self) -> Option<TokenStream> {
        if self.steps.is_empty() {
            return None;
        }
        let mut out = TokenStream::new();
        for (k, step) in self.steps.iter().enumerate() {
            let (items, functions) = step.after();
            out.extend(items);
            for f in functions {
                out.extend(self.through(f, k + 1));
            }
        }
        Some(out)
    }

    /// What keeps the user's function `name` used, as far as lints go, for a free function of one
    /// float type (one with generic parameters cannot be named without them; an `impl` holds no
    /// such item).
    pub fn keep_used(&self, name: &Ident) -> TokenStream {
        match (&self.generic, &self.associated) {
            (None, None) => quote!(const _: () = { let _ = #name; };),
            _ => TokenStream::new(),
        }
    }

    /// An item other than a function (a `use`, a `const`) written beside the functions: an `impl`
    /// holds none.
    pub fn item(&self, tokens: TokenStream) -> TokenStream {
        match self.associated {
            Some(_) => TokenStream::new(),
            None => tokens,
        }
    }

    /// The function `f`, in this form: with each adaptation undone, the functions they write
    /// for it.
    pub fn function(&self, f: Function) -> TokenStream {
        let receiver = self.associated.clone().flatten();
        self.through(Parts { f, receiver }, 0)
    }

    /// `parts` through the adaptations from the `from`-th on, written.
    fn through(&self, parts: Parts, from: usize) -> TokenStream {
        let mut written = vec![parts];
        for step in &self.steps[from..] {
            written = (written.into_iter())
                .flat_map(|mut p| {
                    let mut before = step.function(&mut p);
                    before.push(p);
                    before
                })
                .collect();
        }
        match written.len() {
            // (One function, the common case, is not joined again.)
            1 => written
                .pop()
                .map_or_else(TokenStream::new, |p| self.write(p)),
            _ => written.into_iter().map(|p| self.write(p)).collect(),
        }
    }

    fn write(&self, parts: Parts) -> TokenStream {
        let Parts {
            f:
                Function {
                    attrs,
                    vis,
                    name,
                    role,
                    stub,
                    params,
                    ret,
                    body,
                    ..
                },
            receiver,
        } = parts;
        // (Written by moving each piece into place: a copy of a stream costs as much as writing
        // it, and these are most of what the macro writes.)
        let mut inputs = TokenStream::new();
        if let Some(r) = &receiver {
            r.to_tokens(&mut inputs);
        }
        for (i, p) in params.into_iter().enumerate() {
            if i > 0 || receiver.is_some() {
                inputs.extend([TokenTree::from(Punct::new(',', Spacing::Alone))]);
            }
            p.write(&mut inputs);
        }
        let (generics, where_clause) = match (&self.generic, &stub) {
            (Some(g), _) => {
                let g = g.of(&self.float, role, stub.as_ref());
                let w = g.where_clause.as_ref().map(|w| quote!(#w));
                (Some(quote!(#g)), w)
            }
            (None, Some(Stub { param, bound })) => (Some(quote!(<#param: #bound>)), None),
            (None, None) => (None, None),
        };
        let mut out = attrs;
        vis.to_tokens(&mut out);
        out.extend([
            TokenTree::from(Ident::new("fn", name.span())),
            TokenTree::from(name),
        ]);
        if let Some(generics) = generics {
            out.extend(generics);
        }
        out.extend([TokenTree::from(Group::new(Delimiter::Parenthesis, inputs))]);
        if let Some(ret) = ret {
            out.extend([
                TokenTree::from(Punct::new('-', Spacing::Joint)),
                TokenTree::from(Punct::new('>', Spacing::Alone)),
            ]);
            ret.write(&mut out);
        }
        if let Some(where_clause) = where_clause {
            out.extend(where_clause);
        }
        out.extend([TokenTree::from(Group::new(Delimiter::Brace, body))]);
        out
    }
}

impl Generic {
    fn new(core: &ItemFn, sig: &Signature, through_f64: bool) -> Generic {
        let user = core.sig.generics.clone();
        let has_const = user
            .params
            .iter()
            .any(|p| matches!(p, GenericParam::Const(_)));
        let explicit = has_const.then(|| {
            user.params
                .iter()
                .filter_map(|p| match p {
                    GenericParam::Type(t) => Some(t.ident.clone()),
                    GenericParam::Const(c) => Some(c.ident.clone()),
                    GenericParam::Lifetime(_) => None,
                })
                .collect()
        });
        let declared = user.type_params().any(|t| t.ident == sig.float);
        let guessed =
            (tokens::is_generic(&sig.float) && !declared).then(|| match &core.sig.output {
                syn::ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
                syn::ReturnType::Default => sig.float.span(),
            });
        let containers = sig
            .params
            .iter()
            .any(|p| p.differentiable && p.numbers && p.kind == crate::ir::Kind::Other);
        Generic {
            user,
            bounded: sig.float_bounded,
            containers,
            through_f64: through_f64 && tokens::is_generic(&sig.float),
            explicit,
            guessed,
        }
    }

    /// The generics of a function of `role` over `float`: the user's, then the function's own,
    /// and the bounds it needs.
    fn of(&self, float: &Ident, role: Role, stub: Option<&Stub>) -> Generics {
        let mut own = match stub {
            Some(Stub { param, bound }) => syn::parse_quote!(<#param: #bound>),
            None => Generics::default(),
        };
        if self.through_f64 {
            // Desugaring's guard (`desugar/conversions.rs`): these functions compute the
            // function's `f64` part in `float`, which is its own computation at `f64` alone.
            let w = own.make_where_clause();
            w.predicates
                .push(syn::parse_quote!(#float: ::diffx::__private::ThroughF64));
        }
        let mut g = merged(&self.user, &own);
        let generic = tokens::is_generic(float);
        if let Some(at) = self.guessed {
            // The `impl`'s float type, guessed from the signature: checked at it.
            let w = g.make_where_clause();
            w.predicates
                .push(syn::parse_quote_spanned!(at=> #float: ::diffx::__private::FloatType));
        }
        let explain = role == Role::Explain;
        if self.containers && generic && !explain {
            // Nested containers and tuples of `T` are visited through `diffx::Params`, which
            // `f32` and `f64` are (the function may be bound by num-traits' `Float` only).
            add_bound(&mut g, float, syn::parse_quote!(::diffx::Float));
            add_bound(
                &mut g,
                float,
                syn::parse_quote!(::diffx::Params<Elem = #float>),
            );
        }
        if explain && generic {
            // The trace records numbers of diffx's own float types, and their values (of a
            // type parameter bounded by `Float`: a guessed one is checked above).
            let w = g.make_where_clause();
            w.predicates.push(syn::parse_quote!(#float: ::diffx::Float));
            if self.guessed.is_none() || self.bounded {
                w.predicates
                    .push(syn::parse_quote!(#float: ::diffx::explain::ToValue<#float>));
                w.predicates
                    .push(syn::parse_quote!(#float: ::diffx::explain::FromValue<#float>));
            }
        }
        g
    }
}

/// The user's generic parameters before a generated function's own (`__A` of a `grad_` that
/// reports a misuse), lifetimes first as Rust requires, and both `where` clauses.
fn merged(user: &Generics, own: &Generics) -> Generics {
    let (lifetimes, rest): (Vec<&GenericParam>, Vec<&GenericParam>) = user
        .params
        .iter()
        .chain(&own.params)
        .partition(|p| matches!(p, GenericParam::Lifetime(_)));
    let mut g = Generics {
        params: lifetimes.into_iter().chain(rest).cloned().collect(),
        ..Generics::default()
    };
    if !g.params.is_empty() {
        g.lt_token = Some(Default::default());
        g.gt_token = Some(Default::default());
    }
    let predicates: syn::punctuated::Punctuated<syn::WherePredicate, syn::Token![,]> = user
        .where_clause
        .iter()
        .chain(&own.where_clause)
        .flat_map(|w| w.predicates.iter().cloned())
        .collect();
    if !predicates.is_empty() {
        g.where_clause = Some(syn::WhereClause {
            where_token: Default::default(),
            predicates,
        });
    }
    g
}

/// `bound` on the type parameter `t` where the user bounds it: in its `where` predicate if it has
/// one, else at the parameter (clippy's `multiple_bound_locations` would flag a second place).
fn add_bound(generics: &mut Generics, t: &Ident, bound: syn::TypeParamBound) {
    let own = |ty: &syn::Type| matches!(ty, syn::Type::Path(p) if p.path.is_ident(t));
    if let Some(w) = &mut generics.where_clause {
        for p in w.predicates.iter_mut() {
            if let syn::WherePredicate::Type(pt) = p {
                if own(&pt.bounded_ty) {
                    pt.bounds.push(bound);
                    return;
                }
            }
        }
    }
    for p in generics.params.iter_mut() {
        if let GenericParam::Type(tp) = p {
            if tp.ident == *t {
                tp.bounds.push(bound);
                return;
            }
        }
    }
}

/// The parameters `first`, then `rest`.
pub fn with(first: &[Typed], rest: impl IntoIterator<Item = Typed>) -> Vec<Typed> {
    first.iter().cloned().chain(rest).collect()
}
