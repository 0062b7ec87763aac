#!/usr/bin/env bash
# Compile time of #[autodiff] (issue 17): writes crates of generated functions and times
# `cargo check` (debug profile, as users and rust-analyzer run the macro) with and without the
# attribute, printing milliseconds per function and per statement.
#   benches/compile-time/run.sh              # the two shapes at their full sizes
#   benches/compile-time/run.sh --smoke      # small sizes (CI): checks the script still works
#   INSTRUCTIONS=1 benches/compile-time/run.sh   # instructions (valgrind) instead of milliseconds
# Variables: FEATURES (cargo features of diffx, default "default"), ROUNDS (timed runs, default 3),
# ARGS (the attribute's arguments, e.g. "order = 2"), STRAIGHT, MANY and METHODS (the sizes to
# run, e.g. STRAIGHT="50" MANY="" METHODS="" for the 100-statement function alone), MACRO_OPT (the opt-level the macro
# and its dependencies are built with, as a user's `[profile.dev.build-override]` sets it; unset:
# Cargo's default, 0).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work="$repo/target/compile-time"
export CARGO_TARGET_DIR="$work/target"
rounds=${ROUNDS:-3}
features=${FEATURES:-default}
if [ "${1:-}" = "--smoke" ]; then straight=(10); many=(2); methods=(2); rounds=1; else straight=(50 100 200 400); many=(50); methods=(50); fi
if [ -n "${STRAIGHT+set}" ]; then read -ra straight <<< "$STRAIGHT"; fi
if [ -n "${MANY+set}" ]; then read -ra many <<< "$MANY"; fi
if [ -n "${METHODS+set}" ]; then read -ra methods <<< "$METHODS"; fi

crate() { # name, body-writer function, with-attribute (1/0)
  local dir="$work/$1"; mkdir -p "$dir/src"
  local feat; if [ "$features" = "default" ]; then feat=""; else feat="default-features = false, features = [\"$features\"]"; fi
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
diffx = { package = "diffx-ad", path = "$repo" ${feat:+, $feat} }
[workspace]
TOML
  if [ -n "${MACRO_OPT:-}" ]; then printf '[profile.dev.build-override]\nopt-level = %s\n' "$MACRO_OPT" >> "$dir/Cargo.toml"; fi
  "$2" "$3" > "$dir/src/lib.rs"
}

attr() { [ "$1" = 1 ] && echo "#[diffx::autodiff(${ARGS:-})]" || true; }

# One straight-line function of $N statements.
straight_line() {
  echo "#![allow(unused)]"; attr "$1"
  echo "pub fn f(x: f64, y: f64) -> f64 {"; echo "    let mut s = x;"
  for ((i = 0; i < N; i++)); do
    echo "    let t$i = (s * 3.0 + y).tanh() * x.exp() + y.powi(2);"; echo "    s += t$i * 0.5;"
  done
  echo "    s"; echo "}"
}

# The body of function $1 (its receiver $2, the term its lets subtract $3, each line indented by
# $4): about 25 statements, ten lets, a for with an if.
body() {
  local k=$1 receiver=$2 term=$3 in=$4
  echo "${in}pub fn f$k(${receiver}x: f64, y: f64, n: usize) -> f64 {"
  for ((i = 0; i < 10; i++)); do echo "$in    let a$i = x * $i.5 + y.sin() * (x - ${term/\$i/$i});"; done
  echo "$in    let mut s = a0 + a9;"
  echo "$in    for i in 0..n {"
  echo "$in        if s > 1.0 { s = s * 0.5 + a1 * y; } else { s += a2.tanh() * x; }"
  echo "$in        s += a3 * (i as f64);"
  echo "$in    }"
  echo "$in    s * a4 + a5 - a6 * a7 + a8"
  echo "$in}"
}

# $N functions of about 25 statements.
many_functions() {
  echo "#![allow(unused)]"
  for ((k = 0; k < N; k++)); do attr "$1"; body "$k" "" '$i.0' ""; done
}

# The same $N functions as methods of one `impl` block under the attribute, reading a field.
methods() {
  echo "#![allow(unused)]"; echo "pub struct S { pub k: f64 }"
  attr "$1"; echo "impl S {"
  for ((k = 0; k < N; k++)); do body "$k" "&self, " "self.k" "    "; done
  echo "}"
}

# Milliseconds of the fastest of $rounds `cargo check` runs after touching the source.
time_check() {
  local dir="$work/$1" best=""
  (cd "$dir" && cargo check -q 2>/dev/null) || { (cd "$dir" && cargo check); exit 1; }
  for ((r = 0; r < rounds; r++)); do
    touch "$dir/src/lib.rs"
    local t0=$(date +%s%N); (cd "$dir" && cargo check -q); local t1=$(date +%s%N)
    local ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}

# Millions of instructions of the `rustc` that `cargo check` runs on the crate (valgrind's
# callgrind counts them: the same from run to run, where the machine's load moves milliseconds),
# its incremental cache warm as in `time_check`.
count_check() {
  local dir="$work/$1"
  (cd "$dir" && cargo check -q 2>/dev/null) || { (cd "$dir" && cargo check); exit 1; }
  touch "$dir/src/lib.rs"
  local cmd; cmd=$(cd "$dir" && cargo check -v 2>&1 | sed -n "s/^ *Running \`\(.*--crate-name $1 .*\)\`$/\1/p")
  (cd "$dir" && eval valgrind --tool=callgrind --callgrind-out-file=/dev/null "$cmd" 2>&1) |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk '{ printf "%d", $1 / 1000000 }'
}
if [ -n "${INSTRUCTIONS:-}" ]; then time_check() { count_check "$@"; }; unit="M instr"; else unit="ms"; fi

printf "%-34s %10s %10s %10s %14s %14s\n" shape "with $unit" "without" "added" "per function" "per statement"
row() { # label functions statements-per-function writer
  local label=$1 fns=$2 stmts=$3 writer=$4
  crate "ct_with" "$writer" 1; crate "ct_without" "$writer" 0
  local with=$(time_check ct_with) without=$(time_check ct_without)
  local added=$((with - without))
  awk -v l="$label" -v w="$with" -v wo="$without" -v a="$added" -v f="$fns" -v s="$stmts" \
    'BEGIN { printf "%-34s %10d %10d %10d %14.1f %14.2f\n", l, w, wo, a, a / f, a / (f * s) }'
}
for n in "${straight[@]}"; do N=$n; row "straight line, $n let + update pairs" 1 $((2 * n + 2)) straight_line; done
for n in "${many[@]}"; do N=$n; row "$n functions of ~25 statements" "$n" 25 many_functions; done
for n in "${methods[@]}"; do N=$n; row "$n methods of ~25 statements" "$n" 25 methods; done
