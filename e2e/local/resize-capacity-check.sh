#!/usr/bin/env bash
# What the Kubernetes release under test does with a resize beyond the node's allocatable, and
# what headroom-extender's actuator does about it. From 1.36 kube-apiserver refuses such a resize
# at admission (k/k #136043) instead of accepting it for the kubelet to mark Infeasible. The
# actuator must then ask once and back off (--refused-resize-backoff), not ask every pass.
#
# Real etcd and kube-apiserver of HEADROOM_K8S_VERSION (scripts/k8s-deps.sh; default v1.34.3),
# a Node object whose allocatable is 2 CPUs, a pod bound to it, and headroom-extender with
# --actuate. The node's report (sent with `headroom report`, as headroom-nri would) claims 8
# CPUs, as a stale report of a node whose allocatable shrank would, so the plan grows the pod
# to 3.5 CPUs (its base plus its headroom). No kubelet: the check is the API's answer, not the resize itself.
# - 1.36 and later: the resize is refused once, then backed off (one Event, passes in backoff);
# - earlier: the API accepts it (the pod's spec says 3500m).
# Usage: e2e/local/resize-capacity-check.sh BUILD_DIR   Exit 0 when the checks pass.
set -euo pipefail

source "$(dirname "$0")/suite-lib.sh"
suite_paths resize-capacity-check "${1:?usage: resize-capacity-check.sh BUILD_DIR}"
require_tools etcd openssl curl "$k8s_bin/kube-apiserver" "$k8s_bin/kubectl" "$extender_bin" "$headroom_bin"

work=$(mktemp -d /tmp/headroom-resize-check.XXXXXX)
pids=()
failures=0
cleanup() {
  set +e
  local pid
  for pid in "${pids[@]}"; do stop_pid "$pid"; done
  finish_work
}
trap cleanup EXIT
source "$repo/e2e/local/cluster-lib.sh"

start_control_plane
version=$("$k8s_bin/kube-apiserver" --version | awk '{print $2}')
minor=$(echo "$version" | cut -d. -f2)
pass "kube-apiserver $version ready"
create_nodes 2 4Gi small-node || die "creating the node"
kubectl_ create namespace e2e >/dev/null
kubectl_ apply -f - >/dev/null <<'YAML' || die "creating the pod"
apiVersion: v1
kind: Pod
metadata: {name: grower, namespace: e2e}
spec:
  nodeName: small-node
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {cpu: "1", memory: 256Mi}
      limits: {memory: 512Mi}
YAML

http_port=$(free_port); grpc_port=$(free_port)
"$extender_bin" --http-address "127.0.0.1:$http_port" --grpc-address "127.0.0.1:$grpc_port" \
  --kubeconfig "$work/admin.kubeconfig" --actuate --actuation-interval 1s --refused-resize-backoff 5s \
  --report-auth=insecure --verify-report-pods=false --log-level debug >"$work/extender.log" 2>&1 &
pids+=($!)
wait_for 20 curl -sf "http://127.0.0.1:$http_port/healthz" || die "headroom-extender did not start"
uid=$(kubectl_ -n e2e get pod grower -o jsonpath='{.metadata.uid}')
# Base 3 CPUs, peak 3.5, observed 30 h: the plan grows the request to 3.5 CPUs on a node the
# report says has 8.
printf '{"node":"small-node","allocatable":{"cpuMillis":"8000","memoryBytes":"4294967296"},"maxPods":110,"load1":0.1,"cpus":8,"pods":[{"namespace":"e2e","name":"grower","uid":"%s","workloadKey":"e2e/Pod/grower","requests":{"cpuMillis":"1000","memoryBytes":"268435456"},"containers":[{"name":"app","historySeconds":"108000","cpu":{"baseMillis":"3000","peakMillis":"3500"},"memory":{"baseBytes":"134217728","peakBytes":"201326592","max7dBytes":"201326592"}}]}]}\n' "$uid" >"$work/report.json"
send_report() { "$headroom_bin" report --extender "127.0.0.1:$grpc_port" --input "$work/report.json" >>"$work/report.log" 2>&1; }
send_report || die "sending the report (see $work/report.log)"
count() { local n; n=$(metric_at "$http_port" "headroom_extender_actions_total{action=\"resize\",outcome=\"$1\"}"); echo "${n:-0}"; }
events() { kubectl_ -n e2e get events --field-selector "involvedObject.name=grower,reason=$1" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'; }
acted() { [[ $(count refused) -ge 1 || $(count applied) -ge 1 ]]; }
wait_for 30 acted || die "the actuator never tried the resize (see $work/extender.log)"

if ((minor >= 36)); then
  sleep 3  # three more passes, inside the 5 s backoff
  refused=$(count refused); backoffs=$(count backoff); n_events=$(events ResizeRefused | grep -c . || true)
  [[ $refused == 1 && $(count applied) == 0 && $backoffs -ge 2 && $n_events == 1 ]] &&
    pass "$version refuses a resize beyond the node's allocatable; headroom asked once and backed off: $refused refusal, $backoffs passes in backoff, $n_events Event: $(events ResizeRefused | head -1 | cut -c1-220)" ||
    fail "$version: $refused refusals, $(count applied) applied, $backoffs in backoff, $n_events Events (see $work/extender.log)"
  send_report
  refused_again() { [[ $(count refused) -ge 2 ]]; }
  wait_for 20 refused_again &&
    pass "asked again after the backoff, refused again: $(count refused) refusals, the next backoff 10s ($(grep -o 'not asked again for [0-9a-z]*' "$work/extender.log" | tail -1))" ||
    fail "not asked again after the 5 s backoff ($(count refused) refusals)"
else
  [[ $(count applied) -ge 1 && $(kubectl_ -n e2e get pod grower -o jsonpath='{.spec.containers[0].resources.requests.cpu}') == 3500m ]] &&
    pass "$version accepts a resize beyond the node's allocatable (the kubelet would mark it Infeasible): requests.cpu $(kubectl_ -n e2e get pod grower -o jsonpath='{.spec.containers[0].resources.requests.cpu}')" ||
    fail "$version: expected the resize accepted; $(count applied) applied, $(count refused) refused (see $work/extender.log)"
fi
echo "resize-capacity-check: $failures failure(s)"
exit $((failures > 0))
