#!/usr/bin/env bash
# The status page and API of headroom-extender in a real headless browser (Debian's chromium),
# and `headroom status` / `headroom explain` against the same release extender. Three nodes
# report over gRPC (`headroom report`): node-a runs two replicas of shop/Deployment/web and
# shop/StatefulSet/cache, whose redis was OOM-killed at 384Mi; node-b a third web replica, a
# shop/Job/batch pod and kube-system's dns (an excluded namespace); node-c is load-cordoned
# (load1 12 on 8 CPUs). Checks that the page loads, shows these numbers, and logs nothing to
# the console (a script error, a CSP violation or a failed load would). Everything on
# 127.0.0.1; only processes this script started are stopped, by PID.
# Usage: e2e/local/ui-suite.sh BUILD_DIR
# HEADROOM_UI_DOCS_DIR=DIR also writes the screenshot and the explain outputs there (docs/).
set -euo pipefail

source "$(dirname "$0")/suite-lib.sh"
suite_paths ui-suite "${1:?usage: ui-suite.sh BUILD_DIR}"
require_tools chromium curl python3 "$extender_bin" "$headroom_bin"

work=$(mktemp -d /tmp/headroom-ui-e2e.XXXXXX)
failures=0
extender_pid=""
cleanup() {
  set +e
  stop_pid "$extender_pid"
  finish_work
}
trap cleanup EXIT

http_port=$(free_port); grpc_port=$(free_port)
"$extender_bin" --http-address "127.0.0.1:$http_port" --grpc-address "127.0.0.1:$grpc_port" \
  --report-auth=insecure --allow-below-declared --status-sample-interval=1s >"$work/extender.log" 2>&1 &
extender_pid=$!
wait_for 20 curl -sf "http://127.0.0.1:$http_port/healthz" || die "headroom-extender did not start (see $work/extender.log)"

# --- node reports (the JSON form of proto/headroom/v1/report.proto)
h=108000  # 30 h of history: past the 24 h warm-up
web='{"name":"app","historySeconds":"'$h'","cpu":{"baseMillis":"300","peakMillis":"450","dailyBaseMillis":"320","dailyPeakMillis":"500"},"memory":{"baseBytes":"209715200","peakBytes":"251658240","max7dBytes":"268435456"},"requests":{"cpuMillis":"1000","memoryBytes":"1073741824"},"limits":{"memoryBytes":"2147483648"}}'
cache='{"name":"redis","historySeconds":"'$h'","cpu":{"baseMillis":"100","peakMillis":"150"},"memory":{"baseBytes":"314572800","peakBytes":"367001600","max7dBytes":"419430400","oomBytes":"402653184"},"requests":{"cpuMillis":"500","memoryBytes":"536870912"},"limits":{"memoryBytes":"536870912"}}'
batch='{"name":"worker","historySeconds":"'$h'","cpu":{"baseMillis":"1500","peakMillis":"2600"},"memory":{"baseBytes":"1073741824","peakBytes":"1610612736","max7dBytes":"1717986918"},"requests":{"cpuMillis":"4000","memoryBytes":"4294967296"},"limits":{"memoryBytes":"4294967296"}}'
dns='{"name":"coredns","historySeconds":"'$h'","cpu":{"baseMillis":"20","peakMillis":"60"},"memory":{"baseBytes":"31457280","peakBytes":"41943040","max7dBytes":"52428800"},"requests":{"cpuMillis":"100","memoryBytes":"73400320"},"limits":{"memoryBytes":"178257920"}}'
pod() { printf '{"namespace":"%s","name":"%s","uid":"uid-%s","workloadKey":"%s","requests":{"cpuMillis":"%s","memoryBytes":"%s"},"containers":[%s]}' "$1" "$2" "$2" "$3" "$4" "$5" "$6"; }
node() { printf '{"node":"%s","allocatable":{"cpuMillis":"8000","memoryBytes":"17179869184"},"maxPods":110,"load1":%s,"cpus":8,"pods":[%s]}\n' "$1" "$2" "$3" >"$work/report-$1.json"; }
node node-a 2.5 "$(pod shop web-7d4b9c-a1 shop/Deployment/web 1000 1073741824 "$web"),$(pod shop web-7d4b9c-a2 shop/Deployment/web 1000 1073741824 "$web"),$(pod shop cache-0 shop/StatefulSet/cache 500 536870912 "$cache")"
node node-b 1.0 "$(pod shop web-7d4b9c-b1 shop/Deployment/web 1000 1073741824 "$web"),$(pod shop batch-x9k2p shop/Job/batch 4000 4294967296 "$batch"),$(pod kube-system coredns-5d78c-q2 kube-system/Deployment/coredns 100 73400320 "$dns")"
node node-c 12 ""
send() { "$headroom_bin" report --extender "127.0.0.1:$grpc_port" --input "$work/report-$1.json" >>"$work/report.log" 2>&1; }
for n in node-a node-b node-c; do send "$n" || die "reporting $n (see $work/report.log)"; done
pass "three node reports accepted"
# A few seconds of history (one sample a second here): a second batch pod comes and goes.
cp "$work/report-node-b.json" "$work/report-node-b.orig"
sleep 3
node node-b 1.0 "$(pod shop web-7d4b9c-b1 shop/Deployment/web 1000 1073741824 "$web"),$(pod shop batch-x9k2p shop/Job/batch 4000 4294967296 "$batch"),$(pod shop batch-m4n7q shop/Job/batch 4000 4294967296 "$batch"),$(pod kube-system coredns-5d78c-q2 kube-system/Deployment/coredns 100 73400320 "$dns")"
send node-b || die "reporting node-b"
sleep 3
cp "$work/report-node-b.orig" "$work/report-node-b.json"
send node-b || die "reporting node-b"
sleep 2

