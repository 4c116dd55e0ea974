#!/usr/bin/env bash
# Local end-to-end suite for headroom-extender behind a real kube-scheduler and kube-apiserver
# (v1.34, built from the Go module proxy by scripts/k8s-deps.sh) on a real etcd (Debian
# trixie's 3.5). Nodes are Node objects with allocatable resources and no kubelet: scheduling
# (binding) is what is tested here. Node reports, which headroom-nri sends in a cluster, are
# sent with `headroom report`. Everything listens on 127.0.0.1 and lives in a scratch
# directory; only processes this script started are stopped, by PID.
# Usage: e2e/local/scheduler-suite.sh BUILD_DIR   (holds extender/headroom-extender, cli/headroom)
# Exit 0 when every check passes; HEADROOM_E2E_KEEP=1 keeps the logs of a passing run;
# HEADROOM_E2E_EXTENDER_ARGS adds flags to headroom-extender (e.g. --placement-ttl=1ms, which
# must make the placement checks fail).
set -euo pipefail

source "$(dirname "$0")/suite-lib.sh"
suite_paths scheduler-suite "${1:?usage: scheduler-suite.sh BUILD_DIR}"
require_tools etcd openssl curl python3 "$k8s_bin/kube-apiserver" "$k8s_bin/kube-scheduler" "$k8s_bin/kubectl" \
  "$extender_bin" "$headroom_bin"

work=$(mktemp -d /tmp/headroom-sched-e2e.XXXXXX)
pids=()
extender_pid=""
failures=0

cleanup() {
  set +e
  stop_pid "$extender_pid"
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}"; done
  remove_memory_cgroup "${memcg:-}"
  finish_work
}
trap cleanup EXIT

source "$repo/e2e/local/cluster-lib.sh"
node_of() { kubectl_ -n e2e get pod "$1" -o jsonpath='{.spec.nodeName}'; }
bound() { [[ -n $(node_of "$1") ]]; }

sched_port=$(free_port); http_port=$(free_port); grpc_port=$(free_port)
start_control_plane
pass "kube-apiserver $("$k8s_bin/kube-apiserver" --version | awk '{print $2}') ready on etcd $(etcd --version | awk '/etcd Version/ {print $3}')"

# --- headroom-extender, then a kube-scheduler whose profile calls it. The extender runs
# inside a memory cgroup at deploy/'s limit (512 MiB), so the floods below would be what they
# are in a cluster if they took too much: an OOM kill, which the end of the suite looks for.
memcg=$(memory_cgroup "headroom-scheduler-$$" $((512 << 20)))
start_extender() { # [EXTRA_FLAGS...]
  in_cgroup "$memcg" "$extender_bin" --http-address "127.0.0.1:$http_port" --grpc-address "127.0.0.1:$grpc_port" \
    --kubeconfig "$work/admin.kubeconfig" --state-dir "$work/extender-state" --log-level debug \
    --cordon-min-duration=5s \
    ${HEADROOM_E2E_EXTENDER_ARGS:-} "$@" \
    >>"$work/extender.log" 2>&1 &
  extender_pid=$!
  wait_for 20 curl -sf "http://127.0.0.1:$http_port/healthz"
}
mkdir -p "$work/extender-state"
start_extender || die "headroom-extender did not start (see $work/extender.log)"
watch_synced() { curl -sf "http://127.0.0.1:$http_port/metrics" | grep -q '^headroom_extender_pod_watch_synced 1'; }
wait_for 20 watch_synced && pass "extender watches bound pods through the apiserver" || fail "extender pod watch did not sync"

# The KubeSchedulerConfiguration shipped in deploy/ (the headroom-scheduler ConfigMap), with
# only what differs outside a cluster replaced: the API connection, no leader election, and
# the extender's address.
deploy_scheduler_config "http://127.0.0.1:$http_port" "$work/scheduler.yaml" || die "reading deploy/'s scheduler configuration"
"$k8s_bin/kube-scheduler" --config "$work/scheduler.yaml" --bind-address 127.0.0.1 --secure-port "$sched_port" \
  >"$work/kube-scheduler.log" 2>&1 &
pids+=($!)
wait_for 60 curl -skf "https://127.0.0.1:$sched_port/healthz" || die "kube-scheduler not healthy (see $work/kube-scheduler.log)"
pass "kube-scheduler running with deploy/'s configuration (profile headroom-scheduler, extender ignorable)"

