#!/usr/bin/env bash
# The whole product at cluster scale, on one machine (issue 41): a real control plane (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler with deploy/'s headroom-scheduler
# profile), NODES fake nodes run by KWOK (each 96 cores / 512Gi / 110 pods unless
# HEADROOM_BENCH_NODE_SHAPE="CPUS,MEMORY_GI"), headroom-extender with deploy/'s configuration
# (webhook, actuator, status API, pod and node watches), and every node reporting over gRPC
# once a minute, as headroom-nri does, with statistics the shared library computes from a real
# usage trace (bench/cluster_reporter.cc).
#
# Phases (each measured, none asserted; the JSON at the end has every number):
#   fill        Deployments of 10 replicas until NODES x PODS_PER_NODE pods run;
#   churn       SECONDS of rollouts and scale-ups and -downs while every node reports: filter
#               and prioritize latency under kube-scheduler's real request mix, report ingest,
#               the actuator's rounds, the status API's latency and size, the extender's RSS
#               and CPU;
#   throughput  scheduling throughput in interleaved rounds: the same batch of pods through
#               kube-scheduler without an extender (alone), with bench/null_extender (null:
#               the extender protocol's own cost) and with headroom-extender (headroom), all on
#               the full cluster; medians;
#   burst       every node reporting at once while the headroom scheduler places a batch;
#   restart     headroom-extender restarted: seconds until /readyz is ready with every node
#               known again.
# Exits 0 only if every component stayed up. Reports use --report-auth=insecure (a token per
# fake node would need a kubelet per node; token review's cost is measured by the hostile
# suite); KWOK does not resize a pod's containers, so the actuator's pods/resize calls reach the
# API server and the pods' status never shows them applied.
#
# Usage: bash scripts/bench-cluster.sh [NODES (1000)] [PODS_PER_NODE (30)] [SECONDS (300)]
#   HEADROOM_BENCH_TRACE      usage trace directory (../shared/data/bitbrains-rnd)
#   HEADROOM_BENCH_ROUNDS     throughput rounds (3); HEADROOM_BENCH_BATCH pods per round (500)
#   HEADROOM_BENCH_KEEP=1     keep the scratch directory (logs); HEADROOM_BENCH_OUT=FILE: the JSON
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
nodes=${1:-1000}
pods_per_node=${2:-30}
seconds=${3:-300}
rounds=${HEADROOM_BENCH_ROUNDS:-3}
batch=${HEADROOM_BENCH_BATCH:-500}
shape=${HEADROOM_BENCH_NODE_SHAPE:-96,512}
node_cpus=${shape%,*}
node_memory_gi=${shape#*,}
trace=${HEADROOM_BENCH_TRACE:-$repo/../shared/data/bitbrains-rnd}
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
k8s_version=${HEADROOM_K8S_VERSION:-v1.34.3}
k8s_bin=$cache/k8s-$k8s_version
[[ -f $trace/workloads.csv ]] || { echo "bench-cluster: no usage trace in $trace (HEADROOM_BENCH_TRACE)" >&2; exit 2; }

bash scripts/setup.sh >&2
bash scripts/k8s-deps.sh >&2
bash scripts/kwok-deps.sh >&2
kwok_bin=$cache/kwok-${HEADROOM_KWOK_VERSION:-v0.8.0}/kwok
cmake --preset release >/dev/null
cmake --build --preset release --target headroom-extender null_extender cluster_reporter -j2 >&2
extender_bin=build/release/extender/headroom-extender

work=$(mktemp -d /tmp/headroom-bench-cluster.XXXXXX)
pids=()
cleanup() {
  set +e
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null && wait "${pids[i]}" 2>/dev/null; done
  [[ -n ${HEADROOM_BENCH_KEEP:-} ]] && echo "bench-cluster: kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
die() { echo "bench-cluster: $*" >&2; exit 1; }
log() { echo "bench-cluster [$(date +%T)] $*" >&2; }
source e2e/local/cluster-lib.sh
results=$work/results.jsonl  # one {"key": value} object per line, merged at the end
record() { python3 -c 'import json,sys; print(json.dumps({sys.argv[1]: json.loads(sys.argv[2])}))' "$1" "$2" >>"$results"; }
alive() { kill -0 "$1" 2>/dev/null; }

# --- control plane: nodes come ready from KWOK (no kubelet to clear the not-ready taint).
apiserver_disable_admission=ServiceAccount,TaintNodesByCondition
apiserver_extra_args=(--max-requests-inflight 2000 --max-mutating-requests-inflight 1000)
start_control_plane
log "kube-apiserver $k8s_version ready"
"$k8s_bin/kube-controller-manager" --kubeconfig "$work/admin.kubeconfig" --leader-elect=false \
  --controllers deployment,replicaset,garbagecollector --bind-address 127.0.0.1 --secure-port 0 \
  --kube-api-qps 1000 --kube-api-burst 2000 --concurrent-deployment-syncs 10 --concurrent-replicaset-syncs 10 \
  >"$work/kube-controller-manager.log" 2>&1 &
pids+=($!)
kcm_pid=$!
sed "s/HEADROOM_KUBELET_VERSION/$k8s_version/" e2e/kwok/stages.yaml >"$work/kwok-stages.yaml"
"$kwok_bin" --kubeconfig "$work/admin.kubeconfig" --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake --cidr 10.0.0.0/10 \
  --config "$work/kwok-stages.yaml" >"$work/kwok.log" 2>&1 &
pids+=($!)
kwok_pid=$!

# --- NODES KWOK nodes, created in batches
log "creating $nodes nodes ($node_cpus cores, ${node_memory_gi}Gi, 110 pods each)"
: >"$work/nodes.txt"
for ((i = 0; i < nodes; i++)); do echo "kwok-node-$i" >>"$work/nodes.txt"; done
split -l 500 "$work/nodes.txt" "$work/nodes-batch."
for f in "$work"/nodes-batch.*; do
  while read -r name; do
    printf 'apiVersion: v1\nkind: Node\nmetadata: {name: %s, annotations: {kwok.x-k8s.io/node: fake}, labels: {kubernetes.io/hostname: %s, type: kwok}}\nstatus:\n  capacity: {cpu: "%s", memory: %sGi, pods: "110"}\n  allocatable: {cpu: "%s", memory: %sGi, pods: "110"}\n---\n' \
      "$name" "$name" "$node_cpus" "$node_memory_gi" "$node_cpus" "$node_memory_gi"
  done <"$f" >"$f.yaml"
  kubectl_ create -f "$f.yaml" >/dev/null || die "creating nodes"
done
ready_nodes() { kubectl_ get nodes --no-headers 2>/dev/null | grep -c ' Ready ' || true; }
WAIT_INTERVAL=2 wait_for 600 sh -c "[ \$($k8s_bin/kubectl --kubeconfig $work/admin.kubeconfig get nodes --no-headers | grep -c ' Ready ') -ge $nodes ]" ||
  die "KWOK did not make $nodes nodes ready ($(ready_nodes)); see $work/kwok.log"
log "$nodes nodes ready"

# --- headroom-extender: deploy/'s ConfigMap with what differs outside a cluster
extender_certificate || die "openssl (see $work/openssl.log)"
kubectl_ create namespace headroom-system >/dev/null
http_port=$(free_port); grpc_port=$(free_port); https_port=$(free_port)
overrides=(
  "http-address=127.0.0.1:$http_port" "grpc-address=127.0.0.1:$grpc_port" "webhook-address=127.0.0.1:$https_port"
  "webhook-tls-cert-file=$work/extender.crt" "webhook-tls-key-file=$work/extender.key"
  "grpc-tls-cert-file=" "grpc-tls-key-file=" "report-auth=insecure" "leader-elect=false"
  "state-dir=$work/extender-state" "kill-switch-file=$work/kill-switch" "kubeconfig=$work/admin.kubeconfig"
)
mkdir -p "$work/extender-state"
deploy_extender_config "$work/extender.yaml" "${overrides[@]}" || die "reading deploy/'s extender configuration"
start_extender() {
  "$extender_bin" --config "$work/extender.yaml" >>"$work/extender.log" 2>&1 &
  extender_pid=$!
  pids+=($extender_pid)
  wait_for 30 curl -sf "http://127.0.0.1:$http_port/healthz"
}
start_extender || die "headroom-extender did not start (see $work/extender.log)"
deploy_webhook_config "https://127.0.0.1:$https_port/admission/pods" "$work/ca.crt" "$work/webhook.yaml" &&
  kubectl_ apply -f "$work/webhook.yaml" >/dev/null || die "installing deploy/'s MutatingWebhookConfiguration"

# --- the schedulers: headroom-scheduler (deploy/'s profile), and for the throughput rounds
# the same profile with the null extender (bench-null) and without an extender (bench-alone).
build/release/bench/null_extender --address 127.0.0.1 --port 0 >"$work/null.port" &
pids+=($!)
wait_for 10 test -s "$work/null.port" || die "null extender did not start"
deploy_scheduler_config "http://127.0.0.1:$http_port" "$work/headroom-scheduler.yaml" || die "deploy/'s scheduler configuration"
python3 - "$work" "$(cat "$work/null.port")" <<'PY' || die "scheduler configurations"
import sys, yaml
work, null_port = sys.argv[1:3]
base = yaml.safe_load(open(work + "/headroom-scheduler.yaml"))
# The benchmark's API client rate is not what is measured (kube-scheduler's default is 50/s).
base["clientConnection"].update({"qps": 5000, "burst": 5000})
yaml.safe_dump(base, open(work + "/headroom-scheduler.yaml", "w"))
for name, url in (("bench-null", "http://127.0.0.1:" + null_port), ("bench-alone", None)):
    config = yaml.safe_load(yaml.safe_dump(base))
    config["profiles"][0]["schedulerName"] = name
    if url:
        config["extenders"][0]["urlPrefix"] = url
    else:
        del config["extenders"]
    yaml.safe_dump(config, open("%s/%s.yaml" % (work, name), "w"))
PY
scheduler_name=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["profiles"][0]["schedulerName"])' "$work/headroom-scheduler.yaml")
declare -A scheduler_pid
for s in headroom-scheduler bench-null bench-alone; do
  "$k8s_bin/kube-scheduler" --config "$work/$s.yaml" --bind-address 127.0.0.1 --secure-port "$(free_port)" -v=2 \
    >"$work/$s.log" 2>&1 &
  pids+=($!)
  scheduler_pid[$s]=$!
done

# --- fill: Deployments of 10 replicas in 10 namespaces, requests varied (seeded), every pod
# template opted in to sizing below its declared requests.
target_pods=$((nodes * pods_per_node))
deployments=$(((target_pods + 9) / 10))
for ((n = 0; n < 10; n++)); do kubectl_ create namespace "team-$n" >/dev/null; done
deployment_yaml() { # INDEX REPLICAS SCHEDULER
  local i=$1 cpu=$((100 + ($1 * 7919) % 1900)) memory=$((256 + ($1 * 104729) % 3840))
  printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app-%d, namespace: team-%d}\nspec:\n  replicas: %d\n  selector: {matchLabels: {app: app-%d}}\n  strategy: {rollingUpdate: {maxSurge: 25%%, maxUnavailable: 25%%}}\n  template:\n    metadata:\n      labels: {app: app-%d}\n      annotations: {headroom.dev/allow-below-declared: "true"}\n    spec:\n      schedulerName: %s\n      terminationGracePeriodSeconds: 0\n      containers:\n      - {name: app, image: busybox:bench, resources: {requests: {cpu: %dm, memory: %dMi}, limits: {memory: %dMi}}}\n---\n' \
    "$i" $((i % 10)) "$2" "$i" "$i" "$3" "$cpu" "$memory" $((memory * 2))
}
# The fleet file the reporter reads: every bound pod with its node, owner and requests.
write_fleet() {
  "$k8s_bin/kubectl" --kubeconfig "$work/admin.kubeconfig" get pods -A --no-headers --chunk-size 2000 \
    --field-selector spec.nodeName!= \
    -o 'custom-columns=N:.spec.nodeName,NS:.metadata.namespace,NAME:.metadata.name,UID:.metadata.uid,KIND:.metadata.ownerReferences[0].kind,OWNER:.metadata.ownerReferences[0].name,HASH:.metadata.labels.pod-template-hash,CPU:.spec.containers[0].resources.requests.cpu,MEM:.spec.containers[0].resources.requests.memory' \
    >"$work/fleet.tmp" 2>>"$work/fleet.log" && mv "$work/fleet.tmp" "$work/fleet.txt"
}
# (Every 30 s: a list of 150,000 pods is seconds of the API server's CPU.)
fleet_loop() { while true; do write_fleet; sleep 30; done; }
# Ready replicas of every Deployment together: 1/10 of a pod list's cost.
ready_pods() {
  "$k8s_bin/kubectl" --kubeconfig "$work/admin.kubeconfig" get deployments -A --chunk-size 2000 \
    -o 'jsonpath={range .items[*]}{.status.readyReplicas}{"\n"}{end}' 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'
}
# The fill is done when 99% of the pods are ready (KWOK's last few status patches trail).
filled() { [[ $(ready_pods) -ge $((target_pods * 99 / 100)) ]]; }

