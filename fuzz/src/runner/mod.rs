//! A long run: batches of generated units built in the scratch crate and checked. A batch that
//! does not compile is taken apart: each error is attributed to the unit at its line, those units
//! are set aside as findings and the rest is built again; errors at no unit's line make the batch
//! split in halves until each failing unit stands alone. Units set aside are built once more
//! without their attributes: if the plain Rust does not compile either, the generator is at fault
//! (`invalid-program`), not the macro.

pub mod findings;
pub mod reduce;
pub mod scratch;

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use diffx_fuzz::gen::emit::{self, Emitted};
use diffx_fuzz::gen::Unit;
use findings::{Finding, Tally};
use scratch::{Diag, Record, Scratch};

pub struct Runner {
    pub scratch: Scratch,
    pub findings_dir: PathBuf,
    pub context: String,
    pub tally: Tally,
    pub verbose: bool,
}

/// What a batch came to: the findings by unit (position in the batch) and the passes.
#[derive(Default)]
pub struct Outcome {
    pub findings: BTreeMap<usize, Vec<Finding>>,
    pub compiled: usize,
    pub passed: usize,
    pub smooth_points: usize,
    pub nonsmooth: usize,
    pub hvp: usize,
}

impl Runner {
    /// Builds and checks `units` of `seed`, recording the findings.
    pub fn batch(&mut self, seed: u64, units: &[Unit]) -> io::Result<()> {
        let o = self.evaluate(seed, units)?;
        self.tally.units += units.len();
        self.tally.functions += units.iter().map(|u| u.functions().count()).sum::<usize>();
        self.tally.compiled += o.compiled;
        self.tally.passed += o.passed;
        self.tally.smooth_points += o.smooth_points;
        self.tally.nonsmooth += o.nonsmooth;
        self.tally.hvp += o.hvp;
        for f in o.findings.into_values().flatten() {
            let file = f.save(&self.findings_dir, &self.context)?;
            if self.verbose {
                println!("  {} {}: {}", f.kind, f.name, f.signature());
            }
            self.tally.add(&f, &file);
        }
        Ok(())
    }

    /// Builds and checks `units` of `seed`.
    pub fn evaluate(&mut self, seed: u64, units: &[Unit]) -> io::Result<Outcome> {
        let mut o = Outcome::default();
        let mut failed: BTreeMap<usize, Vec<Diag>> = BTreeMap::new();
        let built = self.build_apart(units, (0..units.len()).collect(), &mut failed)?;
        self.classify_compile_failures(seed, units, &failed, &mut o)?;
        if built.is_empty() {
            return Ok(o);
        }
        // The binary holds the units in `built`, in order, each as its helper then itself.
        let mut names: Vec<(String, usize)> = Vec::new();
        for &i in &built {
            names.extend(units[i].functions().map(|f| (f.name.clone(), i)));
        }
        o.compiled += names.len();
        let mut after = 0;
        while after < names.len() {
            let run = self.scratch.run(after, seed)?;
            let mut done = after;
            for r in &run.records {
                let unit = names[done].1;
                done += 1;
                match r {
                    Record::Pass {
                        points,
                        nonsmooth,
                        hvp,
                    } => {
                        o.passed += 1;
                        o.smooth_points += points;
                        o.nonsmooth += nonsmooth;
                        o.hvp += hvp;
                    }
                    Record::Fail {
                        name: failed,
                        kind,
                        message,
                    } => {
                        let unit = names.iter().find(|n| &n.0 == failed).map_or(unit, |n| n.1);
                        let f = finding(seed, &units[unit], failed, kind, message);
                        o.findings.entry(unit).or_default().push(f);
                    }
                }
            }
            match run.stopped.as_deref() {
                None => break,
                Some("hang") => after = done,
                Some(why) => {
                    // A crash (an abort, a stack overflow) in the function after the last record.
                    if let Some((name, unit)) = names.get(done).cloned() {
                        let f = finding(seed, &units[unit], &name, "crash", why);
                        o.findings.entry(unit).or_default().push(f);
                    }
                    after = done + 1;
                }
            }
        }
        Ok(o)
    }

