#!/usr/bin/env bash
# The whole loop on one local cluster of real upstream binaries: etcd, kube-apiserver,
# kube-controller-manager, the default kube-scheduler and headroom-scheduler (a second
# kube-scheduler with deploy/'s configuration), a kubelet on containerd + runc with
# headroom-nri registered through NRI and reporting over gRPC (TLS, its node-bound token),
# and headroom-extender serving the scheduler, the admission webhook and the actuator.
# Configuration comes from deploy/ wherever it applies (the extender's ConfigMap, the NRI
# DaemonSet's arguments, the webhook, the scheduler, the containerd NRI section); what is
# changed is listed in `overrides` below (addresses, files, and timings shortened from hours
# to seconds).
#
# Scenarios, each a check that can fail:
#   1. a Deployment's first replica runs; headroom-nri's samples reach the extender under the
#      key the extender computes; a later replica is admitted with the sizes they give;
#   2. the CPU limit of an admitted pod is gone in the cgroups (container and pod level), and
#      the pod level keeps it for a pod the webhook did not see;
#   3. a container that exceeds its memory is OOM-killed; the kill reaches the extender; the
#      restart gets the raised limit at the runtime, the next replica through the webhook;
#   4. restarting containerd, headroom-nri, the extender and headroom-scheduler in turn loses
#      no statistic and no OOM record, and the loop still works;
#   5. real load on the node cordons it for headroom-scheduler's pods, and it is readmitted
#      after the load stops;
#   6. a memory-overcommitted node makes the actuator evict through the Eviction API, with
#      an Event.
# Everything listens on 127.0.0.1 and lives in a scratch directory; only processes this
# script started are stopped, by PID.
# Usage: e2e/local/system-suite.sh BUILD_DIR   (holds extender/headroom-extender,
# kubelet-hook/headroom-nri). Needs root. Exit 0 when every check passes;
# HEADROOM_E2E_KEEP=1 keeps the logs of a passing run; HEADROOM_E2E_EXTENDER_OVERRIDES and
# HEADROOM_E2E_NRI_ARGS change the configuration (to see checks fail).
set -euo pipefail

source "$(dirname "$0")/suite-lib.sh"
suite_paths system-suite "${1:?usage: system-suite.sh BUILD_DIR}"
require_tools etcd openssl curl python3 containerd runc ctr "$cache/bin/crictl" "$k8s_bin/kube-apiserver" \
  "$k8s_bin/kube-controller-manager" "$k8s_bin/kube-scheduler" "$k8s_bin/kubelet" "$k8s_bin/kubectl" \
  "$extender_bin" "$nri_bin"
require_root "kubelet, containerd"

work=$(mktemp -d /tmp/headroom-sys-e2e.XXXXXX)
cgroup_root=/headroom-sys-e2e-$$
pids=()
extender_pid="" nri_pid="" kubelet_pid="" containerd_pid="" scheduler_pid=""
failures=0
suite_start=$SECONDS

cleanup() {
  set +e
  stop_pid "$extender_pid"
  stop_pid "$scheduler_pid"
  stop_pid "$nri_pid"
  stop_node_and_cluster
  finish_work
}
trap cleanup EXIT

