#!/usr/bin/env bash
# Extender latency, headroom-extender against a minimal Go extender (bench/go-extender), on the
# same requests: filter then prioritize per scheduling cycle, over one keep-alive connection,
# at 100, 500 and 5000 nodes, in both nodeCacheCapable modes. Both servers know the same
# cluster (headroom-extender through node reports over gRPC, the Go one from a state file).
# Everything listens on 127.0.0.1 and is stopped by PID. Numbers are reported, not asserted.
#
# Usage: bash scripts/bench-extender.sh [requests per point, default 200]
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-200}"
cache="${HEADROOM_CACHE:-$HOME/.cache/headroom}"
mkdir -p "$cache"

bash scripts/setup.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target headroom-extender extender_latency >&2
(cd bench/go-extender && go build -o "$cache/go-extender" .) >&2

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

source e2e/check-lib.sh
wait_port() { wait_for 10 port_open "$1" || { echo "nothing listening on $1" >&2; return 1; }; }

client=./build/release/bench/extender_latency
fixture=tests/testdata/kube-scheduler-extender/run1-002-filter.json
printf '%-6s %-6s %-9s %10s %10s %10s %10s %8s\n' nodes mode server "p50 ms" "p99 ms" "mean ms" body "speed-up"
for nodes in 100 500 5000; do
  http=$(free_port); grpc=$(free_port); go_port=$(free_port)
  ./build/release/extender/headroom-extender --http-address "127.0.0.1:$http" \
    --grpc-address "127.0.0.1:$grpc" --report-auth=insecure --report-stale-after=1h --log-level warn & pids+=($!)
  "$client" --go-state "$work/state.json" --nodes "$nodes"
  "$cache/go-extender" -address "127.0.0.1:$go_port" -state "$work/state.json" 2>/dev/null &
  pids+=($!)
  wait_port "$http"; wait_port "$grpc"; wait_port "$go_port"
  "$client" --report "127.0.0.1:$grpc" --nodes "$nodes"
  for mode in names nodes; do
    n=$requests
    [ "$nodes" -ge 5000 ] && [ "$mode" = nodes ] && n=$((requests / 4))
    ours=$("$client" --url "http://127.0.0.1:$http" --nodes "$nodes" --mode "$mode" \
      --requests "$n" --fixture "$fixture")
    theirs=$("$client" --url "http://127.0.0.1:$go_port" --nodes "$nodes" --mode "$mode" \
      --requests "$n" --fixture "$fixture")
    python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for name, r in (("headroom", ours), ("go", theirs)):
    c = r["cycle"]
    speed = "" if name == "go" else "%.1fx" % (theirs["cycle"]["mean"] / c["mean"])
    print("%-6d %-6s %-9s %10.3f %10.3f %10.3f %10d %8s" % (r["nodes"], r["mode"], name,
          c["p50"], c["p99"], c["mean"], r["bodyBytes"], speed))
PY
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pids=()
  sleep 0.5
done
echo "(cycle = filter + prioritize; $requests cycles per point, fewer for 5000 whole Node objects)"
