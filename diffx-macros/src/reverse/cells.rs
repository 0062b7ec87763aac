//! Which values a loop's or an `if`'s adjoint needs from outside it, and which loop cells carry
//! adjoints from one backward iteration to the next.

use std::collections::HashMap;

use crate::ir::{Atom, Branch, Stmt, Var};

/// The values `s` and the statements nested in it define (`let`s, the outputs of `if`s) and read
/// (operands, yields).
fn defs_and_reads(s: &Stmt, defs: &mut Vec<Var>, reads: &mut Vec<Var>) {
    s.walk(&mut |s| match s {
        Stmt::Let { dst, args, .. } => {
            defs.push(*dst);
            reads.extend(args.iter().filter_map(Atom::var));
        }
        Stmt::If {
            then_, else_, outs, ..
        } => {
            defs.extend(outs.iter().copied());
            reads.extend(
                then_
                    .yields
                    .iter()
                    .chain(&else_.yields)
                    .filter_map(Atom::var),
            );
        }
        Stmt::Loop { body, .. } => reads.extend(body.yields.iter().filter_map(Atom::var)),
        // `v[i] = t` reads `t`: its adjoint comes from the element's.
        Stmt::SetElem { value, .. } | Stmt::Push { value, .. } => reads.extend(value.var()),
        _ => {}
    });
}

/// The values the arms read that are defined outside them.
pub(super) fn outer_reads(arms: &[&Branch]) -> Vec<Var> {
    let (mut defs, mut reads) = (Vec::new(), Vec::new());
    for arm in arms {
        for s in &arm.body {
            defs_and_reads(s, &mut defs, &mut reads);
        }
        reads.extend(arm.yields.iter().filter_map(Atom::var));
    }
    let defs: std::collections::HashSet<Var> = defs.into_iter().collect();
    let mut out: Vec<Var> = reads.into_iter().filter(|v| !defs.contains(v)).collect();
    out.sort();
    out.dedup();
    out
}

/// Which of a loop's `cells` carry adjoints backwards: the active ones `reached` after the loop or
/// written into a vector that is, and, until nothing changes, each active cell that the next value
/// of a carried cell depends on within one iteration.
pub(super) fn carried(
    body: &Branch,
    cells: &[Var],
    active: &[bool],
    reached: &dyn Fn(Var) -> bool,
) -> Vec<bool> {
    // The cells each value of the body depends on (a value defined by an `if` or a nested loop
    // depends on everything read inside it).
    let mut deps: HashMap<Var, Vec<usize>> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, vec![i]))
        .collect();
    let union = |deps: &HashMap<Var, Vec<usize>>, reads: &[Var]| -> Vec<usize> {
        let mut out: Vec<usize> = reads
            .iter()
            .flat_map(|v| deps.get(v).cloned().unwrap_or_default())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    let mut written = Vec::new();
    for s in &body.body {
        let (mut defs, mut reads) = (Vec::new(), Vec::new());
        defs_and_reads(s, &mut defs, &mut reads);
        // A nested loop also redefines its cells, and a write redefines its vector.
        s.walk(&mut |s| match s {
            Stmt::Loop { cells, .. } => defs.extend(cells.iter().copied()),
            Stmt::SetElem { vec, value, .. } | Stmt::Push { vec, value, .. } => {
                defs.push(*vec);
                reads.extend(value.var());
                written.push(*vec);
            }
            _ => {}
        });
        let d = union(&deps, &reads);
        for v in defs {
            deps.entry(v).or_default().extend(d.iter().copied());
        }
    }
    // A cell written into a vector the result reads (`out[i] = s`) reaches it that way.
    let into_vectors = union(
        &deps,
        &written
            .into_iter()
            .filter(|v| reached(*v))
            .collect::<Vec<_>>(),
    );
    let mut carried: Vec<bool> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| active[i] && (reached(*c) || into_vectors.contains(&i)))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..cells.len() {
            if !carried[i] {
                continue;
            }
            let next: Vec<Var> = body.yields[i].var().into_iter().collect();
            for j in union(&deps, &next) {
                if active[j] && !carried[j] {
                    carried[j] = true;
                    changed = true;
                }
            }
        }
    }
    carried
}
