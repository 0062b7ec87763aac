#!/usr/bin/env bash
# Runs GradBench's evals against diffx, GradBench's hand-written C++ (`manual`) and every GradBench
# peer that is set up, on this machine, one tool after another; checks that GradBench validated
# every diffx output; prints one table (table.py): per eval, size and tool, the median primal and
# derivative times, D/P (derivative ÷ primal of the same tool) and diffx's primal and derivative
# ÷ that tool's, then per eval the geometric means over its sizes.
#
# usage: benches/gradbench/run.sh [--quick] [--peers "PEER ..."] [EVAL | "EVAL ARG ..."] ...
#   EVAL          hello lse llsq det gmm ode kmeans ba lstm particle saddle (default: all of them),
#                 at the eval's default sizes.
#   "EVAL ARG ..." one word: an eval and the size arguments its GradBench driver takes, e.g.
#                 "gmm -d 2 10 -k 5"  "lstm -l 2 -c 1024"  "ba --max 3"  "det -l 5 6 7"
#                 (`python3 evals/EVAL/run.py --help` under GRADBENCH_DIR/python/gradbench/gradbench
#                 lists them; an explicit --min-seconds or --min-runs here wins).
#   --quick       small sizes (quick_args below: one to four per eval) for the evals named
#                 without arguments, and --min-seconds 0.3 unless MIN_SECONDS is set.
#   --peers LIST  the peers to try (default: "tapenade adol-c jax pytorch tensorflow"; "" for diffx
#                 and manual only).
# Environment:
#   GRADBENCH_DIR    a GradBench folder with setup.sh and run.sh (default: ../shared/gradbench
#                    beside the repository); its setup.sh is run first if its build is missing.
#   GRADBENCH_BUILD  where that setup.sh builds (its own default: /tmp/gradbench-build).
#   MIN_SECONDS      passed to every eval but hello as --min-seconds (default: the evals' own, 1 s).
#   PY_MIN_RUNS      --min-runs for the Python peers (default 5): their first run of each size
#                    includes JAX's jit compile, which a median of 5 runs leaves out.
#   PEER_TIMEOUT     seconds one peer may take on one eval before it is stopped (default 900); the
#                    sizes it did not reach read `-`.
#   LOGS             where the JSON-lines logs go (default: target/gradbench-logs).
# After the table, each diffx evaluation is run once more under a counting allocator
# (`diffx-gradbench-memory`): its heap peak, primal and derivative side by side (memory.py).
#
# Needs: cargo; python3 (standard library) for the table; the GradBench folder's setup.sh (cargo, a
# C++ compiler, Debian's nlohmann-json3-dev, PyPI's numpy, scipy, pydantic, dataclasses-json).
# The peers are an optional local comparison, not part of the repository's checks: set them up in
# the GradBench folder with
#   GRADBENCH_PEERS="jax tapenade adol-c" ../shared/gradbench/setup.sh
# (../shared/gradbench/LOCAL.md says what each one is and how it is built). A peer that is not set
# up, or that has no driver for an eval, is skipped with a line saying so; a peer's failed or
# invalid output is marked in the table and never fails the run. Peers run: tapenade (GradBench's
# Tapenade-generated C for gmm, ba, lstm), adol-c (Debian's ADOL-C, the evals in its evals.txt but
# ht), jax / pytorch / tensorflow (GradBench's Python drivers in the setup's venv, the evals they
# have a module for). Exit status 1 if any diffx output was invalid or failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
gb=${GRADBENCH_DIR:-$repo/../shared/gradbench}
gb=$(cd "$gb" && pwd)
build=${GRADBENCH_BUILD:-${TMPDIR:-/tmp}/gradbench-build}
logs=${LOGS:-$repo/target/gradbench-logs}
py_min_runs=${PY_MIN_RUNS:-5}
peer_timeout=${PEER_TIMEOUT:-900}

quick=no
peers=(tapenade adol-c jax pytorch tensorflow)
specs=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=yes ;;
    --peers) read -ra peers <<<"${2?--peers takes a list}"; shift ;;
    --peers=*) read -ra peers <<<"${1#--peers=}" ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) specs+=("$1") ;;
  esac
  shift
done
[ ${#specs[@]} -gt 0 ] || specs=(hello lse llsq det gmm ode kmeans ba lstm particle saddle)

# --quick: small sizes of each eval (a size or two from each end of the default range where cheap).
quick_args() {
  case $1 in
    lse) echo "-n 2500 40000" ;;
    llsq) echo "-n 16 1024" ;;
    det) echo "-l 5 7" ;;
    gmm) echo "-d 2 10 -k 5 25" ;;
    ode) echo "-n 1000 10000 -s 1 10" ;;
    kmeans) echo "-k 10 100 -n 1000 -d 8" ;;
    ba) echo "--max 3" ;;
    lstm) echo "-l 2 -c 1024" ;;
    *) echo "" ;;
  esac
}
min_seconds=${MIN_SECONDS:-}
[ -n "$min_seconds" ] || [ $quick = no ] || min_seconds=0.3

