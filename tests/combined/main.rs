//! Constructs combined in one function: jumps in `match` arms in loops, vectors built in arms and
//! loop bodies and the like, written by hand (`combinations`); programs `#[autodiff]` once got
//! wrong, each checked in every mode (`regressions`); and the random-program tester's minimized
//! findings, each file a program whose `main` asserts the right values (`findings`).

#[path = "../common/mod.rs"]
mod common;

mod combinations;
mod findings;
mod regressions;
