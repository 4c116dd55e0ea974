#!/usr/bin/env bash
# Local end-to-end suite for headroom-nri against a real containerd with NRI (Debian's
# containerd 1.7.24 from trixie) and runc, driven through CRI by crictl (built from the Go
# module proxy by scripts/e2e-deps.sh). Everything lives in a scratch directory; only processes
# this script started are stopped, by PID.
# Usage: e2e/local/nri-suite.sh BUILD_DIR    (BUILD_DIR holds kubelet-hook/headroom-nri)
# Needs root, cgroups and the tools from scripts/e2e-deps.sh. Exit 0 when every check passes.
set -euo pipefail

source "$(dirname "$0")/suite-lib.sh"
suite_paths nri-suite "${1:?usage: nri-suite.sh BUILD_DIR}"
here=$repo/e2e/local
crictl_bin=$cache/bin/crictl
plugin_bin=$nri_bin
metrics_port=${HEADROOM_E2E_METRICS_PORT:-19101}
require_tools containerd containerd-shim-runc-v2 runc ctr "$crictl_bin" "$plugin_bin"
require_root "containerd, cgroups"

work=$(mktemp -d /tmp/headroom-nri-e2e.XXXXXX)
cgroup_parent=/headroom-e2e-$$
containerd_pid=""
plugin_pid=""
failures=0

cleanup() {
  set +e
  if [[ -S $work/containerd.sock ]]; then
    for c in $(crictl_ ps -aq 2>/dev/null); do crictl_ rm -f "$c" >/dev/null 2>&1; done
    for p in $(crictl_ pods -q 2>/dev/null); do crictl_ stopp "$p" >/dev/null 2>&1; crictl_ rmp "$p" >/dev/null 2>&1; done
  fi
  stop_pid "$plugin_pid"
  remove_memory_cgroup "${memcg:-}"
  stop_pid "$containerd_pid"
  remove_cgroup_dirs "$cgroup_parent"
  umount -R "$work/root" 2>/dev/null
  finish_work
}
trap cleanup EXIT

crictl_() { "$crictl_bin" --config "$work/crictl.yaml" --runtime-endpoint "unix://$work/containerd.sock" --image-endpoint "unix://$work/containerd.sock" --timeout 30s "$@"; }
source "$here/containerd-lib.sh"
metric() { metric_at "$metrics_port" "$1"; }

touch "$work/crictl.yaml"
mkdir -p "$work/root" "$work/state" "$work/plugin-state"
write_containerd_config "$(nri_containerd_section)"

start_containerd() {
  containerd --config "$work/containerd.toml" --log-level debug >>"$work/containerd.log" 2>&1 &
  containerd_pid=$!
  wait_for 30 test -S "$work/containerd.sock" && wait_for 30 crictl_ info
}
start_containerd || { fail "containerd did not start (see $work/containerd.log)"; exit 1; }
import_test_images

# Every start is opted in below the declared values (requests and memory limits), with
# one-step shrinks and an 8Mi memory limit floor, so that only the warm-up (--min-history, 24 h
# unless step 5 says 1s) holds the idle container of step 1b at its declared values: nothing
# else would.
tightening_allowed="--allow-below-declared --allow-memory-limit-below-declared --max-shrink-step 1 --min-memory-limit 8Mi"
start_plugin() {
  "$plugin_bin" --socket "$work/nri.sock" --state-dir "$work/plugin-state" --interval 2s \
    --oom-poll-interval 200ms --http-address "127.0.0.1:$metrics_port" --log-level debug \
    $tightening_allowed ${HEADROOM_E2E_PLUGIN_ARGS:-} \
    >>"$work/plugin.log" 2>&1 &
  plugin_pid=$!
}
start_plugin
connected() { [[ $(metric headroom_nri_connected) == 1 ]]; }
if wait_for 20 connected; then pass "plugin registered with containerd $(containerd --version | awk '{print $3}')"; else fail "plugin did not register"; exit 1; fi

