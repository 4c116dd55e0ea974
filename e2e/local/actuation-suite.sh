#!/usr/bin/env bash
# Local end-to-end suite for headroom's admission webhook and API actuation (docs/actuation.md)
# against real upstream binaries: etcd 3.5, kube-apiserver and kube-controller-manager (the
# Deployment, ReplicaSet and disruption controllers), and a real kubelet on containerd + runc
# (the node whose pod is resized in place). headroom-extender serves the webhook over HTTPS;
# node reports, which headroom-nri sends in a cluster, are sent with `headroom report`.
# Everything listens on 127.0.0.1 and lives in a scratch directory; only processes this
# script started are stopped, by PID.
# Usage: e2e/local/actuation-suite.sh BUILD_DIR   (holds extender/headroom-extender, cli/headroom)
# Needs root (kubelet, containerd). Exit 0 when every check passes; HEADROOM_E2E_KEEP=1 keeps
# the logs of a passing run.
set -euo pipefail

source "$(dirname "$0")/suite-lib.sh"
suite_paths actuation-suite "${1:?usage: actuation-suite.sh BUILD_DIR}"
require_tools etcd openssl curl containerd runc ctr "$k8s_bin/kube-apiserver" "$k8s_bin/kube-controller-manager" \
  "$k8s_bin/kubelet" "$k8s_bin/kubectl" "$extender_bin" "$headroom_bin"
require_root "kubelet, containerd"

work=$(mktemp -d /tmp/headroom-act-e2e.XXXXXX)
cgroup_root=/headroom-act-e2e-$$
pids=()
extender_pid=""
kubelet_pid=""
containerd_pid=""
failures=0

cleanup() {
  set +e
  stop_pid "$extender_pid"
  stop_node_and_cluster
  finish_work
}
trap cleanup EXIT

source "$repo/e2e/local/kubelet-lib.sh"  # with cluster-lib.sh and containerd-lib.sh

start_control_plane
pass "kube-apiserver $("$k8s_bin/kube-apiserver" --version | awk '{print $2}') ready"
"$k8s_bin/kube-controller-manager" --kubeconfig "$work/admin.kubeconfig" --leader-elect=false \
  --controllers deployment,replicaset,disruption,garbagecollector --bind-address 127.0.0.1 --secure-port 0 \
  >"$work/kube-controller-manager.log" 2>&1 &
pids+=($!)

# --- headroom-extender over HTTPS (the API server only calls webhooks over TLS)
http_port=$(free_port); https_port=$(free_port); grpc_port=$(free_port)
extender_certificate || die "openssl (see $work/openssl.log)"
metric() { metric_at "$http_port" "$1"; }
# Reports here are written by the suite, some for pods that exist nowhere (history-node's
# web-old, the workload history the webhook sizes from), so they are neither authenticated
# nor checked against the pod watch; the scheduler suite covers both. The actuator still acts
# only on the API's own pod (same UID, bound to the reporting node).
# Memory limits may go below the declared ones (--allow-memory-limit-below-declared): the
# suite checks that a lowered limit reaches the API and the runtime.
start_extender() { # extra flags
  "$extender_bin" --allow-memory-limit-below-declared --http-address "127.0.0.1:$http_port" --grpc-address "127.0.0.1:$grpc_port" \
    --webhook-address "127.0.0.1:$https_port" --webhook-tls-cert-file "$work/extender.crt" --webhook-tls-key-file "$work/extender.key" \
    --kubeconfig "$work/admin.kubeconfig" --log-level debug --actuate --actuation-interval 1s \
    --kill-switch-file "$work/kill-switch" --actuator-state-configmap default/headroom-extender-state \
    --report-auth=insecure --verify-report-pods=false --refused-resize-backoff 5s "$@" >>"$work/extender.log" 2>&1 &
  extender_pid=$!
  wait_for 20 curl -sf --cacert "$work/ca.crt" "https://127.0.0.1:$https_port/healthz"
}
stop_extender() { kill "$extender_pid" && wait "$extender_pid" 2>/dev/null; extender_pid=""; }
start_extender || die "headroom-extender did not start (see $work/extender.log)"
# It read the apiserver's release (GET /version) and, in range, started the actuator.
release_line=$(grep -m1 -oE 'Kubernetes v[0-9]+\.[0-9]+\.[0-9]+[^ ]* \(supported: [0-9.–]+\)' "$work/extender.log")
defaults_line=$(grep -m1 -oE 'v[0-9]+\.[0-9]+\.[0-9]+[^ ]* defaults: .*' "$work/extender.log")
[[ -n $release_line && $defaults_line == *"in-place resize"*"pod-level resources"* ]] && grep -q 'actuator on' "$work/extender.log" &&
  pass "the extender read the cluster's release: $release_line; actuator on; $defaults_line" ||
  fail "the extender did not log the cluster's release and start the actuator (see $work/extender.log)"

# The webhook as deploy/ ships it (failurePolicy Ignore, short timeout), pointed at this
# extender by URL instead of the in-cluster Service.
deploy_webhook_config "https://127.0.0.1:$https_port/admission/pods" "$work/ca.crt" "$work/webhook.yaml" &&
  kubectl_ apply -f "$work/webhook.yaml" >/dev/null || die "installing deploy/'s MutatingWebhookConfiguration"
grep -q 'failurePolicy: Ignore' "$work/webhook.yaml" && pass "deploy/'s webhook installed (failurePolicy Ignore, timeout $(awk '/timeoutSeconds/ {print $2}' "$work/webhook.yaml") s)" ||
  fail "deploy/'s webhook is not failurePolicy Ignore"
kubectl_ create namespace e2e >/dev/null

