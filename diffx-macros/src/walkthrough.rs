//! `docs/internals.md`, the walk-through for the macro's next maintainer: one small function with
//! a loop and a branch followed through every stage of `#[autodiff]`, each stage's output printed
//! (as Autodidax does for JAX). The document is written here, from the stages themselves, so it
//! cannot go stale: the test fails when the text it makes differs from the committed file, and
//! `DIFFX_BLESS=1 cargo test -p diffx-macros walkthrough` writes the file again. The prose is in
//! the constants below and describes the output: reread it when blessing a change.

use std::fmt::Write as _;

use quote::{quote, ToTokens};

use crate::ir::{Func, Stmt};
use crate::{analyze, desugar, expand, forward, parse, reverse, tape};

/// The committed document, at the repository's root.
const DOCUMENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/internals.md");

/// The function followed through the pipeline.
const SOURCE: &str = "\
fn f(x: f64, n: usize) -> f64 {
    let step = |y: f64| y.sin() * x;
    let mut y = x;
    for _ in 0..n {
        if y > 1.0 {
            y = step(y);
        } else {
            y = y * y + x;
        }
    }
    y
}";

const INTRO: &str = "\
# Inside `#[autodiff]`: one function through the pipeline

`#[autodiff]` is a small compiler (`diffx-macros/src/`, whose layers `ARCHITECTURE.md` lists). This
page follows one function through its stages in the order `expand.rs` runs them, and prints what
each stage hands to the next. The code blocks are the compiler's own output: a unit test
(`diffx-macros/src/walkthrough.rs`) writes this page and fails when the output changes;
`DIFFX_BLESS=1 cargo test -p diffx-macros walkthrough` writes it again.";

const FUNCTION: &str = "\
## The function

`x` is differentiated; `n`, an integer, is not. A closure, a loop that reassigns `y`, and a branch
on a value that carries derivatives: the derivative is that of the path the run took.";

const PARSE: &str = "\
## 1. Parse (`parse/`)

The attribute's arguments and the signature: which parameters are differentiated (the floats,
unless `wrt(…)` names some), what kind each is (a number, a slice, a tensor, a parameter struct),
and the float type the derivatives are computed in. Later stages read this summary.";

const SCOPES: &str = "\
## 2. Scopes (`analyze/scopes.rs`)

Every binding gets a name of its own, so that whatever a later stage knows of a name it knows of
one binding: a name bound again is renamed, with every use that resolves to it, the first binding
keeping it. Here the closure's parameter `y` comes first and keeps its name; the `let mut y` gets
another. Values are still named after the user's names in the lists below (`y`, `y_1`).";

const DESUGAR: &str = "\
## 3. Desugar (`desugar/`)

Rust's conveniences are rewritten, syn to syn, into the small core that lowering knows, so every
mode gets them at once: closures written out where they are called, iterator chains into loops,
patterns into one `let` per name, `break`, `continue` and early `return` into flags and guarded
remainders. Here the closure is gone, its body written out at its call:";

const ANALYZE: &str = "\
## 4. Analyze (`analyze/`)