source "$repo/e2e/local/kubelet-lib.sh"  # with cluster-lib.sh and containerd-lib.sh
xmetric() { metric_at "$http_port" "$1"; }
nmetric() { metric_at "$nri_port" "$1"; }
# wstat KEY FIELD: a workload container's statistic in the extender's checkpoint
# (e.g. historySeconds, memory.oomBytes); empty when absent.
wstat() {
  python3 - "$work/extender-state/workloads.json" "$1" "$2" <<'PY' 2>/dev/null
import json, sys
path, key, field = sys.argv[1:4]
value = json.load(open(path))["workloads"].get(key)
for part in field.split("."):
    value = value.get(part) if isinstance(value, dict) else None
print("" if value is None else value)
PY
}
pods_of() { kubectl_ -n e2e get pods -l "app=$1" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'; }
field() { kubectl_ -n e2e get pod "$1" -o jsonpath="$2"; }
running() { [[ $(field "$1" '{.status.phase}') == Running ]]; }
events_for() { kubectl_ -n e2e get events --field-selector "involvedObject.name=$1,reason=$2" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'; }
# cgroup_of POD CONTROLLER: the pod-level cgroup directory of POD (QoS burstable).
cgroup_of() { echo "/sys/fs/cgroup/$2$cgroup_root/kubepods/burstable/pod$(field "$1" '{.metadata.uid}')"; }
container_id() { field "$1" '{.status.containerStatuses[0].containerID}' | sed 's|.*://||'; }

# === The cluster ===========================================================================
start_control_plane
pass "kube-apiserver $("$k8s_bin/kube-apiserver" --version | awk '{print $2}') ready on etcd $(etcd --version | awk '/etcd Version/ {print $3}')"
"$k8s_bin/kube-controller-manager" --kubeconfig "$work/admin.kubeconfig" --leader-elect=false \
  --controllers deployment,replicaset,disruption,garbagecollector --bind-address 127.0.0.1 --secure-port 0 \
  >"$work/kube-controller-manager.log" 2>&1 &
pids+=($!)
kubectl_ create namespace headroom-system >/dev/null
kubectl_ create namespace e2e >/dev/null
kubectl_ -n headroom-system create serviceaccount headroom-nri >/dev/null

# One certificate for the extender's webhook and gRPC listeners (as deploy/ shares the
# webhook Secret), for 127.0.0.1, signed by the cluster's CA.
extender_certificate || die "openssl (see $work/openssl.log)"

# --- headroom-extender: deploy/'s ConfigMap, with these overrides. (Ports are taken just
# before use: a free port may be an outgoing connection's a moment later.)
http_port=$(free_port); grpc_port=$(free_port); https_port=$(free_port); nri_port=$(free_port)
overrides=(
  "http-address=127.0.0.1:$http_port" "grpc-address=127.0.0.1:$grpc_port" "webhook-address=127.0.0.1:$https_port"
  "webhook-tls-cert-file=$work/extender.crt" "webhook-tls-key-file=$work/extender.key"
  "grpc-tls-cert-file=$work/extender.crt" "grpc-tls-key-file=$work/extender.key"
  "state-dir=$work/extender-state" "kill-switch-file=$work/kill-switch" "kubeconfig=$work/admin.kubeconfig"
  "leader-elect-namespace=headroom-system" "log-level=debug"
  # Seconds instead of hours and minutes, so that a run takes minutes.
  "min-history=20s" "checkpoint-interval=1s" "actuation-interval=2s" "cordon-min-duration=5s"
  "setup-check-interval=5s"
  # The floor 250Mi would hide the OOM-raised limits (2 x 48Mi) checked below.
  "min-memory-limit=16Mi"
  # The whole control plane shares this 2-CPU node: cordon at load1 > 3, readmit below 2.
  "cordon-above=1.5" "uncordon-below=1.0"
)
# HEADROOM_E2E_EXTENDER_OVERRIDES: more key=value pairs (e.g. actuate=false, which must fail
# scenario 6).
read -r -a extra <<<"${HEADROOM_E2E_EXTENDER_OVERRIDES:-}"
overrides+=("${extra[@]}")
mkdir -p "$work/extender-state"
deploy_extender_config "$work/extender.yaml" "${overrides[@]}" || die "reading deploy/'s extender configuration"
start_extender() {
  "$extender_bin" --config "$work/extender.yaml" >>"$work/extender.log" 2>&1 &
  extender_pid=$!
  wait_for 20 curl -sf "http://127.0.0.1:$http_port/healthz"
}
start_extender || die "headroom-extender did not start (see $work/extender.log)"
grep -q '^actuate: true' "$work/extender.yaml" && grep -q '^report-auth: token' "$work/extender.yaml" &&
  grep -q '^verify-report-pods: true' "$work/extender.yaml" &&
  pass "headroom-extender runs deploy/'s configuration: actuating, token-authenticated reports over TLS, reported pods verified" ||
  fail "deploy/'s extender configuration is not what the suite expects (actuate, report-auth token, verify-report-pods)"
deploy_webhook_config "https://127.0.0.1:$https_port/admission/pods" "$work/ca.crt" "$work/webhook.yaml" &&
  kubectl_ apply -f "$work/webhook.yaml" >/dev/null || die "installing deploy/'s MutatingWebhookConfiguration"

# --- the default kube-scheduler and headroom-scheduler (deploy/'s configuration)
"$k8s_bin/kube-scheduler" --kubeconfig "$work/admin.kubeconfig" --leader-elect=false --bind-address 127.0.0.1 \
  --secure-port "$(free_port)" >"$work/default-scheduler.log" 2>&1 &
pids+=($!)
deploy_scheduler_config "http://127.0.0.1:$http_port" "$work/scheduler.yaml" || die "reading deploy/'s scheduler configuration"
sched_port=$(free_port)
start_scheduler() {
  "$k8s_bin/kube-scheduler" --config "$work/scheduler.yaml" --bind-address 127.0.0.1 --secure-port "$sched_port" \
    >>"$work/headroom-scheduler.log" 2>&1 &
  scheduler_pid=$!
  wait_for 60 curl -skf "https://127.0.0.1:$sched_port/healthz"
}
start_scheduler || die "headroom-scheduler not healthy (see $work/headroom-scheduler.log)"

# --- the node: containerd with deploy/'s NRI section, headroom-nri, the kubelet
mkdir -p "$work/root" "$work/state" "$work/nri-state" "$work/hostpath"
write_containerd_config "$(nri_containerd_section)"
start_containerd() {
  containerd --config "$work/containerd.toml" >>"$work/containerd.log" 2>&1 &
  containerd_pid=$!
  wait_for 30 crictl_ info
}
start_containerd || die "containerd did not start (see $work/containerd.log)"
import_test_images || die "importing images"
# headroom-nri's identity: the token of a headroom-nri pod bound to the node (as the
# DaemonSet's projected token is), which the extender checks with a TokenReview.
kubectl_ apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: headroom-nri-e2e-node, namespace: headroom-system}
spec:
  nodeName: e2e-node
  serviceAccountName: headroom-nri
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - {name: nri, image: docker.io/library/busybox:local, imagePullPolicy: Never, command: [/bin/sleep, "3600"]}
YAML
kubectl_ -n headroom-system create token headroom-nri --audience headroom-extender --duration 1h \
  --bound-object-kind Pod --bound-object-name headroom-nri-e2e-node >"$work/nri-token" || die "a token for headroom-nri"
# headroom-nri: deploy/'s DaemonSet arguments, with these overrides and additions.
nri_overrides=(
  "--socket=$work/nri.sock" "--state-dir=$work/nri-state" "--extender=127.0.0.1:$grpc_port"
  "--extender-ca-file=$work/ca.crt" "--token-file=$work/nri-token" "--node-name=e2e-node"
  "--http-address=127.0.0.1:$nri_port" "--min-history=20s" "--min-memory-limit=16Mi"
  # Reports every 10 s: an OOM kill must not wait for the next one (scenario 3).
  "--interval=10s" "--oom-poll-interval=200ms" "--log-level=debug"
)
# HEADROOM_E2E_NRI_ARGS: more --flag=value arguments (e.g. --dry-run=true, which must fail
# scenarios 2 and 3).
read -r -a extra <<<"${HEADROOM_E2E_NRI_ARGS:-}"
nri_overrides+=("${extra[@]}")
deploy_yaml | python3 -c '
import sys, yaml
out, overrides = sys.argv[1], sys.argv[2:]
for doc in yaml.safe_load_all(sys.stdin):
    if doc and doc["kind"] == "DaemonSet" and doc["metadata"]["name"] == "headroom-nri":
        args = doc["spec"]["template"]["spec"]["containers"][0]["args"]
flags = dict((arg.split("=", 1) + ["true"])[:2] for arg in args)  # "--flag" is "--flag=true"
for item in overrides:
    key, value = item.split("=", 1)
    flags[key] = value
open(out, "w").write("\n".join(k + "=" + v for k, v in flags.items()) + "\n")
' "$work/nri.args" "${nri_overrides[@]}" || die "reading deploy/'s headroom-nri arguments"
mapfile -t nri_args <"$work/nri.args"
start_nri() {
  "$nri_bin" "${nri_args[@]}" ${1:-} >>"$work/nri.log" 2>&1 &
  nri_pid=$!
  wait_for 20 curl -sf "http://127.0.0.1:$nri_port/healthz"
}
start_nri || die "headroom-nri did not start (see $work/nri.log)"
nri_connected() { [[ $(nmetric headroom_nri_connected) == 1 ]]; }
wait_for 20 nri_connected && pass "headroom-nri registered with containerd $(containerd --version | awk '{print $3}') through NRI (deploy/'s section and arguments)" ||
  die "headroom-nri did not register with containerd (see $work/nri.log)"
prepare_cgroup_root
start_kubelet e2e-node || die "the kubelet did not register (see $work/kubelet.log)"
# No CNI here (pods use the host network), so the kubelet reports the node not Ready and no
# node lifecycle controller lifts the not-ready taint the API server put on it: lifted here,
# as for the suites' fake nodes.
kubectl_ taint nodes e2e-node node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
pass "kubelet $("$k8s_bin/kubelet" --version | awk '{print $2}') registered e2e-node; cluster up in $((SECONDS - suite_start)) s"
reports_flow() { [[ $(nmetric headroom_nri_reports_total) -ge 2 && $(xmetric headroom_extender_nodes_reported) == 1 ]]; }
wait_for 45 reports_flow && pass "headroom-nri reports e2e-node to the extender over TLS with its bound token" ||
  fail "no report reached the extender (nri reports $(nmetric headroom_nri_reports_total), failures $(nmetric headroom_nri_report_failures_total); see $work/nri.log, $work/extender.log)"

deployment() { # NAME REPLICAS MEMORY_LIMIT COMMAND: requests 200m/32Mi, limits 1 CPU/MEMORY_LIMIT
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: e2e}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata:
      labels: {app: $1}
      annotations: {headroom.dev/allow-below-declared: "true"}
    spec:
      schedulerName: headroom-scheduler
      hostNetwork: true
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: docker.io/library/busybox:local
        imagePullPolicy: Never
        command: ["/bin/sh", "-c", "$4"]
        resources:
          requests: {cpu: 200m, memory: 32Mi}
          limits: {cpu: "1", memory: $3}
        volumeMounts: [{name: host, mountPath: /host}]
      volumes: [{name: host, hostPath: {path: $work/hostpath, type: Directory}}]
YAML
}
replicas_running() { # APP N
  local n=0 pod
  for pod in $(pods_of "$1"); do running "$pod" && n=$((n + 1)); done
  [[ $n -ge $2 ]]
}
newest_pod() { kubectl_ -n e2e get pods -l "app=$1" --sort-by=.metadata.creationTimestamp -o jsonpath='{.items[-1:].metadata.name}'; }