# --- node reports, as headroom-nri sends them
report() { # NODE ALLOCATABLE_MEMORY_BYTES PODS_JSON
  printf '{"node":"%s","allocatable":{"cpuMillis":"4000","memoryBytes":"%s"},"maxPods":110,"load1":0.1,"cpus":4,"pods":%s}\n' "$1" "$2" "$3" >"$work/report-$1.json"
  "$headroom_bin" report --extender "127.0.0.1:$grpc_port" --input "$work/report-$1.json" >>"$work/report.log" 2>&1
}
stats() { # CPU_BASE CPU_PEAK MEM_BASE MEM_PEAK (bytes): one container "app", observed for 30 h
  # (past the 24 h warm-up, so headroom acts on it)
  printf '[{"name":"app","historySeconds":"108000","cpu":{"baseMillis":"%s","peakMillis":"%s"},"memory":{"baseBytes":"%s","peakBytes":"%s","max7dBytes":"%s"}}]' "$1" "$2" "$3" "$4" "$4"
}
pod_json() { # NAME WORKLOAD_KEY CONTAINERS_JSON (namespace $NS or e2e; uid read from the API when the pod exists)
  local uid ns=${NS:-e2e}
  uid=$(kubectl_ -n "$ns" get pod "$1" -o jsonpath='{.metadata.uid}' 2>/dev/null || true)
  printf '{"namespace":"%s","name":"%s","uid":"%s","workloadKey":"%s","requests":{"cpuMillis":"1000","memoryBytes":"268435456"},"containers":%s}' "$ns" "$1" "$uid" "$2" "$3"
}

# === 1. The webhook sizes a Deployment's pods from the workload's history ===================
# History of e2e/Deployment/web, container app: CPU peak 350m, memory peak 96Mi, 7-day max
# 120Mi, so requests 350m / 96Mi, memory limit 2 x 120Mi raised to the 250Mi floor, and the
# CPU limit removed -- web opted in below its declared requests. e2e/Deployment/safe has the
# same history and did not: its requests stay as declared.
web_history="$(stats 100 350 67108864 100663296 | sed 's/"max7dBytes":"100663296"/"max7dBytes":"125829120"/')"
report history-node 8589934592 "[$(pod_json web-old e2e/Deployment/web "$web_history"),$(pod_json safe-old e2e/Deployment/safe "$web_history"),$(pod_json pooled-old e2e/Deployment/pooled "$web_history")]" ||
  die "sending the history report (see $work/report.log)"
deployment() { # NAME REPLICAS [POD_ANNOTATIONS_YAML]: declares 1 CPU / 1Gi, limits 2 CPU / 1Gi
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: e2e}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}, annotations: {${3:-}}}
    spec:
      containers:
      - name: app
        image: docker.io/library/busybox:local
        resources:
          requests: {cpu: "1", memory: 1Gi}
          limits: {cpu: "2", memory: 1Gi}
