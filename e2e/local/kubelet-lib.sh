# Sourced by the local suites that run a real kubelet on the containerd of containerd-lib.sh
# (cgroup v1, cgroupfs driver, host network, no CNI); sources cluster-lib.sh (kubectl_,
# wait_for, free_port) and containerd-lib.sh. Expects: work, k8s_bin, cgroup_root (a cgroup
# path of the suite's own, e.g. /headroom-e2e-$$).
# prepare_cgroup_root: makes cgroup_root in every v1 hierarchy (the kubelet's cgroup root must
#   exist; cpuset needs its CPUs and memory nodes filled in from the parent).
# stop_kubelet: stops the kubelet (kubelet_pid, if any) and removes the pod sandboxes it left
#   in containerd (needs crictl_).
# remove_kubelet_leftovers: after the pods are gone, unmounts the volumes the kubelet mounted
#   under $work and removes the cgroup root.
# start_kubelet NODE: $work/kubelet.yaml, then the kubelet registering NODE (sets
#   kubelet_pid), waiting until the Node exists.
# crictl_ ARGS: crictl against the suite's containerd.
# stop_node_and_cluster: the kubelet, containerd (containerd_pid) and what was started into
#   pids (newest first), then the kubelet's leftovers; the end of a suite's cleanup.
crictl_() { "$cache/bin/crictl" --runtime-endpoint "unix://$work/containerd.sock" --timeout 30s "$@"; }
stop_node_and_cluster() {
  stop_kubelet
  stop_pid "$containerd_pid"
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}"; done
  remove_kubelet_leftovers
}
source "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/containerd-lib.sh"

prepare_cgroup_root() {
  local controller
  for controller in /sys/fs/cgroup/*/; do
    [[ -e ${controller}cgroup.procs ]] || continue
    mkdir -p "$controller$cgroup_root"
    if [[ -e ${controller}cpuset.cpus ]]; then
      cat "${controller}cpuset.cpus" >"$controller$cgroup_root/cpuset.cpus"
      cat "${controller}cpuset.mems" >"$controller$cgroup_root/cpuset.mems"
    fi
  done
}

stop_kubelet() {
  [[ -n ${kubelet_pid:-} ]] || return 0
  kill "$kubelet_pid" 2>/dev/null
  wait "$kubelet_pid" 2>/dev/null
  local pod
  for pod in $(crictl_ pods -q 2>/dev/null); do
    crictl_ stopp "$pod" >/dev/null 2>&1
    crictl_ rmp -f "$pod" >/dev/null 2>&1
  done
  return 0
}

remove_kubelet_leftovers() {
  grep -o " $work/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount 2>/dev/null
  remove_cgroup_dirs "$cgroup_root"
}

start_kubelet() {
  local kubelet_port kubelet_healthz
  kubelet_port=$(free_port); kubelet_healthz=$(free_port)
  mkdir -p "$work/kubelet"
  cat >"$work/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_healthz
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: $work/ca.crt}}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: $cgroup_root
# This host is cgroup v1 (hybrid); from 1.35 the kubelet refuses v1 unless told not to
# (KEP-5573). Users' nodes are v2, which these suites do not cover (docs/development.md).
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$work/containerd.sock
enforceNodeAllocatable: []
evictionHard: {memory.available: "1Mi", nodefs.available: "0%", imagefs.available: "0%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
localStorageCapacityIsolation: false
registerNode: true
resolvConf: ""
syncFrequency: 2s
fileCheckFrequency: 2s
nodeStatusUpdateFrequency: 2s
YAML
  "$k8s_bin/kubelet" --config "$work/kubelet.yaml" --kubeconfig "$work/admin.kubeconfig" --root-dir "$work/kubelet" \
    --hostname-override "$1" --node-ip 127.0.0.1 >>"$work/kubelet.log" 2>&1 &
  kubelet_pid=$!
  wait_for 60 kubectl_ get node "$1"
}
