//! Long runs of the random-program tester:
//!
//! ```text
//! cargo run -p diffx-fuzz --release -- --seed 1 --seeds 5 --count 1000
//! ```
//! generates `count` functions for each seed, builds them in batches in a scratch crate under
//! `target/diffx-fuzz/`, checks them, and writes each finding (a compile error, a failed check, a
//! derivative program that does not terminate) to `target/diffx-fuzz/findings/`, one file each.

mod runner;

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use diffx_fuzz::gen::{self, Bugs, Config};
use runner::scratch::Scratch;
use runner::Runner;

/// Generate random #[autodiff] functions, build and check them in batches, save what fails.
#[derive(Parser)]
#[command(name = "diffx-fuzz")]
struct Cli {
    /// The first seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many seeds, from --seed on.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Functions per seed.
    #[arg(long, default_value_t = 500)]
    count: u64,
    /// The first function index of each seed.
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Functions per scratch build.
    #[arg(long, default_value_t = 100)]
    batch: u64,
    /// Known-bug forms to generate: none, all, or letters and names (A,C,match_stmt); by default
    /// those listed as fixed (gen::FIXED).
    #[arg(long)]
    bugs: Option<String>,
    /// A construct's weight, name=weight (repeatable; names in src/gen.rs, CONSTRUCTS).
    #[arg(long = "weight")]
    weights: Vec<String>,
    /// The diffx checkout to test (default: this repository).
    #[arg(long)]
    diffx: Option<PathBuf>,
    /// Where the scratch crate and findings go (default: target/diffx-fuzz).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seconds one stage of a function's checks may take.
    #[arg(long, default_value_t = 5)]
    timeout: u64,
    /// Print the generated functions instead of checking them.
    #[arg(long)]
    print: bool,
    /// Print each finding as it is found.
    #[arg(long, short)]
    verbose: bool,
    /// Reduce function INDEX of --seed to a small program that fails the same way.
    #[arg(long, value_name = "INDEX")]
    reduce: Option<u64>,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(&cli) {
        eprintln!("diffx-fuzz: {e}");
        std::process::exit(2);
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let mut cfg = Config::default();
    if let Some(b) = &cli.bugs {
        cfg.bugs = Bugs::parse(b)?;
    }
    for w in &cli.weights {
        cfg.set_weight(w)?;
    }
    if cli.print {
        for seed in cli.seed..cli.seed + cli.seeds {
            for i in cli.start..cli.start + cli.count {
                println!(
                    "// seed {seed}, function {i}\n{}",
                    gen::unit(seed, i, &cfg).source()
                );
            }
        }
        return Ok(());
    }
    let fuzz_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = fuzz_dir.parent().unwrap();
    let diffx = cli.diffx.clone().unwrap_or_else(|| repo.to_path_buf());
    let diffx = diffx
        .canonicalize()
        .map_err(|e| format!("{}: {e}", diffx.display()))?;
    let out = cli
        .out
        .clone()
        .unwrap_or_else(|| repo.join("target/diffx-fuzz"));
    let scratch = Scratch::new(&out, &diffx, &fuzz_dir.join("src/check.rs"), cli.timeout)
        .map_err(|e| e.to_string())?;
    let context = format!(
        "diffx at {}; known-bug forms {}",
        diffx.display(),
        cfg.bugs.describe()
    );
    let mut runner = Runner {
        scratch,
        findings_dir: out.join("findings"),
        context,
        tally: Default::default(),
        verbose: cli.verbose,
    };
    let started = Instant::now();
    if let Some(index) = cli.reduce {
        let unit = gen::unit(cli.seed, index, &cfg);
        if let Some((small, f)) =
            runner::reduce::reduce(&mut runner, cli.seed, &unit).map_err(|e| e.to_string())?
        {
            let f = runner::findings::Finding {
                name: format!("{}-reduced", unit.main.name),
                source: small.source(),
                ..f
            };
            let file = f
                .save(&runner.findings_dir, &runner.context)
                .map_err(|e| e.to_string())?;
            println!(
                "{}\n{}in {:.0} s: {}",
                f.signature(),
                small.source(),
                started.elapsed().as_secs_f64(),
                file.display()
            );
        }
        return Ok(());
    }
    for seed in cli.seed..cli.seed + cli.seeds {
        let mut i = cli.start;
        while i < cli.start + cli.count {
            let n = cli.batch.min(cli.start + cli.count - i);
            let units: Vec<gen::Unit> = (i..i + n).map(|k| gen::unit(seed, k, &cfg)).collect();
            let t = Instant::now();
            runner.batch(seed, &units).map_err(|e| e.to_string())?;
            println!(
                "seed {seed}, functions {i}..{}: {:.0} s; so far {} failed of {} units",
                i + n,
                t.elapsed().as_secs_f64(),
                runner.tally.failed(),
                runner.tally.units
            );
            i += n;
        }
    }
    println!(
        "\n{} in {:.0} s; findings in {}",
        runner.context,
        started.elapsed().as_secs_f64(),
        runner.findings_dir.display()
    );
    runner.tally.print();
    Ok(())
}
