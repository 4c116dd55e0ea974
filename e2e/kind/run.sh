#!/usr/bin/env bash
# The headroom scenario suite on a kind cluster, for users with Docker: builds both images,
# creates a cluster with NRI, installs deploy/ and checks that pods schedule through the
# extender, that headroom-nri removes CPU quotas and raises the memory limit of an
# OOM-killed container, that an extender outage does not stop scheduling and that a
# restarted extender keeps its statistics.
# Usage: bash e2e/kind/run.sh          (HEADROOM_KIND_KEEP=1 keeps the cluster)
# Needs: docker, kind (0.27+), kubectl. Exit 0 when every check passes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cluster=${HEADROOM_KIND_CLUSTER:-headroom-e2e}
tag=e2e
failures=0
for tool in docker kind kubectl; do
  command -v "$tool" >/dev/null || { echo "kind suite: needs $tool" >&2; exit 2; }
done
source "$repo/e2e/check-lib.sh"
WAIT_INTERVAL=2
k() { kubectl --context "kind-$cluster" "$@"; }
cleanup() {
  if [[ -z ${HEADROOM_KIND_KEEP:-} ]]; then kind delete cluster --name "$cluster" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

echo "== images"
docker build -q -f "$repo/deploy/images/extender.Dockerfile" -t "headroom-extender:$tag" "$repo"
docker build -q -f "$repo/deploy/images/nri.Dockerfile" -t "headroom-nri:$tag" "$repo"
echo "== cluster"
kind get clusters 2>/dev/null | grep -qx "$cluster" || kind create cluster --name "$cluster" --config "$repo/e2e/kind/kind-config.yaml"
kind load docker-image --name "$cluster" "headroom-extender:$tag" "headroom-nri:$tag"
echo "== install deploy/"
kubectl kustomize "$repo/deploy" |
  sed -e "s#image: headroom-extender:.*#image: headroom-extender:$tag#" -e "s#image: headroom-nri:.*#image: headroom-nri:$tag#" |
  k apply -f - >/dev/null
# The webhook's and the report channel's certificate (no cert-manager in kind).
kubectl config use-context "kind-$cluster" >/dev/null && bash "$repo/scripts/webhook-cert.sh" headroom-system >/dev/null
k -n headroom-system rollout status deploy/headroom-extender deploy/headroom-scheduler ds/headroom-nri --timeout=300s &&
  pass "headroom-extender, headroom-scheduler and headroom-nri are running" || { fail "rollout"; exit 1; }
metrics() { k get --raw /api/v1/namespaces/headroom-system/services/headroom-extender:8888/proxy/metrics; }
reported() { [[ $(metrics | awk '$1 == "headroom_extender_nodes_reported" {print $2}') -ge 3 ]]; }
# headroom-nri reports every 60 s.
wait_for 150 reported && pass "all 3 nodes report to the extender" || fail "nodes did not report: $(metrics | grep nodes_reported)"
k create namespace e2e >/dev/null 2>&1 || true

echo "== scheduling through the extender"
k -n e2e apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      schedulerName: headroom-scheduler
      containers:
      - name: app
        image: busybox:1.36
        command: [sh, -c, "sleep 36000"]
        resources: {requests: {cpu: 100m, memory: 32Mi}, limits: {cpu: 500m, memory: 64Mi}}
YAML
k -n e2e rollout status deploy/web --timeout=180s >/dev/null && pass "3 pods scheduled by headroom-scheduler" || fail "web did not roll out"
filters=$(metrics | awk '$1 ~ /^headroom_extender_requests_total\{code="200",verb="filter"\}/ {print $2}')
[[ ${filters:-0} -ge 3 ]] && pass "the extender answered $filters filter calls" || fail "the extender saw no filter calls"

echo "== headroom-nri on real containers"
pod=$(k -n e2e get pod -l app=web -o jsonpath='{.items[0].metadata.name}')
cpu_max=$(k -n e2e exec "$pod" -- cat /sys/fs/cgroup/cpu.max 2>/dev/null || true)
[[ $cpu_max == max* ]] && pass "container with a 500m CPU limit runs without a CPU quota (cpu.max: $cpu_max)" ||
  fail "cpu.max is '$cpu_max', expected no quota"
k -n e2e apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: oom}
spec:
  containers:
  - name: app
    image: busybox:1.36
    # Allocates without bound on its first run only (the marker survives restarts).
    command: [sh, -c, "if [ ! -f /scratch/ran ]; then touch /scratch/ran; tail /dev/zero; fi; sleep 36000"]
    resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 32Mi}}
    volumeMounts: [{name: scratch, mountPath: /scratch}]
  volumes: [{name: scratch, emptyDir: {}}]
YAML
restarted() { [[ $(k -n e2e get pod oom -o jsonpath='{.status.containerStatuses[0].restartCount}') -ge 1 ]] &&
  [[ $(k -n e2e get pod oom -o jsonpath='{.status.containerStatuses[0].state.running}') != "" ]]; }
if wait_for 120 restarted; then
  limit=$(k -n e2e exec oom -- cat /sys/fs/cgroup/memory.max)
  ((limit >= 2 * 32 * 1024 * 1024)) && pass "the OOM-killed container restarted with memory.max $limit (declared 32Mi)" ||
    fail "restarted with memory.max $limit, expected at least 64Mi"
else
  fail "the oom pod was not OOM-killed and restarted"
fi

echo "== restarts and outages"
# headroom-nri keeps its statistics on the host: a new pod on the same node loads them.
node=$(k -n e2e get pod oom -o jsonpath='{.spec.nodeName}')
nri_pod() { k -n headroom-system get pod -l app.kubernetes.io/name=headroom-nri --field-selector "spec.nodeName=$node" -o jsonpath='{.items[0].metadata.name}'; }
old_pod=$(nri_pod)
k -n headroom-system delete pod "$old_pod" --wait=true >/dev/null
new_running() { [[ $(nri_pod) != "$old_pod" ]] && k -n headroom-system logs "$(nri_pod)" | grep -q "loaded statistics of [1-9]"; }
wait_for 120 new_running && pass "a restarted headroom-nri on $node loaded its statistics from the host" ||
  fail "the new headroom-nri pod on $node did not load its checkpoint"
# The extender's checkpoint is in an emptyDir (deploy/extender/deployment.yaml): a new pod
# relearns everything from the next reports.
k -n headroom-system rollout restart deploy/headroom-extender >/dev/null
k -n headroom-system rollout status deploy/headroom-extender --timeout=120s >/dev/null
wait_for 150 reported && pass "a new extender pod knows all 3 nodes again from their reports" || fail "reports did not reach the new extender"
k -n headroom-system scale deploy/headroom-extender --replicas=0 >/dev/null
k -n e2e scale deploy/web --replicas=4 >/dev/null
k -n e2e rollout status deploy/web --timeout=120s >/dev/null &&
  pass "with the extender scaled to 0, headroom-scheduler still schedules (ignorable)" || fail "scheduling stopped without the extender"
k -n headroom-system scale deploy/headroom-extender --replicas=1 >/dev/null

echo "kind suite: $failures failure(s)"
exit $((failures > 0))
