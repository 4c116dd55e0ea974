#!/usr/bin/env bash
# The cgroup v2 suite's checks, run inside the test VM (e2e/vm/run.sh boots it) as its only
# workload: headroom-nri against a real containerd with NRI and runc on a pure cgroup v2
# hierarchy, driven through CRI by crictl, once per containerd (Debian trixie's 1.7 in the
# image, and the 2.x release scripts/vm-deps.sh built from the Go module proxy).
# Reads the host's folders shared over 9p: /mnt/repo (this repository), /mnt/build (the build
# directory: kubelet-hook/headroom-nri), /mnt/cache ($HEADROOM_CACHE: crictl, the test images,
# containerd 2.x), and writes to /mnt/out (logs, and the cgroup files it recorded under
# recorded/, which tests/testdata/cgroup-v2 keeps). Expects HEADROOM_VM_CONTAINERD2 (the 2.x
# bin directory under /mnt/cache) and HEADROOM_VM_LIBS (the plugin's libraries) from run.sh.
set -euo pipefail
repo=/mnt/repo
out=/mnt/out
cache=/mnt/cache
source "$repo/e2e/local/suite-lib.sh"
suite=vm-suite
failures=0
plugin_bin=/mnt/build/kubelet-hook/headroom-nri
crictl_bin=$cache/bin/crictl
metrics_port=19101
# Emulated CPUs: a CRI call takes 10-30 s here (measured), so every wait is generous.
crictl_timeout=180s
WAIT_INTERVAL=0.5

