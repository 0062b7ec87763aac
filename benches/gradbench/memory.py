"""Reads `diffx-gradbench-memory` lines (module function size bytes) from stdin and prints, per
eval and size, the primal's and the derivative's heap peak and their difference: what the
derivative's reverse sweep records (its result's bytes included)."""

import sys
from collections import defaultdict

PRIMAL = {"lse": "primal", "llsq": "primal", "det": "primal", "gmm": "objective",
          "ode": "primal", "kmeans": "cost", "ba": "objective", "lstm": "objective",
          "hello": "square"}

rows = defaultdict(dict)
for line in sys.stdin:
    words = line.split()
    if len(words) != 4 or not words[3].isdigit():
        print("note:", line.rstrip())
        continue
    module, function, size, peak = words
    rows[(module, size)][function] = int(peak)


def mib(b):
    return f"{b / 2**20:.2f} MiB" if b >= 2**20 else f"{b / 2**10:.1f} KiB"


print(f"{'eval':8} {'size':18} {'function':10} {'primal':>12} {'derivative':>12} {'recorded':>12}")
for (module, size), funcs in rows.items():
    primal = funcs.get(PRIMAL.get(module, ""))
    for function, peak in funcs.items():
        if function == PRIMAL.get(module):
            continue
        extra = mib(peak - primal) if primal is not None and peak >= primal else "-"
        shown = mib(primal) if primal is not None else "-"
        print(f"{module:8} {size:18} {function:10} {shown:>12} {mib(peak):>12} {extra:>12}")