# --- every manifest in deploy/ is valid: client-side, then against this apiserver's schemas
#     and admission (the namespace is created for real so namespaced objects can be checked).
if deploy_yaml >/dev/null &&
  kubectl_ apply --dry-run=client -f "$work/deploy.yaml" >"$work/dry-run-client.log" 2>&1 &&
  kubectl_ apply -f "$repo/deploy/namespace.yaml" >/dev/null &&
  kubectl_ apply --dry-run=server -f "$work/deploy.yaml" >"$work/dry-run-server.log" 2>&1; then
  pass "deploy/: $(grep -c '^kind:' "$work/deploy.yaml") objects pass kubectl apply --dry-run=client and =server"
else
  fail "deploy/ manifests do not validate: $(tail -3 "$work"/dry-run-*.log 2>/dev/null)"
fi

# --- the Helm chart (deploy/helm/headroom, generated from deploy/): its render with the
#     defaults and one with every option changed, against this apiserver's schemas and
#     admission. scripts/helm-deps.sh builds helm.
helm_bin=${HELM:-$cache/bin/helm}
chart_options=actuation.dryRun=true,scheduling.cordonTaint=true,policy.allowBelowDeclared=true,policy.hpaScaledResources=resize,statusApi=false,scheduling.scoring=pack
if [[ ! -x $helm_bin ]]; then
  fail "no helm at $helm_bin (scripts/helm-deps.sh)"
elif "$helm_bin" template headroom "$repo/deploy/helm/headroom" -n headroom-system --kube-version "${HEADROOM_K8S_VERSION:-v1.34.3}" >"$work/helm-default.yaml" 2>"$work/helm.log" &&
  "$helm_bin" template headroom "$repo/deploy/helm/headroom" -n headroom-system --kube-version "${HEADROOM_K8S_VERSION:-v1.34.3}" --set "$chart_options" >"$work/helm-options.yaml" 2>>"$work/helm.log" &&
  kubectl_ apply --dry-run=server -f "$work/helm-default.yaml" >"$work/helm-dry-run.log" 2>&1 &&
  kubectl_ apply --dry-run=server -f "$work/helm-options.yaml" >>"$work/helm-dry-run.log" 2>&1 &&
  grep -q 'cordon-taint: true' "$work/helm-options.yaml" && grep -q -- '- --dry-run' "$work/helm-options.yaml"; then
  pass "helm chart: $(grep -c '^kind:' "$work/helm-default.yaml") objects (defaults) and a render with $chart_options pass kubectl apply --dry-run=server"
else
  fail "helm chart renders do not validate: $(tail -3 "$work/helm.log" "$work/helm-dry-run.log" 2>/dev/null)"
fi

# --- four nodes, each 4 CPU / 8 GiB / 110 pods, as kube-scheduler sees them
create_nodes 4 8Gi node-full node-hot node-c node-d || die "creating nodes"
kubectl_ create namespace e2e >/dev/null

# --- node reports, as headroom-nri sends them: each with the projected ServiceAccount token
#  of a headroom-nri pod on its node (--report-auth=token, the default). The extender checks
#  each token with a TokenReview and each reported pod against its pod watch.
#  node-full: one pod at base 3600m + headroom 400m: nothing more fits its projection;
#  node-hot: empty but load1 8 on 4 CPUs: load-cordoned;
#  node-c, node-d: empty. node-full's pod also teaches the extender that workload
#  e2e/StatefulSet/big runs at base 2500m, peak 3000m (its pods declare only 100m), observed
#  for 30 h (past the warm-up).
api_nodes() { curl -sf "http://127.0.0.1:$http_port/metrics" | grep -q '^headroom_extender_api_nodes 4$'; }
wait_for 20 api_nodes && pass "extender learned the 4 nodes' allocatable from the node watch" || fail "node watch did not report 4 nodes"
kubectl_ -n headroom-system create serviceaccount headroom-nri >/dev/null 2>&1 || true
kubectl_ -n e2e create serviceaccount default >/dev/null 2>&1 || true
bound_pod() { # NAMESPACE NAME NODE [OWNER_STATEFULSET]: a pod bound to NODE (no kubelet runs it)
  local account=default owner=""
  [[ $1 == headroom-system ]] && account=headroom-nri
  [[ -n ${4:-} ]] && owner="  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: $4, uid: 00000000-0000-0000-0000-0000000000b1, controller: true}]"
  kubectl_ -n "$1" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $2
  namespace: $1
$owner
spec:
  nodeName: $3
  serviceAccountName: $account
  containers:
  - name: app
    image: busybox:local
EOF
}
for node in node-full node-hot node-c node-d; do
  bound_pod headroom-system "headroom-nri-$node" "$node" &&
    kubectl_ -n headroom-system create token headroom-nri --audience headroom-extender --duration 1h \
      --bound-object-kind Pod --bound-object-name "headroom-nri-$node" >"$work/token-$node" ||
    die "a projected token for headroom-nri on $node"
