#!/usr/bin/env bash
# Installs what the local end-to-end suites need, idempotently, caching builds under
# ${HEADROOM_CACHE:-~/.cache/headroom}:
# - containerd with NRI (Debian trixie's 1.7.24: bookworm's 1.6 has no NRI), from a trixie apt
#   source pinned low so nothing else is upgraded; runc and busybox-static from bookworm;
# - crictl, built from the Go module proxy (pinned version) into $HEADROOM_CACHE/bin;
# - the busybox and pause OCI images (e2e/local/build-images.sh) into $HEADROOM_CACHE/images.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
crictl_version=v1.34.0
source scripts/trixie-apt.sh  # also sets sudo_cmd

if ! containerd --version 2>/dev/null | grep -q ' 1\.7\.\| 2\.'; then
  echo "e2e-deps: installing containerd (NRI) from Debian trixie"
  add_trixie_source
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends containerd/trixie
fi
install_missing runc busybox-static curl

if [ ! -x "$cache/bin/crictl" ]; then
  echo "e2e-deps: building crictl $crictl_version from the Go module proxy"
  export PATH=$PATH:/usr/local/go/bin GOPATH=$cache/go GOSUMDB=off GOFLAGS=-mod=mod
  module=$(mktemp -d)
  printf 'module headroom.local/crictl\ngo 1.24\nrequire sigs.k8s.io/cri-tools %s\n' "$crictl_version" >"$module/go.mod"
  printf '//go:build tools\npackage tools\nimport _ "sigs.k8s.io/cri-tools/cmd/crictl"\n' >"$module/tools.go"
  (cd "$module" && go mod tidy && go build -o "$cache/bin/crictl" sigs.k8s.io/cri-tools/cmd/crictl)
  rm -rf "$module"
fi
mkdir -p "$cache/images"
bash e2e/local/build-images.sh "$cache/images" >/dev/null
echo "e2e-deps: ready (containerd $(containerd --version | awk '{print $3}'), crictl $crictl_version)"
