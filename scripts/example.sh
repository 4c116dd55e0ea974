#!/usr/bin/env bash
# The README's main command: builds the headroom CLI and runs `headroom simulate` on the
# built-in default (200 CPU-only pods from Alibaba's OpenB list with real memory series from
# Alibaba's GenAI trace, 96 simulated hours, the last 48 summarised), comparing static requests, VPA, Crane and
# headroom. Prints the table and writes build/simulate/summary.json and chart.svg.
#
# Usage: bash scripts/example.sh [extra simulate flags, e.g. --seed 7 --duration 48h]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target headroom >&2
./build/release/cli/headroom simulate "$@"