    /// Builds `alive` (positions in `units`), setting aside units with errors; returns those that
    /// built together (empty if none did).
    fn build_apart(
        &mut self,
        units: &[Unit],
        mut alive: Vec<usize>,
        failed: &mut BTreeMap<usize, Vec<Diag>>,
    ) -> io::Result<Vec<usize>> {
        loop {
            if alive.is_empty() {
                return Ok(alive);
            }
            let chosen: Vec<Unit> = alive.iter().map(|&i| units[i].clone()).collect();
            let emitted = emit::emit(&chosen, "diffx-fuzz batch");
            let diags = match self.scratch.build(&emitted.text, false)? {
                Ok(()) => return Ok(alive),
                Err(d) => d,
            };
            let by_unit = attribute(&emitted, &diags);
            if by_unit.is_empty() {
                if alive.len() == 1 {
                    failed.entry(alive[0]).or_default().extend(diags);
                    return Ok(Vec::new());
                }
                // Errors at no unit: split in halves.
                let half = alive.split_off(alive.len() / 2);
                let a = self.build_apart(units, alive, failed)?;
                let b = self.build_apart(units, half, failed)?;
                // Each half built alone; build them together for one binary.
                let mut both = a;
                both.extend(b);
                both.sort();
                alive = both;
                continue;
            }
            let mut drop = Vec::new();
            for (pos, d) in by_unit {
                let i = alive[pos];
                failed.entry(i).or_default().extend(d);
                drop.push(i);
            }
            alive.retain(|i| !drop.contains(i));
        }
    }

    /// Each unit that failed to compile is a finding: `invalid-program` if its plain Rust (without
    /// the attributes) does not compile either, else `compile` (`compile-at-attribute` if an
    /// error points at the attribute instead of the code).
    fn classify_compile_failures(
        &mut self,
        seed: u64,
        units: &[Unit],
        failed: &BTreeMap<usize, Vec<Diag>>,
        o: &mut Outcome,
    ) -> io::Result<()> {
        if failed.is_empty() {
            return Ok(());
        }
        let plain: Vec<Unit> = failed.keys().map(|&i| units[i].clone()).collect();
        let emitted = emit::emit(&plain, "plain");
        let mut text = String::new();
        for line in emitted.text.lines() {
            if line.starts_with("pub fn subjects()") {
                text.push_str("pub fn subjects() -> Vec<check::Subject> { Vec::new() }\n");
                break;
            }
            if !line.trim_start().starts_with("#[autodiff") {
                text.push_str(line);
                text.push('\n');
            }
        }
        let plain_errors: Vec<usize> = match self.scratch.build(&text, true)? {
            Ok(()) => Vec::new(),
            // Without attributes the lines shift by one per function above: attribute by name.
            Err(diags) => plain
                .iter()
                .enumerate()
                .filter(|(_, u)| {
                    diags
                        .iter()
                        .any(|d| d.line.is_some_and(|l| line_in(&text, l, u)))
                })
                .map(|(i, _)| i)
                .collect(),
        };
        for (k, (&i, diags)) in failed.iter().enumerate() {
            let u = &units[i];
            let kind = if plain_errors.contains(&k) {
                "invalid-program"
            } else if diags.iter().any(|d| d.at_attribute) {
                "compile-at-attribute"
            } else {
                "compile"
            };
            let mut message = String::new();
            for d in diags.iter().take(6) {
                message.push_str(&d.rendered);
            }
            o.findings
                .entry(i)
                .or_default()
                .push(finding(seed, u, &u.main.name, kind, &message));
        }
        Ok(())
    }
}

fn finding(seed: u64, u: &Unit, name: &str, kind: &str, message: &str) -> Finding {
    // A helper's failure shows the helper alone; the function's, with the helper it calls.
    let source = match &u.helper {
        Some(h) if h.name == name => h.source(),
        _ => u.source(),
    };
    Finding {
        kind: kind.into(),
        seed,
        name: name.into(),
        source,
        message: message.into(),
    }
}

/// The errors of a build, by the position of the unit they are at.
fn attribute(emitted: &Emitted, diags: &[Diag]) -> BTreeMap<usize, Vec<Diag>> {
    let mut out: BTreeMap<usize, Vec<Diag>> = BTreeMap::new();
    for d in diags {
        if let Some(u) = d.line.and_then(|l| emitted.unit_at(l)) {
            out.entry(u).or_default().push(d.clone());
        }
    }
    out
}

/// Whether line `line` of `text` lies in one of `u`'s functions.
fn line_in(text: &str, line: usize, u: &Unit) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    // The function a line belongs to is the last `fn` header at or above it.
    let header = lines[..line.min(lines.len())]
        .iter()
        .rev()
        .find(|l| l.starts_with("fn "));
    header.is_some_and(|h| {
        u.functions()
            .any(|f| h.starts_with(&format!("fn {}(", f.name)))
    })
}