# pod_config NAME: a pod sandbox under our own cgroup parent, host network (no CNI).
pod_config() {
  cat >"$work/pod-$1.json" <<JSON
{"metadata": {"name": "$1", "namespace": "e2e", "uid": "uid-$1-$$", "attempt": 0},
 "linux": {"cgroup_parent": "$cgroup_parent/$1",
           "security_context": {"namespace_options": {"network": 2}}}}
JSON
  echo "$work/pod-$1.json"
}
# container_config POD NAME MEMORY_BYTES CPU_QUOTA COMMAND: busybox running COMMAND under sh.
container_config() {
  cat >"$work/ctr-$1-$2.json" <<JSON
{"metadata": {"name": "$2", "attempt": ${ATTEMPT:-0}},
 "image": {"image": "docker.io/library/busybox:local"},
 "command": ["/bin/sh", "-c", "$5"],
 "linux": {"resources": {"cpu_period": 100000, "cpu_quota": $4, "cpu_shares": 512,
                         "memory_limit_in_bytes": $3}}}
JSON
  echo "$work/ctr-$1-$2.json"
}
cg() { cat "/sys/fs/cgroup/$1$cgroup_parent/$2/$3/$4"; }
# remove_container ID: containerd 1.7 sometimes fails to remove a just-killed container's
# directory ("directory not empty") and succeeds a moment later; the next attempt of the
# container has its own name, so a container left behind harms nothing.
remove_container() {
  local i
  for i in 1 2 3 4 5; do
    crictl_ rm -f "$1" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "nri-suite: could not remove container $1 (left for cleanup)"
}

# 1. A container started with a CPU limit runs with no CPU quota and its declared memory limit
#    (no history yet), in the cgroup and in the OCI spec.
pod=$(crictl_ runp "$(pod_config web)")
cid=$(crictl_ create "$pod" "$(container_config web app 67108864 50000 'sleep 3600')" "$work/pod-web.json")
crictl_ start "$cid" >/dev/null
quota=$(cg cpu web "$cid" cpu.cfs_quota_us)
[[ $quota == -1 ]] && pass "CPU quota removed (cpu.cfs_quota_us=$quota, declared 50000)" || fail "cpu.cfs_quota_us=$quota, want -1"
limit=$(cg memory web "$cid" memory.limit_in_bytes)
[[ $limit == 67108864 ]] && pass "no history: declared memory limit kept ($limit)" || fail "memory.limit_in_bytes=$limit, want 67108864"
spec_quota=$(crictl_ inspect "$cid" | grep -o '"quota": *-\?[0-9]*' | head -1 | grep -o -- '-\?[0-9]*$')
[[ $spec_quota == -1 ]] && pass "OCI spec linux.resources.cpu.quota = -1" || fail "OCI spec quota $spec_quota, want -1"

# 1b. Guard rail (warm-up): the same container, idle for several periodic rounds, keeps its
#     declared memory limit and a CPU weight no lower than its declared request gives, although
#     its samples (a few hundred KiB, no CPU) would size both far lower, and the plugin is
#     opted in below the declared values (start_plugin): only the warm-up holds it.
rounds_after() { local now; now=$(metric headroom_nri_last_sample_timestamp_seconds); [[ -n $now && $now -ge $1 ]]; }
first_round=$(( $(date +%s) + 1 ))
if wait_for 20 rounds_after $((first_round + 4)); then
  limit=$(cg memory web "$cid" memory.limit_in_bytes)
  shares=$(cg cpu web "$cid" cpu.shares)
  [[ $limit == 67108864 ]] && pass "warm-up: declared memory limit kept across periodic rounds ($limit)"     || fail "warm-up: memory.limit_in_bytes=$limit after periodic rounds, want 67108864"
  [[ $shares -ge 512 ]] && pass "warm-up: CPU weight not below the declared request's ($shares >= 512)"     || fail "warm-up: cpu.shares=$shares after periodic rounds, want >= 512"
else
  fail "no periodic rounds within 20 s"
fi

