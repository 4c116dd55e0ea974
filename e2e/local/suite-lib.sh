# Sourced first by every local suite: where things are, the checks before a suite starts, and
# how it ends. Needs `failures` (a counter) and, after suite_paths, `work`.
source "$(dirname "${BASH_SOURCE[0]}")/../check-lib.sh"

# suite_paths NAME BUILD_DIR: the suite's name (for messages) and the paths every suite uses.
suite_paths() {
  suite=$1
  build_dir=$(cd "$2" && pwd)
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
  k8s_bin=$cache/k8s-${HEADROOM_K8S_VERSION:-v1.34.3}
  extender_bin=$build_dir/extender/headroom-extender
  headroom_bin=$build_dir/cli/headroom
  nri_bin=$build_dir/kubelet-hook/headroom-nri
}
# require_tools TOOL...: exit 2 naming the first one missing.
require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null ||
      { echo "$suite: missing $tool (run scripts/k8s-deps.sh and scripts/e2e-deps.sh)" >&2; exit 2; }
  done
}
# require_root WHY: exit 2 unless root.
require_root() { [[ $(id -u) == 0 ]] || { echo "$suite: needs root ($1)" >&2; exit 2; }; }
# stop_pid PID: stops a process this suite started (nothing for an empty PID).
stop_pid() {
  [[ -n $1 ]] || return 0
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
# The end of every cleanup: remove the work directory of a passing run (HEADROOM_E2E_KEEP=1
# keeps it), else say where the logs are.
finish_work() {
  if [[ $failures == 0 && -z ${HEADROOM_E2E_KEEP:-} ]]; then rm -rf "$work"; else echo "$suite: logs kept in $work"; fi
}
die() { fail "$*"; exit 1; }
# metric_at PORT NAME: the value of the series NAME (with its labels) on 127.0.0.1:PORT/metrics.
metric_at() { curl -sf "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m {print $2}'; }

# Daemons under their deploy/ memory limit, so that "uses too much memory" is what it is in a
# cluster: an OOM kill. cgroup v2 (memory.max) or v1 (memory.limit_in_bytes).
# memory_cgroup NAME BYTES: makes the cgroup with that limit and prints its directory.
memory_cgroup() {
  local dir
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    dir=/sys/fs/cgroup/$1
    mkdir -p "$dir" && echo "$2" >"$dir/memory.max"
  else
    dir=/sys/fs/cgroup/memory/$1
    mkdir -p "$dir" && echo "$2" >"$dir/memory.limit_in_bytes"
  fi
  echo "$dir"
}
# in_cgroup DIR COMMAND...: runs COMMAND inside the cgroup DIR, exec'ed, so that `in_cgroup
# ... &` leaves COMMAND's PID in $!.
in_cgroup() { local dir=$1; shift; exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$@"; }
# cgroup_peak_bytes DIR: the most memory the cgroup has used (v2 memory.peak needs Linux 5.19).
cgroup_peak_bytes() {
  if [[ -f $1/memory.max_usage_in_bytes ]]; then cat "$1/memory.max_usage_in_bytes"; else cat "$1/memory.peak" 2>/dev/null || echo 0; fi
}
# cgroup_oom_kills DIR: OOM kills inside the cgroup.
cgroup_oom_kills() {
  if [[ -f $1/memory.oom_control ]]; then awk '$1 == "oom_kill" {print $2}' "$1/memory.oom_control"; else awk '$1 == "oom_kill" {print $2}' "$1/memory.events"; fi
}
# remove_memory_cgroup DIR: after its processes ended.
remove_memory_cgroup() { [[ -n $1 && -d $1 ]] && rmdir "$1" 2>/dev/null || true; }
