#!/usr/bin/env bash
# Scheduling throughput on a local control plane of real binaries (etcd 3.5, kube-apiserver
# and kube-scheduler v1.34.3, scripts/k8s-deps.sh): the same batch of pods on many fake nodes
# (Node objects without kubelet, as kwok creates them), through kube-scheduler in five
# configurations, run in interleaved rounds so that the machine's drift hits all alike:
#   alone            kube-scheduler without an extender;
#   null             with bench/null_extender.cc (decides nothing, raw epoll, no JSON parser),
#                    filter + prioritize: the HTTP extender protocol's own cost, the floor;
#   null-filter      the same, filter only;
#   null-scored      the null extender scoring each node from its name (0..9) instead of 0, so
#                    that kube-scheduler's choices depend on the extender's scores (not in the
#                    default set: HEADROOM_BENCH_CONFIGS="null null-scored headroom");
#   headroom         with headroom-extender, filter + prioritize (deploy/'s configuration);
#   headroom-filter  headroom-extender, filter only;
#   headroom-noapi   a second headroom-extender without the API (no pod and node watches),
#                    filter + prioritize: what the watches cost (not in the default set).
# headroom-extender knows every node from a report (each with pods, so every filter call does
# the full projection). Pods are created before their scheduler starts; throughput is bindings
# per second between the first and the last "Successfully bound" line of the scheduler's log.
# Every scheduler gets clientConnection qps/burst 5000 so the API client's rate limit (50/s by
# default) does not hide the extender's cost. Everything listens on 127.0.0.1 and is stopped by
# PID. Numbers are reported (median and range per configuration), not asserted.
#
# Usage: bash scripts/bench-scheduling.sh [NODES (500)] [PODS (1000)] [ROUNDS (3)]
#        (HEADROOM_BENCH_CONFIGS="alone headroom" runs only those configurations)
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-500}
pods=${2:-1000}
rounds=${3:-3}
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
k8s_bin=$cache/k8s-${HEADROOM_K8S_VERSION:-v1.34.3}

bash scripts/setup.sh >&2
bash scripts/k8s-deps.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target headroom-extender extender_latency null_extender >&2