YAML
}
deployment web 2 'headroom.dev/allow-below-declared: "true"'
deployment safe 1
web_pods() { kubectl_ -n e2e get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'; }
two_web_pods() { [[ $(web_pods | wc -l) == 2 ]]; }
wait_for 60 two_web_pods || die "the Deployment made no pods (see $work/kube-controller-manager.log)"
resources_of() { kubectl_ -n e2e get pod "$1" -o jsonpath='{.spec.containers[0].resources}'; }
sized=0
for pod in $(web_pods); do
  r=$(resources_of "$pod")
  if [[ $(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r.get("requests"), r.get("limits"))' "$r") == "{'cpu': '350m', 'memory': '96Mi'} {'memory': '250Mi'}" ]]; then
    sized=$((sized + 1))
  else
    echo "  $pod: $r"
  fi
done
[[ $sized == 2 ]] && pass "webhook sized both of the opted-in Deployment's pods: requests cpu 350m memory 96Mi, memory limit 250Mi (the floor), no CPU limit" ||
  fail "webhook did not size the Deployment's pods as specified ($sized of 2)"
safe_pod() { kubectl_ -n e2e get pods -l app=safe -o jsonpath='{.items[0].metadata.name}'; }
wait_for 60 safe_pod || die "the safe Deployment made no pod"
r=$(resources_of "$(safe_pod)")
[[ $(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r.get("requests"), r.get("limits"))' "$r") == "{'cpu': '1', 'memory': '1Gi'} {'memory': '1Gi'}" ]] &&
  pass "without the opt-in the requests stay as declared (cpu 1, memory 1Gi); only the CPU limit goes" ||
  fail "the webhook took a Deployment without the opt-in below its declared requests: $r"
declared=$(kubectl_ -n e2e get pod "$(web_pods | head -1)" -o jsonpath='{.metadata.annotations.headroom\.dev/declared}')
[[ $declared == *'"cpu":"1"'*'"memory":"1Gi"'* ]] && pass "the declared values are kept in headroom.dev/declared: $declared" ||
  fail "no headroom.dev/declared annotation with the declared values (got: $declared)"
annotation=$(kubectl_ -n e2e get pod "$(web_pods | head -1)" -o jsonpath='{.metadata.annotations.headroom\.dev/admission}')
[[ $annotation == *"cpu 1/limit 2"*"cpu 350m/limit -"* ]] && pass "the pod's headroom.dev/admission annotation records the numbers: $annotation" ||
  fail "no headroom.dev/admission annotation with the numbers (got: $annotation)"

# Pod-level resources (spec.resources, beta and on by default since 1.34): the container's
# sized memory limit (250Mi, the floor) would be above the pod-level limit 200Mi, which the API
# refuses -- no pod at all. The webhook caps it, sizes the pod-level requests to the container's
# (opted in below its declared ones) and drops the pod-level CPU limit with the container's.
kubectl_ apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: pooled, namespace: e2e}
spec:
  replicas: 1
  selector: {matchLabels: {app: pooled}}
  template:
    metadata: {labels: {app: pooled}, annotations: {headroom.dev/allow-below-declared: "true"}}
    spec:
      resources:
        requests: {cpu: "1", memory: 128Mi}
        limits: {cpu: "2", memory: 200Mi}
      containers:
      - name: app
        image: docker.io/library/busybox:local
YAML
pooled_pod() { kubectl_ -n e2e get pods -l app=pooled -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
if wait_for 60 pooled_pod; then
  pooled=$(kubectl_ -n e2e get pod "$(pooled_pod)" -o json)
  got=$(python3 -c 'import json,sys; p=json.loads(sys.argv[1])["spec"]; print(p.get("resources"), p["containers"][0].get("resources"))' "$pooled")
  want="{'limits': {'memory': '200Mi'}, 'requests': {'cpu': '350m', 'memory': '96Mi'}} {'limits': {'memory': '200Mi'}, 'requests': {'cpu': '350m', 'memory': '96Mi'}}"
  [[ $got == "$want" ]] &&
    pass "a pod with pod-level resources was created, sized at both levels within the API's bounds: pod and container requests cpu 350m memory 96Mi, memory limit capped at the pod's 200Mi, no CPU limit" ||
    fail "pod-level pod sized as '$got', want '$want'"
else
  fail "the Deployment with pod-level resources made no pod: $(kubectl_ -n e2e get events --field-selector involvedObject.kind=ReplicaSet -o jsonpath='{.items[*].message}' | tail -c 400)"
fi

make_pod() { # NAME NODE [ANNOTATIONS_YAML] [LABELS_YAML]: a bare pod bound to NODE (namespace $NS or e2e)
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: ${NS:-e2e}, annotations: {${3:-}}, labels: {${4:-}}}
spec:
  nodeName: $2
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: docker.io/library/busybox:local
    imagePullPolicy: Never
    command: ["/bin/sleep", "3600"]
    resources:
      requests: {cpu: 500m, memory: 256Mi}
      limits: {cpu: "1", memory: 512Mi}
YAML
}
make_pod opted-out history-node 'headroom.dev/disable: "true"'
[[ $(kubectl_ -n e2e get pod opted-out -o jsonpath='{.spec.containers[0].resources.limits.cpu}') == 1 ]] &&
  pass "a pod annotated headroom.dev/disable keeps its resources" || fail "the webhook changed an opted-out pod"
NS=kube-system make_pod in-kube-system history-node
[[ $(kubectl_ -n kube-system get pod in-kube-system -o jsonpath='{.spec.containers[0].resources.limits.cpu}') == 1 ]] &&
  pass "pods in kube-system are left alone" || fail "the webhook changed a kube-system pod"
kubectl_ -n e2e delete pod opted-out --grace-period 0 --force >/dev/null 2>&1 || true

# === 2. The API is never blocked: with the extender down, pods are still created ============
stop_extender
make_pod while-down history-node
[[ $(kubectl_ -n e2e get pod while-down -o jsonpath='{.spec.containers[0].resources.limits.cpu}') == 1 ]] &&
  pass "with the extender down the pod is created unchanged (failurePolicy Ignore)" || fail "pod creation failed or changed with the extender down"
kubectl_ -n e2e delete pod while-down --grace-period 0 --force >/dev/null 2>&1 || true
start_extender || die "headroom-extender did not restart (see $work/extender.log)"

events_for() { kubectl_ -n e2e get events --field-selector "involvedObject.name=$1,reason=$2" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'; }

# === 3. A real node: containerd + runc under a kubelet (host network, no CNI) ===============
mkdir -p "$work/root" "$work/state"
write_containerd_config
containerd --config "$work/containerd.toml" >"$work/containerd.log" 2>&1 &
containerd_pid=$!
wait_for 30 crictl_ info || die "containerd did not start (see $work/containerd.log)"
import_test_images || die "importing images"
prepare_cgroup_root
start_kubelet e2e-node || die "the kubelet did not register (see $work/kubelet.log)"
pass "kubelet $("$k8s_bin/kubelet" --version | awk '{print $2}') registered node e2e-node on containerd $(containerd --version | awk '{print $3}')"
running() { [[ $(kubectl_ -n e2e get pod "$1" -o jsonpath='{.status.phase}') == Running ]]; }
# Bare pods: headroom evicts a pod without a controller only with the opt-in, and requests
# less than declared only with the other.
make_pod resizable e2e-node 'headroom.dev/allow-below-declared: "true"'
make_pod guarded e2e-node 'headroom.dev/allow-disruption: "true"' 'app: guarded'
kubectl_ apply -f - >/dev/null <<'YAML'
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded, namespace: e2e}
spec: {minAvailable: 1, selector: {matchLabels: {app: guarded}}}
YAML
wait_for 90 running resizable && wait_for 30 running guarded || die "pods did not start on e2e-node (see $work/kubelet.log)"
pass "pods resizable and guarded run on e2e-node"
pdb_settled() { [[ $(kubectl_ -n e2e get pdb guarded -o jsonpath='{.status.currentHealthy}/{.status.disruptionsAllowed}') == 1/0 ]]; }
wait_for 30 pdb_settled && pass "the disruption controller counts guarded healthy with no disruption allowed" || fail "PDB status not 1 healthy / 0 allowed"

# === 4. Dry run changes nothing ============================================================
# e2e-node's report: memory does not fit in 300Mi (bases 64Mi + 200Mi, largest headroom 200Mi,
# guarded's), so the optimisation gives up guarded and sizes resizable at its peak, 200m /
# 128Mi, memory limit 256Mi; the guard rails bound the CPU shrink to one 50% step:
# requests 500m / 256Mi -> 250m / 128Mi, memory limit 512Mi -> 256Mi.
send_node_report() {
  report e2e-node 314572800 "[$(pod_json resizable e2e/Pod/resizable "$(stats 100 200 67108864 134217728)"),$(pod_json guarded e2e/Pod/guarded "$(stats 100 200 209715200 419430400)")]"
}
stop_extender
start_extender --dry-run || die "headroom-extender did not start with --dry-run"
send_node_report || die "sending e2e-node's report (see $work/report.log)"
make_pod dry-run-pod history-node
dry_decided() { [[ $(metric 'headroom_extender_actions_total{action="resize",outcome="dry_run"}') -ge 1 && $(metric 'headroom_extender_actions_total{action="evict",outcome="dry_run"}') -ge 1 ]]; }
if wait_for 20 dry_decided && sleep 2 &&
  [[ $(kubectl_ -n e2e get pod resizable -o jsonpath='{.spec.containers[0].resources.requests.cpu}') == 500m ]] &&
  [[ -z $(kubectl_ -n e2e get pod guarded -o jsonpath='{.metadata.deletionTimestamp}') ]] &&
  [[ -z $(events_for resizable Resized)$(events_for guarded EvictionBlocked) ]] &&
  [[ $(kubectl_ -n e2e get pod dry-run-pod -o jsonpath='{.spec.containers[0].resources.limits.cpu}') == 1 ]]; then
  pass "dry run: resize and eviction decided and logged, nothing written (spec, pods, events and new pods unchanged)"
else
  fail "dry run changed something or decided nothing (see $work/extender.log)"
fi

# === 5. Kill switch: while its file exists nothing changes; removing it resumes ==============
stop_extender
touch "$work/kill-switch"
start_extender || die "headroom-extender did not restart"
send_node_report
make_pod killed-pod history-node
killed() { [[ $(metric 'headroom_extender_actions_total{action="resize",outcome="kill_switch"}') -ge 1 ]]; }
wait_for 20 killed && [[ $(kubectl_ -n e2e get pod killed-pod -o jsonpath='{.spec.containers[0].resources.limits.cpu}') == 1 ]] &&
  [[ $(kubectl_ -n e2e get pod resizable -o jsonpath='{.spec.containers[0].resources.requests.cpu}') == 500m ]] &&
  pass "kill switch engaged: no resize, no webhook patch" || fail "the kill switch did not stop changes"

# === 5b. A refused resize is asked again only after a backoff ===============================
# An admission policy on pods/resize refuses resizable's resize (from Kubernetes 1.36 the API
# refuses one beyond the node's capacity the same way). The actuator runs every second; with
# --refused-resize-backoff 5s it asks once, then waits 5 s, then 10 s: one Event per try.
cat >"$work/deny-resize.yaml" <<'YAML'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: e2e-deny-resize}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/resize"]}
  validations:
  - {expression: "object.metadata.name != 'resizable'", message: "e2e refuses resizes of resizable"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: e2e-deny-resize}
spec: {policyName: e2e-deny-resize, validationActions: [Deny]}
YAML
kubectl_ apply -f "$work/deny-resize.yaml" >/dev/null || fail "could not create the admission policy"
resize_denied() { # (kubectl fails when refused: its output is read, not its status)
  local out
  out=$(kubectl_ -n e2e patch pod resizable --subresource resize --dry-run=server \
    -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"400m"}}}]}}' 2>&1) || true
  [[ $out == *"e2e refuses resizes of resizable"* ]]
}
wait_for 30 resize_denied || fail "the admission policy never refused a resize"
refused_count() { local n; n=$(metric 'headroom_extender_actions_total{action="resize",outcome="refused"}'); echo "${n:-0}"; }
backoff_count() { local n; n=$(metric 'headroom_extender_actions_total{action="resize",outcome="backoff"}'); echo "${n:-0}"; }
refused_before=$(refused_count)
rm -f "$work/kill-switch"
send_node_report
refused_once() { [[ $(refused_count) -ge $((refused_before + 1)) ]]; }
if wait_for 20 refused_once; then
  sleep 3  # three more passes, inside the 5 s backoff
  refused=$(( $(refused_count) - refused_before )); backoffs=$(backoff_count)
  events=$(events_for resizable ResizeRefused | wc -l)
  [[ $refused == 1 && $backoffs -ge 2 && $events == 1 ]] &&
    pass "a refused resize is asked once, then backed off: $refused refusal, $backoffs passes in backoff, $events Event: $(events_for resizable ResizeRefused | head -1 | cut -c1-200)" ||
    fail "a refused resize was asked again without a backoff: $refused refusals, $backoffs in backoff, $events Events"