[ -x "$build/target/release/gradbench" ] || GRADBENCH_BUILD=$build "$gb/setup.sh" >&2
# the commit built, "with local changes" if the work tree differs from it
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$repo" status --porcelain 2>/dev/null)" ] || commit+=" with local changes"
(cd "$repo" && cargo build --release --quiet -p diffx-gradbench)
tool="${CARGO_TARGET_DIR:-$repo/target}/release/diffx-gradbench"
mkdir -p "$logs"

# Which peers are set up, and which evals each has a driver for.
declare -A peer_evals peer_missing
ready=() notes=()
for p in "${peers[@]}"; do
  case $p in
    tapenade)
      if [ -x "$build/src/tools/tapenade/bin/gmm" ]; then
        peer_evals[$p]="gmm ba lstm"   # hello needs the Tapenade jar, ht has no data here
      else
        notes+=("skipped tapenade: not built (GRADBENCH_PEERS=tapenade setup.sh)")
      fi ;;
    adol-c)
      if [ -f /usr/include/adolc/adolc.h ] && [ -x "$build/src/tools/adol-c/bin/gmm" ]; then
        peer_evals[$p]=$(grep -vx ht "$gb/tools/adol-c/evals.txt" | tr '\n' ' ')
      else
        notes+=("skipped adol-c: not set up (GRADBENCH_PEERS=adol-c setup.sh: libadolc-dev, tools/adol-c)")
      fi ;;
    jax | pytorch | tensorflow)
      mod=$p; [ $p = pytorch ] && mod=torch
      if [ -x "$build/venv/bin/python" ] && "$build/venv/bin/python" -c "import $mod" 2>/dev/null; then
        have=()
        for f in "$gb/python/gradbench/gradbench/tools/$p"/*.py; do
          f=${f##*/}; f=${f%.py}
          case $f in run | utils | *_objective | __init__) ;; *) have+=("$f") ;; esac
        done
        peer_evals[$p]="${have[*]}"
      else
        notes+=("skipped $p: the setup's venv does not import $mod (see LOCAL.md)")
      fi ;;
    *) echo "run.sh: unknown peer '$p' (tapenade adol-c jax pytorch tensorflow)" >&2; exit 2 ;;
  esac
  [ -z "${peer_evals[$p]:-}" ] || ready+=("$p")
done

triples=()
for spec in "${specs[@]}"; do
  read -ra words <<<"$spec"
  ev=${words[0]}
  args=("${words[@]:1}")
  if [ ${#args[@]} -eq 0 ] && [ $quick = yes ]; then read -ra args <<<"$(quick_args "$ev")"; fi
  base=()
  [ "$ev" = hello ] || [ -z "$min_seconds" ] || base=(--min-seconds "$min_seconds")
  sides=(diffx)
  if grep -qx "$ev" "$gb/tools/manual/evals.txt"; then sides+=(manual); else notes+=("$ev: manual has none"); fi
  for p in "${ready[@]}"; do
    if [[ " ${peer_evals[$p]} " == *" $ev "* ]]; then sides+=("$p"); else peer_missing[$p]+=" $ev"; fi
  done
  for side in "${sides[@]}"; do
    extra=("${base[@]}")
    case $side in
      diffx) cmd=$tool ;;
      jax | pytorch | tensorflow) cmd=$side; [ "$ev" = hello ] || extra+=(--min-runs "$py_min_runs") ;;
      *) cmd=$side ;;   # GradBench's run.sh knows manual, tapenade, adol-c by name
    esac
    log="$logs/$ev-$side.jsonl"
    rm -f "$log"
    echo "== $ev: $side ${args[*]}" >&2
    limit=(); [ "$side" = diffx ] || [ "$side" = manual ] || limit=(timeout "$peer_timeout")
    # GradBench's run.sh exits nonzero on an invalid output; the table reports it.
    status=0
    GRADBENCH_BUILD=$build GRADBENCH_LOG=$log \
      "${limit[@]}" "$gb/run.sh" "$ev" "$cmd" "${extra[@]}" "${args[@]}" >"$logs/$ev-$side.txt" 2>&1 || status=$?
    [ $status -ne 124 ] || notes+=("$ev: $side stopped after PEER_TIMEOUT=${peer_timeout}s")
    triples+=("$ev" "$side" "$log")
  done
done

for p in "${ready[@]}"; do
  [ -z "${peer_missing[$p]:-}" ] || notes+=("$p has no driver for:${peer_missing[$p]}")
done
echo "diffx $commit; $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "GradBench evals: diffx, manual${ready[*]:+ and peers ${ready[*]}}; median ms per call."
echo "D/P = derivative ÷ primal of the same tool; diffx P÷, D÷ = diffx's primal, derivative ÷ this tool's."
for n in "${notes[@]}"; do echo "note: $n"; done
echo
python3 "$repo/benches/gradbench/table.py" "${triples[@]}"

# The heap memory of each diffx evaluation, run once more under a counting allocator: what the
# derivative keeps beyond its primal is what its reverse sweep records.
diffx_logs=()
for ((i = 0; i < ${#triples[@]}; i += 3)); do
  [ "${triples[i+1]}" != diffx ] || diffx_logs+=("${triples[i+2]}")
done
if [ ${#diffx_logs[@]} -gt 0 ]; then
  echo
  echo "diffx heap peak per evaluation (bytes beyond its input, its result included):"
  "${tool}-memory" "${diffx_logs[@]}" | python3 "$repo/benches/gradbench/memory.py"
fi
