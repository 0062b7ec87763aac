//! Findings: what failed, written one file each under `findings/`, and the counts of a run.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One function that failed: to compile, a check, or to terminate.
#[derive(Clone, Debug)]
pub struct Finding {
    /// `compile`, `compile-at-attribute`, `invalid-program`, `hang`, `crash`, or a check's kind
    /// (`grad-fd`, `value`, `jvp`, …).
    pub kind: String,
    pub seed: u64,
    pub name: String,
    pub source: String,
    pub message: String,
}

impl Finding {
    /// What distinguishes this finding from others of its kind: the first line of a compiler
    /// error with the names in backquotes blanked, or the check that failed.
    pub fn signature(&self) -> String {
        let first = self
            .message
            .lines()
            .find(|l| l.starts_with("error") || l.contains(':'))
            .unwrap_or("")
            .to_string();
        let mut out = String::new();
        let mut quoted = false;
        for c in first.chars() {
            match c {
                '`' => {
                    quoted = !quoted;
                    out.push(c);
                    if quoted {
                        out.push('…');
                    }
                }
                _ if quoted => {}
                _ if c.is_ascii_digit() => {}
                _ => out.push(c),
            }
        }
        if self.kind.starts_with("compile") || self.kind == "invalid-program" {
            format!("{}: {}", self.kind, out.trim())
        } else {
            // A check's message is `at <point>:` then what disagreed: its words up to the first
            // number.
            let what = self
                .message
                .lines()
                .find(|l| !l.starts_with("at "))
                .unwrap_or("");
            let words: Vec<&str> = what
                .split(' ')
                .take_while(|w| {
                    !w.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '[')
                })
                .collect();
            format!("{}: {}", self.kind, words.join(" "))
        }
    }

    /// The normalized first lines of all the compiler errors (the signature's part after the
    /// kind, for each error), or the signature for a failed check.
    pub fn messages(&self) -> Vec<String> {
        if !(self.kind.starts_with("compile") || self.kind == "invalid-program") {
            return vec![self.signature()];
        }
        self.message
            .lines()
            .filter(|l| l.starts_with("error"))
            .map(|l| {
                Finding {
                    message: l.to_string(),
                    ..self.clone()
                }
                .signature()
            })
            .collect()
    }

    /// Writes `dir/s{seed}-{name}-{kind}.rs`: the message as comments above the source.
    pub fn save(&self, dir: &Path, context: &str) -> io::Result<PathBuf> {
        fs::create_dir_all(dir)?;
        let path = dir.join(format!("s{}-{}-{}.rs", self.seed, self.name, self.kind));
        let mut text = format!("// diffx-fuzz finding: {}\n// {context}\n//\n", self.kind);
        for line in self.message.lines().take(80) {
            text.push_str(&format!("// {line}\n"));
        }
        text.push_str("\nuse diffx::autodiff;\n\n");
        text.push_str(&self.source);
        fs::write(&path, text)?;
        Ok(path)
    }
}

/// Counts over a run.
#[derive(Default)]
pub struct Tally {
    pub units: usize,
    pub functions: usize,
    pub compiled: usize,
    pub passed: usize,
    pub smooth_points: usize,
    pub nonsmooth: usize,
    pub hvp: usize,
    pub by_kind: BTreeMap<String, usize>,
    /// Signature → (count, first file).
    pub by_signature: BTreeMap<String, (usize, String)>,
}

impl Tally {
    pub fn add(&mut self, f: &Finding, file: &Path) {
        *self.by_kind.entry(f.kind.clone()).or_default() += 1;
        let e = self
            .by_signature
            .entry(f.signature())
            .or_insert((0, file.display().to_string()));
        e.0 += 1;
    }

    pub fn failed(&self) -> usize {
        self.by_kind.values().sum()
    }

    pub fn print(&self) {
        println!(
            "{} units, {} functions generated; {} compiled; {} passed ({} smooth points checked, {} with hvp_; {} points near a switch redrawn); {} failed",
            self.units,
            self.functions,
            self.compiled,
            self.passed,
            self.smooth_points,
            self.hvp,
            self.nonsmooth,
            self.failed()
        );
        for (k, n) in &self.by_kind {
            println!("  {n:6}  {k}");
        }
        if !self.by_signature.is_empty() {
            println!("distinct failures (count, signature, first file):");
            for (sig, (n, file)) in &self.by_signature {
                println!("  {n:6}  {sig}\n          {file}");
            }
        }
    }
}