else
  fail "the refused resize was not counted (see $work/extender.log)"
fi
kubectl_ delete -f "$work/deny-resize.yaml" >/dev/null

# === 6. In-place resize through pods/resize, applied by the kubelet ========================
resized_status() {
  [[ $(kubectl_ -n e2e get pod resizable -o jsonpath='{.status.containerStatuses[0].allocatedResources.cpu}/{.status.containerStatuses[0].resources.requests.memory}/{.status.containerStatuses[0].resources.limits.memory}') == 250m/128Mi/256Mi ]]
}
send_node_report
if wait_for 60 resized_status; then
  pass "resize applied and reflected in the pod status: $(kubectl_ -n e2e get pod resizable -o jsonpath='{.status.containerStatuses[0].resources}')"
else
  fail "resize not reflected in the pod status: spec $(kubectl_ -n e2e get pod resizable -o jsonpath='{.spec.containers[0].resources}') status $(kubectl_ -n e2e get pod resizable -o jsonpath='{.status.containerStatuses[0].resources}') conditions $(kubectl_ -n e2e get pod resizable -o jsonpath='{.status.conditions}')"
fi
[[ $(kubectl_ -n e2e get pod resizable -o jsonpath='{.status.containerStatuses[0].restartCount}') == 0 ]] &&
  pass "resized without a restart" || fail "the resized container restarted"
