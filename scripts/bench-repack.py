#!/usr/bin/env python3
"""Repacking benchmark (seed 002's setup): `headroom repack` against OR-Tools CP-SAT running
the paper's algorithm (bench/repack_cpsat.py) on the same generated instances and time limit.

For every cell (nodes x pods per node x priority tiers) it generates instances with
`headroom repack --generate`, cycling the target utilisation over 90/95/100/105 %, and keeps
the first ones on which the kube-scheduler model leaves pods pending (as the paper does). Each
solver gets the same total time limit. Per cell it reports:
  - placed: the plan's placed pods per tier compared lexicographically (highest tier first)
    with the other solver's: how often headroom is better / equal / worse;
  - gain: instances where the plan places more (lexicographically) than kube-scheduler did;
  - proven: instances whose plan is proven optimal in every tier, both phases;
  - time: mean wall time of the solve.
Usage: bench-repack.py --headroom BIN --python PY [--timeout 1] [--per-cell 4] [--out DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
UTILS = [0.90, 0.95, 1.00, 1.05]


def generate(headroom, out_dir, nodes, ppn, tiers, count):
    paths = []
    seed = 1
    while len(paths) < count and seed < 100 * count:
        util = UTILS[len(paths) % len(UTILS)]
        path = os.path.join(out_dir, f"n{nodes}-p{ppn}-t{tiers}-u{int(util*100)}-s{seed}.json")
        subprocess.run([headroom, "repack", "--generate", f"--nodes={nodes}",
                        f"--pods-per-node={ppn}", f"--tiers={tiers}", f"--utilisation={util}",
                        f"--seed={seed}", "--timeout=0s", f"--write-instance={path}",
                        "--output=json"], check=True, stdout=subprocess.DEVNULL)
        seed += 1
        doc = json.load(open(path))
        if any("node" not in p for p in doc["pods"]):
            paths.append(path)
        else:
            os.remove(path)
    return paths


def baseline(path):
    doc = json.load(open(path))
    prios = sorted({p.get("priority", 0) for p in doc["pods"]}, reverse=True)
    return [sum(1 for p in doc["pods"] if p.get("priority", 0) == pr and "node" in p) for pr in prios]


def run_headroom(headroom, path, timeout):
    start = time.monotonic()
    out = subprocess.run([headroom, "repack", f"--input={path}", f"--timeout={timeout}s",
                          "--output=json"], check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    plan = json.loads(out)
    placed = [t["placedAfter"] for t in plan["tiers"]]
    proven = all(t["placementOptimal"] and t["movesOptimal"] for t in plan["tiers"])
    placement_proven = all(t["placementOptimal"] for t in plan["tiers"])
    return {"placed": placed, "proven": proven, "placement_proven": placement_proven,
            "seconds": sum(t["seconds"] for t in plan["tiers"]), "wall": wall}


def run_cpsat(python, path, timeout, workers):
    start = time.monotonic()
    out = subprocess.run([python, os.path.join(HERE, "..", "bench", "repack_cpsat.py"), path,
                          f"--timeout={timeout}", f"--workers={workers}"],
                         check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    result = json.loads(out)
    tiers = result["tiers"]
    doc = json.load(open(path))
    n_tiers = len({p.get("priority", 0) for p in doc["pods"]})
    failed = len(tiers) < n_tiers or any(t.get("failed") for t in tiers)
    placed = [t.get("placedAfter", 0) for t in tiers] + [0] * (n_tiers - len(tiers))
    if failed:
        placed = None  # no solution: the paper's "Failures"
    proven = not failed and all(t["place"]["optimal"] and t["keep"]["optimal"] for t in tiers)
    placement_proven = not failed and all(t["place"]["optimal"] for t in tiers)
    return {"placed": placed, "proven": proven, "placement_proven": placement_proven,
            "seconds": result["seconds"], "wall": wall}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--headroom", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--per-cell", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--nodes", default="4,8,16,32")
    parser.add_argument("--ppn", default="4,8")
    parser.add_argument("--tiers", default="1,2,4")
    parser.add_argument("--out", default="build/bench-repack")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print(f"timeout {args.timeout}s per instance, CP-SAT workers {args.workers}, "
          f"{args.per_cell} instances per cell\n")
    header = ("nodes ppn tiers  n | vs CP-SAT better/equal/worse | gain over kube-scheduler: "
              "ours cpsat | proven: ours cpsat | placement proven: ours cpsat | "
              "CP-SAT failed | mean s: ours cpsat")
    print(header)
    totals = {"better": 0, "equal": 0, "worse": 0, "n": 0, "proven_h": 0, "proven_c": 0,
              "pp_h": 0, "pp_c": 0, "gain_h": 0, "gain_c": 0, "failed_c": 0}
    for nodes in map(int, args.nodes.split(",")):
        for ppn in map(int, args.ppn.split(",")):
            for tiers in map(int, args.tiers.split(",")):
                paths = generate(args.headroom, args.out, nodes, ppn, tiers, args.per_cell)
                cell = {"better": 0, "equal": 0, "worse": 0, "proven_h": 0, "proven_c": 0,
                        "pp_h": 0, "pp_c": 0, "gain_h": 0, "gain_c": 0, "failed_c": 0,
                        "sec_h": [], "sec_c": []}
                for path in paths:
                    base = baseline(path)
                    h = run_headroom(args.headroom, path, args.timeout)
                    c = run_cpsat(args.python, path, args.timeout, args.workers)
                    rows.append({"instance": os.path.basename(path), "baseline": base,
                                 "headroom": h, "cpsat": c})
                    cp_placed = c["placed"] if c["placed"] is not None else base
                    if c["placed"] is None:
                        cell["failed_c"] += 1
                    if h["placed"] > cp_placed:
                        cell["better"] += 1
                    elif h["placed"] == cp_placed:
                        cell["equal"] += 1
                    else:
                        cell["worse"] += 1
                    cell["gain_h"] += h["placed"] > base
                    cell["gain_c"] += cp_placed > base
                    cell["proven_h"] += h["proven"]
                    cell["proven_c"] += c["proven"]
                    cell["pp_h"] += h["placement_proven"]
                    cell["pp_c"] += c["placement_proven"]
                    cell["sec_h"].append(h["wall"])
                    cell["sec_c"].append(c["seconds"])
                n = len(paths)
                print(f"{nodes:5d} {ppn:3d} {tiers:5d} {n:2d} | {cell['better']:6d} {cell['equal']:5d} "
                      f"{cell['worse']:5d} | {cell['gain_h']:4d} {cell['gain_c']:5d} | "
                      f"{cell['proven_h']:4d} {cell['proven_c']:5d} | {cell['pp_h']:4d} {cell['pp_c']:5d} | "
                      f"{cell['failed_c']:3d} | "
                      f"{statistics.mean(cell['sec_h']) if n else 0:.2f} "
                      f"{statistics.mean(cell['sec_c']) if n else 0:.2f}", flush=True)
                totals["n"] += n
                for key in ("better", "equal", "worse", "proven_h", "proven_c", "pp_h", "pp_c",
                            "gain_h", "gain_c", "failed_c"):
                    totals[key] += cell[key]
    print(f"\nall {totals['n']} instances: vs CP-SAT better {totals['better']}, equal "
          f"{totals['equal']}, worse {totals['worse']}; gain over kube-scheduler ours "
          f"{totals['gain_h']}, CP-SAT {totals['gain_c']}; proven optimal ours {totals['proven_h']}, "
          f"CP-SAT {totals['proven_c']}; placement proven ours {totals['pp_h']}, CP-SAT "
          f"{totals['pp_c']}; CP-SAT without a solution {totals['failed_c']}")
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
