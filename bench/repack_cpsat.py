#!/usr/bin/env python3
"""Benchmark peer only: seed 002's priority-tiered repacking with OR-Tools CP-SAT, written from
the paper's description (Algorithm 1), on our instance JSON (docs/repack.md). Not part of the
product; scripts/bench-repack.sh runs it side by side with `headroom repack`.

Per tier, highest priority first: maximise the pods of the tier placed (bin-packing constraints
for every pod of this tier or above, at most one node each), then fix that count (== when
proven optimal, >= otherwise) and maximise 2 x (running pods left on their node) + 1 x (moved),
then fix that too. The time limit is shared out as the paper does: each tier gets an equal share
of what is left, split in half between the two solves. Hints warm-start each solve with the
previous assignment.

Usage: repack_cpsat.py INSTANCE.json --timeout SECONDS [--workers N]
Prints one JSON object: per-tier placed / bound proven / moves and the wall time.
"""
import argparse
import json
import re
import sys
import time

from ortools.sat.python import cp_model

SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def quantity(text, milli):
    if isinstance(text, (int, float)):
        return int(round(text * (1000 if milli else 1)))
    m = re.fullmatch(r"([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?", text)
    if not m:
        raise ValueError(f"unsupported quantity {text!r}")
    number, suffix = float(m.group(1)), m.group(2) or ""
    if suffix == "m":
        value = number / 1000
    else:
        value = number * SUFFIX[suffix]
    return int(round(value * (1000 if milli else 1)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("instance")
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    doc = json.load(open(args.instance))
    nodes = doc["nodes"]
    pods = doc["pods"]
    node_index = {n["name"]: i for i, n in enumerate(nodes)}
    cap = [(quantity(n["cpu"], True), quantity(n["memory"], False)) for n in nodes]
    size = [(quantity(p.get("cpu", 0), True), quantity(p.get("memory", 0), False)) for p in pods]
    home = [node_index[p["node"]] if p.get("node") else -1 for p in pods]
    priorities = sorted({p.get("priority", 0) for p in pods}, reverse=True)
    tier = [priorities.index(p.get("priority", 0)) for p in pods]

    start = time.monotonic()
    deadline = start + args.timeout
    N, P = len(nodes), len(pods)
    fixed = []  # (kind, tier, value, proven)
    hint = {i: home[i] for i in range(P)}
    results = []
    for t in range(len(priorities)):
        tier_start = time.monotonic()
        share = max(0.0, deadline - tier_start) / (len(priorities) - t)
        active = [i for i in range(P) if tier[i] <= t]
        row = {"priority": priorities[t]}
        outcome = {}
        for phase in ("place", "keep"):
            budget = share / 2 if phase == "place" else max(0.0, tier_start + share - time.monotonic())
            model = cp_model.CpModel()
            x = {(i, n): model.NewBoolVar(f"x{i}_{n}") for i in active for n in range(N)}
            for i in active:
                model.Add(sum(x[i, n] for n in range(N)) <= 1)
            for n in range(N):
                for d in range(2):
                    model.Add(sum(size[i][d] * x[i, n] for i in active) <= cap[n][d])

            def placed(s):
                return sum(x[i, n] for i in active if tier[i] == s for n in range(N))

            def keep(s):
                return sum((2 if n == home[i] else 1) * x[i, n]
                           for i in active if tier[i] <= s and home[i] >= 0 for n in range(N))

            for kind, s, value, proven in fixed:
                expr = placed(s) if kind == "place" else keep(s)
                if proven:
                    model.Add(expr == value)
                else:
                    model.Add(expr >= value)
            objective = placed(t) if phase == "place" else keep(t)
            model.Maximize(objective)
            for i in active:
                for n in range(N):
                    model.AddHint(x[i, n], 1 if hint.get(i, -1) == n else 0)
            solver = cp_model.CpSolver()
            solver.parameters.max_time_in_seconds = max(0.001, budget)
            solver.parameters.num_workers = args.workers
            status = solver.Solve(model)
            if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                value = int(round(solver.ObjectiveValue()))
                proven = status == cp_model.OPTIMAL
                fixed.append((phase, t, value, proven))
                for i in active:
                    hint[i] = next((n for n in range(N) if solver.Value(x[i, n])), -1)
                outcome[phase] = {"value": value, "optimal": proven,
                                  "bound": int(solver.BestObjectiveBound())}
            else:
                outcome[phase] = {"value": None, "optimal": False, "status": solver.StatusName(status)}
                break
        row["place"] = outcome.get("place")
        row["keep"] = outcome.get("keep")
        row["seconds"] = time.monotonic() - tier_start
        results.append(row)
        if outcome.get("place", {}).get("value") is None or "keep" not in outcome or outcome["keep"]["value"] is None:
            row["failed"] = True
            break
    # The final assignment per tier from the last hint.
    for row, t in zip(results, range(len(priorities))):
        row["placedAfter"] = sum(1 for i in range(P) if tier[i] == t and hint.get(i, -1) >= 0)
    assignment = {pods[i]["name"]: (nodes[hint[i]]["name"] if hint.get(i, -1) >= 0 else None)
                  for i in range(P)}
    json.dump({"tiers": results, "seconds": time.monotonic() - start, "assignment": assignment},
              sys.stdout)
    print()


if __name__ == "__main__":
    main()
