//! The check shared by the two halves of the random-program test (`random_programs.rs` and
//! `random_programs_second_half.rs`): each half of the generated functions is its own test crate,
//! so that the two build at once on two cores (one crate of all of them was the last minute of a
//! fresh `cargo test --workspace`, alone on one core).

use diffx_fuzz::check::{self, CountingAlloc, Options, Verdict};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Checks every subject; every failure is reported with the function's source before the test
/// fails.
pub fn check_all(subjects: Vec<check::Subject>) {
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
