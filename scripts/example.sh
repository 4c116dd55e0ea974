#!/usr/bin/env bash
# Builds the headroom CLI and runs the per-node optimisation on the example node shipped in
# examples/node.json (9 pods on a 4-CPU, 8Gi node: DaemonSets, a multi-container pod, a pod
# that is not optimised, one without history, and one that has to be evicted).
#
# Usage: bash scripts/example.sh [extra optimize-node flags]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target headroom >&2
./build/release/cli/headroom optimize-node --input examples/node.json "$@"
