#!/usr/bin/env python3
"""Checks deploy/monitoring against what the binaries really export.

Usage: check-dashboard.py DASHBOARD_JSON PODMONITOR_YAML DEPLOY_DIR METRICS_FILE...

- the dashboard parses, every panel query is non-empty, and every metric a query names
  (headroom_...) appears in one of METRICS_FILE (the /metrics text of a running binary;
  a histogram's _bucket/_sum/_count series count as the histogram);
- every PodMonitor selects the pods of a workload in DEPLOY_DIR by its labels and scrapes a
  port that workload's container declares, at /metrics.
Exit 1 with one line per problem.
"""
import json
import re
import sys

import yaml


def exported_names(paths):
    names = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line.startswith("# HELP ") or line.startswith("# TYPE "):
                    names.add(line.split()[2])
                elif line and not line.startswith("#"):
                    names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def check_dashboard(path, names, problems):
    with open(path, encoding="utf-8") as f:
        dashboard = json.load(f)
    queries = 0
    for panel in dashboard.get("panels", []):
        for target in panel.get("targets", []):
            expr = target.get("expr", "").strip()
            if not expr:
                problems.append(f"panel {panel.get('title')!r}: an empty query")
                continue
            queries += 1
            for metric in re.findall(r"\bheadroom_[a-z0-9_]+", expr):
                base = re.sub(r"_(bucket|sum|count)$", "", metric)
                if metric not in names and base not in names:
                    problems.append(
                        f"panel {panel.get('title')!r}: {metric} is exported by no binary")
    if queries == 0:
        problems.append(f"{path}: no queries")
    return queries


def workloads(deploy_dir):
    import pathlib
    found = []
    for path in sorted(pathlib.Path(deploy_dir).rglob("*.yaml")):
        if "helm" in path.relative_to(deploy_dir).parts:
            continue  # the chart's templates are generated from these files (not plain YAML)
        with open(path, encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if isinstance(doc, dict) and doc.get("kind") in ("Deployment", "DaemonSet"):
                    found.append(doc)
    return found


def check_podmonitors(path, deploy_dir, problems):
    with open(path, encoding="utf-8") as f:
        monitors = [d for d in yaml.safe_load_all(f) if d]
    targets = workloads(deploy_dir)
    for monitor in monitors:
        name = monitor.get("metadata", {}).get("name")
        if monitor.get("kind") != "PodMonitor":
            problems.append(f"{name}: kind {monitor.get('kind')}, expected PodMonitor")
            continue
        spec = monitor.get("spec", {})
        want = spec.get("selector", {}).get("matchLabels", {})
        matched = [w for w in targets
                   if want and want.items() <= w["spec"]["template"]["metadata"]["labels"].items()]
        if len(matched) != 1:
            problems.append(f"PodMonitor {name}: selects {len(matched)} workloads in deploy/")
            continue
        ports = {p.get("name") for c in matched[0]["spec"]["template"]["spec"]["containers"]
                 for p in c.get("ports", [])}
        for endpoint in spec.get("podMetricsEndpoints", []):
            if endpoint.get("port") not in ports:
                problems.append(f"PodMonitor {name}: port {endpoint.get('port')!r} not in {sorted(ports)}")
            if endpoint.get("path") != "/metrics":
                problems.append(f"PodMonitor {name}: path {endpoint.get('path')!r}, not /metrics")
    return len(monitors)


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    dashboard, podmonitor, deploy_dir, *metrics = sys.argv[1:]
    names = exported_names(metrics)
    problems = []
    queries = check_dashboard(dashboard, names, problems)
    monitors = check_podmonitors(podmonitor, deploy_dir, problems)
    for problem in problems:
        print(f"check-dashboard: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check-dashboard: {queries} queries name only exported metrics "
          f"({len(names)} exported); {monitors} PodMonitors match deploy/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
