#!/usr/bin/env bash
# Extender latency as kube-scheduler sees it: filter then prioritize per scheduling cycle,
# over one keep-alive connection, at 100, 500 and 5000 nodes, in both nodeCacheCapable modes
# (node names, whole Node objects), each with and without `Accept-Encoding: gzip` (Go's
# transport, and so kube-scheduler, sends it). Three servers answer the same requests in the
# same run:
#   null      bench/null_extender.cc: decides nothing, raw epoll, no JSON parser (the floor:
#             what the HTTP extender protocol itself costs on loopback);
#   headroom  headroom-extender, knowing every node from a report over gRPC;
#   go        bench/go-extender, a minimal Go extender with the same fit rule (a state file).
# The client (bench/extender_latency.cc) is a plain socket; it counts the connections it had
# to open and the answers that came back compressed. Everything listens on 127.0.0.1 and is
# stopped by PID. Numbers are reported, not asserted.
#
# Usage: bash scripts/bench-extender.sh [cycles per point, default 300] [node counts, default "100 500 5000"]
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-300}"
sizes="${2:-100 500 5000}"
cache="${HEADROOM_CACHE:-$HOME/.cache/headroom}"
mkdir -p "$cache"

bash scripts/setup.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target headroom-extender extender_latency null_extender >&2
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
# HEADROOM_EXTENDER: another headroom-extender binary to measure (e.g. a previous commit's).
extender="${HEADROOM_EXTENDER:-./build/release/extender/headroom-extender}"
fixture=tests/testdata/kube-scheduler-extender/run1-002-filter.json
results="$work/results.jsonl"
for nodes in $sizes; do
  http=$(free_port); grpc=$(free_port); go_port=$(free_port)
  "$extender" --http-address "127.0.0.1:$http" \
    --grpc-address "127.0.0.1:$grpc" --report-auth=insecure --report-stale-after=1h --log-level warn & pids+=($!)
  ./build/release/bench/null_extender --address 127.0.0.1 --port 0 >"$work/null.port" & pids+=($!)
  "$client" --go-state "$work/state.json" --nodes "$nodes"
  "$cache/go-extender" -address "127.0.0.1:$go_port" -state "$work/state.json" 2>/dev/null &
  pids+=($!)
  wait_port "$http"; wait_port "$grpc"; wait_port "$go_port"
  wait_for 10 test -s "$work/null.port"
  null_port=$(cat "$work/null.port")
  "$client" --report "127.0.0.1:$grpc" --nodes "$nodes"
  for mode in names nodes; do
    n=$requests
    [ "$nodes" -ge 5000 ] && [ "$mode" = nodes ] && n=$((requests / 6))
    for gzip in 0 1; do
      for server in null headroom go; do
        case $server in
          null) port=$null_port ;; headroom) port=$http ;; go) port=$go_port ;;
        esac
        "$client" --url "http://127.0.0.1:$port" --nodes "$nodes" --mode "$mode" --gzip "$gzip" \
          --requests "$n" --fixture "$fixture" |
          python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["server"]=sys.argv[1]; print(json.dumps(r))' "$server" >>"$results"
      done
    done
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pids=()
  sleep 0.5
done
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("%-6s %-6s %-5s %-9s %9s %9s %9s %6s %5s %11s %11s" % ("nodes", "mode", "gzip", "server",
      "p50 ms", "p99 ms", "mean ms", "conns", "gzip'd", "p99/floor", "go/headroom"))
for r in rows:
    key = (r["nodes"], r["mode"], r["gzip"])
    peers = {x["server"]: x for x in rows if (x["nodes"], x["mode"], x["gzip"]) == key}
    c = r["cycle"]
    floor = "%.1fx" % (c["p99"] / peers["null"]["cycle"]["p99"]) if r["server"] != "null" else ""
    speed = ""
    if r["server"] == "headroom":
        speed = "%.1fx" % (peers["go"]["cycle"]["mean"] / c["mean"])
    print("%-6d %-6s %-5s %-9s %9.3f %9.3f %9.3f %6d %5d %11s %11s" % (r["nodes"], r["mode"],
          "yes" if r["gzip"] else "no", r["server"], c["p50"], c["p99"], c["mean"],
          r["connections"], r["compressedAnswers"], floor, speed))
PY
echo "(cycle = filter + prioritize over one connection; $requests cycles per point, fewer for 5000 Node objects;"
echo " conns = connections the client opened; gzip'd = answers that came back compressed;"
echo " go/headroom = the Go baseline's mean cycle over headroom-extender's)"