done
bound_pod e2e resident node-full big || die "creating pod resident"
uid_of() { kubectl_ -n e2e get pod "$1" -o jsonpath='{.metadata.uid}'; }
metric() { metric_at "$http_port" "$1"; }
# The extender must have seen the 5 pods bound before their reports can be checked.
seen_bound() { [[ $(metric headroom_extender_pod_watch_placements_total) -ge $1 ]]; }
wait_for 20 seen_bound 5 || fail "the extender did not see the bound pods"
report() { # NODE LOAD1 PODS_JSON [TOKEN_FILE]: the node's headroom-nri pod is reported too
  local pods nri
  nri=$(printf '{"namespace":"headroom-system","name":"headroom-nri-%s","uid":"%s","requests":{"cpuMillis":"0","memoryBytes":"0"},"containers":[]}' "$1" "$(kubectl_ -n headroom-system get pod "headroom-nri-$1" -o jsonpath='{.metadata.uid}')")
  if [[ $3 == '[]' ]]; then pods="[$nri]"; else pods="[$nri,${3#[}"; fi
  printf '{"node":"%s","allocatable":{"cpuMillis":"4000","memoryBytes":"8589934592"},"maxPods":110,"load1":%s,"cpus":4,"pods":%s}\n' "$1" "$2" "$pods" >"$work/report-$1.json"
  "$headroom_bin" report --extender "127.0.0.1:$grpc_port" --input "$work/report-$1.json" \
    --token-file "${4:-$work/token-$1}" >>"$work/report.log" 2>&1
}
resident_json() { # CPU_REQUEST_MILLIS CONTAINERS_JSON
  printf '[{"namespace":"e2e","name":"resident","uid":"%s","workloadKey":"e2e/StatefulSet/big","requests":{"cpuMillis":"%s","memoryBytes":"134217728"},"containers":%s}]' "$(uid_of resident)" "$1" "$2"
}
send_reports() {
  report node-full 0.5 "$(resident_json 100 '[{"name":"app","historySeconds":"108000","cpu":{"baseMillis":"2500","peakMillis":"3000"},"memory":{"baseBytes":"268435456","peakBytes":"402653184"}},{"name":"sidecar","historySeconds":"108000","cpu":{"baseMillis":"1100","peakMillis":"1500"},"memory":{"baseBytes":"67108864","peakBytes":"67108864"}}]')" &&
    report node-hot 8 '[]' && report node-c 0.2 '[]' && report node-d 0.2 '[]'
}
send_reports || die "sending node reports (see $work/report.log)"
pass "four node reports accepted over gRPC, each with its node's projected token"
[[ $(metric headroom_extender_unverified_pods_total) == 0 ]] && pass "every reported pod matched the API (name, UID, node, workload)" ||
  fail "reported pods not confirmed by the API: $(grep -m1 'not confirmed' "$work/extender.log")"

# Forged reports: another node's token, no token, a token for another audience.
if ! report node-c 0.2 '[]' "$work/token-node-d" && grep -q 'a token of node node-d may not report node node-c' "$work/report.log"; then
  pass "a report for node-c with node-d's token is refused"
else
  fail "node-d's token reported node-c"
fi
printf '{"node":"node-c","allocatable":{"cpuMillis":"4000","memoryBytes":"8589934592"},"pods":[]}\n' >"$work/report-bare.json"
if "$headroom_bin" report --extender "127.0.0.1:$grpc_port" --input "$work/report-bare.json" >>"$work/report.log" 2>&1; then
  fail "a report without a token was accepted"
else
  pass "a report without a token is refused"
fi
if kubectl_ -n headroom-system create token headroom-nri --audience other --bound-object-kind Pod \
  --bound-object-name headroom-nri-node-c >"$work/token-other-audience" &&
  ! report node-c 0.2 '[]' "$work/token-other-audience"; then
  pass "a token for another audience is refused"
else
  fail "a token for another audience reported node-c"
fi
[[ $(metric 'headroom_extender_reports_total{outcome="forbidden"}') -ge 1 && $(metric 'headroom_extender_reports_total{outcome="unauthenticated"}') -ge 2 ]] &&
  pass "refusals are counted (headroom_extender_reports_total by outcome)" || fail "refused reports not counted"

# A flood of random bearer tokens from one client: each new token would cost a TokenReview at
# the API server and a warning line. The extender reviews a few (5, then 1 a second, per
# address), refuses the rest unasked, logs at most 5 refusals a second, and a node's report
# in the middle of the flood is accepted.
unauthenticated_before=$(metric 'headroom_extender_reports_total{outcome="unauthenticated"}')
refusal_lines_before=$(grep -c 'refused a report' "$work/extender.log" || true)
flood_started=$EPOCHREALTIME
for i in $(seq 1 200); do head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$work/random-token-$i"; done
# /healthz and /filter timed meanwhile, as the kubelet and kube-scheduler see them.
printf '{"Pod":{"metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c"}]}},"NodeNames":["node-a","node-b","node-c"]}' \
  >"$work/filter-3.json"