log "fill: $deployments Deployments, $target_pods pods"
fill_start=$(date +%s.%N)
for ((start = 0; start < deployments; start += 200)); do
  for ((i = start; i < start + 200 && i < deployments; i++)); do deployment_yaml "$i" 10 "$scheduler_name"; done >"$work/fill.yaml"
  kubectl_ create -f "$work/fill.yaml" >/dev/null || die "creating Deployments"
done
write_fleet
: >"$work/rss.txt"
# (Until the restart below: the first extender's RSS every 2 s.)
sample_extender() { while alive "$extender_pid"; do awk '/VmRSS/ {print $2}' "/proc/$extender_pid/status" >>"$work/rss.txt" 2>/dev/null || true; sleep 2; done; }
sample_extender &
pids+=($!)
sampler_pid=$!
fleet_loop &
pids+=($!)
# Every node reporting through bench/cluster_reporter, once a minute until stopped (later
# flags win: the burst below adds its own); its JSON in $work/reporter.json.
reporter=(build/release/bench/cluster_reporter --target "127.0.0.1:$grpc_port" --nodes-file "$work/nodes.txt"
  --fleet-file "$work/fleet.txt" --usage-trace "$trace" --interval 60s --rounds 100000
  --node-cpus "$node_cpus" --node-memory-gi "$node_memory_gi")