[[ -n $(events_for resizable Resized) ]] && pass "the resize is recorded as an Event: $(events_for resizable Resized | head -1 | cut -c1-160)" ||
  fail "no Resized event"
memory_limit=$(cat /sys/fs/cgroup/memory$cgroup_root/kubepods/burstable/pod$(kubectl_ -n e2e get pod resizable -o jsonpath='{.metadata.uid}')/*/memory.limit_in_bytes 2>/dev/null | sort -n | head -1)
[[ $memory_limit == 268435456 ]] && pass "the container's cgroup memory limit is now 256Mi (the runtime applied it)" ||
  fail "the container's cgroup memory limit reads '${memory_limit:-?}', not 256Mi"

# === 6b. The shrink step survives a restart: the ledger is kept in a ConfigMap =============
# The plan still wants resizable at 200m; the guard rails hold it at 250m until an hour after
# the step. A restarted extender reads when that step was from the ConfigMap (it created it:
# the suite's admin may) and takes no second step.
ledger() { kubectl_ -n default get configmap headroom-extender-state -o jsonpath='{.data.shrinkLedger}' 2>/dev/null; }
resizable_uid=$(kubectl_ -n e2e get pod resizable -o jsonpath='{.metadata.uid}')
ledger_written() { [[ $(ledger) == *"\"$resizable_uid/app\":{\"cpuRequest\""* ]]; }
wait_for 10 ledger_written && pass "the shrink step is kept in ConfigMap default/headroom-extender-state: $(ledger | cut -c1-140)" ||
  fail "no shrink step for $resizable_uid/app in ConfigMap default/headroom-extender-state (got: $(ledger))"
stop_extender
start_extender || die "headroom-extender did not restart"
send_node_report
ledger_read() { grep -q "actuator state: [1-9][0-9]* containers' last shrink steps and [0-9]* evictions of the last 1h read from ConfigMap default/headroom-extender-state" "$work/extender.log"; }
if wait_for 10 ledger_read && sleep 5 &&
  [[ $(kubectl_ -n e2e get pod resizable -o jsonpath='{.spec.containers[0].resources.requests.cpu}') == 250m ]] &&
  [[ $(events_for resizable Resized | wc -l) == 1 ]]; then
  pass "after a restart the actuator read the ledger and took no second shrink step within the interval (still 250m after 5 passes)"
else
  fail "after a restart: requests.cpu $(kubectl_ -n e2e get pod resizable -o jsonpath='{.spec.containers[0].resources.requests.cpu}'), Resized events $(events_for resizable Resized | wc -l) (see $work/extender.log)"
fi

# === 7. Evictions only through the Eviction API: a PodDisruptionBudget is never forced ======
blocked_event() { [[ -n $(events_for guarded EvictionBlocked) ]]; }
wait_for 20 blocked_event && pass "the PDB-guarded eviction was refused and recorded: $(events_for guarded EvictionBlocked | head -1 | cut -c1-200)" ||
  fail "no EvictionBlocked event for the guarded pod"
sleep 3
running guarded && [[ -z $(kubectl_ -n e2e get pod guarded -o jsonpath='{.metadata.deletionTimestamp}') ]] &&
  pass "the guarded pod still runs: the eviction was not forced" || fail "the guarded pod is being deleted despite its PDB"
# A pod no budget covers, on a node without a kubelet, is evicted.
create_nodes 4 8Gi node-b || die "creating node-b"
make_pod free node-b 'headroom.dev/allow-disruption: "true"'
report node-b 314572800 "[$(pod_json free e2e/Pod/free "$(stats 100 200 209715200 419430400)")]" || die "sending node-b's report"
evicted() { [[ -n $(kubectl_ -n e2e get pod free -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null) ]] || ! kubectl_ -n e2e get pod free >/dev/null 2>&1; }
wait_for 20 evicted && pass "a pod without a budget was evicted through the Eviction API" || fail "pod 'free' was not evicted"
evicted_event() { [[ -n $(events_for free Evicted) ]]; }
wait_for 10 evicted_event && pass "the eviction is recorded as an Event with its numbers: $(events_for free Evicted | head -1 | cut -c1-160)" ||
  fail "no Evicted event for pod 'free'"
recent_evictions() { kubectl_ -n default get configmap headroom-extender-state -o jsonpath='{.data.recentEvictions}' 2>/dev/null; }
eviction_kept() { [[ $(recent_evictions) == *'"node":"node-b"'* ]]; }
wait_for 10 eviction_kept && pass "the eviction's budget token is kept in the state ConfigMap: $(recent_evictions | cut -c1-120)" ||
  fail "no node-b eviction in the state ConfigMap's recentEvictions (got: $(recent_evictions))"

# === 7b. Pod-level resources resized in place, where the cluster does it (1.36+) ===========
# A pod that declares pod-level resources (spec.resources) next to its container's. Before
# 1.36 the API refuses every resize of such a pod, so the actuator leaves it and says why;
# from 1.36 (InPlacePodLevelResourcesVerticalScaling, beta and on) it resizes both levels in
# one pods/resize: the container as any other (500m -> 250m, one 50% step; memory 256Mi ->
# 128Mi, limit 512Mi -> 256Mi), the pod-level requests to the container's, the pod-level
# memory limit kept. The kubelet applies it to the pod's cgroup.
kube_minor=$(sed -E 's/.*Kubernetes v1\.([0-9]+)\..*/\1/' <<<"$release_line")
kubectl_ apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: pooled-run, namespace: e2e, annotations: {headroom.dev/allow-below-declared: "true"}}
spec:
  nodeName: e2e-node
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  resources:
    requests: {cpu: 500m, memory: 256Mi}
    limits: {memory: 512Mi}
  containers:
  - name: app
    image: docker.io/library/busybox:local
    imagePullPolicy: Never
    command: ["/bin/sleep", "3600"]
    resources:
      requests: {cpu: 500m, memory: 256Mi}
      limits: {memory: 512Mi}