The desugared body is renamed apart again, for the names desugaring binds (here the closure's
parameter, now a `let y`, is the only `y` left and keeps its name), and read once for what
lowering needs to know of each binding: which vectors are written by element, which values are
changed in place, indexed, passed by reference, read by tuple component or are of the user's
types (`analyze/uses.rs`, from syn's tree). This function has none of them:";

const LOWER: &str = "\
## 5. Lower (`lower/`, `builder.rs`)

The body becomes a Wengert list (`ir/`): each statement binds a fresh value to one operation of the
rule table (`rules/table.rs`) on earlier values; a name assigned again gets a new value (`y_1`, `y_2`).
Control flow stays structured. A loop lists its *cells* in brackets, the names its body
reassigns: the body yields their new values, written back at the end of each iteration. An `if`
yields from each arm the new values of the names the arms rebind. Its condition, a boolean, is a
`const` (nothing to differentiate) kept in a local, so that the backward sweep can take the same
arm.";

const FORWARD: &str = "\
## 6. Forward mode (`forward/`)

The list rewritten to carry a tangent beside each value, `x_dot` the tangent parameter: after each
`z = op(a, b)` comes `ż = ∂z/∂a·ȧ + ∂z/∂b·ḃ`, the partials taken from the rule table. The loop
carries the tangent of its cell as one more cell (`y_dot_1`), and each arm of the `if` computes its
tangents and yields them beside its values. Nothing is stored: the program runs once, forward.";

const REVERSE: &str = "\
## 7. Reverse mode (`reverse/`)

Two sweeps. The forward sweep is the list itself, plus a tape and records: each iteration of a
loop first pushes its entry state (cells, loop variables) on the tape, and each value of the body
that the adjoint will read is recorded on a stack of its own as it is made (`record t2 on
t2_rec`). Then the cotangent `ct` of the result comes in, and the backward sweep visits the
statements from last to first, adding `∂z/∂a·z̄` into `ā` for each `z = op(a, b)`. The loop
becomes `back over tape`: each iteration pops the state an iteration of the forward sweep started
from, computes its constants again (the condition, so the same arm runs), takes back what was
recorded (`recall`), then runs the body's adjoint; the body itself never runs again
(`reverse/record.rs` says what is recorded and what is computed again, and which loops recompute
their bodies instead). The cell's adjoint `y_bar` carries from iteration to iteration: each takes
it (`y_4_bar`) and restarts it at zero (`:=`) before adding its own contributions; after the
loop, `y = id(x)` hands it to `x_bar`.";

const TRIM: &str = "\
## 8. Trim the tapes (`tape.rs`, `liveness.rs`)

The backward sweep may hold more than its adjoints read (a loop that recomputes runs its whole
body again). This pass drops the values no adjoint reads, then the tape entries and records
nothing reads any more; a `for` over a range that runs to its end tapes no index, as the backward
loop runs the range reversed. Here it finds nothing to drop: `y` stays on the tape, as `sin` and
`mul` need it, and `t2` is read by its own adjoint.";

const EMIT: &str = "\
## 9. Emit (`emit/`)

Only here are lists written as Rust. Beside `f`, unchanged, the macro writes hidden functions
(`__diffx_…`) that hold the programs, the public ones that call them, and what other expansions
look up (a caller's `hvp_` looks up `__diffx_hvp_f`; one differentiating a call of `grad_f` or
`jvp_f`, the `use`d names). Without `order = 2`, those and `hvp_f`, `grad_and_hvp_f`,
`hessian_f` are stubs whose use is a compile error that says to add it.";

const EMIT_JVP: &str = "\
The tangent program is step 6's list written one `let` per value, the loop a `for` whose cells are
`mut` locals written back at the end of each iteration; the hidden function takes any scalar
tangent, and `jvp_f` gives each differentiated parameter a tangent and the others `Zero`:";

const EMIT_VJP: &str = "\
The reverse program: `__diffx_split_f` runs the forward sweep, filling the tape (a `Vec`), and
returns the value with a closure that owns the tape and runs the backward sweep, popping it. A
caller's reverse program pairs its call of `f` with that closure (`reverse/pullbacks.rs`), says
which gradients it wants (`__wanted`) and offers its own adjoint of each slice argument for the
closure to add into in place (`__into`; `f` has none, so `()`). `__diffx_vjp_f` calls both halves,
and `grad_f` seeds the cotangent with `1.0`:";

const OUTRO: &str = "\
## Not shown

Second order (`order = 2`) runs forward mode over the reverse program (`hvp_f`), third order once
more; `explain_f` (feature `explain`) instruments the primal list to record a trace; tensor
operations take the tangent and transposed maps of their rows instead of partials. Each is a
transform of the same lists. A call `y = g(x)` of another `#[autodiff]` function is one more
statement in each derived program, a call of one of `g`'s derived functions:
`(y, y_dot) = jvp[g](x; x_dot)` in forward mode, `(x_bar) = vjp[g](x; y_bar)` in the backward
sweep, or, paired, `(y, y_pullback) = split[g](x)` in the forward sweep and
`(x_bar) = y_pullback(x; y_bar)` in the backward one.";

/// The walk-through, as markdown.
fn walkthrough() -> String {
    let item: syn::ItemFn = syn::parse_str(SOURCE).unwrap();
    let mut doc = format!("{INTRO}\n\n");
    // (A step that changes nothing shows no text.)
    let mut section = |prose: &str, lang: &str, text: &str| match text.trim() {
        "" => {
            let _ = write!(doc, "{prose}\n\n");
        }
        _ => {
            let _ = write!(doc, "{prose}\n\n```{lang}\n{}\n```\n\n", text.trim_end());
        }
    };
    section(FUNCTION, "rust", SOURCE);

    // The stages in the order of `expand::expand`.
    let sig = parse::signature(&item, &parse::Args::default()).unwrap();
    section(PARSE, "text", &signature(&sig));

    let mut core = item.clone();
    let (block, user_names) = analyze::scopes(&item.block, &sig);
    *core.block = block;
    section(SCOPES, "rust", &pretty(syn::Item::Fn(core.clone())));

    *core.block = desugar::body((*core.block).clone(), &sig).unwrap();
    section(DESUGAR, "rust", &pretty(syn::Item::Fn(core.clone())));

    let (block, facts) = analyze::body((*core.block).clone(), &sig, user_names);
    *core.block = block;
    section(ANALYZE, "text", &facts_text(&facts));
    let (primal, params) = crate::lower::function(&core, &sig, facts, false).unwrap();
    let primal_text = indented(&primal.func.to_string());
    section(LOWER, "text", &primal_text);

    let fwd = forward::transform(&primal, &params).unwrap();
    section(FORWARD, "text", &indented(&fwd.b.func.to_string()));

    let typed: Vec<_> = params
        .iter()
        .zip(&sig.params)
        .map(|(v, p)| v.map(|v| (v, p.grad.to_token_stream())))
        .collect();
    let mut rev = reverse::transform(&primal, &typed, sig.ret_kind, true).unwrap();
    let untrimmed = sweeps(&rev.b.func, rev.backward, &primal_text);
    section(REVERSE, "text", &untrimmed);
    tape::trim(&mut rev.b.func);
    reverse::pair_calls(&mut rev.b.func, &item.sig.ident, &rev.recording_ifs);
    let trimmed = sweeps(&rev.b.func, rev.backward, &primal_text);
    section(TRIM, "diff", &diff(&untrimmed, &trimmed, 2));

    // What the macro writes, from the macro itself.
    let file: syn::File = syn::parse2(expand::expand(quote!(), quote!(#item)).unwrap()).unwrap();
    section(EMIT, "text", &names(&file));
    let program = |name: &str| -> String {
        let mut f = file
            .items
            .iter()
            .find_map(|i| match i {
                syn::Item::Fn(f) if f.sig.ident == name => Some(f.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("`#[autodiff]` wrote no `{name}`"));
        f.attrs.clear();
        pretty(syn::Item::Fn(f))
    };
    let jvp = [loop_elided(&program("__diffx_jvp_f")), program("jvp_f")];
    section(EMIT_JVP, "rust", &jvp.join("\n"));
    let vjp = ["__diffx_split_f", "__diffx_vjp_f", "grad_f"].map(program);
    section(EMIT_VJP, "rust", &vjp.join("\n"));
    format!("{doc}{OUTRO}\n")
}

/// What analysis found, one line per fact.
fn facts_text(facts: &analyze::Facts) -> String {
    let sets = [
        ("written by element", &facts.written),
        ("changed in place", &facts.changed_in_place),
        ("indexed", &facts.indexed),
        ("passed by reference", &facts.referenced),
        ("read by tuple component", &facts.tuple_read),
        ("of the user's types", &facts.own_types),
    ];
    let mut out = String::new();
    for (what, names) in sets {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let names = if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        };
        let _ = writeln!(out, "{what}: {names}");
    }
    let renamed: Vec<String> = facts
        .user_names
        .iter()
        .map(|(n, u)| format!("{n} (the user's {u})"))
        .collect();
    let _ = writeln!(out, "renamed: {}", renamed.join(", "));
    out
}

/// What parsing found, one line per parameter.
fn signature(sig: &parse::Signature) -> String {
    let mut out = String::new();
    for p in &sig.params {
        let (name, ty, grad) = (&p.name, &p.ty, &p.grad);
        let _ = match p.differentiable {
            true => writeln!(
                out,
                "{name}: {}  differentiated: a {:?}, its gradient and tangent {}",
                quote!(#ty),
                p.kind,
                quote!(#grad)
            ),
            false => writeln!(out, "{name}: {}  a constant", quote!(#ty)),
        };
    }
    let ret = &sig.ret;
    let _ = writeln!(
        out,
        "-> {}  a {:?}, computed in {}",
        quote!(#ret),
        sig.ret_kind,
        sig.float
    );
    out
}

/// The reverse program `f` as its forward sweep (the statements before `backward`; the primal
/// list `primal` plus the tapes, if that is all it is) and its backward sweep.
fn sweeps(f: &Func, backward: usize, primal: &str) -> String {
    let part = |body: &[Stmt], ret| {
        let mut f = f.clone();
        f.body = body.to_vec();
        f.ret = ret;
        indented(&f.to_string())
    };
    let forward = part(&f.body[..backward], None);
    let forward = match primal.starts_with(&forward) && primal[forward.len()..].lines().count() == 1
    {
        true => "// the list of step 3, without its `return`\n".to_string(),
        false => forward,
    };
    format!(
        "// forward sweep\n{forward}{}\n// backward sweep\n{}",
        tapes(f),
        part(&f.body[backward..], f.ret.clone()),
    )
}

/// What each loop's tape holds, which the list's text does not show.
fn tapes(f: &Func) -> String {
    let mut out = String::new();
    for s in &f.body {
        s.walk(&mut |s| {
            if let Stmt::LoopBack { tape, names, .. } = s {
                let kept: Vec<String> = names
                    .iter()
                    .enumerate()
                    .filter(|(i, n)| tape.pushes(*i, &n.to_string()))
                    .map(|(_, n)| n.to_string())
                    .collect();
                let _ = write!(
                    out,
                    "// each iteration first pushes ({}) on {}",
                    kept.join(", "),
                    tape.name
                );
                if let Some((var, _)) = &tape.range {
                    let _ = write!(out, "; {var} is not taped: its range runs reversed");
                }
                out.push('\n');
            }
        });
    }
    out
}

/// The names of the items `#[autodiff]` wrote, by kind, wrapped.
fn names(file: &syn::File) -> String {
    let mut kinds: Vec<(&str, Vec<String>)> = Vec::new();
    for item in &file.items {
        let (kind, name) = match item {
            // Written with the `explain` feature only (this page is the same with or without).
            syn::Item::Fn(f) if f.sig.ident == "explain_f" => continue,
            syn::Item::Fn(f) => ("fn", f.sig.ident.to_string()),
            syn::Item::Use(u) => match &u.tree {
                syn::UseTree::Path(p) => ("use", rename(&p.tree)),
                t => ("use", t.to_token_stream().to_string()),
            },
            syn::Item::Const(c) => ("const", c.ident.to_string()),
            other => ("item", other.to_token_stream().to_string()),
        };
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, names)) => names.push(name),
            None => kinds.push((kind, vec![name])),
        }
    }
    let mut out = String::new();
    for (kind, names) in kinds {
        let mut line = format!("{kind:<6}");
        for (i, name) in names.iter().enumerate() {
            let sep = if i + 1 < names.len() { "," } else { "" };
            if line.len() + name.len() + 2 > 100 {
                let _ = writeln!(out, "{}", line.trim_end());
                line = " ".repeat(6);
            }
            let _ = write!(line, "{name}{sep} ");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The name a `use` path brings in: `… as name`, or its last segment.
fn rename(tree: &syn::UseTree) -> String {
    match tree {
        syn::UseTree::Path(p) => rename(&p.tree),
        syn::UseTree::Rename(r) => r.rename.to_string(),
        t => t.to_token_stream().to_string(),
    }
}

/// `item` formatted as `rustfmt` would.
fn pretty(item: syn::Item) -> String {
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![item],
    })
}

/// `program`'s loop with its body but the last line (the cells written back) left out: it is the
/// tangent list of step 4, one `let` per value.
fn loop_elided(program: &str) -> String {
    let lines: Vec<&str> = program.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("    for "))
        .unwrap();
    let end = head + lines[head..].iter().position(|l| *l == "    }").unwrap();
    let mut out = lines[..=head].join("\n");
    out.push_str("\n        // … the loop's body in step 4, one `let` per value\n");
    out.push_str(&lines[end - 1..].join("\n"));
    out.push('\n');
    out
}

/// The list's text with each region indented by its depth (`Display` indents one level).
fn indented(list: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for line in list.lines().map(str::trim) {
        if line.starts_with('}') {
            depth = depth.saturating_sub(1);
        }
        let _ = writeln!(out, "{}{line}", "    ".repeat(depth));
        if line.ends_with('{') {
            depth += 1;
        }
    }
    out
}

/// `new` against `old`, line by line, as the hunks of a unified diff with `context` lines around
/// each change (a longest common subsequence of the lines: the texts are short).
fn diff(old: &str, new: &str, context: usize) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let mut common = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i][j] = match a[i] == b[j] {
                true => common[i + 1][j + 1] + 1,
                false => common[i + 1][j].max(common[i][j + 1]),
            };
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || common[i + 1][j] >= common[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..lines.len()).filter(|&k| lines[k].0 != ' ').collect();
    let shown = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= context);
    let mut out = String::new();
    let mut skipped = true;
    for (k, (mark, line)) in lines.iter().enumerate() {
        if shown(k) {
            if skipped {
                out.push_str("@@ … @@\n");
            }
            let _ = writeln!(out, "{mark}{line}");
        }
        skipped = !shown(k);
    }
    out
}

#[test]
fn docs_internals_md_is_the_walkthrough_the_pipeline_prints() {
    let made = walkthrough();
    if std::env::var_os("DIFFX_BLESS").is_some() {
        std::fs::write(DOCUMENT, &made).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(DOCUMENT).unwrap_or_default();
    if committed != made {
        let line = committed
            .lines()
            .zip(made.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(made.lines().count()));
        let at = |text: &str| {
            text.lines()
                .nth(line)
                .unwrap_or("(end of file)")
                .to_string()
        };
        panic!(
            "docs/internals.md differs from the walk-through the pipeline prints, first at line {}:\n\
             committed: {}\n\
             printed:   {}\n\
             If the change is intended, run `DIFFX_BLESS=1 cargo test -p diffx-macros walkthrough`, \
             review the diff of docs/internals.md and reread its prose.",
            line + 1,
            at(&committed),
            at(&made),
        );
    }
}

#[test]
fn the_walkthrough_diff_shows_changes_with_their_context() {
    let old = "a\nb\nc\nd\ne\nf\ng\n";
    let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
    assert_eq!(
        diff(old, new, 1),
        "@@ … @@\n c\n-d\n+D\n e\n@@ … @@\n g\n+h\n"
    );
    assert_eq!(diff(old, old, 1), "");
}
