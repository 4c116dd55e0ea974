#!/usr/bin/env bash
# Repacking benchmark: `headroom repack` against OR-Tools CP-SAT (the solver of seed 002, from
# PyPI, installed into a virtualenv under ${HEADROOM_CACHE:-~/.cache/headroom}) on the same
# generated instances and time limit. CP-SAT is a benchmark peer only, never a dependency of
# headroom. Arguments go to scripts/bench-repack.py (e.g. --timeout 1 --per-cell 4).
#
# Usage: bash scripts/bench-repack.sh [--timeout S] [--per-cell N] [--workers N]
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
venv=$cache/ortools-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import ortools' 2>/dev/null; then
  echo "== installing OR-Tools (PyPI) into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q ortools
fi
cmake --preset release >/dev/null
cmake --build --preset release --target headroom
python3 scripts/bench-repack.py --headroom build/release/cli/headroom --python "$venv/bin/python" "$@"
