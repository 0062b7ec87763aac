#!/usr/bin/env bash
# Runs GradBench's evals against diffx and against GradBench's hand-written C++ tool (`manual`),
# checks that GradBench validated every diffx output, and prints one table of median times.
#
# usage: benches/gradbench/run.sh [EVAL ...]      (default: every eval diffx implements)
#   GRADBENCH_DIR  a GradBench folder with setup.sh and run.sh (default: ../shared/gradbench
#                  beside the repository); setup.sh is run first if its build is missing.
#   GRADBENCH_BUILD where that setup.sh builds (its own default: /tmp/gradbench-build).
#   MIN_SECONDS    passed to every eval as --min-seconds (default: the evals' own, 1 s).
#   LOGS           where the JSON-lines logs go (default: target/gradbench-logs).
# GradBench's PyTorch and JAX tools run too where the GradBench folder has them
# (tools/pytorch/run.py, tools/jax/run.py) and python3 imports torch or jax: a column each.
# Each eval runs at its default sizes (hello has none). Exit status 1 if any diffx output was
# invalid or failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
gb=${GRADBENCH_DIR:-$repo/../shared/gradbench}
gb=$(cd "$gb" && pwd)
build=${GRADBENCH_BUILD:-${TMPDIR:-/tmp}/gradbench-build}
logs=${LOGS:-$repo/target/gradbench-logs}
evals=("$@")
[ ${#evals[@]} -gt 0 ] || evals=(hello lse llsq det gmm ode kmeans ba lstm particle saddle)

[ -x "$build/target/release/gradbench" ] || GRADBENCH_BUILD=$build "$gb/setup.sh" >&2
(cd "$repo" && cargo build --release --quiet -p diffx-gradbench)
tool="$repo/target/release/diffx-gradbench"
extra=()
[ -z "${MIN_SECONDS:-}" ] || extra=(--min-seconds "$MIN_SECONDS")
mkdir -p "$logs"

others=()
for t in pytorch jax; do
  mod=$t; [ $t = pytorch ] && mod=torch
  if [ -f "$gb/tools/$t/run.py" ] && python3 -c "import $mod" 2>/dev/null; then others+=("$t"); fi
done
export GRADBENCH_OTHERS="${others[*]}"

pairs=()
for ev in "${evals[@]}"; do
  args=()
  [ "$ev" = hello ] || args=("${extra[@]}")
  for side in diffx manual "${others[@]}"; do
    case $side in
      diffx) cmd=$tool ;;
      manual) cmd="python3 python/gradbench/gradbench/cpp.py manual" ;;
      *) cmd="python3 tools/$side/run.py" ;;
    esac
    echo "== $ev: $side" >&2
    # GradBench's run.sh exits nonzero on an invalid output; the table below reports it.
    GRADBENCH_BUILD=$build GRADBENCH_LOG="$logs/$ev-$side.jsonl" \
      "$gb/run.sh" "$ev" "$cmd" "${args[@]}" >"$logs/$ev-$side.txt" 2>&1 || true
  done
  pairs+=("$ev" "$logs/$ev-diffx.jsonl" "$logs/$ev-manual.jsonl")
done
python3 "$repo/benches/gradbench/table.py" "${pairs[@]}"
