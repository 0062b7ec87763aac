//! The scratch crate a batch of generated functions is built and run in: `scratch/` under the
//! output directory, with a path dependency on the `diffx` under test and the checks of
//! `src/check.rs` included by path. Its build's diagnostics are read as JSON, to find the lines
//! (so the functions) each error is at.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Scratch {
    dir: PathBuf,
    target: PathBuf,
    pub timeout_secs: u64,
    /// Smooth points to check each function at.
    pub points: usize,
}

/// A compiler error: the line of `src/generated.rs` it is at (if any), whether that line is an
/// `#[autodiff]` attribute, and the rendered message.
#[derive(Clone, Debug)]
pub struct Diag {
    pub line: Option<usize>,
    pub at_attribute: bool,
    pub rendered: String,
}

/// One function's record from a run of the scratch binary.
#[derive(Clone, Debug)]
pub enum Record {
    Pass {
        points: usize,
        nonsmooth: usize,
        hvp: usize,
    },
    Fail {
        name: String,
        kind: String,
        message: String,
    },
}

/// A run: the records, and how it ended (`None` if it ran to the end).
pub struct Run {
    pub records: Vec<Record>,
    pub stopped: Option<String>,
}

const MAIN: &str = r#"#![allow(warnings)]
#[path = "CHECK_RS"]
mod check;

#[global_allocator]
static ALLOC: check::CountingAlloc = check::CountingAlloc;

mod generated {
    use super::check;
    use diffx::autodiff;
    include!("generated.rs");
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let opts = check::Options {
        seed: args[1],
        timeout: std::time::Duration::from_secs(args[2]),
        points: args[3] as usize,
        max_draws: 4 * args[3] as usize,
        ..check::Options::default()
    };
    check::serve(&generated::subjects(), &opts, args[0] as usize);
}
"#;

impl Scratch {
    pub fn new(out: &Path, diffx: &Path, check_rs: &Path, timeout_secs: u64) -> io::Result<Self> {
        let dir = out.join("scratch");
        fs::create_dir_all(dir.join("src"))?;
        // `explain_` is checked too: it is behind the `explain` feature.
        let manifest = format!(
            "[package]\nname = \"diffx-fuzz-scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ndiffx = {{ package = \"diffx-ad\", path = {:?}, features = [\"explain\"] }}\n\n[profile.dev]\ndebug = false\n\n[workspace]\n",
            diffx.display().to_string()
        );
        fs::write(dir.join("Cargo.toml"), manifest)?;
        let main = MAIN.replace("CHECK_RS", &check_rs.display().to_string());
        fs::write(dir.join("src/main.rs"), main)?;
        Ok(Scratch {
            target: out.join("scratch-target"),
            dir,
            timeout_secs,
            points: 3,
        })
    }

    /// Writes `generated.rs` and builds (`check` only: `cargo check`); the errors if it fails.
    pub fn build(&self, text: &str, check: bool) -> io::Result<Result<(), Vec<Diag>>> {
        fs::write(self.dir.join("src/generated.rs"), text)?;
        let out = Command::new("nice")
            .args([
                "-n",
                "5",
                "cargo",
                if check { "check" } else { "build" },
                "--quiet",
                "--message-format=json",
            ])
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .output()?;
        if out.status.success() {
            return Ok(Ok(()));
        }
        let lines: Vec<&str> = text.lines().collect();
        let mut diags = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if v["reason"] != "compiler-message" || v["message"]["level"] != "error" {
                continue;
            }
            let msg = &v["message"];
            let at = generated_line(msg);
            diags.push(Diag {
                line: at,
                at_attribute: at.is_some_and(|l| {
                    lines
                        .get(l - 1)
                        .is_some_and(|t| t.trim_start().starts_with("#[autodiff"))
                }),
                rendered: msg["rendered"].as_str().unwrap_or("").to_string(),
            });
        }
        if diags.is_empty() {
            // Not a compiler error (a dependency, the linker): nothing to attribute.
            diags.push(Diag {
                line: None,
                at_attribute: false,
                rendered: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(Err(diags))
    }

    /// Runs the built binary from subject `after` on.
    pub fn run(&self, after: usize, seed: u64) -> io::Result<Run> {
        let out = Command::new(self.target.join("debug/diffx-fuzz-scratch"))
            .args([
                after.to_string(),
                seed.to_string(),
                self.timeout_secs.to_string(),
                self.points.to_string(),
            ])
            .output()?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut records = Vec::new();
        let mut lines = stdout.lines();
        let mut stopped = None;
        while let Some(line) = lines.next() {
            let Some(rest) = line.strip_prefix("@@ ") else {
                continue;
            };
            let words: Vec<&str> = rest.split(' ').collect();
            match words[..] {
                ["pass", _name, points, nonsmooth, hvp] => records.push(Record::Pass {
                    points: points.parse().unwrap_or(0),
                    nonsmooth: nonsmooth.parse().unwrap_or(0),
                    hvp: hvp.parse().unwrap_or(0),
                }),
                ["fail", name, kind] | ["hang" | "primal-hang", name, kind, ..] => {
                    let message: Vec<&str> =
                        lines.by_ref().take_while(|l| *l != "@@ end").collect();
                    let kind = if words[0] == "fail" {
                        kind.to_string()
                    } else {
                        words[0].to_string()
                    };
                    records.push(Record::Fail {
                        name: name.into(),
                        kind,
                        message: message.join("\n"),
                    });
                }
                _ => {}
            }
        }
        if !out.status.success() && out.status.code() != Some(3) {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = stderr
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            stopped = Some(format!(
                "the check binary stopped: {}\n{}",
                out.status,
                tail.join("\n")
            ));
        } else if out.status.code() == Some(3) {
            stopped = Some("hang".into());
        }
        Ok(Run { records, stopped })
    }
}

/// The line in `src/generated.rs` a diagnostic is at: its primary span there, or the place in
/// that file that the macro expansion holding its span came from.
fn generated_line(msg: &serde_json::Value) -> Option<usize> {
    let spans = msg["spans"].as_array()?;
    let mut fallback = None;
    for s in spans {
        let mut span = s;
        loop {
            if span["file_name"]
                .as_str()
                .is_some_and(|f| f.ends_with("generated.rs"))
            {
                let line = span["line_start"].as_u64()? as usize;
                if s["is_primary"] == true {
                    return Some(line);
                }
                fallback.get_or_insert(line);
                break;
            }
            match span.get("expansion").and_then(|e| e.get("span")) {
                Some(next) if !next.is_null() => span = next,
                _ => break,
            }
        }
    }
    fallback
}