start_reporting() {
  "${reporter[@]}" >"$work/reporter.json" 2>"$work/reporter.log" &
  pids+=($!)
  reporter_pid=$!
}
stop_reporting() { # KEY: records the reporter's JSON under KEY
  alive "$reporter_pid" || log "the reporter had exited: $(tail -1 "$work/reporter.log")"
  kill -TERM "$reporter_pid" 2>/dev/null || true
  wait "$reporter_pid" 2>/dev/null || true
  local json
  json=$(cat "$work/reporter.json")
  record "$1" "${json:-{\"reporter_exited\": true\}}"
}
start_reporting
WAIT_INTERVAL=5 wait_for 3600 filled || die "fill: $(ready_pods) of $target_pods pods ready after an hour"
fill_seconds=$(python3 -c "import sys; print(round($(date +%s.%N) - $fill_start, 1))")
ready=$(ready_pods)
log "fill: $ready of $target_pods pods ready in ${fill_seconds}s"
record fill "{\"pods\": $target_pods, \"ready\": $ready, \"deployments\": $deployments, \"seconds\": $fill_seconds}"
stop_reporting reporting_during_fill

# --- helpers for the measurements
metrics() { curl -sf "http://127.0.0.1:$http_port/metrics"; }
# histogram_of VERB: the request-duration histogram's cumulative buckets as "le count" lines
histogram_of() { metrics | awk -v verb="$1" '
  index($0, "headroom_extender_request_duration_seconds_bucket{") == 1 && index($0, "verb=\"" verb "\"") {
    match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5); print le, $2 }'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# histogram_quantiles VERB: {"calls", "p50_ms", "p99_ms", "share_within_5ms"} of VERB's requests
