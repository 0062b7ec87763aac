//! Seeing inside: the evaluation trace, the derivative code and the computation graph of two worked
//! examples of the AD tutorials.
//!
//! ```text
//! cargo run --example explain            # prints the tables and the code, writes target/explain/*.dot
//! dot -Tsvg target/explain/tutorial.dot -o tutorial.svg
//! ```
//!
//! `explain_f` comes with the `explain` feature of `diffx`, on by default.

#[path = "shared/seed_functions.rs"]
mod seed_functions;
use seed_functions::*;

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/explain");
    std::fs::create_dir_all(&dir)?;

    // At (x1, x2) = (2, 5), with the tangent along x1: ẏ = ∂y/∂x1, and the adjoints give both
    // partials at once: x̄1 = 5.5, x̄2 = 1.716.
    let trace = explain_tutorial(2.0, 5.0, 1.0, 0.0);
    println!("{trace}");
    println!("The Wengert list:\n{}", trace.wengert_list());
    println!(
        "Forward mode (what jvp_tutorial runs):\n{}",
        trace.forward_code()
    );
    println!(
        "Reverse mode (what grad_tutorial runs):\n{}",
        trace.reverse_code()
    );
    trace.write_dot(dir.join("tutorial.dot"))?;

    // At (a, b) = (2, 3), along b: ė = ∂e/∂b = 14; ā = 12, b̄ = 14.
    let trace = explain_e(2.0, 3.0, 0.0, 1.0);
    println!("{trace}");
    println!("Reverse mode (what grad_e runs):\n{}", trace.reverse_code());
    trace.write_dot(dir.join("e.dot"))?;

    println!(
        "wrote {} and {}",
        dir.join("tutorial.dot").display(),
        dir.join("e.dot").display()
    );
    Ok(())
}