# === 1. The loop: measure -> report -> size ================================================
deployment web 1 128Mi 'exec sleep 3600'
wait_for 90 replicas_running web 1 || die "web's first replica did not run (see $work/headroom-scheduler.log, $work/kubelet.log)"
web1=$(pods_of web | head -1)
[[ $(field "$web1" '{.spec.schedulerName}/{.spec.nodeName}') == headroom-scheduler/e2e-node && $(xmetric 'headroom_extender_requests_total{code="200",verb="filter"}') -ge 1 ]] &&
  pass "headroom-scheduler placed $web1 on e2e-node through the extender's filter" ||
  fail "$web1: scheduler/node $(field "$web1" '{.spec.schedulerName}/{.spec.nodeName}'), extender filter calls $(xmetric 'headroom_extender_requests_total{code="200",verb="filter"}')"
# The status page's Set-up panel: the checks of headroom preflight the extender asks as itself
# (admin here, so RBAC is all allowed; deploy/'s ClusterRole is checked by the scheduler suite).
want_setup="kubernetes-version=ok in-place-resize=ok extender-rbac=ok admission-webhook=ok scheduler-profile=ok"
setup_results() {
  curl -sf "http://127.0.0.1:$http_port/api/v1/status" | python3 -c '
import json, sys
s = json.load(sys.stdin)["setup"]
print(" ".join(c["name"] + "=" + c["result"] for c in s["checks"]))'
}
setup_ok() { [[ $(setup_results) == "$want_setup" ]]; }
if wait_for 30 setup_ok; then
  pass "the status page's Set-up panel, asked by the extender itself: $want_setup"