python3 "$repo/e2e/local/hostile.py" latency 127.0.0.1 "$http_port" 6 "$work/filter-3.json" >"$work/flood-probes.out" &
probes_pid=$!
seq 1 200 | xargs -P 8 -I{} "$headroom_bin" report --extender "127.0.0.1:$grpc_port" \
  --input "$work/report-bare.json" --token-file "$work/random-token-{}" >>"$work/flood.log" 2>&1 &
flood_pid=$!
sleep 1
report node-c 0.2 '[]' && legit=accepted || legit=refused
wait "$flood_pid" || true
# Whole seconds, rounded up: the line budget refills continuously, so a flood of 2.4 s may log
# the burst (20) plus 5 a second over all of 2.4 s, which SECONDS' truncation would call 2 s.
flood_seconds=$(awk -v a="$flood_started" -v b="$EPOCHREALTIME" 'BEGIN {d = b - a; s = int(d); if (s < d) s++; print s}')
wait "$probes_pid" || true
probes=$(cat "$work/flood-probes.out")
probe_field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$probes"; }
probes_ok=$(awk -v h="$(probe_field healthz_p99_ms)" -v f="$(probe_field filter_p99_ms)" \
  -v hf="$(probe_field healthz_failed)" -v ff="$(probe_field filter_failed)" \
  'BEGIN {print (h != "" && h < 500 && f != "" && f < 50 && hf == 0 && ff == 0) ? "yes" : "no"}')
throttled=$(metric 'headroom_extender_reports_total{outcome="throttled"}')
reviewed=$(($(metric 'headroom_extender_reports_total{outcome="unauthenticated"}') - unauthenticated_before))
lines=$(($(grep -c 'refused a report' "$work/extender.log" || true) - refusal_lines_before))
if [[ $legit == accepted && $probes_ok == yes ]] && ((throttled >= 150 && reviewed <= 5 + 2 * flood_seconds && lines <= 20 + 5 * flood_seconds)); then
  pass "200 random tokens from one client in ${flood_seconds} s: $reviewed reviewed by the API server, $throttled refused unasked, $lines log lines; node-c's report in the middle accepted; /healthz p99 $(probe_field healthz_p99_ms) ms, /filter p99 $(probe_field filter_p99_ms) ms meanwhile"
else
  fail "random-token flood: node-c's report $legit, $reviewed reviewed, '$throttled' throttled, $lines log lines in ${flood_seconds} s; probes: $probes"
fi

pod() { # NAME CPU [STATEFULSET]
  local owner=""
  [[ -n ${3:-} ]] && owner="  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: $3, uid: 00000000-0000-0000-0000-0000000000b1, controller: true}]"
  kubectl_ -n e2e apply -f - >/dev/null <<EOF || fail "creating pod $1"
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: e2e
$owner
spec:
  schedulerName: headroom-scheduler
  containers:
  - name: app
    image: busybox:local
    resources: {requests: {cpu: $2, memory: 64Mi}}
EOF
}

# 0. The node the extender prefers wins: node-c runs 2 CPUs at base (declared 100m, so
#    kube-scheduler alone sees both nodes empty); under spread the pod goes to node-d.
bound_pod e2e busy node-c || fail "creating pod busy"
report node-c 0.2 '[{"namespace":"e2e","name":"busy","uid":"'"$(uid_of busy)"'","requests":{"cpuMillis":"100","memoryBytes":"67108864"},"containers":[{"name":"app","historySeconds":"108000","cpu":{"baseMillis":"2000","peakMillis":"2200"},"memory":{"baseBytes":"67108864","peakBytes":"67108864"}}]}]' ||
  fail "re-sending node-c's report"
pod first 100m
wait_for 30 bound first || fail "pod first was not scheduled"
[[ $(node_of first) == node-d ]] && pass "pod first went to node-d, the node the extender scores highest" ||
  fail "pod first went to '$(node_of first)', not node-d"
kubectl_ -n e2e delete pod first busy --force --grace-period=0 >/dev/null 2>&1
report node-c 0.2 '[]' || fail "re-sending node-c's report"

