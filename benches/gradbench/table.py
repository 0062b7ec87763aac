#!/usr/bin/env python3
"""The table of benches/gradbench/run.sh from GradBench logs (standard library only).

usage: table.py EVAL DIFFX_LOG MANUAL_LOG [EVAL DIFFX_LOG MANUAL_LOG ...]

One row per evaluation: eval, function, size (the eval's description of the input), the median
of the "evaluate" timings of diffx and of manual in milliseconds, and their ratio. A diffx row
GradBench judged invalid, or that failed, is marked and makes the exit status 1. The last lines
give the geometric mean of the ratios, over all rows and over the derivative rows.

GRADBENCH_OTHERS (e.g. "pytorch jax") names other tools whose logs sit beside diffx's
(EVAL-pytorch.jsonl next to EVAL-diffx.jsonl): each gets a column of its times and one of
diffx's ratio to them."""
import json
import os
import math
import statistics
import sys

PRIMAL = {"square", "primal", "objective", "cost"}


def load(path):
    """{(function, description): (median ms or None, valid)} in the order of the log."""
    messages, rows, order = {}, {}, []
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return rows, order
    for line in lines:
        entry = json.loads(line)
        if "message" in entry:
            m = entry["message"]
            messages[m["id"]] = m
            if m.get("kind") == "analysis":
                of = messages.get(m["of"], {})
                key = (of.get("function"), of.get("description", json.dumps(of.get("input"))[:20]))
                if key in rows:
                    rows[key] = (rows[key][0], rows[key][1] and m.get("valid", False))
        elif "response" in entry:
            r = entry["response"]
            m = messages.get(r["id"], {})
            if m.get("kind") != "evaluate":
                continue
            key = (m["function"], m.get("description", json.dumps(m.get("input"))[:20]))
            ts = [t["nanoseconds"] for t in r.get("timings") or [] if t.get("name") == "evaluate"]
            ms = statistics.median(ts) / 1e6 if ts and r.get("success") else None
            rows[key] = (ms, bool(r.get("success")))
            if key not in order:
                order.append(key)
    return rows, order


def main(argv):
    if len(argv) % 3 != 0 or not argv:
        sys.exit(__doc__)
    others = os.environ.get("GRADBENCH_OTHERS", "").split()
    header = ("eval", "function", "size", "diffx ms", "manual ms", "ratio") + tuple(
        c for t in others for c in (f"{t} ms", f"diffx/{t}"))
    table, ratios, derivative_ratios, bad = [], [], [], 0
    for i in range(0, len(argv), 3):
        ev, diffx_log, manual_log = argv[i : i + 3]
        diffx, order = load(diffx_log)
        manual, _ = load(manual_log)
        other = [load(diffx_log.replace("-diffx.jsonl", f"-{t}.jsonl"))[0] for t in others]
        if not order:
            table.append((ev, "-", "-", "no log", "", "") + ("",) * (2 * len(others)))
            bad += 1
        for key in order:
            ms, valid = diffx[key]
            mms = manual.get(key, (None, False))[0]
            if ms is None or not valid:
                bad += 1
            cell = "invalid" if ms is not None and not valid else ("fail" if ms is None else f"{ms:.3f}")
            ratio = ""
            if ms is not None and mms:
                r = ms / mms
                ratio = f"{r:.2f}"
                if ev != "hello":
                    ratios.append(r)
                    if key[0] not in PRIMAL:
                        derivative_ratios.append(r)
            extra = ()
            for rows in other:
                oms = rows.get(key, (None, False))[0]
                extra += ("-" if oms is None else f"{oms:.3f}",
                          f"{ms / oms:.2f}" if ms is not None and oms else "")
            table.append((ev, key[0], key[1], cell, "-" if mms is None else f"{mms:.3f}", ratio) + extra)
    widths = [max(len(str(row[c])) for row in [header] + table) for c in range(len(header))]
    for row in [header] + table:
        print("  ".join(str(v).ljust(w) if c < 3 else str(v).rjust(w) for c, (v, w) in enumerate(zip(row, widths))))

    def geomean(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")

    print(f"geometric mean of diffx/manual: {geomean(ratios):.2f} over {len(ratios)} rows, "
          f"{geomean(derivative_ratios):.2f} over the {len(derivative_ratios)} derivative rows")
    print("every diffx output valid" if bad == 0 else f"{bad} diffx rows invalid or failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