else
  fail "the Set-up panel says: $(setup_results) (want: $want_setup)"
fi
key=$(field "$web1" '{.metadata.annotations.headroom\.dev/workload}')
[[ $key == e2e/Deployment/web ]] && pass "the webhook wrote the pod's workload key: $key" || fail "headroom.dev/workload is '$key', want e2e/Deployment/web"
in_checkpoint() { [[ -n $(wstat "e2e/Deployment/web#app" historySeconds) ]]; }
if wait_for 30 in_checkpoint && [[ $(xmetric headroom_extender_unverified_pods_total) == 0 ]]; then
  pass "headroom-nri's samples of $web1 reached the extender as e2e/Deployment/web#app, every reported pod verified against the API"
else
  fail "no statistics for e2e/Deployment/web#app in the extender (unverified pods: $(xmetric headroom_extender_unverified_pods_total); keys: $(grep -o '"e2e/[^"]*"' "$work/extender-state/workloads.json" 2>/dev/null | tr '\n' ' '))"
fi
warm() { local h; h=$(wstat "e2e/Deployment/web#app" historySeconds); [[ -n $h && $h -ge 22 ]]; }
wait_for 60 warm || fail "e2e/Deployment/web#app did not reach the 20 s warm-up (history $(wstat "e2e/Deployment/web#app" historySeconds) s)"
kubectl_ -n e2e scale deployment web --replicas 2 >/dev/null
wait_for 60 replicas_running web 2 || fail "web's second replica did not run"
web2=$(newest_pod web)
admission=$(field "$web2" '{.metadata.annotations.headroom\.dev/admission}')
requests=$(field "$web2" '{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory}')
after=$(sed -n 's/.*-> cpu \([^/]*\)\/limit [^,]*, memory \([^/]*\)\/limit.*/\1 \2/p' <<<"$admission")
if [[ $admission == *"(from history)"* && -n $after && $requests == "$after" && $requests != "200m 32Mi" ]]; then
  pass "the second replica $web2 was admitted with the sizes the node's statistics give: requests $requests (declared 200m 32Mi; $admission)"
else
  fail "$web2 not sized from history: requests '$requests', admission '$admission'"
fi

# === 2. No CPU limit anywhere for an admitted pod ==========================================
# A control pod the webhook does not see (label headroom.dev/webhook: disabled): headroom-nri
# still lifts its container's quota, but the kubelet caps the pod's cgroup at its limit.
kubectl_ apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: capped, namespace: e2e, labels: {headroom.dev/webhook: disabled}}
spec:
  nodeName: e2e-node
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: docker.io/library/busybox:local
    imagePullPolicy: Never
    command: [/bin/sleep, "3600"]
    resources: {requests: {cpu: 200m, memory: 32Mi}, limits: {cpu: "1", memory: 128Mi}}
