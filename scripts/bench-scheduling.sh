#!/usr/bin/env bash
# Scheduling throughput with and without headroom-extender, on a local control plane of real
# binaries (etcd 3.5, kube-apiserver and kube-scheduler v1.34.3, scripts/k8s-deps.sh): the
# same batch of pods on many fake nodes (Node objects without kubelet, as kwok creates them),
# once through a kube-scheduler alone and once through one that calls the extender, which
# knows every node from a report. Pods are created before their scheduler starts; throughput
# is bindings per second between the first and the last "Successfully bound" line of the
# scheduler's log. Both schedulers get clientConnection qps/burst 5000 so the API client's
# rate limit (50/s by default) does not hide the cost of the extender. Everything listens on
# 127.0.0.1 and is stopped by PID. Numbers are reported, not asserted.
#
# Usage: bash scripts/bench-scheduling.sh [NODES (500)] [PODS (1000)]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
nodes=${1:-500}
pods=${2:-1000}
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
k8s_bin=$cache/k8s-${HEADROOM_K8S_VERSION:-v1.34.3}

bash scripts/setup.sh >&2
bash scripts/k8s-deps.sh >&2
cmake --preset release >/dev/null
cmake --build --preset release --target headroom-extender headroom >&2

work=$(mktemp -d /tmp/headroom-bench-sched.XXXXXX)
pids=()
cleanup() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null && wait "${pids[i]}" 2>/dev/null; done
  [[ -n ${HEADROOM_BENCH_KEEP:-} ]] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
die() { echo "bench-scheduling: $*" >&2; exit 1; }
source e2e/local/cluster-lib.sh

start_control_plane
names=()
for ((i = 0; i < nodes; i++)); do names+=("node-$i"); done
create_nodes 32 128Gi "${names[@]}" || die "creating nodes"
kubectl_ create namespace bench >/dev/null

http_port=$(free_port)
grpc_port=$(free_port)
build/release/extender/headroom-extender --http-address "127.0.0.1:$http_port" --grpc-address "127.0.0.1:$grpc_port" --report-auth=insecure \
  --kubeconfig "$work/admin.kubeconfig" >"$work/extender.log" 2>&1 &
pids+=($!)
wait_for 20 curl -sf "http://127.0.0.1:$http_port/healthz" || die "extender did not start"
# Every node reports 5 pods with statistics, so each filter call does the full projection.
for name in "${names[@]}"; do
  pods_json=$(for p in 1 2 3 4 5; do printf '{"namespace":"bench","name":"%s-r%d","uid":"%s-r%d","workloadKey":"bench/StatefulSet/resident","requests":{"cpuMillis":"500","memoryBytes":"1073741824"},"containers":[{"name":"app","cpu":{"baseMillis":"%d","peakMillis":"2000"},"memory":{"baseBytes":"1073741824","peakBytes":"2147483648"}}]}\n' "$name" "$p" "$name" "$p" $((300 + p * 100)); done | paste -sd, -)
  printf '{"node":"%s","allocatable":{"cpuMillis":"32000","memoryBytes":"137438953472"},"load1":1.5,"cpus":32,"pods":[%s]}' "$name" "$pods_json" >"$work/report.json"
  build/release/cli/headroom report --extender "127.0.0.1:$grpc_port" --input "$work/report.json" >/dev/null || die "report for $name"
done

pod_batch() { # SCHEDULER_NAME
  for ((i = 0; i < pods; i++)); do
    printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: bench\n  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: bench, uid: 00000000-0000-0000-0000-00000000be9c, controller: true}]\nspec:\n  schedulerName: %s\n  containers:\n  - {name: app, image: busybox:local, resources: {requests: {cpu: 100m, memory: 128Mi}}}\n---\n' "$i" "$1"
  done
}

# run NAME WITH_EXTENDER: prints "NAME seconds pods/s"
run() {
  local name=$1 with_extender=$2 sched_port
  sched_port=$(free_port)
  {
    printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n'
    printf 'clientConnection: {kubeconfig: "%s", qps: 5000, burst: 5000}\n' "$work/admin.kubeconfig"
    printf 'leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: %s\n' "$name"
    if [[ $with_extender == yes ]]; then
      printf 'extenders:\n- {urlPrefix: "http://127.0.0.1:%s", filterVerb: filter, prioritizeVerb: prioritize, weight: 5, nodeCacheCapable: true, httpTimeout: 2s, ignorable: true}\n' "$http_port"
    fi
  } >"$work/$name.yaml"
  pod_batch "$name" | kubectl_ apply -f - >/dev/null
  "$k8s_bin/kube-scheduler" --config "$work/$name.yaml" --bind-address 127.0.0.1 --secure-port "$sched_port" -v=2 \
    >"$work/$name.log" 2>&1 &
  local pid=$!
  all_bound() { [[ $(grep -c 'Successfully bound pod to node' "$work/$name.log") -ge $pods ]]; }
  wait_for 600 all_bound || die "$name: not all pods bound (see $work/$name.log)"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  grep 'Successfully bound pod to node' "$work/$name.log" | awk -v name="$name" -v n="$pods" '
    { split($2, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]; if (NR == 1) first = s; last = s }
    END { d = last - first; printf "%s %.2f %.0f\n", name, d, (n - 1) / d }'
  kubectl_ -n bench delete pods --all --force --grace-period=0 >/dev/null 2>&1
  wait_for 120 sh -c "[ \$($k8s_bin/kubectl --kubeconfig $work/admin.kubeconfig -n bench get pods -o name | wc -l) = 0 ]"
}

plain=$(run plain no)
headroom=$(run headroom yes)
calls=$(curl -sf "http://127.0.0.1:$http_port/metrics" | awk '/^headroom_extender_request_duration_seconds_(sum|count)\{verb="filter"\}/ {print $2}' | paste -sd' ')
echo
echo "scheduling $pods pods on $nodes nodes (release build, $(nproc) cores, Kubernetes v1.34.3)"
printf '%-30s %10s %10s\n' "scheduler" "seconds" "pods/s"
read -r _ s1 r1 <<<"$plain"
read -r _ s2 r2 <<<"$headroom"
printf '%-30s %10s %10s\n' "kube-scheduler alone" "$s1" "$r1" "kube-scheduler + headroom" "$s2" "$r2"
awk -v a="$r1" -v b="$r2" 'BEGIN { printf "with the extender: %.2fx the throughput of kube-scheduler alone\n", b / a }'
read -r sum count <<<"$calls"
awk -v s="$sum" -v c="$count" 'BEGIN { if (c > 0) printf "extender filter calls: %d, mean %.3f ms server-side\n", c, 1000 * s / c }'
