#!/usr/bin/env python3
"""The table of benches/gradbench/run.sh from GradBench logs (standard library only).

usage: table.py EVAL TOOL LOG [EVAL TOOL LOG ...]

Each triple names the JSON-lines log GradBench wrote for one tool on one eval; the tool called
`diffx` is the one compared, every other tool (`manual`, the peers) is a row beside it. For each
eval and size (GradBench's description of the input) and each tool, one row:

  primal ms   median "evaluate" time of the eval's primal function (primal, objective, cost, square)
  deriv ms    median time of its derivative function (gradient, jacobian, dir, double; evals with
              several derivative functions, such as particle and saddle, get a row per function)
  D/P         deriv ÷ primal of the same tool
  P÷ / D÷     diffx's primal ÷ this tool's primal, diffx's derivative ÷ this tool's derivative

hello (the protocol check; each call has its own input) gets only a count of valid outputs per
tool. A cell GradBench judged invalid is suffixed `!`, a failed one reads `fail`, a missing one `-`.
After each eval, one line per tool gives the geometric means over that eval's sizes (of D/P and of
both ratios, each over the sizes where it exists). A diffx output that is invalid or failed makes
the exit status 1; a peer's never does."""
import json
import math
import statistics
import sys

PRIMAL = {"square", "primal", "objective", "cost"}


def load(path):
    """{(function, description): (median ms or None, valid)}, and the keys in the log's order."""
    messages, rows, order = {}, {}, []
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return rows, order
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a log cut short (the run was stopped)
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


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt_ms(cell):
    if cell is None:
        return "-"
    ms, valid = cell
    if ms is None:
        return "fail"
    s = f"{ms:.4f}" if ms < 0.01 else f"{ms:.3f}" if ms < 1000 else f"{ms:.0f}"
    return s if valid else s + "!"


def fmt_ratio(x):
    if x is None:
        return ""
    return f"{x:.2f}" if x < 100 else f"{x:.0f}"


def time_of(cell):
    return cell[0] if cell is not None and cell[0] else None


def ratio(a, b):
    return a / b if a is not None and b is not None else None


def main(argv):
    if len(argv) % 3 != 0 or not argv:
        sys.exit(__doc__)
    evals = {}  # eval -> {tool: rows}, in argument order
    orders = {}
    for i in range(0, len(argv), 3):
        ev, tool, path = argv[i : i + 3]
        rows, order = load(path)
        evals.setdefault(ev, {})[tool] = rows
        keys = orders.setdefault(ev, [])
        keys.extend(k for k in order if k not in keys)

    header = ("eval", "size", "tool", "primal ms", "deriv", "deriv ms", "D/P", "diffx P÷", "diffx D÷")
    table, bad = [header], 0
    for ev, tools in evals.items():
        diffx = tools.get("diffx", {})
        if not diffx:
            table.append((ev, "-", "diffx", "no log", "", "", "", "", ""))
            bad += 1
        for (ms, valid) in diffx.values():
            if ms is None or not valid:
                bad += 1
        if ev == "hello":
            # the protocol check: each call has its own input, so no sizes to pair
            for tool, rows in tools.items():
                ok = sum(1 for ms, valid in rows.values() if ms is not None and valid)
                table.append((ev if tool == "diffx" else "", "-", tool, f"{ok}/{len(rows)} valid",
                              "", "", "", "", ""))
            table.append(None)
            continue
        # sizes in the order of the log; per size, the primal function and the derivative ones
        sizes, derivs = [], {}
        for function, size in orders[ev]:
            if size not in sizes:
                sizes.append(size)
            if function not in PRIMAL:
                derivs.setdefault(size, [])
                if function not in derivs[size]:
                    derivs[size].append(function)
        primal_of = {}
        for function, size in orders[ev]:
            if function in PRIMAL:
                primal_of.setdefault(size, function)
        summary = {t: ([], [], []) for t in tools}  # D/P, P÷, D÷
        for size in sizes:
            pf = primal_of.get(size)
            first = True
            for df in derivs.get(size, [None]):
                for tool, rows in tools.items():
                    p = rows.get((pf, size)) if pf else None
                    d = rows.get((df, size)) if df else None
                    if p is None and d is None and tool != "diffx":
                        continue
                    dp = ratio(time_of(d), time_of(p))
                    rp = ratio(time_of(diffx.get((pf, size))), time_of(p)) if tool != "diffx" else None
                    rd = ratio(time_of(diffx.get((df, size))), time_of(d)) if tool != "diffx" else None
                    for xs, x in zip(summary[tool], (dp, rp, rd)):
                        if x is not None:
                            xs.append(x)
                    table.append((ev if first else "", size if first else "", tool, fmt_ms(p),
                                  df or "", fmt_ms(d) if df else "", fmt_ratio(dp), fmt_ratio(rp),
                                  fmt_ratio(rd)))
                    first = False
        if len(sizes) > 1:
            first = True
            for tool, (dps, rps, rds) in summary.items():
                if not (dps or rps or rds):
                    continue
                n = max(len(dps), len(rps), len(rds))
                table.append((f"{ev} geomean" if first else "", f"{n} sizes", tool, "", "", "",
                              fmt_ratio(geomean(dps)), fmt_ratio(geomean(rps)),
                              fmt_ratio(geomean(rds))))
                first = False
        table.append(None)

    rows = [r for r in table if r is not None]
    widths = [max(len(str(r[c])) for r in rows) for c in range(len(header))]
    left = {0, 1, 2, 4}
    for r in table:
        if r is None:
            print()
            continue
        print("  ".join(str(v).ljust(w) if c in left else str(v).rjust(w)
                        for c, (v, w) in enumerate(zip(r, widths))).rstrip())
    print("every diffx output valid" if bad == 0 else f"{bad} diffx outputs invalid or failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
