#!/usr/bin/env python3
"""The std::autodiff book's neo-Hookean sample (github.com/EnzymeAD/rustbook,
`samples/tests/neohookean/mod.rs`) under diffx: the sample with `#[autodiff]` attributes added
(and `#[derive(Params)]`), and its calls of Enzyme's generated functions written as diffx's
(`d_psi(&e, &mut g, &nh, 1.0)` → `let g = grad_psi(e, nh);`, `d_logdet` likewise; `d_stress`,
which needs forward mode through `grad_psi`, and the test the book itself marks broken are left
out). It then runs the sample's checks (`check_norm`, `check_inverse`: the gradient of `logdet`
is the inverse; `check_stress_direct`, `check_stress`: the stress from `grad_psi` is the closed
form) in a scratch crate.

    benches/book/neohookean.py PATH/TO/rustbook/samples/tests/neohookean/mod.rs

The sample is not in this repository (its own test in the same shape is
tests/ordinary_rust/own_types.rs and functions_and_fields.rs).
"""
import os
import subprocess
import sys

# The attributes, each inserted before the text it annotates, and the Enzyme calls rewritten.
ATTRIBUTES = [
    ("use std::autodiff::autodiff;", "use diffx::{autodiff, Params};"),
    ("#[derive(Debug, Clone, Copy)]\npub struct KM", "#[derive(Debug, Clone, Copy)]\n#[derive(Params)]\npub struct KM"),
    ("    pub fn scale(&self", "    #[autodiff(wrt(self, scale))]\n    pub fn scale(&self"),
    ("    pub fn dot(", "    #[autodiff(wrt(self, other))]\n    pub fn dot("),
    ("\nimpl KM {", "\n#[autodiff(wrt(self))]\nimpl KM {"),
    ("\nimpl Add for KM", "\n#[autodiff]\nimpl Add for KM"),
    ("\nimpl Sub for KM", "\n#[autodiff]\nimpl Sub for KM"),
    ("\nimpl Mul for KM", "\n#[autodiff]\nimpl Mul for KM"),
    ("\nimpl Mul<&KM> for f64", "\n#[autodiff]\nimpl Mul<&KM> for f64"),
    ("\nimpl Mul<KM> for f64", "\n#[autodiff]\nimpl Mul<KM> for f64"),
    ("#[autodiff(d_psi, Reverse, Duplicated, Const, Active)]", "#[autodiff(wrt(e))]"),
    ("#[autodiff(d_logdet, Reverse, Duplicated, Active)]", "#[autodiff]"),
    ("\nfn matmul(", "\n#[autodiff]\nfn matmul("),
    ("\nfn matinv(", "\n#[autodiff]\nfn matinv("),
]

ENZYME_CALLS = [
    ("#[autodiff(d_stress_enz, Forward, Dual, Const, Dual)]\n", ""),
    ("    let mut dpsi_de = KM::zero();\n    d_psi(&e, &mut dpsi_de, &nh, 1.0);", "    let dpsi_de = grad_psi(e, nh);"),
    ("    let mut c = KM::zero();\n    d_logdet(&b, &mut c, 1.0);", "    let c = grad_logdet(&b);"),
]

MAIN = """
fn main() {
    check_norm();
    check_inverse();
    check_stress_direct();
    check_stress();
    println!("the sample's four checks pass");
}
"""


def adapted(src):
    for old, new in ATTRIBUTES + ENZYME_CALLS:
        if old not in src:
            sys.exit(f"the sample has changed: {old!r} not found")
        src = src.replace(old, new, 1)
    # `d_stress` calls Enzyme's forward mode of `stress_enz`; the broken test calls it.
    start = src.index("    #[allow(dead_code)]\n    pub fn d_stress(&self")
    end = src.index("    }\n", src.index("d_stress_enz(", start)) + len("    }\n")
    src = src[:start].rstrip() + "\n" + src[end:]
    src = src[: src.index("#[cfg(broken)]")].rstrip() + "\n"
    src = src.replace("#[test]\n", "").replace("#![allow(non_snake_case)]", "#![allow(non_snake_case, dead_code)]")
    return src + MAIN


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    work = os.path.join(repo, "target", "book-neohookean")
    os.makedirs(os.path.join(work, "src"), exist_ok=True)
    with open(os.path.join(work, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "book-neohookean"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n'
                f'[dependencies]\ndiffx = {{ package = "diffx-ad", path = "{repo}" }}\n[workspace]\n')
    with open(sys.argv[1]) as f:
        src = adapted(f.read())
    with open(os.path.join(work, "src", "main.rs"), "w") as f:
        f.write(src)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(repo, "target"))
    sys.exit(subprocess.run(["cargo", "run", "-q"], cwd=work, env=env).returncode)


if __name__ == "__main__":
    main()