# --- the API
curl -sf "http://127.0.0.1:$http_port/api/v1/status" >"$work/status.json" || die "GET /api/v1/status"
if python3 - "$work/status.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
c = s["cluster"]
assert c["nodes"] == 3 and c["pods"] == 6, c
assert c["declared"]["cpuMillis"] == 7600, c["declared"]
assert abs(c["savings"]["cpu"] - 0.4795) < 0.001, c["savings"]
hot = [n for n in s["nodes"] if n["name"] == "node-c"][0]
assert hot["cordoned"] and "load1 12.00 on 8 CPUs" in hot["cordonReason"], hot
w = {x["key"]: x for x in s["workloads"]}
assert w["shop/Deployment/web"]["replicas"] == 3 and w["shop/Deployment/web"]["recommended"]["cpuMillis"] == 450, w["shop/Deployment/web"]
assert w["shop/StatefulSet/cache"]["oomKilled"], w["shop/StatefulSet/cache"]
assert w["kube-system/Deployment/coredns"]["sizing"] == "namespace kube-system is excluded"
ns = {x["name"]: x for x in s["namespaces"]}
assert sorted(ns) == ["kube-system", "shop"], ns
shop = ns["shop"]
# No Kubernetes API here: the cluster's step. web: 3 x 1000m now, headroom 3 x 450m; cache
# 500m -> 150m; batch 4000m -> 2600m: 1650 + 350 + 1400 = 3400m above headroom's sizing.
assert shop["step"] == "in-place" and shop["stepFrom"] == "cluster default" and shop["nextStep"] is None, shop
assert shop["workloads"] == 3 and shop["pods"] == 5, shop
assert shop["requested"]["cpuMillis"] == 7500 and shop["saves"]["cpuMillis"] == 3400, shop
assert ns["kube-system"]["excluded"] and ns["kube-system"]["saves"]["cpuMillis"] == 0, ns["kube-system"]
# No Kubernetes API: the Set-up panel has nothing to ask and says so.
assert s["setup"]["checks"] == [] and "no Kubernetes API" in s["setup"]["note"], s["setup"]
EOF
then pass "GET /api/v1/status: 3 nodes, 6 pods, CPU 7600m declared, 48% saved, node-c load-cordoned, web sized to 450m; namespace shop in-place, 3400m above headroom's sizing"
else fail "GET /api/v1/status does not show the reported cluster ($work/status.json)"; fi
[[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/api/v1/explain?pod=shop/none") == 404 ]] &&
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/api/v1/explain?pod=x") == 400 ]] &&
  pass "explain: an unknown pod is 404, a malformed name 400" || fail "explain's errors"

# --- the page in a real browser: rendered DOM, console, screenshot
browse() { # OUT_PREFIX FLAGS...: chromium headless on /ui, its stderr kept
  local out=$1; shift
  timeout 90 chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$work/profile-$out" --enable-logging=stderr --v=0 --virtual-time-budget=8000 \
    "$@" "http://127.0.0.1:$http_port/ui" 2>"$work/$out.err"
}
browse dom --dump-dom >"$work/dom.html" || fail "chromium could not load the page (see $work/dom.err)"
browse shot --hide-scrollbars --window-size=1400,1450 --screenshot="$work/status.png" >/dev/null ||
  fail "chromium could not take a screenshot (see $work/shot.err)"
if python3 - "$work/dom.html" <<'EOF'
import html.parser, sys
class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.parts = []; self.rows = {"nodes": 0, "workloads": 0, "namespaces": 0}; self.table = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table": self.table = a.get("id")
        if tag == "tr" and self.table in self.rows: self.rows[self.table] += 1
    def handle_data(self, data): self.parts.append(data)
p = Text(); p.feed(open(sys.argv[1]).read())
text = " ".join(p.parts)
for want in ["CPU saved", "48%", "Memory saved", "3 nodes", "node-c", "load-cordoned: load1 12.00 on 8 CPUs",
             "shop/Deployment/web", "450m / 240Mi", "shop/StatefulSet/cache", "namespace kube-system is excluded"]:
    assert want in text, "missing: " + want
assert p.rows["nodes"] == 4 and p.rows["workloads"] == 5, p.rows  # header + 3 nodes; header + 4 workloads
assert p.rows["namespaces"] == 3, p.rows  # header + shop + kube-system
for want in ["in-place (cluster default)", "at the top", "excluded", "Set-up",
             "no Kubernetes API: nothing to check from here"]:
    assert want in text, "missing: " + want
page = open(sys.argv[1]).read()
assert page.count("<polyline") == 8, page.count("<polyline")  # 4 series in each of 2 charts
EOF
then pass "the page shows the cluster: 48% CPU saved, 3 node rows with node-c load-cordoned, 2 namespaces, 4 workloads, 2 charts of 4 series"
else fail "the rendered page lacks the known numbers ($work/dom.html)"; fi
if grep -h ':CONSOLE' "$work/dom.err" "$work/shot.err" >"$work/console.txt"; then
  fail "the page logged to the console: $(head -3 "$work/console.txt")"
else
  pass "no console messages (no script error, CSP violation or failed load)"
fi
[[ -s $work/status.png ]] && pass "screenshot taken ($(stat -c %s "$work/status.png") bytes)" || fail "no screenshot"

# --- the CLI against the same extender
url="http://127.0.0.1:$http_port"
if "$headroom_bin" status --extender-url "$url" >"$work/status.txt" 2>&1 &&
  grep -q "CPU     declared 7600m -> projected" "$work/status.txt" && grep -q "48% saved" "$work/status.txt" &&
  grep -q "node-c.*load-cordoned" "$work/status.txt"; then
  pass "headroom status prints the savings and the cordoned node"
else
  fail "headroom status: $(head -5 "$work/status.txt")"
fi
explain() { "$headroom_bin" explain "$1" --extender-url "$url" >"$work/explain-$2.txt" 2>&1; }
explain shop/web-7d4b9c-a1 sized && grep -q "headroom would request cpu 450m" "$work/explain-sized.txt" &&
  pass "explain (sized): $(grep -o 'headroom would request [^;]*' "$work/explain-sized.txt")" || fail "explain sized: $(cat "$work/explain-sized.txt")"
explain kube-system/coredns-5d78c-q2 excluded && grep -q "left as declared: namespace kube-system is excluded" "$work/explain-excluded.txt" &&
  pass "explain (excluded): left as declared" || fail "explain excluded: $(cat "$work/explain-excluded.txt")"
explain shop/cache-0 oom && grep -q "OOM-killed at 384Mi" "$work/explain-oom.txt" && grep -q "limit 800Mi" "$work/explain-oom.txt" &&
  pass "explain (OOM-raised): memory limit 512Mi -> 800Mi after the OOM kill at 384Mi" || fail "explain oom: $(cat "$work/explain-oom.txt")"
if "$headroom_bin" explain shop/none --extender-url "$url" >/dev/null 2>&1; then fail "explain of an unknown pod succeeded"; else
  pass "explain of an unknown pod exits non-zero"; fi

if [[ -n ${HEADROOM_UI_DOCS_DIR:-} ]]; then
  mkdir -p "$HEADROOM_UI_DOCS_DIR"
  cp "$work/status.png" "$HEADROOM_UI_DOCS_DIR/status-page.png"
  for f in status explain-sized explain-excluded explain-oom; do cp "$work/$f.txt" "$HEADROOM_UI_DOCS_DIR/$f.txt"; done
fi

echo "ui-suite: $((failures)) failure(s)"
exit $((failures > 0))
