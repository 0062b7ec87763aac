//! Seeing inside: the evaluation trace, the derivative code and the computation graph of two worked
//! examples of the AD tutorials, and of two loops: a row per executed iteration.
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
#[path = "shared/loop_functions.rs"]
mod loop_functions;
use loop_functions::*;

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

    // The seed's power loop x⁴ = x·x·x·x at x = 2: one row per multiplication, with the tangents
    // 2x, 3x², 4x³ of x², x³, x⁴, and x̄ = 32 collected from every iteration.
    let trace = explain_power(2.0, 4, 1.0);
    println!("{trace}");
    trace.write_dot(dir.join("power.dot"))?;

    // Heron's square root of 2 by a `while` loop, as many rows as it took iterations. The adjoints
    // of the early iterations vanish: near the fixed point g ↦ (g + a/g)/2 has derivative 0 in g,
    // so ∂√a/∂a = 1/(2√a) comes from the last iteration's `a` alone.
    let trace = explain_heron(2.0, 1.0);
    println!("{trace:.4}");
    trace.write_dot(dir.join("heron.dot"))?;

    println!(
        "wrote tutorial.dot, e.dot, power.dot and heron.dot in {}",
        dir.display()
    );
    Ok(())
}