YAML
wait_for 60 running capped || fail "pod capped did not run"
quotas() { # POD: "<pod-level quota> <container quota>"
  echo "$(cat "$(cgroup_of "$1" cpu)/cpu.cfs_quota_us" 2>/dev/null) $(cat "$(cgroup_of "$1" cpu)/$(container_id "$1")/cpu.cfs_quota_us" 2>/dev/null)"
}
web_quotas=$(quotas "$web2")
[[ -z $(field "$web2" '{.spec.containers[0].resources.limits.cpu}') && $web_quotas == "-1 -1" ]] &&
  pass "$web2: no CPU limit in the spec, cpu.cfs_quota_us -1 at pod and container level" ||
  fail "$web2: spec CPU limit '$(field "$web2" '{.spec.containers[0].resources.limits.cpu}')', quotas (pod container) '$web_quotas'"
capped_quotas=$(quotas capped)
[[ $capped_quotas == "100000 -1" ]] &&
  pass "control: without the webhook headroom-nri lifts only the container's quota; the pod cgroup keeps the kubelet's cap ($capped_quotas)" ||
  fail "control pod quotas (pod container) '$capped_quotas', want '100000 -1'"

# === 3. OOM: killed, reported, raised at the runtime and at admission =======================
# The first container of hog allocates 200 MiB against its 48Mi limit; every later one (the
# restart, the next replica) finds the marker on the host path and only sleeps.
ooms_before=$(nmetric headroom_nri_oom_kills_total)
deployment hog 1 48Mi 'if [ ! -e /host/hog-once ]; then touch /host/hog-once; head -c 200m /dev/zero | tail || exit 137; fi; exec sleep 3600'
nri_saw_oom() { [[ $(nmetric headroom_nri_oom_kills_total) -gt ${ooms_before:-0} ]]; }
wait_for 90 nri_saw_oom || fail "headroom-nri saw no OOM kill of hog (see $work/nri.log)"
seen_at=$SECONDS
# Reported at once, not with the next periodic report (10 s away at most); the extender
# checkpoints every second.
oom_recorded() { [[ $(wstat "e2e/Deployment/hog#app" memory.oomBytes) == 50331648 ]]; }
wait_for 4 oom_recorded && grep -q "reported the OOM kill" "$work/nri.log" &&
  pass "the kill reached the extender at once (recorded $((SECONDS - seen_at)) s after headroom-nri saw it; reports are 10 s apart): OOM memory of e2e/Deployment/hog#app 48Mi" ||
  fail "the extender's OOM record for e2e/Deployment/hog#app is '$(wstat "e2e/Deployment/hog#app" memory.oomBytes)' $((SECONDS - seen_at)) s after headroom-nri saw the kill, want 50331648 within 4 s"