work=$(mktemp -d /tmp/headroom-bench-sched.XXXXXX)
pids=()
cleanup() {
  set +e
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null && wait "${pids[i]}" 2>/dev/null; done
  [[ -n ${HEADROOM_BENCH_KEEP:-} ]] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
die() { echo "bench-scheduling: $*" >&2; exit 1; }
source e2e/local/cluster-lib.sh

# Fake nodes need no not-ready taint (no kubelet will ever clear it): removing it node by node
# takes longer than the benchmark at 5000 nodes.
apiserver_disable_admission=ServiceAccount,TaintNodesByCondition
start_control_plane
names=()
for ((i = 0; i < nodes; i++)); do names+=("node-$i"); done
create_nodes 32 128Gi "${names[@]}" || die "creating nodes"
kubectl_ create namespace bench >/dev/null

http_port=$(free_port)
grpc_port=$(free_port)
# HEADROOM_EXTENDER: another headroom-extender binary to measure (e.g. a previous commit's).
extender="${HEADROOM_EXTENDER:-build/release/extender/headroom-extender}"
# HEADROOM_BENCH_NO_API=1 runs the extender without the API (no pod and node watches), to
# see what those cost the rest of this machine; headroom needs them in a real cluster.
api_flags=(--kubeconfig "$work/admin.kubeconfig")
[[ -n ${HEADROOM_BENCH_NO_API:-} ]] && api_flags=()
"$extender" --http-address "127.0.0.1:$http_port" --grpc-address "127.0.0.1:$grpc_port" \
  --report-auth=insecure --report-stale-after=1h "${api_flags[@]}" >"$work/extender.log" 2>&1 &
pids+=($!)
extender_pid=$!
wait_for 20 curl -sf "http://127.0.0.1:$http_port/healthz" || die "extender did not start"
# Every node reports 5 pods with statistics (node-0 .. node-N-1, the names above).
build/release/bench/extender_latency --report "127.0.0.1:$grpc_port" --nodes "$nodes" --pods 5 \
  --node-cpus 32 --node-memory-gi 128 || die "reports"
read -r -a configs <<<"${HEADROOM_BENCH_CONFIGS:-alone null null-filter headroom headroom-filter}"
# headroom-noapi: a second headroom-extender, the same but without the API (no pod and node
# watches), so that one run shows what the watches cost; started only when asked for.
noapi_port="" noapi_pid=""
if [[ " ${configs[*]} " == *" headroom-noapi "* ]]; then
  noapi_port=$(free_port); noapi_grpc=$(free_port)
  "$extender" --http-address "127.0.0.1:$noapi_port" \
    --grpc-address "127.0.0.1:$noapi_grpc" --report-auth=insecure --report-stale-after=1h \
    >"$work/extender-noapi.log" 2>&1 &
  pids+=($!)
  noapi_pid=$!
  wait_for 20 curl -sf "http://127.0.0.1:$noapi_port/healthz" || die "extender (no API) did not start"
  build/release/bench/extender_latency --report "127.0.0.1:$noapi_grpc" --nodes "$nodes" --pods 5 \
    --node-cpus 32 --node-memory-gi 128 || die "reports (no API)"
fi
build/release/bench/null_extender --address 127.0.0.1 --port 0 >"$work/null.port" &
pids+=($!)
null_pid=$!
wait_for 10 test -s "$work/null.port" || die "null extender did not start"
null_port=$(cat "$work/null.port")
build/release/bench/null_extender --address 127.0.0.1 --port 0 --scores varied >"$work/null-scored.port" &
pids+=($!)
null_scored_pid=$!
wait_for 10 test -s "$work/null-scored.port" || die "null extender (varied scores) did not start"
null_scored_port=$(cat "$work/null-scored.port")

pod_batch() { # SCHEDULER_NAME
  for ((i = 0; i < pods; i++)); do
    printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: bench\n  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: bench, uid: 00000000-0000-0000-0000-00000000be9c, controller: true}]\nspec:\n  schedulerName: %s\n  containers:\n  - {name: app, image: busybox:local, resources: {requests: {cpu: 100m, memory: 128Mi}}}\n---\n' "$i" "$1"
  done
}

# cpu_ticks PID: the process's user + system CPU so far, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run CONFIG ROUND: prints "CONFIG seconds pods/s extender-CPU-µs-per-pod"
run() {
  local config=$1 round=$2 name sched_port port="" prioritize=yes
  name="$config-$round"
  sched_port=$(free_port)
  local server_pid=$extender_pid
  case $config in
    null) port=$null_port server_pid=$null_pid ;;
    null-filter) port=$null_port prioritize=no server_pid=$null_pid ;;
    null-scored) port=$null_scored_port server_pid=$null_scored_pid ;;
    headroom) port=$http_port ;;
    headroom-filter) port=$http_port prioritize=no ;;
    headroom-noapi) port=$noapi_port server_pid=$noapi_pid ;;
  esac
  {
    printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n'
    printf 'clientConnection: {kubeconfig: "%s", qps: 5000, burst: 5000}\n' "$work/admin.kubeconfig"
    printf 'leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: %s\n' "$name"
    if [[ -n $port ]]; then
      printf 'extenders:\n- {urlPrefix: "http://127.0.0.1:%s", filterVerb: filter, ' "$port"
      [[ $prioritize == yes ]] && printf 'prioritizeVerb: prioritize, weight: 5, '
      printf 'nodeCacheCapable: true, httpTimeout: 2s, ignorable: true}\n'
    fi
  } >"$work/$name.yaml"
  pod_batch "$name" | kubectl_ apply -f - >/dev/null
  "$k8s_bin/kube-scheduler" --config "$work/$name.yaml" --bind-address 127.0.0.1 --secure-port "$sched_port" -v=2 \
    >"$work/$name.log" 2>&1 &
  local pid=$! ticks_before
  ticks_before=$(cpu_ticks "$server_pid")
  all_bound() { [[ $(grep -c 'Successfully bound pod to node' "$work/$name.log") -ge $pods ]]; }
  # (This runs in a pipeline's subshell: stop the scheduler here before giving up.)
  wait_for 600 all_bound || { kill "$pid"; die "$name: not all pods bound (see $work/$name.log)"; }
  kill "$pid"; wait "$pid" 2>/dev/null || true
  # The headroom-extender's CPU over the whole round (it also reads the pod watch in "alone"
  # rounds), per pod: what it takes from the two cores kube-scheduler shares with it.
  local cpu_us=$(( ($(cpu_ticks "$server_pid") - ticks_before) * 1000000 / $(getconf CLK_TCK) / pods ))
  grep 'Successfully bound pod to node' "$work/$name.log" | awk -v name="$config" -v n="$pods" -v cpu="$cpu_us" '
    { split($2, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]; if (NR == 1) first = s; last = s }
    END { d = last - first; printf "%s %.2f %.0f %d\n", name, d, (n - 1) / d, cpu }'
  # One collection delete, at once (kubectl delete --all deletes and waits pod by pod).
  kubectl_ delete --raw "/api/v1/namespaces/bench/pods?gracePeriodSeconds=0" >/dev/null
  wait_for 120 sh -c "[ \$($k8s_bin/kubectl --kubeconfig $work/admin.kubeconfig -n bench get pods -o name | wc -l) = 0 ]"
}