# between $work/VERB.before and $work/VERB.after (histogram_of), interpolated within the buckets
# as Prometheus' histogram_quantile (a quantile in +Inf reads as the largest finite bound).
histogram_quantiles() {
  python3 - "$work/$1.before" "$work/$1.after" <<'PY'
import json, sys
def buckets(path):
    out = {}
    for line in open(path):
        le, count = line.split()
        out[float("inf") if le == "+Inf" else float(le)] = float(count)
    return out
before, after = buckets(sys.argv[1]), buckets(sys.argv[2])
bounds = sorted(after)
counts = [after[b] - before.get(b, 0) for b in bounds]
total = counts[-1] if counts else 0
def q(p):
    if total == 0: return None
    rank, lower, prev = p * total, 0.0, 0.0
    for b, c in zip(bounds, counts):
        if c >= rank:
            if b == float("inf"): return lower * 1000
            return 1000 * (lower + (b - lower) * (rank - prev) / max(c - prev, 1e-9))
        lower, prev = b, c
at5 = next((c for b, c in zip(bounds, counts) if b == 0.005), 0)
print(json.dumps({"calls": total, "p50_ms": q(0.5), "p99_ms": q(0.99), "share_within_5ms": at5 / total if total else None}))
PY
}
status_probe() { # prints "seconds bytes" of one status API call
  curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "http://127.0.0.1:$http_port/api/v1/status"
}