hog_restarted() { local pod; pod=$(pods_of hog | head -1); [[ -n $pod && $(field "$pod" '{.status.containerStatuses[0].restartCount}') -ge 1 ]] && running "$pod"; }
wait_for 90 hog_restarted || fail "hog was not restarted after its OOM kill (see $work/kubelet.log)"
hog1=$(pods_of hog | head -1)
[[ $(field "$hog1" '{.status.containerStatuses[0].lastState.terminated.reason}') == OOMKilled ]] &&
  pass "$hog1 was OOM-killed (kubelet: OOMKilled) and restarted" ||
  fail "$hog1's last state is '$(field "$hog1" '{.status.containerStatuses[0].lastState.terminated.reason}')', want OOMKilled"
limit=$(cat "$(cgroup_of "$hog1" memory)/$(container_id "$hog1")/memory.limit_in_bytes" 2>/dev/null || true)
[[ $limit == 100663296 ]] && pass "the restarted container runs with the raised limit at the runtime: memory.limit_in_bytes $limit (2 x 48Mi)" ||
  fail "the restarted container's memory.limit_in_bytes is '$limit', want 100663296"
hog_warm() { local h; h=$(wstat "e2e/Deployment/hog#app" historySeconds); [[ -n $h && $h -ge 22 ]]; }
wait_for 60 hog_warm || true
kubectl_ -n e2e scale deployment hog --replicas 2 >/dev/null
wait_for 60 replicas_running hog 2 || fail "hog's second replica did not run"
hog2=$(newest_pod hog)
[[ $(field "$hog2" '{.spec.containers[0].resources.limits.memory}') == 96Mi ]] &&
  pass "the next replica $hog2 was admitted with the OOM-raised memory limit 96Mi (declared 48Mi)" ||
  fail "$hog2's memory limit is '$(field "$hog2" '{.spec.containers[0].resources.limits.memory}')', want 96Mi ($(field "$hog2" '{.metadata.annotations.headroom\.dev/admission}'))"