YAML
wait_for 90 running pooled-run || fail "pooled-run did not start on e2e-node (see $work/kubelet.log)"
report e2e-node 8589934592 "[$(pod_json pooled-run e2e/Pod/pooled-run "$(stats 100 200 67108864 134217728)")]" ||
  fail "sending e2e-node's report with pooled-run"
pooled_spec() { kubectl_ -n e2e get pod pooled-run -o jsonpath='{.spec.resources.requests.cpu}/{.spec.resources.requests.memory}/{.spec.resources.limits.memory} {.spec.containers[0].resources.requests.cpu}/{.spec.containers[0].resources.requests.memory}/{.spec.containers[0].resources.limits.memory}'; }
if ((kube_minor >= 36)); then
  pooled_applied() { [[ $(pooled_spec) == "250m/128Mi/512Mi 250m/128Mi/256Mi" && $(kubectl_ -n e2e get pod pooled-run -o jsonpath='{.status.allocatedResources.cpu}/{.status.containerStatuses[0].allocatedResources.cpu}') == 250m/250m ]]; }
  if wait_for 60 pooled_applied; then
    shares=$(cat "/sys/fs/cgroup/cpu$cgroup_root/kubepods/burstable/pod$(kubectl_ -n e2e get pod pooled-run -o jsonpath='{.metadata.uid}')/cpu.shares" 2>/dev/null)
    [[ $shares == 256 && $(kubectl_ -n e2e get pod pooled-run -o jsonpath='{.status.containerStatuses[0].restartCount}') == 0 ]] &&
      pass "a pod with pod-level resources was resized in place at both levels on 1.$kube_minor: pod $(pooled_spec | cut -d' ' -f1), container $(pooled_spec | cut -d' ' -f2) (cpu/memory/memory limit), allocated by the kubelet, pod cgroup cpu.shares 256, no restart" ||
      fail "pooled-run resized in the API but pod cgroup cpu.shares '${shares:-?}' (want 256) or the container restarted"
  else
    fail "pooled-run not resized at both levels: spec $(pooled_spec), status $(kubectl_ -n e2e get pod pooled-run -o jsonpath='{.status.allocatedResources} {.status.conditions}') (see $work/extender.log)"
  fi
else
  pooled_left() { grep -q 'resize e2e/pooled-run: skipped: the pod declares pod-level resources' "$work/extender.log"; }
  wait_for 20 pooled_left && [[ $(pooled_spec) == "500m/256Mi/512Mi 500m/256Mi/512Mi" ]] &&
    pass "on 1.$kube_minor a pod with pod-level resources is not resized (the API refuses any resize of one before 1.36), and the log says why" ||
    fail "pooled-run on 1.$kube_minor: spec $(pooled_spec), skip logged: $(grep -c 'pooled-run: skipped' "$work/extender.log")"
fi
kubectl_ -n e2e delete pod pooled-run --grace-period 0 --force >/dev/null 2>&1 || true

# === 8. The disruption policy: a pod without a controller is not evicted without the opt-in ===
# The same report as node-b's, for a pod nothing would recreate: the plan gives it up, the
# policy keeps it, and the log says why.
create_nodes 4 8Gi node-c || die "creating node-c"
make_pod lonely node-c
report node-c 314572800 "[$(pod_json lonely e2e/Pod/lonely "$(stats 100 200 209715200 419430400)")]" || die "sending node-c's report"
kept_with_reason() { grep -q 'node node-c: memory does not fit on node node-c and no evictable pod is left' "$work/extender.log"; }
if wait_for 20 kept_with_reason && sleep 2 && [[ -z $(kubectl_ -n e2e get pod lonely -o jsonpath='{.metadata.deletionTimestamp}') ]] &&
  [[ -z $(events_for lonely Evicted) ]]; then
  pass "a pod without a controller and without headroom.dev/allow-disruption is not evicted; logged: $(grep -m1 'node node-c: memory does not fit' "$work/extender.log" | sed 's/.*node node-c: //' | cut -c1-140)"
else
  fail "the controller-less pod 'lonely' was evicted, or no reason was logged"
fi

# === 8b. The adoption ladder, one step per namespace (headroom.dev/mode on the Namespace) ====
# Three namespaces, one per step. Each gets the same bare pod "app", opted in below its declared
# requests (500m / 256Mi), whose workload has a history (peak 200m / 128Mi; ladder-history's
# report): observe leaves it as declared and the status API shows what it would save;
# admission and in-place size it at creation (200m). Then a pod running on e2e-node in the
# admission namespace, which the plan would shrink, is never resized -- until the operator moves
# the namespace up to in-place.
ladder_ns() { # NAME MODE
  kubectl_ apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: $1, annotations: {headroom.dev/mode: "$2"}}
YAML
}
ladder_ns ladder-obs observe && ladder_ns ladder-adm admission && ladder_ns ladder-inp in-place ||
  fail "creating the ladder's namespaces"
ladder_stats="$(stats 100 200 67108864 134217728)"
report ladder-history 8589934592 "[$(NS=ladder-obs pod_json seen-obs ladder-obs/Pod/app "$ladder_stats"),$(NS=ladder-adm pod_json seen-adm ladder-adm/Pod/app "$ladder_stats"),$(NS=ladder-inp pod_json seen-inp ladder-inp/Pod/app "$ladder_stats")]" ||
  fail "sending ladder-history's report"
