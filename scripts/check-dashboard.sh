#!/usr/bin/env bash
# Checks deploy/monitoring (the Grafana dashboard and the PodMonitors) against the binaries:
# starts the release headroom-extender and headroom-nri on loopback with no peers (the
# extender with an API address nothing answers, so its watch metrics exist), scrapes their
# /metrics and runs scripts/check-dashboard.py. Fails if a query names a metric no binary
# exports. Only the processes this script starts are stopped, by PID.
# Usage: scripts/check-dashboard.sh BUILD_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: check-dashboard.sh BUILD_DIR}" && pwd)
work=$(mktemp -d /tmp/headroom-dashboard.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
source "$repo/e2e/check-lib.sh"  # free_port, wait_for

cat >"$work/kubeconfig" <<KUBE
apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
KUBE
ext_port=$(free_port); nri_port=$(free_port)
"$build/extender/headroom-extender" --http-address "127.0.0.1:$ext_port" --grpc-address 127.0.0.1:0 \
  --kubeconfig "$work/kubeconfig" --report-auth=insecure >"$work/extender.log" 2>&1 &
pids+=($!)
mkdir -p "$work/nri-state"
"$build/kubelet-hook/headroom-nri" --socket "$work/none.sock" --http-address "127.0.0.1:$nri_port" \
  --state-dir "$work/nri-state" >"$work/nri.log" 2>&1 &
pids+=($!)
scrape() { wait_for 10 curl -sf -o "$2" "http://127.0.0.1:$1/metrics"; }  # PORT FILE
scrape "$ext_port" "$work/extender.metrics" || { cat "$work/extender.log" >&2; echo "check-dashboard: headroom-extender /metrics did not answer" >&2; exit 1; }
scrape "$nri_port" "$work/nri.metrics" || { cat "$work/nri.log" >&2; echo "check-dashboard: headroom-nri /metrics did not answer" >&2; exit 1; }
python3 "$repo/scripts/check-dashboard.py" "${HEADROOM_DASHBOARD:-$repo/deploy/monitoring/grafana-dashboard.json}" \
  "$repo/deploy/monitoring/podmonitor.yaml" "$repo/deploy" "$work/extender.metrics" "$work/nri.metrics"