if (($# != 2)); then
  echo "$suite: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) MiB"
  if [[ -f /sys/fs/cgroup/cgroup.controllers && ! -d /sys/fs/cgroup/memory ]]; then
    pass "pure cgroup v2: controllers '$(cat /sys/fs/cgroup/cgroup.controllers)', subtree '$(cat /sys/fs/cgroup/cgroup.subtree_control)'"
  else
    fail "not a pure cgroup v2 host"
  fi
  [[ -r /proc/pressure/cpu ]] && pass "PSI on: /proc/pressure/cpu '$(head -1 /proc/pressure/cpu)'" || fail "no /proc/pressure/cpu"
fi

metric() { metric_at "$metrics_port" "$1"; }
containerd_pid=""
plugin_pid=""
stop_all() {
  stop_pid "$plugin_pid"
  plugin_pid=""
  stop_pid "$containerd_pid"
  containerd_pid=""
}
trap stop_all EXIT

# run_variant NAME BIN_DIR: every check against the containerd in BIN_DIR (its shim too).
run_variant() {
  local name=$1 bin_dir=$2
  local work=/var/tmp/headroom-vm-$name
  local cgroup_parent=/headroom-vm-$name
  local saved_path=$PATH
  # A command that stops the checks early says which.
  trap 'echo "$suite: [$name] stopped at line $LINENO: $BASH_COMMAND"' ERR
  export PATH=$bin_dir:$PATH
  rm -rf "$work"
  mkdir -p "$work/root" "$work/state" "$work/plugin-state"
  touch "$work/crictl.yaml"
  # shellcheck source=../local/containerd-lib.sh
  source "$repo/e2e/local/containerd-lib.sh"
  write_containerd_config "$(nri_containerd_section)"
  local version
  version=$(containerd --version | awk '{print $3}')
  echo "== $suite: containerd $version ($bin_dir), runc $(runc --version | awk 'NR == 1 {print $3}')"
  crictl_() { "$crictl_bin" --config "$work/crictl.yaml" --runtime-endpoint "unix://$work/containerd.sock" --image-endpoint "unix://$work/containerd.sock" --timeout "$crictl_timeout" "$@"; }
  start_containerd() {
    containerd --config "$work/containerd.toml" --log-level info >>"$out/containerd-$name.log" 2>&1 &
    containerd_pid=$!
    wait_for 120 test -S "$work/containerd.sock" && wait_for 120 crictl_ info
  }
  start_plugin() {
    LD_LIBRARY_PATH=$HEADROOM_VM_LIBS "$plugin_bin" --socket "$work/nri.sock" --state-dir "$work/plugin-state" --interval 2s \
      --oom-poll-interval 200ms --http-address "127.0.0.1:$metrics_port" --log-level debug \
      --allow-below-declared --allow-memory-limit-below-declared --max-shrink-step 1 \
      --min-memory-limit 8Mi --memory-pressure-duration 4s ${HEADROOM_VM_PLUGIN_ARGS:-} "$@" >>"$out/plugin-$name.log" 2>&1 &
    plugin_pid=$!
  }
  connected() { [[ $(metric headroom_nri_connected) == 1 ]]; }
  cg() { cat "/sys/fs/cgroup$cgroup_parent/$1/$2"; }
  # The cpu.weight runc 1.1 writes for OCI cpu.shares S: 1 + (S - 2) * 9999 / 262142.
  weight_of_shares() { echo $((1 + ($1 - 2) * 9999 / 262142)); }
  spec_shares() { crictl_ inspect "$1" | grep -o '"shares": *[0-9]*' | head -1 | grep -o '[0-9]*$'; }
  # container_json NAME MEMORY_LIMIT CPU_QUOTA COMMAND [MEMORY_HIGH]: busybox running COMMAND;
  # MEMORY_HIGH is the unified memory.high the kubelet's Memory QoS would send.
  container_json() {
    local unified=""
    [[ -n ${5:-} ]] && unified=", \"unified\": {\"memory.high\": \"$5\"}"
    cat >"$work/ctr-$1.json" <<JSON
{"metadata": {"name": "$1", "attempt": ${ATTEMPT:-0}},
 "image": {"image": "docker.io/library/busybox:local"},
 "command": ["/bin/sh", "-c", "$4"],
 "linux": {"resources": {"cpu_period": 100000, "cpu_quota": $3, "cpu_shares": 512,
                         "memory_limit_in_bytes": $2$unified}}}
JSON
    echo "$work/ctr-$1.json"
  }
  # record NAME ID: the container's cgroup v2 files as the kernel wrote them, for the unit tests.
  record() {
    local dir=$out/recorded/containerd-$name/$1 file
    mkdir -p "$dir"
    for file in cpu.stat cpu.max cpu.weight cpu.pressure memory.current memory.max memory.peak \
      memory.stat memory.events memory.pressure memory.high; do
      cp "/sys/fs/cgroup$cgroup_parent/$2/$file" "$dir/$file" 2>/dev/null || true
    done
  }

  if ! start_containerd; then
    fail "containerd $version did not start"
    tail -20 "$out/containerd-$name.log"
    export PATH=$saved_path
    stop_all
    return
  fi
  ctr --address "$work/containerd.sock" -n k8s.io images import "$cache/images/pause.tar" >/dev/null
  ctr --address "$work/containerd.sock" -n k8s.io images import "$cache/images/busybox.tar" >/dev/null
  start_plugin
  if wait_for 60 connected; then
    pass "[$name] headroom-nri registered with containerd $version"
  else
    fail "[$name] headroom-nri did not register with containerd $version"
    tail -20 "$out/plugin-$name.log"
    export PATH=$saved_path
    stop_all
    return
  fi

  # One pod holds every container: on emulated CPUs a sandbox costs about 20 s.
  cat >"$work/pod.json" <<JSON
{"metadata": {"name": "web", "namespace": "e2e", "uid": "uid-web-$name", "attempt": 0},
 "linux": {"cgroup_parent": "$cgroup_parent",
           "security_context": {"namespace_options": {"network": 2}}}}
JSON
  local pod started=$SECONDS
  pod=$(crictl_ runp "$work/pod.json")
  echo "$suite: [$name] pod sandbox in $((SECONDS - started)) s"

  # 1. CPU quota removed (cpu.max "max"), declared memory limit kept (no history), and the
  #    CPU weight runc derived from the shares headroom-nri set.
  local app
  started=$SECONDS
  app=$(crictl_ create "$pod" "$(container_json app 67108864 50000 'while true; do sleep 1; done')" "$work/pod.json")
  crictl_ start "$app" >/dev/null
  echo "$suite: [$name] container created and started in $((SECONDS - started)) s"
  local cpu_max memory_max weight shares
  cpu_max=$(cg "$app" cpu.max)
  [[ $cpu_max == "max 100000" ]] && pass "[$name] CPU quota removed: cpu.max '$cpu_max' (declared 50000 100000)" ||
    fail "[$name] cpu.max '$cpu_max', want 'max 100000'"
  memory_max=$(cg "$app" memory.max)
  [[ $memory_max == 67108864 ]] && pass "[$name] no history: declared memory limit kept (memory.max $memory_max)" ||
    fail "[$name] memory.max $memory_max, want 67108864"
  weight=$(cg "$app" cpu.weight)
  shares=$(spec_shares "$app")
  if [[ -n $shares && $weight == "$(weight_of_shares "$shares")" && $shares -ge 512 ]]; then
    pass "[$name] CPU weight: OCI cpu.shares $shares (not below the declared 512 in the warm-up) is cpu.weight $weight"
  else
    fail "[$name] cpu.weight $weight for OCI cpu.shares '$shares' (want $(weight_of_shares "${shares:-2}"), shares >= 512)"
  fi

  # 2. Per-container PSI from the container's own cgroup (cpu.pressure), counted as psi="v2".
  v2_samples() { [[ $(metric 'headroom_nri_cgroup_samples_total{psi="v2"}') -ge 2 ]]; }
  if wait_for 60 v2_samples && grep -q 'per-container pressure (PSI) source: v2' "$out/plugin-$name.log"; then
    pass "[$name] per-container PSI sampled from the v2 cgroup: $(metric 'headroom_nri_cgroup_samples_total{psi="v2"}') samples (psi=\"v2\"), none elsewhere ($(metric 'headroom_nri_cgroup_samples_total{psi="none"}') without PSI); cpu.pressure '$(head -1 "/sys/fs/cgroup$cgroup_parent/$app/cpu.pressure")'"
  else
    fail "[$name] no v2 PSI samples: $(metric 'headroom_nri_cgroup_samples_total{psi="v2"}') v2, $(metric 'headroom_nri_cgroup_samples_total{psi="none"}') none"
  fi
  record app "$app"

  # 3. An OOM kill, seen in memory.events, raises the next attempt's memory.max to
  #    2 x the memory at the kill (32 MiB -> 64 MiB). The container has the memory.high the
  #    kubelet's Memory QoS (1.37+, cgroup v2) sets on its next attempt: 0.9 x its limit,
  #    page-aligned; headroom moves it with the limit, so the raise is not throttled below the
  #    old limit. (The killed attempt has none: throttled at memory.high, its growth is memory
  #    pressure, which headroom answers by raising the limit before any kill - step 3b.)
  local declared_high=30195712 raised_high=60391424
  local ooms_before hog events
  ooms_before=$(metric headroom_nri_oom_kills_total)
  hog=$(crictl_ create "$pod" "$(container_json hog 33554432 0 'head -c 200m /dev/zero | tail')" "$work/pod.json")
  crictl_ start "$hog" >/dev/null
  oom_seen() { [[ $(metric headroom_nri_oom_kills_total) -gt $ooms_before ]]; }
  if wait_for 60 oom_seen; then
    # The runtime may have removed the killed container's cgroup already (containerd 2 does).
    events=$(awk '$1 == "oom_kill" {print $2}' "/sys/fs/cgroup$cgroup_parent/$hog/memory.events" 2>/dev/null || true)
    pass "[$name] OOM kill seen: headroom_nri_oom_kills_total $(metric headroom_nri_oom_kills_total) (memory.events oom_kill: ${events:-the cgroup is already gone})"
  else
    fail "[$name] no OOM kill seen within 60 s"
  fi
  crictl_ rm -f "$hog" >/dev/null 2>&1 || true
  local hog2
  hog2=$(ATTEMPT=1 crictl_ create "$pod" "$(ATTEMPT=1 container_json hog 33554432 0 'sleep 3600' "$declared_high")" "$work/pod.json")
  crictl_ start "$hog2" >/dev/null
  memory_max=$(cg "$hog2" memory.max)
  [[ $memory_max == 67108864 ]] && pass "[$name] the OOM-killed container's next attempt: memory.max $memory_max (2 x 32 MiB)" ||
    fail "[$name] next attempt memory.max $memory_max, want 67108864"
  local memory_high
  memory_high=$(cg "$hog2" memory.high)
  if [[ $name == 1.7 ]]; then
    # containerd 1.7.24 vendors NRI v0.6.1, whose FromOCILinuxResources copies no unified
    # map: no plugin sees memory.high there. Kubernetes with Memory QoS on (1.37) needs
    # containerd 2 anyway; this check says so while it stays true.
    [[ $memory_high == "$declared_high" ]] &&
      pass "[$name] Memory QoS: containerd 1.7 shows NRI plugins no unified map, so memory.high stays $memory_high under memory.max $memory_max (known; docs/nri.md)" ||
      fail "[$name] memory.high $memory_high: containerd 1.7 now shows memory.high to NRI? (want $declared_high untouched, or update the check)"
  else
    [[ $memory_high == "$raised_high" ]] &&
      pass "[$name] Memory QoS: memory.high moved with the limit, $declared_high -> $memory_high (the same 0.9 of memory.max)" ||
      fail "[$name] memory.high $memory_high with memory.max $memory_max, want $raised_high"
  fi
  record memory-qos-raised "$hog2"

  # 3b. Memory pressure (shared/memory_pressure.h): a container throttled at memory.high
  #     (16Mi, under a 64Mi limit) while it allocates 40Mi again and again stalls on memory
  #     most of the time; sustained (--memory-pressure-duration 4s here, 2 samples of 2 s),
  #     headroom-nri records the memory then in use, which sizes its memory request and limit.
  local squeezed pressure_before
  pressure_before=$(metric headroom_nri_memory_pressure_records_total)
  squeezed=$(crictl_ create "$pod" "$(container_json squeezed 67108864 0 'while true; do head -c 40m /dev/zero | tail >/dev/null; done' 16777216)" "$work/pod.json")
  crictl_ start "$squeezed" >/dev/null
  pressure_recorded() { [[ $(metric headroom_nri_memory_pressure_records_total) -gt $pressure_before ]]; }
  if wait_for 90 pressure_recorded; then
    pass "[$name] memory pressure recorded: $(grep -m1 'memory pressure in e2e/web container squeezed' "$out/plugin-$name.log" | sed 's/.*nri: //' | cut -c1-200); memory.pressure '$(head -1 "/sys/fs/cgroup$cgroup_parent/$squeezed/memory.pressure")'"
  else
    fail "[$name] no memory pressure recorded within 90 s: memory.pressure '$(head -1 "/sys/fs/cgroup$cgroup_parent/$squeezed/memory.pressure" 2>/dev/null)', memory.current $(cg "$squeezed" memory.current 2>/dev/null)"
  fi
  record squeezed "$squeezed"
  crictl_ rm -f "$squeezed" >/dev/null 2>&1 || true

  # 4. containerd restarts: headroom-nri re-registers and adjusts the next container.
  local connections
  connections=$(metric headroom_nri_connections_total)
  stop_pid "$containerd_pid"
  containerd_pid=""
  if ! start_containerd; then
    fail "[$name] containerd did not restart"
  else
    reconnected() { [[ $(metric headroom_nri_connections_total) -gt $connections ]] && connected; }
    if wait_for 120 reconnected; then pass "[$name] headroom-nri re-registered after containerd restarted"; else fail "[$name] headroom-nri did not re-register"; fi
    local after
    # Its shell outlives an OOM kill of a child: the cgroup stays, with the kill in
    # memory.events, which the kernel log and the counter both show.
    ooms_before=$(metric headroom_nri_oom_kills_total)
    after=$(crictl_ create "$pod" "$(container_json after 67108864 20000 'sleep 2; head -c 100m /dev/zero | tail; sleep 3600')" "$work/pod.json")
    crictl_ start "$after" >/dev/null
    cpu_max=$(cg "$after" cpu.max)
    [[ $cpu_max == "max 100000" ]] && pass "[$name] after the restart: cpu.max '$cpu_max' again" || fail "[$name] after the restart cpu.max '$cpu_max'"
    child_killed() { [[ $(awk '$1 == "oom_kill" {print $2}' "/sys/fs/cgroup$cgroup_parent/$after/memory.events") -ge 1 ]] && oom_seen; }
    if wait_for 60 child_killed; then
      pass "[$name] an OOM kill inside a running container: memory.events '$(grep '^oom_kill ' "/sys/fs/cgroup$cgroup_parent/$after/memory.events")', headroom_nri_oom_kills_total $(metric headroom_nri_oom_kills_total)"
    else
      fail "[$name] the child's OOM kill not seen: memory.events '$(grep -s '^oom_kill ' "/sys/fs/cgroup$cgroup_parent/$after/memory.events" || true)', headroom_nri_oom_kills_total $(metric headroom_nri_oom_kills_total) (before: $ooms_before)"
    fi
    record child-oom-killed "$after"
  fi

  # 5. Once the workload counts as warm (--min-history 1s), the idle container's memory.max
  #    and cpu.weight come down from history, in place, through the v2 files. One shrink step
  #    per second (--shrink-interval 1s), so that the check does not depend on which step the
  #    first sizing after a restart takes. The 64Mi limit comes down by about 52Mi, under the
  #    default smallest change worth making (--resize-min-memory 64Mi), hence 8Mi here.
  stop_pid "$plugin_pid"
  start_plugin --min-history 1s --shrink-interval 1s --resize-min-memory 8Mi
  tightened() {
    [[ $(cg "$app" memory.max) -lt 67108864 && $(cg "$app" cpu.weight) -lt $(weight_of_shares 512) ]]
  }
  if wait_for 90 tightened; then
    pass "[$name] warm: the idle container is tightened in place (memory.max $(cg "$app" memory.max), cpu.weight $(cg "$app" cpu.weight))"
  else
    fail "[$name] not tightened: memory.max $(cg "$app" memory.max), cpu.weight $(cg "$app" cpu.weight)"
  fi
  record app-tightened "$app"

  for c in $(crictl_ ps -aq 2>/dev/null); do crictl_ rm -f "$c" >/dev/null 2>&1; done
  crictl_ stopp "$pod" >/dev/null 2>&1
  crictl_ rmp "$pod" >/dev/null 2>&1
  stop_all
  umount -R "$work/root" 2>/dev/null || true
  export PATH=$saved_path
}

# With arguments: one containerd's checks (the process exits 1 if one failed). Without: each
# containerd in its own process, so that one that stops early leaves the other's checks.
if (($# == 2)); then
  run_variant "$1" "$2"
else
  [[ ${HEADROOM_VM_VARIANTS:-1.7 2} == *1.7* ]] && { bash "$0" 1.7 /usr/bin || failures=$((failures + 1)); }
  if [[ -z ${HEADROOM_VM_CONTAINERD2:-} ]]; then
    fail "no containerd 2.x to test (HEADROOM_VM_CONTAINERD2 unset)"
  elif [[ ${HEADROOM_VM_VARIANTS:-1.7 2} == *2* ]]; then
    bash "$0" 2 "$cache/$HEADROOM_VM_CONTAINERD2" || failures=$((failures + 1))
  fi
fi
echo "$suite: $failures failure(s)"
exit $((failures > 0))