# === 4. Restarts: containerd, headroom-nri, the extender, headroom-scheduler ================
web_history=$(wstat "e2e/Deployment/web#app" historySeconds)
kubelet_restarts=$(field "$web1" '{.status.containerStatuses[0].restartCount}')
connections=$(nmetric headroom_nri_connections_total)
stop_pid "$containerd_pid"; containerd_pid=""
start_containerd || die "containerd did not restart (see $work/containerd.log)"
reconnected() { [[ $(nmetric headroom_nri_connections_total) -gt $connections ]] && nri_connected; }
wait_for 40 reconnected && pass "containerd restarted: headroom-nri re-registered" || fail "headroom-nri did not re-register after containerd restarted"
stop_pid "$nri_pid"; nri_pid=""
start_nri || die "headroom-nri did not restart (see $work/nri.log)"
wait_for 20 nri_connected && grep -q "loaded statistics of [1-9]" "$work/nri.log" &&
  pass "headroom-nri restarted (SIGTERM) and loaded its checkpoint" || fail "headroom-nri did not reload its checkpoint or register"
stop_pid "$extender_pid"; extender_pid=""
start_extender || die "headroom-extender did not restart (see $work/extender.log)"
stop_pid "$scheduler_pid"; scheduler_pid=""
start_scheduler || die "headroom-scheduler did not restart"
pass "headroom-extender and headroom-scheduler restarted"
fresh_report() { [[ $(xmetric headroom_extender_nodes_reported) == 1 ]]; }
wait_for 30 fresh_report || fail "no report reached the restarted extender"
sleep 3  # a checkpoint of the restarted extender
if [[ $(wstat "e2e/Deployment/web#app" historySeconds) -ge $web_history && $(wstat "e2e/Deployment/hog#app" memory.oomBytes) == 50331648 ]] &&
  grep -Eq '"bytes": ?50331648' "$work/nri-state/node-stats.json"; then
  pass "after the restarts no statistic is lost: web#app history $(wstat "e2e/Deployment/web#app" historySeconds) s (was $web_history s), hog#app OOM record kept by the extender and by headroom-nri"
else
  fail "lost across restarts: web#app history $(wstat "e2e/Deployment/web#app" historySeconds) (was $web_history), hog#app oomBytes '$(wstat "e2e/Deployment/hog#app" memory.oomBytes)', headroom-nri OOM record $(grep -Ec '"bytes": ?50331648' "$work/nri-state/node-stats.json")"
fi
[[ $(field "$web1" '{.status.containerStatuses[0].restartCount}') == "$kubelet_restarts" ]] && running "$web1" &&
  pass "running pods kept running through the restarts" || fail "$web1 restarted or stopped during the component restarts"
kubectl_ -n e2e scale deployment web --replicas 3 >/dev/null
wait_for 60 replicas_running web 3 || fail "web's third replica did not run after the restarts"
web3=$(newest_pod web)
[[ $(field "$web3" '{.metadata.annotations.headroom\.dev/admission}') == *"(from history)"* && $(field "$web3" '{.spec.schedulerName}/{.spec.nodeName}') == headroom-scheduler/e2e-node ]] &&
  pass "after the restarts the loop still works: $web3 sized from history and placed by headroom-scheduler" ||
  fail "$web3 after the restarts: admission '$(field "$web3" '{.metadata.annotations.headroom\.dev/admission}')', placed '$(field "$web3" '{.spec.schedulerName}/{.spec.nodeName}')'"

# === 5. Load: cordoned for headroom-scheduler's pods, readmitted after ======================
kubectl_ apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
# Left alone by headroom (else the actuator raises its CPU request to the ~2 CPUs it burns, and
# the next pod no longer fits by requests, before any load check).
metadata: {name: burner, namespace: e2e, annotations: {headroom.dev/disable: "true"}}
spec:
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - name: burn
    image: docker.io/library/busybox:local
    imagePullPolicy: Never
    command: ["/bin/sh", "-c", "for i in 1 2 3 4 5 6; do (while :; do :; done) & done; wait"]
    resources: {requests: {cpu: 100m, memory: 16Mi}}