# --- churn: SECONDS of rollouts and scaling while every node reports once a minute
log "churn: ${seconds}s"
for verb in filter prioritize admission; do histogram_of "$verb" >"$work/$verb.before"; done
metrics >"$work/metrics.before"
ticks_before=$(cpu_ticks "$extender_pid")
start_reporting
: >"$work/status.txt"
churn_end=$(($(date +%s) + seconds))
actions=0
next_status=0
while (($(date +%s) < churn_end)); do
  i=$((RANDOM * 32768 + RANDOM))
  d=$((i % deployments))
  case $((i % 3)) in
    0) kubectl_ -n "team-$((d % 10))" rollout restart "deployment/app-$d" >/dev/null 2>&1 || true ;;
    1) kubectl_ -n "team-$((d % 10))" scale "deployment/app-$d" --replicas 12 >/dev/null 2>&1 || true ;;
    2) kubectl_ -n "team-$((d % 10))" scale "deployment/app-$d" --replicas 8 >/dev/null 2>&1 || true ;;
  esac
  actions=$((actions + 1))
  if (($(date +%s) >= next_status)); then
    status_probe >>"$work/status.txt"
    next_status=$(($(date +%s) + 15))
  fi
  sleep 1
done
ticks_after=$(cpu_ticks "$extender_pid")
stop_reporting reporting_during_churn
for verb in filter prioritize admission; do histogram_of "$verb" >"$work/$verb.after"; done
metrics >"$work/metrics.after"
for verb in filter prioritize admission; do record "$verb" "$(histogram_quantiles "$verb")"; done
python3 - "$work" "$seconds" "$actions" "$(( (ticks_after - ticks_before) ))" "$(getconf CLK_TCK)" >>"$results" <<'PY'
import json, sys
work, seconds, actions, ticks, hz = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def counter(path, prefix):
    total = 0.0
    for line in open(path):
        if line.startswith(prefix): total += float(line.split()[-1])
    return total
