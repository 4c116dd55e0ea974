#!/usr/bin/env bash
# Builds headroom and runs the whole test suite (unit + integration) under AddressSanitizer
# and UndefinedBehaviorSanitizer, after checking formatting and that the release build (the
# CLI, the daemons and the benchmarks) compiles; then runs each libFuzzer target for a bounded
# time (FUZZ_SECONDS, default 30), and the local end-to-end suite of headroom-nri against a
# real containerd (scripts/e2e-deps.sh installs it), the same plugin on cgroup v2 in a QEMU VM
# with containerd 1.7 and 2.x (e2e/vm/run.sh; scripts/vm-deps.sh builds the image and
# containerd 2.x once, cached), and the scheduler suite of headroom-extender
# behind a real kube-scheduler, kube-apiserver and etcd (scripts/k8s-deps.sh builds or installs
# them; the first build takes a few minutes on 2 cores, then it is cached), and the
# actuation suite (admission webhook, pods/resize, Eviction API) with a real
# kube-controller-manager and a kubelet on containerd, the system suite (every component
# together on one cluster: headroom-nri on the kubelet's containerd reporting to the extender
# behind headroom-scheduler, the webhook and the actuator), the status page in headless chromium
# (e2e/local/ui-suite.sh), and the hostile-input suite (attacks on the release extender over
# loopback, with peak-RSS bounds). Also checks the Grafana dashboard against the metrics the
# binaries export (scripts/check-dashboard.sh) and the Helm chart against deploy/
# (scripts/check-helm.sh; helm is built once by scripts/helm-deps.sh). Installs missing Debian
# packages first (scripts/setup.sh).
#
# Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
# Each step's start, in seconds since this script began: where a CI run's time goes.
step() { echo "== $* (at +$((SECONDS - started)) s)"; }

bash scripts/setup.sh

# The compiler cache lives with the project's other caches, so that a CI runner that keeps
# ${HEADROOM_CACHE:-~/.cache/headroom} between runs keeps the builds too. Paths are hashed
# relative to the checkout, so clones in other directories share it.
cache_dir=${HEADROOM_CACHE:-$HOME/.cache/headroom}
export CCACHE_DIR=${CCACHE_DIR:-$cache_dir/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

# What the end-to-end suites need (containerd and crictl, the VM image and containerd 2.x,
# Kubernetes, helm), prepared in the background while the C++ compiles: on a machine without
# the caches their downloads then overlap the compilation. Each script is a no-op once its
# results are cached. Its output is shown if it fails, and the suites wait for it.
# In a session of its own, so that a run stopped early stops all of it.
deps_log=$(mktemp)
setsid bash -c 'bash scripts/e2e-deps.sh && bash scripts/vm-deps.sh && bash scripts/k8s-deps.sh &&
  bash scripts/helm-deps.sh' >"$deps_log" 2>&1 &
deps_pid=$!
trap 'kill -- -"$deps_pid" 2>/dev/null || true' EXIT
wait_for_deps() {
  step "the end-to-end suites' dependencies (prepared in the background since the start)"
  if ! wait "$deps_pid"; then
    cat "$deps_log"
    echo "preparing the end-to-end suites' dependencies failed (above)" >&2
    exit 1
  fi
  tail -n 4 "$deps_log"
}

step "format check (clang-format)"
git ls-files '*.cc' '*.h' | xargs clang-format --dry-run --Werror
step "layer check (docs/development.md)"
bash scripts/check-layers.sh

step "release build (the CLI, the daemons, the benchmarks; the tests are built under the sanitizers below)"
cmake --preset release >/dev/null
cmake --build --preset release --target headroom_programs

step "monitoring: every dashboard query names a metric the binaries export (scripts/check-dashboard.sh)"
bash scripts/check-dashboard.sh build/release

step "asan build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan

wait_for_deps
step "end-to-end: headroom-nri against real containerd + runc (e2e/local/nri-suite.sh)"
bash scripts/e2e-deps.sh
bash e2e/local/nri-suite.sh build/release

step "end-to-end: headroom-nri on cgroup v2 in a VM, containerd 1.7 and 2.x (e2e/vm/run.sh)"
bash scripts/vm-deps.sh
bash e2e/vm/run.sh build/release

step "end-to-end: headroom-extender behind real kube-scheduler + kube-apiserver (e2e/local/scheduler-suite.sh)"
bash scripts/k8s-deps.sh
step "the Helm chart: generated from deploy/, lint, and the default render equals deploy/ (scripts/check-helm.sh)"
bash scripts/helm-deps.sh
bash scripts/check-helm.sh
bash e2e/local/scheduler-suite.sh build/release

step "end-to-end: webhook, resize and evictions with a real kubelet + apiserver (e2e/local/actuation-suite.sh)"
bash e2e/local/actuation-suite.sh build/release

step "the whole loop on one cluster: every component together (e2e/local/system-suite.sh)"
bash e2e/local/system-suite.sh build/release

step "the status page in headless chromium, headroom status and explain (e2e/local/ui-suite.sh)"
bash e2e/local/ui-suite.sh build/release

step "hostile input: the release extender under one attack per class (e2e/local/hostile-suite.sh)"
bash e2e/local/hostile-suite.sh build/release

step "fuzzing (bounded)"
FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash scripts/fuzz.sh
echo "== all steps passed in $((SECONDS - started)) s"