YAML
wait_for 60 running burner || fail "the burner pod did not run (default scheduler)"
load_start=$SECONDS
headroom_pod() { # NAME: a bare pod for headroom-scheduler
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: e2e}
spec:
  schedulerName: headroom-scheduler
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - {name: app, image: docker.io/library/busybox:local, imagePullPolicy: Never, command: [/bin/sleep, "3600"],
     resources: {requests: {cpu: 10m, memory: 8Mi}}}
YAML
}
# load1 / CPUs above the cordon threshold (1.5) on this host, which is e2e-node; then a report.
loaded() { awk -v cpus="$(nproc)" '{exit !($1 / cpus > 1.6)}' /proc/loadavg; }
if wait_for 180 loaded; then
  sleep 12  # a report with the load
  headroom_pod during-load
  held() { events_for during-load FailedScheduling | grep -q "cordoned for load"; }
  wait_for 20 held || true
  msg=$(events_for during-load FailedScheduling | grep -m1 "cordoned for load" || true)
  if [[ -z $(field during-load '{.spec.nodeName}') && -n $msg ]]; then
    pass "load1 $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs after $((SECONDS - load_start)) s: e2e-node cordoned, during-load stays pending: ${msg:0:150}"
  else
    fail "during-load was not held back by the load cordon (node '$(field during-load '{.spec.nodeName}')', event '$msg')"
  fi
else
  fail "e2e-node was not cordoned for load within 180 s (load1 $(cut -d' ' -f1 /proc/loadavg))"
fi
kubectl_ -n e2e delete pod burner --grace-period 0 --force >/dev/null 2>&1
calm() { awk -v cpus="$(nproc)" '{exit !($1 / cpus < 0.9)}' /proc/loadavg; }
wait_for 240 calm || fail "load1 stayed above the readmission threshold after the burner stopped"
sleep 14  # a report with the lower load, and the 5 s minimum cordon
headroom_pod after-load
bound_after_load() { [[ -n $(field after-load '{.spec.nodeName}') ]]; }
wait_for 60 bound_after_load && pass "after the load stopped e2e-node was readmitted: after-load placed on $(field after-load '{.spec.nodeName}')" ||
  fail "after-load not placed after the load stopped (see $work/extender.log)"
kubectl_ -n e2e delete pod during-load --grace-period 0 --force >/dev/null 2>&1 || true

# === 6. A memory-overcommitted node: the actuator evicts through the Eviction API ==========
# Two replicas of hold keep 40 MiB each; headroom-nri then reports 64Mi allocatable, so the
# node's projected memory no longer fits and the actuator gives up a pod (which one is the
# plan's choice: the eviction ranking, then the fewest pods to give up).
# (tail keeps all it read while waiting for a line end that never comes.)
deployment hold 2 128Mi '(head -c 40m /dev/zero; exec sleep 3600) | tail'
wait_for 90 replicas_running hold 2 || fail "hold's replicas did not run"
hold_warm() { local h; h=$(wstat "e2e/Deployment/hold#app" historySeconds); [[ -n $h && $h -ge 22 ]]; }
wait_for 60 hold_warm || fail "e2e/Deployment/hold#app did not reach the warm-up"
stop_pid "$nri_pid"; nri_pid=""
start_nri --allocatable-memory=64Mi || die "headroom-nri did not restart with --allocatable-memory"
overcommit_evictions() { kubectl_ -n e2e get events --field-selector reason=Evicted -o jsonpath='{range .items[*]}{.involvedObject.name}: {.message}{"\n"}{end}' | grep 'does not fit'; }
if wait_for 90 overcommit_evictions; then
  pass "the actuator evicted through the Eviction API, with an Event: $(overcommit_evictions | head -1 | cut -c1-220)"
else
  fail "no Evicted event on the overcommitted node (see $work/extender.log: $(grep -m1 'memory does not fit' "$work/extender.log" | cut -c1-160))"
fi

echo "system-suite: $failures failure(s) in $((SECONDS - suite_start)) s"
[[ $failures == 0 ]]