def delta(prefix):
    return counter(work + "/metrics.after", prefix) - counter(work + "/metrics.before", prefix)
status = [tuple(map(float, l.split())) for l in open(work + "/status.txt") if l.strip()]
rounds = delta("headroom_extender_actuation_rounds_total")
out = {
    "churn": {"seconds": seconds, "kubectl_actions": actions},
    "actuator": {"rounds": rounds,
                 "mean_round_ms": 1000 * delta("headroom_extender_actuation_round_seconds_total") / rounds if rounds else None,
                 "mean_planning_ms": 1000 * (delta("headroom_extender_actuation_round_seconds_total") - delta("headroom_extender_actuation_writing_seconds_total")) / rounds if rounds else None,
                 "writing_seconds": delta("headroom_extender_actuation_writing_seconds_total"),
                 "logged_rounds": [l.split("actuation round: ", 1)[1].strip() for l in open(work + "/extender.log") if "actuation round: " in l],
                 "nodes_planned": delta("headroom_extender_actuation_nodes_planned_total"),
                 "actions": {l.split()[0]: float(l.split()[1]) for l in open(work + "/metrics.after") if l.startswith("headroom_extender_actions_total{")}},
    "status_api": {"calls": len(status), "max_ms": 1000 * max(s[0] for s in status) if status else None,
                   "median_ms": 1000 * sorted(s[0] for s in status)[len(status) // 2] if status else None,
                   "bytes": int(status[-1][1]) if status else None},
    "extender_cpu_cores_during_churn": ticks / hz / seconds,
}
for key, value in out.items(): print(json.dumps({key: value}))
PY
log "churn done"

# --- throughput: the same batch through each scheduler, interleaved rounds, on the full cluster
# bound_rate SCHEDULER LOG_OFFSET: pods/s between the first and last binding logged after the offset
bound_rate() {
  tail -c +"$(($2 + 1))" "$work/$1.log" | grep 'Successfully bound pod to node' | awk -v n="$batch" '
    { split($2, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]; if (NR == 1) first = s; last = s; count++ }
    END { d = last - first; if (count < n || d <= 0) print "nan"; else printf "%.1f\n", (n - 1) / d }'
}
throughput_round() { # SCHEDULER ROUND
  local s=$1 name="tput-$1-$2" offset
  offset=$(stat -c %s "$work/$s.log")
  {
    printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: team-0}\nspec:\n  replicas: %d\n' "$name" "$batch"
    printf '  selector: {matchLabels: {app: %s}}\n  template:\n    metadata: {labels: {app: %s}}\n    spec:\n' "$name" "$name"
    printf '      schedulerName: %s\n      terminationGracePeriodSeconds: 0\n' "$s"
    printf '      containers: [{name: app, image: busybox:bench, resources: {requests: {cpu: 100m, memory: 128Mi}}}]\n'
  } | kubectl_ create -f - >/dev/null || die "creating $name"
  local all_bound="[ \$(tail -c +$((offset + 1)) $work/$s.log | grep -c 'Successfully bound pod to node') -ge $batch ]"
  wait_for 600 sh -c "$all_bound" || die "$name: not all $batch pods bound (see $work/$s.log)"
  echo "$s $(bound_rate "$s" "$offset")" >>"$work/throughput.txt"
  kubectl_ -n team-0 delete deployment "$name" --wait=false >/dev/null
  WAIT_INTERVAL=1 wait_for 300 sh -c "[ \$($k8s_bin/kubectl --kubeconfig $work/admin.kubeconfig -n team-0 get pods -l app=$name --no-headers 2>/dev/null | wc -l) = 0 ]" ||
    die "$name: pods not deleted"
}
log "throughput: $rounds rounds of $batch pods per scheduler"
: >"$work/throughput.txt"
# The fleet keeps reporting (as it would) while the rounds run.
start_reporting
for ((r = 1; r <= rounds; r++)); do
  for s in bench-alone bench-null "$scheduler_name"; do throughput_round "$s" "$r"; done