# 1c. Per-container pressure on this cgroup v1 host: runc also creates the container's
#     directory in the unified hierarchy (a hybrid host), whose cpu.pressure headroom-nri reads.
unified_pressure=/sys/fs/cgroup/unified$(crictl_ inspect "$cid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["info"]["runtimeSpec"]["linux"]["cgroupsPath"])')/cpu.pressure
hybrid=$(metric 'headroom_nri_cgroup_samples_total{psi="hybrid"}')
if [[ -r $unified_pressure ]]; then
  [[ ${hybrid:-0} -ge 1 ]] && grep -q 'per-container pressure (PSI) source: hybrid' "$work/plugin.log" &&
    pass "per-container PSI read from the unified hierarchy of this v1 host: $hybrid samples (psi=\"hybrid\"), $unified_pressure present" ||
    fail "$unified_pressure exists but no hybrid-PSI sample was counted (psi=\"hybrid\" ${hybrid:-none})"
else
  [[ -z $hybrid || $hybrid == 0 ]] && pass "no unified-hierarchy directory for the container here ($unified_pressure): no hybrid-PSI sample claimed" ||
    fail "hybrid-PSI samples counted ($hybrid) without $unified_pressure"
fi

# 2. A container that exceeds its memory is seen OOM-killed within seconds; its restart gets
#    limit = 2 x memory at OOM (32 MiB -> 64 MiB).
pod2=$(crictl_ runp "$(pod_config hog)")
ooms_before=$(metric headroom_nri_oom_kills_total)
hog=$(crictl_ create "$pod2" "$(container_config hog hog 33554432 0 'head -c 200m /dev/zero | tail')" "$work/pod-hog.json")
crictl_ start "$hog" >/dev/null
oom_seen() { [[ $(metric headroom_nri_oom_kills_total) -gt $ooms_before ]]; }
start=$SECONDS
if wait_for 15 oom_seen; then pass "OOM kill seen after $((SECONDS - start)) s"; else fail "no OOM kill seen within 15 s"; fi
remove_container "$hog"
hog2=$(ATTEMPT=1 crictl_ create "$pod2" "$(ATTEMPT=1 container_config hog hog 33554432 0 'sleep 3600')" "$work/pod-hog.json")
crictl_ start "$hog2" >/dev/null
limit=$(cg memory hog "$hog2" memory.limit_in_bytes)
[[ $limit == 67108864 ]] && pass "restarted container got the raised memory limit ($limit = 2 x 32 MiB)" || fail "restarted memory.limit_in_bytes=$limit, want 67108864"

# 3. Restarting containerd does not lose the plugin: it reconnects, re-registers, and keeps
#    adjusting new containers.
connections=$(metric headroom_nri_connections_total)
kill "$containerd_pid"; wait "$containerd_pid" 2>/dev/null || true; containerd_pid=""
start_containerd || { fail "containerd did not restart"; exit 1; }
reconnected() { [[ $(metric headroom_nri_connections_total) -gt $connections ]] && connected; }
if wait_for 40 reconnected; then pass "plugin re-registered after containerd restart"; else fail "plugin did not reconnect"; fi
pod3=$(crictl_ runp "$(pod_config after)")
cid3=$(crictl_ create "$pod3" "$(container_config after app 67108864 20000 'sleep 3600')" "$work/pod-after.json")
crictl_ start "$cid3" >/dev/null
quota=$(cg cpu after "$cid3" cpu.cfs_quota_us)
[[ $quota == -1 ]] && pass "after the restart: CPU quota removed again" || fail "after restart cpu.cfs_quota_us=$quota"

# 4. The OOM memory survives a plugin restart (checkpoint in --state-dir).
# The checkpoint is written every --interval (2 s here).
if wait_for 10 grep -Eq '"bytes": ?33554432' "$work/plugin-state/node-stats.json"; then
  pass "checkpoint holds the OOM record"
else
  fail "checkpoint lacks the OOM record"
fi
stop_started=$SECONDS
kill "$plugin_pid"; plugin_rc=0; wait "$plugin_pid" 2>/dev/null || plugin_rc=$?
if [[ $plugin_rc == 0 ]] && grep -q 'stopped' "$work/plugin.log" &&
  [[ -z $(find "$work/plugin-state" -name '.node-stats.json.*') ]]; then
  pass "SIGTERM: headroom-nri exited 0 in $((SECONDS - stop_started)) s after its final checkpoint, no temporary file left"
else
  fail "SIGTERM: headroom-nri exited $plugin_rc; temporaries: $(find "$work/plugin-state" -name '.node-stats.json.*' | wc -l)"
fi
start_plugin
if wait_for 20 connected && grep -q "loaded statistics of [1-9]" "$work/plugin.log"; then
  pass "restarted plugin loaded its checkpoint and registered"
else
  fail "restarted plugin did not load its checkpoint or register"
fi
remove_container "$hog2"
hog3=$(ATTEMPT=2 crictl_ create "$pod2" "$(ATTEMPT=2 container_config hog hog 33554432 0 'sleep 3600')" "$work/pod-hog.json")
crictl_ start "$hog3" >/dev/null
limit=$(cg memory hog "$hog3" memory.limit_in_bytes)
[[ $limit == 67108864 ]] && pass "after a plugin restart the OOM-raised limit still applies ($limit)" || fail "after plugin restart memory.limit_in_bytes=$limit, want 67108864"

# 5. The same idle container once its workload counts as warm (--min-history 1s; the other
#    flags as before): the periodic loop tightens it. This is what the warm-up check above
#    holds back, so that check can fail.
# Stopped with kill -9 this time (no final checkpoint): the periodic checkpoint still holds
# the OOM record, and nothing half-written is left behind.
kill -9 "$plugin_pid"; wait "$plugin_pid" 2>/dev/null || true
loads_before=$(grep -c 'loaded statistics of [1-9]' "$work/plugin.log" || true)
# The 64Mi limit comes down by about 52Mi, under the default smallest change worth making
# (--resize-min-memory 64Mi), hence 8Mi here.
HEADROOM_E2E_PLUGIN_ARGS="--min-history 1s --resize-min-memory 8Mi" start_plugin
if wait_for 20 connected && [[ $(grep -c 'loaded statistics of [1-9]' "$work/plugin.log") -gt $loads_before ]] &&
  grep -Eq '"bytes": ?33554432' "$work/plugin-state/node-stats.json" &&
  [[ -z $(find "$work/plugin-state" -name '.node-stats.json.*') ]]; then
  pass "after kill -9: the checkpoint loaded with its OOM record, no temporary file left"
else
  fail "after kill -9: checkpoint not loaded, OOM record lost, or a temporary file left"
fi
tightened() {
  [[ $(cg memory web "$cid" memory.limit_in_bytes) -lt 67108864 && $(cg cpu web "$cid" cpu.shares) -lt 512 ]]
}
if wait_for 30 tightened; then
  pass "warm workload: the idle container is tightened (memory limit $(cg memory web "$cid" memory.limit_in_bytes), cpu.shares $(cg cpu web "$cid" cpu.shares))"
else
  fail "warm workload not tightened: memory.limit_in_bytes=$(cg memory web "$cid" memory.limit_in_bytes) cpu.shares=$(cg cpu web "$cid" cpu.shares)"
fi
grep -q "nri: periodic update e2e/web container app" "$work/plugin.log" \
  && pass "the change is logged with old and new values: $(grep -m1 'nri: periodic update e2e/web container app' "$work/plugin.log" | sed 's/.*periodic update //' | cut -c1-160)" \
  || fail "no log line for the periodic update of e2e/web"

echo "nri-suite: plugin $(grep VmRSS /proc/$plugin_pid/status 2>/dev/null | tr -s " \t" " ")"

# 6. Churn inside deploy/'s memory limit (128 MiB, deploy/nri/daemonset.yaml): distinct
#    short-lived workload containers (what Jobs, CronJobs and CI runners create) go through the
#    real NRI wire, each created and removed; headroom-nri keeps statistics for at most the
#    budget's cap, forgets the longest idle first, and neither it nor its final checkpoint nor
#    the restart that loads it is OOM-killed. Each container's pod asks for its own base
#    percentile, so CreateContainer alone files its statistics (as a sampled one would).
#    By default 5000 workload containers under a 32 MiB budget (cap 819; without a cap they
#    need 155 MiB: an OOM kill), about 5 minutes; HEADROOM_E2E_CHURN=20000
#    HEADROOM_E2E_NRI_BUDGET= runs the deploy default (75% of the limit: cap 2457), ~20 minutes.
churn=${HEADROOM_E2E_CHURN:-5000}
budget=${HEADROOM_E2E_NRI_BUDGET-32Mi}
stop_pid "$plugin_pid"; plugin_pid=""
memcg=$(memory_cgroup "headroom-nri-e2e-$$" $((128 << 20)))
start_plugin_in_memcg() {
  in_cgroup "$memcg" "$plugin_bin" --socket "$work/nri.sock" --state-dir "$work/plugin-state" \
    --interval 2s --http-address "127.0.0.1:$metrics_port" --log-level info \
    ${budget:+--memory-budget "$budget"} >>"$work/plugin-churn.log" 2>&1 &
  plugin_pid=$!
}
start_plugin_in_memcg
wait_for 20 connected || die "plugin in the memory cgroup did not register"
cap=$(metric headroom_nri_workload_containers_max)
churn_pod_config() {
  cat >"$work/pod-churn-$1.json" <<JSON
{"metadata": {"name": "churn-$1", "namespace": "e2e", "uid": "uid-churn-$1-$$", "attempt": 0},
 "annotations": {"headroom.dev/workload": "e2e/Job/churn-$1", "headroom.dev/base-percentile": "0.9"},
 "linux": {"cgroup_parent": "$cgroup_parent/churn-$1",
           "security_context": {"namespace_options": {"network": 2}}}}
JSON
  echo "$work/pod-churn-$1.json"
}
churn_started=$SECONDS
most=0
# 200 containers to a sandbox, created and left for the sandbox's removal to take (the
# runtime sends RemoveContainer for each): one crictl call per workload container.
for ((i = 0; i < churn; i += 200)); do
  batch=$((i / 200))
  sandbox_config=$(churn_pod_config "$batch")
  sandbox=$(crictl_ runp "$sandbox_config")
  for ((j = i; j < i + 200 && j < churn; j++)); do
    container_config "churn-$batch" "c-$j" 16777216 0 'true' >/dev/null
    crictl_ create "$sandbox" "$work/ctr-churn-$batch-c-$j.json" "$sandbox_config" >/dev/null || true
    rm -f "$work/ctr-churn-$batch-c-$j.json"
  done
  crictl_ stopp "$sandbox" >/dev/null && crictl_ rmp "$sandbox" >/dev/null
  if ! kill -0 "$plugin_pid" 2>/dev/null; then
    fail "churn: headroom-nri died after $j workload containers (OOM kills in its cgroup: $(cgroup_oom_kills "$memcg"))"
    break
  fi
  kept=$(metric headroom_nri_workload_containers || echo 0); ((kept > most)) && most=$kept
  ((batch % 5 == 4)) && echo "nri-suite: churn $j workload containers in $((SECONDS - churn_started)) s: $kept kept (cap $cap), RSS $(awk '/VmRSS/ {print $2, $3}' /proc/$plugin_pid/status 2>/dev/null)"
done
peak_rss_kib=$(awk '/VmHWM/ {print $2}' /proc/$plugin_pid/status 2>/dev/null || echo 0)
forgotten=$(metric headroom_nri_workload_containers_forgotten_budget_total || echo 0)
if kill -0 "$plugin_pid" 2>/dev/null && [[ $(cgroup_oom_kills "$memcg") == 0 && -n $cap ]] &&
  ((most <= cap + 400 && peak_rss_kib < 128 * 1024 && forgotten > 0)); then
  pass "churn of $churn workload containers in $((SECONDS - churn_started)) s inside 128 MiB: alive, at most $most kept (cap $cap), $forgotten forgotten beyond the cap, peak RSS $((peak_rss_kib / 1024)) MiB, cgroup peak $(( $(cgroup_peak_bytes "$memcg") >> 20 )) MiB"
else
  fail "churn of $churn: alive $(kill -0 "$plugin_pid" 2>/dev/null && echo yes || echo no), OOM kills $(cgroup_oom_kills "$memcg"), kept at most $most (cap '$cap'), forgotten '$forgotten', peak RSS ${peak_rss_kib:-?} KiB"
fi
# The final checkpoint at SIGTERM and the restart that loads it stay inside the limit too.
kill "$plugin_pid" 2>/dev/null; plugin_rc=0; wait "$plugin_pid" 2>/dev/null || plugin_rc=$?
plugin_pid=""
start_plugin_in_memcg
if [[ $plugin_rc == 0 ]] && wait_for 20 connected &&
  (($(metric headroom_nri_workload_containers || echo 999999) <= cap)) && [[ $(cgroup_oom_kills "$memcg") == 0 ]]; then
  pass "after the churn: final checkpoint written (exit 0), restart loaded $(metric headroom_nri_workload_containers) workload containers (cap $cap), no OOM kill, RSS $(awk '/VmRSS/ {print $2, $3}' /proc/$plugin_pid/status 2>/dev/null)"
else
  fail "after the churn: exit $plugin_rc, workload containers '$(metric headroom_nri_workload_containers)' (cap $cap), OOM kills $(cgroup_oom_kills "$memcg")"
fi
echo "nri-suite: $failures failure(s)"
exit $((failures > 0))