for ((round = 1; round <= rounds; round++)); do
  for config in "${configs[@]}"; do
    run "$config" "$round" | tee -a "$work/runs.txt" >&2
  done
done
# (prometheus-cpp writes _count before _sum: pick each by name.)
server_side() { # VERB [PORT]: "calls, mean ms"
  curl -sf "http://127.0.0.1:${2:-$http_port}/metrics" | awk -v verb="$1" '
    index($0, "headroom_extender_request_duration_seconds_sum{verb=\"" verb "\"") == 1 { sum = $2 }
    index($0, "headroom_extender_request_duration_seconds_count{verb=\"" verb "\"") == 1 { count = $2 }
    END { if (count > 0) printf "%d calls, mean %.3f ms", count, 1000 * sum / count; else print "no calls" }'
}
filter_calls=$(server_side filter)
prioritize_calls=$(server_side prioritize)
[[ -n $noapi_port ]] && noapi_calls="filter $(server_side filter "$noapi_port"); prioritize $(server_side prioritize "$noapi_port")"
echo
echo "scheduling $pods pods on $nodes nodes, $rounds interleaved rounds (release build, $(nproc) cores, Kubernetes v1.34.3)"
python3 - "$work/runs.txt" "${configs[@]}" <<'PY'
import statistics, sys
runs, cpu = {}, {}
for line in open(sys.argv[1]):
    config, _, rate, cpu_us = line.split()
    runs.setdefault(config, []).append(float(rate))
    cpu.setdefault(config, []).append(float(cpu_us))
median = {c: statistics.median(r) for c, r in runs.items()}
print("%-16s %8s %14s %10s %10s %14s" % ("configuration", "pods/s", "range", "vs alone", "vs null",
                                          "server CPU/pod"))
for c in sys.argv[2:]:
    r = runs[c]
    floor = "null-filter" if c.endswith("-filter") else "null"
    vs_null = "%.2f" % (median[c] / median[floor]) if (c.startswith("headroom") or c == "null-scored") and floor in median else ""
    vs_alone = "%.2f" % (median[c] / median["alone"]) if "alone" in median else ""
    print("%-16s %8.0f %14s %10s %10s %11.0f us" % (c, median[c], "%.0f-%.0f" % (min(r), max(r)),
          vs_alone, vs_null, statistics.median(cpu[c])))
PY
echo "headroom-extender server-side: filter $filter_calls; prioritize $prioritize_calls"
[[ -n $noapi_port ]] && echo "headroom-extender without the API, server-side: $noapi_calls"
echo "(vs null: headroom's median over the null extender's with the same verbs; 1.00 = the protocol's floor."
echo " server CPU/pod: the extender's user + system CPU over the round per pod; for alone, headroom-extender's, which still reads the watches)"