done
stop_reporting reporting_during_throughput
python3 - "$work/throughput.txt" "$scheduler_name" "$batch" >>"$results" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    s, rate = line.split()
    if rate != "nan": runs.setdefault(s, []).append(float(rate))
med = {s: statistics.median(r) for s, r in runs.items()}
h = sys.argv[2]
out = {s: {"median_pods_per_s": med[s], "runs": runs[s]} for s in runs}
out["batch"] = int(sys.argv[3])
if h in med and "bench-null" in med: out["headroom_vs_null"] = med[h] / med["bench-null"]
if h in med and "bench-alone" in med: out["headroom_vs_alone"] = med[h] / med["bench-alone"]
print(json.dumps({"throughput": out}))
PY

# --- burst: every node reports at once while the headroom scheduler places a batch
log "burst: $nodes reports at once during a scheduling batch"
histogram_of filter >"$work/filter.before"
(throughput_round "$scheduler_name" burst) &
tput_pid=$!
sleep 2
"${reporter[@]}" --interval 5s --rounds 3 --burst true >"$work/reporter.json" 2>"$work/reporter.log" ||
  die "burst reporter failed (see $work/reporter.log)"
wait "$tput_pid" || die "scheduling during the burst failed"
histogram_of filter >"$work/filter.after"
record burst_reports "$(cat "$work/reporter.json")"
record filter_during_burst "$(histogram_quantiles filter)"

# --- restart: seconds until /readyz answers with every node reporting again
log "restart"
start_reporting
sleep 5
peak_rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$extender_pid/status")
kill -TERM "$extender_pid"; wait "$extender_pid" 2>/dev/null || true
restart_start=$(date +%s.%N)
start_extender || die "headroom-extender did not start again (see $work/extender.log)"
wait_for 300 curl -sf "http://127.0.0.1:$http_port/readyz" || die "not ready 300 s after the restart"
ready_seconds=$(python3 -c "print(round($(date +%s.%N) - $restart_start, 1))")
known=$(metrics | awk '/^headroom_extender_nodes_reported / {print $2}')
stop_reporting reporting_around_restart
record restart "{\"ready_seconds\": $ready_seconds, \"nodes_reported_when_ready\": ${known:-0}}"

# --- the end: everything still up?
kill -TERM "$sampler_pid" 2>/dev/null || true
wait "$sampler_pid" 2>/dev/null || true
up=true
for pid in "$kcm_pid" "$kwok_pid" "$extender_pid" "${scheduler_pid[@]}"; do alive "$pid" || up=false; done
max_rss_kib=$(sort -n "$work/rss.txt" | tail -1)
record extender_memory "{\"peak_rss_mib_before_restart\": $((peak_rss_kib / 1024)), \"sampled_max_rss_mib\": $((${max_rss_kib:-0} / 1024))}"
record run "{\"nodes\": $nodes, \"pods_per_node\": $pods_per_node, \"node_shape\": \"$node_cpus cores, ${node_memory_gi}Gi\", \"kubernetes\": \"$k8s_version\", \"cores\": $(nproc), \"all_up\": $up}"
python3 -c '
import json, sys
merged = {}
for line in open(sys.argv[1]): merged.update(json.loads(line))
print(json.dumps(merged, indent=1))' "$results" | tee "${HEADROOM_BENCH_OUT:-/dev/null}"
$up || die "a component stopped during the run"