# 1. Small pods land only where the extender allows, the empty nodes first (spread).
for i in 1 2 3 4; do pod "small-$i" 100m; done
for i in 1 2 3 4; do wait_for 30 bound "small-$i" || fail "small-$i was not scheduled"; done
placed=$(for i in 1 2 3 4; do node_of "small-$i"; echo; done | sort | uniq -c | tr -s ' ' | tr '\n' ';')
if ! grep -q 'node-full\|node-hot' <<<"$placed" && [[ $(grep -o node- <<<"$placed" | wc -l) == 2 ]]; then
  pass "4 small pods avoided the full and the load-cordoned node ($placed)"
else
  fail "small pods placed on rejected nodes: $placed"
fi
reason=$(grep -m1 -o 'node-full rejected: .*' "$work/extender.log" || true)
[[ $reason == *"projected cpu"* ]] && pass "extender logged why: $reason" || fail "no projected-fit rejection of node-full in the extender log"
reason=$(grep -m1 -o 'node-hot rejected: .*' "$work/extender.log" || true)
[[ $reason == *"cordoned for load"* ]] && pass "extender logged why: $reason" || fail "no load-cordon rejection of node-hot in the extender log"
# No kubelet confirms a graceful deletion here, so delete at once.
kubectl_ -n e2e delete pod small-1 small-2 small-3 small-4 --force --grace-period=0 >/dev/null 2>&1
wait_for 30 sh -c "! curl -sf http://127.0.0.1:$http_port/metrics | grep -q '^headroom_extender_pending_placements [1-9]'" ||
  fail "placements of deleted pods were not forgotten"

# 2. Placements between reports count: "big" pods declare 100m but their workload runs at
#    2500m + 500m headroom, so one fits on each empty node and a third nowhere, although
#    kube-scheduler alone would put all three anywhere.
seen_before=$(metric headroom_extender_pod_watch_placements_total)
for i in 1 2 3; do
  pod "big-$i" 100m big
  wait_for 30 bound "big-$i" || [[ $i == 3 ]] || fail "big-$i was not scheduled"
  # The extender learns of the binding through its watch; let it before the next pod comes.
  [[ $i == 3 ]] || wait_for 10 seen_bound $((seen_before + i)) || fail "the extender did not see big-$i bound"
done
n1=$(node_of big-1); n2=$(node_of big-2); n3=$(node_of big-3)
if [[ -n $n1 && -n $n2 && $n1 != "$n2" && $n1$n2 != *node-full* && $n1$n2 != *node-hot* ]]; then
  pass "two big pods went to the two empty nodes ($n1, $n2): the first one's placement counted"
else
  fail "big pods: big-1 on '$n1', big-2 on '$n2'"
fi
sleep 3
if [[ -z $(node_of big-3) ]]; then
  pass "a third big pod stays pending: no node's projection has room"
else
  fail "big-3 was placed on $(node_of big-3) though no node has room"
fi
msg=$(kubectl_ -n e2e get events --field-selector involvedObject.name=big-3,reason=FailedScheduling -o jsonpath='{.items[*].message}' 2>/dev/null)
[[ $msg == *"projected cpu"* && $msg == *"cordoned for load"* ]] && pass "big-3's FailedScheduling event explains it: ${msg:0:160}" || fail "no FailedScheduling event for big-3"

# 3. Restart keeps workload statistics: the extender comes back from its checkpoint and still
#    sizes "big" at 2500m, so big-4 is refused everywhere even before any report.
kill "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
extender_pid=""
[[ -s $work/extender-state/workloads.json ]] && grep -q 'e2e/StatefulSet/big' "$work/extender-state/workloads.json" &&
  pass "extender checkpointed workload statistics at shutdown" || fail "no workload checkpoint"
start_extender || die "headroom-extender did not restart"
grep -q "loaded statistics of [1-9][0-9]* workload containers" "$work/extender.log" && pass "restarted extender loaded the checkpoint" || fail "restarted extender did not load its checkpoint"
# Not ready until every API node has reported again (or --ready-after): a restarted extender
# knows no node's load or footprint, and must not say it does.
readyz() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/readyz"; }
ready_before=$(readyz)
# Reports sampled before big-1 and big-2 started: they do not list them. The restarted
# extender must still count both on their nodes -- it saw them bound at its first list -- so
# a node with room for one big pod does not take a second one.
report "$n1" 0.2 '[]' && report "$n2" 0.2 '[]' &&
  report node-full 0.5 "$(resident_json 3600 '[]')" &&
  report node-hot 8 '[]' || fail "re-sending reports"
ready_now() { [[ $(readyz) == 200 ]]; }
[[ $ready_before == 503 ]] && wait_for 10 ready_now &&
  pass "after restart /readyz answered 503 until all four nodes had reported again, then 200" ||
  fail "/readyz after restart: $ready_before before the reports, $(readyz) after"
