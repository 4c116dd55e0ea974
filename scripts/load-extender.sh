#!/usr/bin/env bash
# A bounded load run against headroom-extender on loopback: wrk posts recorded kube-scheduler
# filter requests (500 node names) at high concurrency with `Accept-Encoding: gzip` (as Go's
# transport, and so kube-scheduler, sends it), after the extender has a report for every node.
# The same load goes to bench/null_extender.cc (no decisions, raw epoll) first, as the
# reference. Prints wrk's summary, the non-2xx count and the extender's resident memory before,
# between and after two rounds (memory should stay flat). Stops what it started by PID.
#
# Usage: bash scripts/load-extender.sh [seconds per round, default 20] [connections, default 64]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
connections="${2:-64}"

bash scripts/setup.sh >&2
command -v wrk >/dev/null || { apt-get install -y -qq wrk >/dev/null || sudo apt-get install -y -qq wrk; }
cmake --preset release >/dev/null
cmake --build --preset release --target headroom-extender extender_latency null_extender >&2

work="$(mktemp -d)"
pid=""
null_pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  [ -n "$null_pid" ] && kill "$null_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
source e2e/check-lib.sh
http=$(free_port); grpc=$(free_port)
./build/release/extender/headroom-extender --http-address "127.0.0.1:$http" \
  --grpc-address "127.0.0.1:$grpc" --report-auth=insecure --report-stale-after=1h --log-level warn & pid=$!
wait_for 10 port_open "$http" || true  # the client's first call reports a dead extender
./build/release/bench/extender_latency --report "127.0.0.1:$grpc" --nodes 500

# The request body: the recorded pod with 500 node names.
python3 - "$work/body.json" <<'PY'
import json, sys
pod = json.load(open("tests/testdata/kube-scheduler-extender/run2-001-filter.json"))["Pod"]
json.dump({"Pod": pod, "Nodes": None, "NodeNames": ["node-%d" % i for i in range(500)]},
          open(sys.argv[1], "w"))
PY
cat > "$work/post.lua" <<LUA
local f = io.open("$work/body.json", "r")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept-Encoding"] = "gzip"
local bad = 0
response = function(status, headers, body) if status ~= 200 then bad = bad + 1 end end
done = function(summary, latency, requests)
  io.write(string.format("non-200 responses: %d; errors: connect %d read %d write %d timeout %d\n",
    bad, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
  io.write(string.format("latency p50 %.2f ms, p99 %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
LUA
run_wrk() { # URL
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/post.lua" "$1" |
    grep -E "Requests/sec|Transfer|non-200|latency p|Socket errors" || true
}
./build/release/bench/null_extender --address 127.0.0.1 --port 0 >"$work/null.port" & null_pid=$!
wait_for 10 test -s "$work/null.port"
echo "null extender (the floor):"
run_wrk "http://127.0.0.1:$(cat "$work/null.port")/filter"
kill "$null_pid"; null_pid=""

echo "headroom-extender:"
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
echo "resident memory before: $(rss)"
for round in 1 2; do
  run_wrk "http://127.0.0.1:$http/filter"
  echo "resident memory after round $round: $(rss)"
done