sleep 2  # the Namespace watch sees the three
for ns in ladder-obs ladder-adm ladder-inp; do NS=$ns make_pod app ladder-history 'headroom.dev/allow-below-declared: "true"'; done
ladder_field() { kubectl_ -n "$1" get pod "$2" -o jsonpath="$3"; }
obs=$(ladder_field ladder-obs app '{.spec.containers[0].resources.requests.cpu}/{.metadata.annotations.headroom\.dev/admitted-mode}')
adm=$(ladder_field ladder-adm app '{.spec.containers[0].resources.requests.cpu}/{.metadata.annotations.headroom\.dev/admitted-mode}')
inp=$(ladder_field ladder-inp app '{.spec.containers[0].resources.requests.cpu}/{.metadata.annotations.headroom\.dev/admitted-mode}')
[[ $obs == 500m/observe && $adm == 200m/admission && $inp == 200m/in-place ]] &&
  pass "the webhook follows each namespace's step: observe keeps 500m, admission and in-place size to 200m (admitted-mode written on each pod)" ||
  fail "ladder at admission: observe '$obs' (want 500m/observe), admission '$adm' (200m/admission), in-place '$inp' (200m/in-place)"
# The owner layer: a Deployment annotated observe in the in-place namespace (its pod template
# says nothing). Its pods keep their CPU limit (no history: in-place would only remove it).
# Created with no replica, then scaled once the extender's Deployment watch has seen it.
kubectl_ apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: watched, namespace: ladder-inp, annotations: {headroom.dev/mode: observe}}
spec:
  replicas: 0
  selector: {matchLabels: {app: watched}}
  template:
    metadata: {labels: {app: watched}}
    spec:
      nodeName: ladder-history
      containers:
      - name: app
        image: docker.io/library/busybox:local
        resources: {requests: {cpu: 500m, memory: 256Mi}, limits: {cpu: "1", memory: 512Mi}}