pod big-4 100m big
pod small-5 100m
wait_for 30 bound small-5 || fail "small-5 was not scheduled after the extender restarted"
sleep 2
[[ -n $(node_of small-5) && -z $(node_of big-4) ]] && pass "after restart, big-4 stays pending: sized from the checkpointed statistics, and big-1/big-2 count on their nodes though no report lists them yet" ||
  fail "big-4 placed on $(node_of big-4) after restart: statistics or bound pods lost"

# 4. A load-cordoned node is readmitted once its load drops below 0.9 and it has been
#    cordoned for --cordon-min-duration (5 s here, 2 min by default). node-hot is the only node
#    with room for another big pod.
report node-hot 0.2 '[]' || fail "re-sending node-hot's report"
sleep 6
pod big-5 100m big
if wait_for 30 bound big-5 && [[ $(node_of big-5) == node-hot ]]; then
  pass "node-hot, readmitted after its load dropped, took big-5"
else
  fail "big-5 on '$(node_of big-5)', expected node-hot after its load dropped"
fi

# 4b. The load cordon as a taint (--cordon-taint): a load-cordoned node carries headroom's
#     NoSchedule taint, so a scheduler that never calls the extender (here a second
#     kube-scheduler with the default profile) keeps off it too; the taint goes on release and
#     at shutdown, and a taint of headroom's key that someone else set is never touched.
taints_of() { kubectl_ get node "$1" -o jsonpath='{range .spec.taints[*]}{.key}={.value}:{.effect} {end}'; }
has_our_taint() { [[ $(taints_of "$1") == *"headroom.dev/load-cordon=load:NoSchedule"* ]]; }
no_our_taint() { ! has_our_taint "$1"; }
kubectl_ taint node node-full headroom.dev/load-cordon=manual:PreferNoSchedule >/dev/null || fail "tainting node-full by hand"
kill "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
extender_pid=""
start_extender --cordon-taint || die "headroom-extender did not start with --cordon-taint"
report node-hot 8 '[]' && report node-full 0.5 "$(resident_json 3600 '[]')" || fail "re-sending reports"
if wait_for 20 has_our_taint node-hot; then
  pass "load-cordoned node-hot tainted: $(taints_of node-hot)"
else
  fail "node-hot not tainted: '$(taints_of node-hot)' ($(grep -m1 'cordon taint' "$work/extender.log"))"
fi
default_port=$(free_port)
"$k8s_bin/kube-scheduler" --kubeconfig "$work/admin.kubeconfig" --leader-elect=false \
  --bind-address 127.0.0.1 --secure-port "$default_port" >"$work/default-scheduler.log" 2>&1 &
