#!/usr/bin/env bash
# The suites that talk to Kubernetes (scheduler, actuation, system) on another release, by
# default the newest the Go module proxy serves that headroom is tested on. Builds that release
# once into ~/.cache/headroom/k8s-<version> (scripts/k8s-deps.sh: about 17 minutes on 2 cores
# the first time), then runs each suite against it. CI runs v1.34.3 only (scripts/test.sh): a
# cold build of a second release would take a cold CI run past its 60-minute budget.
#
# Usage: bash scripts/test-matrix.sh [BUILD_DIR] [VERSION...]   (default build/release v1.37.2)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
shift || true
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v1.37.2)
[ -x "$build/extender/headroom-extender" ] || {
  echo "test-matrix: no $build/extender/headroom-extender; build first (cmake --build --preset release)" >&2
  exit 2
}
bash scripts/e2e-deps.sh
bash scripts/helm-deps.sh
failed=0
for version in "${versions[@]}"; do
  HEADROOM_K8S_VERSION=$version bash scripts/k8s-deps.sh
  for suite in scheduler actuation system; do
    echo "== $suite suite on Kubernetes $version"
    start=$SECONDS
    if HEADROOM_K8S_VERSION=$version bash "e2e/local/$suite-suite.sh" "$build"; then
      echo "test-matrix: $suite on $version passed in $((SECONDS - start)) s"
    else
      echo "test-matrix: $suite on $version FAILED after $((SECONDS - start)) s"
      failed=$((failed + 1))
    fi
  done
done
[ "$failed" -eq 0 ] || { echo "test-matrix: $failed suite run(s) failed"; exit 1; }
echo "test-matrix: all suites passed on ${versions[*]}"