YAML
sleep 2
kubectl_ -n ladder-inp scale deployment watched --replicas 1 >/dev/null
watched_pod() { kubectl_ -n ladder-inp get pods -l app=watched -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
wait_for 60 watched_pod || fail "the Deployment ladder-inp/watched made no pod"
watched=$(ladder_field ladder-inp "$(watched_pod)" '{.spec.containers[0].resources.limits.cpu}/{.metadata.annotations.headroom\.dev/admitted-mode}')
[[ $watched == 1/observe ]] &&
  pass "the owner layer: a Deployment annotated observe in an in-place namespace keeps its pods as declared (CPU limit 1, admitted-mode observe)" ||
  fail "the Deployment annotated observe: its pod has '$watched' (want 1/observe)"
namespace_row() { # NAME: the status API's row of namespace NAME
  curl -sf "http://127.0.0.1:$http_port/api/v1/status" | python3 -c "import json,sys; print(json.dumps([n for n in json.load(sys.stdin)['namespaces'] if n['name']=='$1'][0]))"
}
observe_shown() { # the observe namespace: its step, and the 300m of CPU sizing would save
  local row; row=$(namespace_row ladder-obs) || return 1
  python3 -c "import json,sys; r=json.loads(sys.argv[1]); assert r['step']=='observe' and r['stepFrom']=='namespace' and r['nextStep']=='admission' and r['saves']['cpuMillis']>0, r" "$row" 2>/dev/null
}
if wait_for 15 observe_shown; then
  pass "the status API shows ladder-obs in observe and what admission would save: $(namespace_row ladder-obs | cut -c1-220)"
else
  fail "the status API does not show ladder-obs's step and savings: $(namespace_row ladder-obs 2>&1 | cut -c1-300)"
fi
# A running pod in the admission namespace, created before its workload had a history (so the
# webhook kept 500m); e2e-node's report says it uses far less.
NS=ladder-adm make_pod shrinkable e2e-node 'headroom.dev/allow-below-declared: "true"'
shrinkable_running() { [[ $(ladder_field ladder-adm shrinkable '{.status.phase}') == Running ]]; }
wait_for 90 shrinkable_running || fail "shrinkable did not start on e2e-node (see $work/kubelet.log)"
send_ladder_report() {
  report e2e-node 314572800 "[$(NS=ladder-adm pod_json shrinkable ladder-adm/Pod/shrinkable "$(stats 100 200 67108864 134217728)")]"
}
send_ladder_report || fail "sending e2e-node's report"
sleep 6  # six actuation passes
[[ $(ladder_field ladder-adm shrinkable '{.spec.containers[0].resources.requests.cpu}') == 500m ]] &&
  [[ -z $(kubectl_ -n ladder-adm get events --field-selector involvedObject.name=shrinkable,reason=Resized -o name) ]] &&
  pass "admission: the running pod is not resized (still 500m after 6 actuation passes)" ||
  fail "admission: shrinkable was resized: $(ladder_field ladder-adm shrinkable '{.spec.containers[0].resources}')"
explained=$("$headroom_bin" explain ladder-adm/shrinkable --extender-url "http://127.0.0.1:$http_port" 2>&1 || true)
[[ $explained == *"mode admission (from: namespace)"* ]] &&
  pass "explain names the step and where it comes from: $(grep -o 'mode admission (from: namespace)[^;]*' <<<"$explained" | head -1 | cut -c1-120)" ||
  fail "explain does not name the namespace's step: $(head -c 400 <<<"$explained")"
kubectl_ annotate namespace ladder-adm --overwrite headroom.dev/mode=in-place >/dev/null
send_ladder_report
shrunk() { [[ $(ladder_field ladder-adm shrinkable '{.spec.containers[0].resources.requests.cpu}') != 500m ]]; }
wait_for 30 shrunk &&
  pass "moved up to in-place, the same pod is resized in place: requests $(ladder_field ladder-adm shrinkable '{.spec.containers[0].resources.requests}')" ||
  fail "after moving ladder-adm to in-place the pod was not resized (see $work/extender.log)"

# === 9. Two replicas with --actuate: exactly one acts, and the other takes over ==============
# A second extender with short Lease timings (6 s / 4 s / 1 s). The first one, started long
# ago, holds the Lease; both get the same report of a node where one pod must be evicted.
http2=$(free_port); grpc2=$(free_port)
"$extender_bin" --http-address "127.0.0.1:$http2" --grpc-address "127.0.0.1:$grpc2" \
  --kubeconfig "$work/admin.kubeconfig" --log-level debug --actuate --actuation-interval 1s \
  --report-auth=insecure --verify-report-pods=false --leader-elect-lease-duration 6s \
  --leader-elect-renew-deadline 4s --leader-elect-retry-period 1s >>"$work/extender-2.log" 2>&1 &
second_pid=$!
pids+=("$second_pid")
wait_for 20 curl -sf "http://127.0.0.1:$http2/healthz" || fail "the second extender did not start (see $work/extender-2.log)"
# The identity of the replica a log's last start reported.
identity_of() { grep -o 'leader election: Lease [^ ]* as [^ ]*' "$1" | tail -1 | awk '{print $NF}'; }
first_id=$(identity_of "$work/extender.log")
second_id=$(identity_of "$work/extender-2.log")
holder() { kubectl_ -n default get lease headroom-extender -o jsonpath='{.spec.holderIdentity}'; }
sleep 3
[[ -n $first_id && $(holder) == "$first_id" ]] && pass "one Lease holder: the first replica ($first_id)" ||
  fail "Lease holder '$(holder)', expected the first replica '$first_id'"
create_nodes 4 8Gi node-d || die "creating node-d"
make_pod twin node-d 'headroom.dev/allow-disruption: "true"'
twin_report="[$(pod_json twin e2e/Pod/twin "$(stats 100 200 209715200 419430400)")]"
report node-d 314572800 "$twin_report" || fail "sending node-d's report to the first replica"
printf '{"node":"node-d","allocatable":{"cpuMillis":"4000","memoryBytes":"314572800"},"maxPods":110,"load1":0.1,"cpus":4,"pods":%s}\n' "$twin_report" >"$work/report-node-d-2.json"
"$headroom_bin" report --extender "127.0.0.1:$grpc2" --input "$work/report-node-d-2.json" >>"$work/report.log" 2>&1 ||
  fail "sending node-d's report to the second replica"
twin_evicted() { grep -q 'evicted e2e/twin' "$work/extender.log"; }
wait_for 20 twin_evicted && sleep 2 && ! grep -q 'twin' "$work/extender-2.log" &&
  pass "only the Lease holder evicted the pod; the second replica, given the same report, did nothing" ||
  fail "twin: first replica evicted: $(grep -c 'evicted e2e/twin' "$work/extender.log"), second mentions it: $(grep -c twin "$work/extender-2.log")"
# The holder dies without releasing the Lease: the second takes over within the lease duration.
kill -9 "$extender_pid"; wait "$extender_pid" 2>/dev/null || true; extender_pid=""
killed_at=$SECONDS
took_over() { [[ $(holder) == "$second_id" ]] && grep -q 'holds Lease' "$work/extender-2.log"; }
# The second replica takes over once the record has not changed for the holder's lease
# duration (15 s) on its own clock, checked every retry period (1 s): at most 16 s after the
# kill; 18 allows for this check's own polling through kubectl and SECONDS' whole seconds.
if wait_for 30 took_over; then
  took=$((SECONDS - killed_at))
  ((took <= 18)) && pass "after kill -9 of the holder the second replica took the Lease in $took s (the holder's lease duration: 15 s, retry 1 s)" ||
    fail "the second replica took the Lease only after $took s (lease duration 15 s + retry 1 s)"
else
  fail "the second replica did not take the Lease over (holder '$(holder)')"
fi
create_nodes 4 8Gi node-e || die "creating node-e"
make_pod heir node-e 'headroom.dev/allow-disruption: "true"'
# First a forged report: node-d claims heir (its real UID) in a node that must shed a pod.
# Even with reports unauthenticated and unchecked here, the actuator acts only on the API's
# pod bound to the reporting node: nothing happens to heir.
printf '{"node":"node-d","allocatable":{"cpuMillis":"4000","memoryBytes":"314572800"},"maxPods":110,"load1":0.1,"cpus":4,"pods":[%s]}\n' "$(pod_json heir e2e/Pod/heir "$(stats 100 200 209715200 419430400)")" >"$work/report-forged.json"
"$headroom_bin" report --extender "127.0.0.1:$grpc2" --input "$work/report-forged.json" >>"$work/report.log" 2>&1 ||
  fail "sending the forged report"
sleep 4
if [[ -z $(kubectl_ -n e2e get pod heir -o jsonpath='{.metadata.deletionTimestamp}') ]] && ! grep -q 'evicted e2e/heir' "$work/extender-2.log"; then
  pass "a report from node-d claiming node-e's pod evicts nothing (4 actuation passes)"
else
  fail "a forged report from another node evicted e2e/heir"
fi
printf '{"node":"node-e","allocatable":{"cpuMillis":"4000","memoryBytes":"314572800"},"maxPods":110,"load1":0.1,"cpus":4,"pods":[%s]}\n' "$(pod_json heir e2e/Pod/heir "$(stats 100 200 209715200 419430400)")" >"$work/report-node-e.json"
"$headroom_bin" report --extender "127.0.0.1:$grpc2" --input "$work/report-node-e.json" >>"$work/report.log" 2>&1 ||
  fail "sending node-e's report to the second replica"
heir_evicted() { grep -q 'evicted e2e/heir' "$work/extender-2.log"; }
wait_for 20 heir_evicted && pass "the new holder acts: it evicted e2e/heir" || fail "the new Lease holder did not act (see $work/extender-2.log)"

echo "actuation-suite: $failures failure(s)"
[[ $failures == 0 ]]