pids+=($!)
wait_for 60 curl -skf "https://127.0.0.1:$default_port/healthz" || fail "default kube-scheduler not healthy"
kubectl_ -n e2e apply -f - >/dev/null <<EOF || fail "creating pod plain"
apiVersion: v1
kind: Pod
metadata: {name: plain, namespace: e2e}
spec:
  nodeSelector: {kubernetes.io/hostname: node-hot}
  containers: [{name: app, image: busybox:local, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
EOF
sleep 3
[[ -z $(node_of plain) ]] && pass "the default scheduler keeps a pod off the tainted node-hot" ||
  fail "the default scheduler bound plain to $(node_of plain) despite the taint"
[[ $(taints_of node-full) == *"headroom.dev/load-cordon=manual:PreferNoSchedule"* ]] && no_our_taint node-full &&
  no_our_taint node-c && no_our_taint node-d &&
  pass "nodes that are not load-cordoned carry no headroom taint; the key set by hand on node-full is left alone" ||
  fail "taints: node-full '$(taints_of node-full)', node-c '$(taints_of node-c)', node-d '$(taints_of node-d)'"
report node-hot 0.2 '[]' || fail "re-sending node-hot's report"
wait_for 20 no_our_taint node-hot && pass "node-hot's taint removed once its load cordon was released" ||
  fail "node-hot still tainted after release: $(taints_of node-hot)"
wait_for 30 bound plain && [[ $(node_of plain) == node-hot ]] &&
  pass "the default scheduler then placed plain on node-hot" || fail "plain on '$(node_of plain)' after the release"
report node-hot 8 '[]' || fail "re-sending node-hot's report"
wait_for 20 has_our_taint node-hot || fail "node-hot not tainted again"
kill -TERM "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
extender_pid=""
no_our_taint node-hot && pass "SIGTERM: the extender removed its taint before exiting (fail open)" ||
  fail "node-hot still tainted after the extender stopped: $(taints_of node-hot)"
start_extender || die "headroom-extender did not restart"

# 5. The extender down with ignorable: true does not stop scheduling.
kill "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
extender_pid=""
pod after-outage 100m
if wait_for 40 bound after-outage; then pass "with the extender down, kube-scheduler still placed a pod (ignorable: true) on $(node_of after-outage)"; else fail "scheduling stopped with the extender down"; fi

# 6. /repack is served on HTTPS only to callers the API server authorizes for the
#    non-resource URL /repack (TokenReview, then SubjectAccessReview), with real RBAC.
extender_certificate || die "making the extender's certificate"
repack_port=$(free_port); repack_grpc=$(free_port)
"$extender_bin" --http-address "127.0.0.1:$repack_port" --grpc-address "127.0.0.1:$repack_grpc" \
  --kubeconfig "$work/admin.kubeconfig" --tls-cert-file "$work/extender.crt" --tls-key-file "$work/extender.key" \
  --repack-api --report-auth=insecure >>"$work/extender-repack.log" 2>&1 &
repack_pid=$!
pids+=("$repack_pid")
wait_for 20 curl -sf --cacert "$work/ca.crt" "https://127.0.0.1:$repack_port/healthz" || fail "the /repack extender did not start"
kubectl_ -n e2e create serviceaccount planner >/dev/null 2>&1 || true
planner_token=$(kubectl_ -n e2e create token planner --duration 1h)
cluster='{"nodes":[{"name":"a","cpu":"4","memory":"4Gi"},{"name":"b","cpu":"4","memory":"4Gi"}],"pods":[{"name":"p1","cpu":"100m","memory":"2Gi","node":"a"},{"name":"p2","cpu":"100m","memory":"2Gi","node":"b"},{"name":"p3","cpu":"100m","memory":"3Gi"}]}'
repack_status() { # [TOKEN]
  curl -s -o "$work/repack.out" -w '%{http_code}' --cacert "$work/ca.crt" -X POST --data "$cluster" \
    ${1:+-H "Authorization: Bearer $1"} "https://127.0.0.1:$repack_port/repack?timeout=2s"
}
no_token=$(repack_status); bad_token=$(repack_status "not-a-token"); unbound=$(repack_status "$planner_token")
kubectl_ apply -f - >/dev/null <<'RBAC'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: headroom-repack}
rules: [{nonResourceURLs: ["/repack"], verbs: ["post"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: headroom-repack-planner}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: headroom-repack}
subjects: [{kind: ServiceAccount, name: planner, namespace: e2e}]
RBAC
granted() { [[ $(repack_status "$planner_token") == 200 ]]; }
if [[ $no_token == 401 && $bad_token == 401 && $unbound == 403 ]] && wait_for 20 granted &&
  grep -q '"placedAfter":3' "$work/repack.out"; then
  pass "/repack: 401 without a token or with a forged one, 403 for a ServiceAccount without the RBAC grant, 200 with a plan once granted post on /repack"
else
  fail "/repack authorization: no token $no_token, forged $bad_token, not granted $unbound, granted $(repack_status "$planner_token"): $(head -c 200 "$work/repack.out")"
fi
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data "$cluster" "http://127.0.0.1:$repack_port/repack" || true)
[[ $code != 200 ]] && pass "/repack is not answered over plain HTTP on the HTTPS listener (curl: $code)" ||
  fail "/repack answered over plain HTTP"
kill "$repack_pid"; wait "$repack_pid" 2>/dev/null || true

# 7. headroom preflight on this cluster: every check passes once the set-up is complete, and
#    each that can be broken here fails (or, where it is a matter of degree, warns) with its fix
#    when it is. (The release and
#    pods/resize checks cannot be broken on a real 1.34+ apiserver; unit tests cover them.)
start_extender || die "headroom-extender did not restart for preflight"
kubectl_ -n headroom-system apply -f "$repo/deploy/extender/rbac.yaml" >/dev/null || fail "applying deploy/extender/rbac.yaml"
# deploy/'s webhook, pointed at a closed port: preflight reads its configuration, and with
# failurePolicy Ignore pods are still created while nothing answers it.
deploy_webhook_config "https://127.0.0.1:$(free_port)/admission/pods" "$work/ca.crt" "$work/webhook.yaml" &&
  kubectl_ apply -f "$work/webhook.yaml" >/dev/null || fail "installing deploy/'s webhook configuration"
# Ready once every node has reported again; then a pod of headroom-scheduler's (the nodes are
# full by now: it stays pending, but the scheduler has asked the extender).
send_reports || fail "re-sending the node reports (see $work/report.log)"
extender_ready() { [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/readyz") == 200 ]]; }
wait_for 30 extender_ready || fail "the restarted extender never became ready: $(curl -s "http://127.0.0.1:$http_port/readyz")"
pod preflight-probe 100m
filtered() { [[ $(metric 'headroom_extender_requests_total{code="200",verb="filter"}') -ge 1 ]]; }
wait_for 40 filtered || fail "kube-scheduler never asked the extender about preflight-probe"
preflight() { # [FLAGS]: runs headroom preflight, JSON in $work/preflight.json, table in preflight.txt; its exit code
  "$headroom_bin" preflight --kubeconfig "$work/admin.kubeconfig" --extender-url "http://127.0.0.1:$http_port" "$@" --output json >"$work/preflight.json" 2>>"$work/preflight.err"
  local rc=$?
  "$headroom_bin" preflight --kubeconfig "$work/admin.kubeconfig" --extender-url "http://127.0.0.1:$http_port" "$@" >"$work/preflight.txt" 2>>"$work/preflight.err"
  return $rc
}
check() { # NAME [FIELD]: that check's result (or FIELD) in the last run
  python3 -c 'import json,sys; print(" ".join(c[sys.argv[3]] for c in json.load(open(sys.argv[1]))["checks"] if c["name"]==sys.argv[2]))' "$work/preflight.json" "$1" "${2:-result}" 2>/dev/null
}
results() { python3 -c 'import json,sys; print(" ".join(c["name"]+"="+c["result"] for c in json.load(open(sys.argv[1]))["checks"]))' "$work/preflight.json" 2>/dev/null; }
if preflight && [[ $(results) == "kubernetes-version=ok in-place-resize=ok extender-rbac=ok admission-webhook=ok extender=ok node-reports=ok scheduler-profile=ok" ]]; then
  pass "headroom preflight: all 7 checks ok, exit 0 ($(check node-reports detail); $(check scheduler-profile detail))"
else
  fail "headroom preflight on the complete set-up: $(results), exit $? ($(cat "$work/preflight.txt" | head -20))"
fi
broken() { # WHAT CHECK WANT MUST_MENTION: after breaking WHAT, CHECK is WANT with a fix, its detail names MUST_MENTION
  local rc=0
  preflight || rc=$?
  if [[ $(check "$2") == "$3" && -n $(check "$2" fix) && $(check "$2" detail) == *"$4"* ]] &&
     { [[ $3 != fail ]] || ((rc == 1)); }; then
    pass "preflight with $1: $2 $3 (exit $rc): $(check "$2" detail | cut -c1-120); fix: $(check "$2" fix | cut -c1-100)"
  else
    fail "preflight with $1: $2 is '$(check "$2")' (want $3 naming '$4'), exit $rc: $(check "$2" detail)"
  fi
}
kubectl_ delete clusterrolebinding headroom-extender >/dev/null
broken "the extender's ClusterRoleBinding deleted" extender-rbac fail "patch pods/resize"
kubectl_ -n headroom-system apply -f "$repo/deploy/extender/rbac.yaml" >/dev/null
kubectl_ patch mutatingwebhookconfiguration headroom --type json -p '[{"op":"remove","path":"/webhooks/0/clientConfig/caBundle"}]' >/dev/null
broken "the webhook's caBundle removed" admission-webhook fail "no caBundle"
kubectl_ apply -f "$work/webhook.yaml" >/dev/null
kubectl_ patch mutatingwebhookconfiguration headroom --type json -p '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Fail"}]' >/dev/null
broken "the webhook's failurePolicy set to Fail" admission-webhook fail "failurePolicy Fail"
kubectl_ delete -f "$work/webhook.yaml" >/dev/null
broken "no webhook configuration" admission-webhook warn "no mutating webhook"
create_nodes 4 8Gi node-silent || fail "creating node-silent"
broken "a node headroom-nri does not report" node-reports warn "no fresh report from node-silent"
kubectl_ delete node node-silent >/dev/null
kill "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
extender_pid=""
start_extender || die "headroom-extender did not restart"
broken "a restarted extender no scheduler has called yet" scheduler-profile warn "no kube-scheduler"
broken "a restarted extender no node has reported to yet" node-reports fail "0 of 4 schedulable nodes report"
kill "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
extender_pid=""
broken "the extender down" extender fail "cannot reach"

oom_kills=$(cgroup_oom_kills "$memcg")
[[ $oom_kills == 0 ]] && pass "headroom-extender inside its 512 MiB memory cgroup: no OOM kill in the whole suite (cgroup peak $(( $(cgroup_peak_bytes "$memcg") >> 20 )) MiB)" \
  || fail "headroom-extender inside its 512 MiB memory cgroup: $oom_kills OOM kills"

echo "scheduler-suite: $((failures)) failure(s)"
exit $((failures > 0))
