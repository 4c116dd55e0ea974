#!/usr/bin/env bash
# Builds the release preset and runs the benchmarks (numbers are reported, never asserted).
# Usage: bash scripts/bench.sh [google-benchmark flags, e.g. --benchmark_repetitions=5]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target node_optimizer_bench >&2
./build/release/bench/node_optimizer_bench "$@"
