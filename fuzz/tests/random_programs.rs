//! The random-program test: every function the build script generated (`DIFFX_FUZZ_COUNT`, 300 by
//! default, of `DIFFX_FUZZ_SEED`) checked at random points (see `diffx_fuzz::check`). Every failure
//! is reported with the function's source before the test fails.

use diffx_fuzz::check::{self, CountingAlloc, Options, Verdict};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[allow(unused, clippy::all)]
mod generated {
    use diffx::autodiff;
    use diffx_fuzz::check;
    include!(concat!(env!("OUT_DIR"), "/generated.rs"));
}

#[test]
fn random_programs_agree_with_finite_differences_and_each_other() {
    let subjects = generated::subjects();
    let opts = Options::default();
    let mut failures = Vec::new();
    let (mut points, mut nonsmooth, mut hvp) = (0, 0, 0);
    for s in &subjects {
        match check::run_one(s, &opts) {
            Verdict::Pass(st) => {
                points += st.smooth_points;
                nonsmooth += st.nonsmooth;
                hvp += st.hvp_checked;
            }
            Verdict::Fail(f) => failures.push(format!(
                "{} [{}]: {}\n{}",
                s.name, f.kind, f.message, s.source
            )),
            Verdict::Hang { stage, reason } => {
                for f in &failures {
                    eprintln!("{f}");
                }
                eprintln!(
                    "{} [hang]: {stage} {reason}; the primal terminates\n{}",
                    s.name, s.source
                );
                // The hung thread cannot be stopped.
                std::process::exit(1);
            }
        }
    }
    println!(
        "{} functions: {} smooth points checked ({} with hvp_), {} points near a switch redrawn; {} failed",
        subjects.len(),
        points,
        hvp,
        nonsmooth,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} generated functions failed:\n\n{}",
        failures.len(),
        subjects.len(),
        failures.join("\n\n")
    );
}
