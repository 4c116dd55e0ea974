#!/usr/bin/env bash
# Installs what the cgroup v2 VM suite (e2e/vm/run.sh) needs, idempotently, caching builds
# under ${HEADROOM_CACHE:-~/.cache/headroom}:
# - qemu-system-x86 (software emulation: this machine type has no usable KVM), mmdebstrap and
#   e2fsprogs from Debian;
# - containerd 2.x (containerd, its runc shim and ctr), built from the Go module proxy (pinned
#   version) into $HEADROOM_CACHE/containerd-VERSION/bin; the VM's containerd 1.7 comes from
#   Debian trixie inside the image;
# - the VM image (e2e/vm/image.sh: Debian trixie, its 6.12 kernel, containerd 1.7, runc);
# - crictl and the test images (scripts/e2e-deps.sh).
# Prints nothing on stdout but the last line: "vm-deps: ready (...)".
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
containerd2_version=${HEADROOM_CONTAINERD2_VERSION:-v2.4.2}
source scripts/trixie-apt.sh  # install_missing, sudo_cmd
install_missing qemu-system-x86 mmdebstrap e2fsprogs
bash scripts/e2e-deps.sh >/dev/null

containerd2_dir=$cache/containerd-$containerd2_version/bin
if [[ ! -x $containerd2_dir/containerd || ! -x $containerd2_dir/containerd-shim-runc-v2 || ! -x $containerd2_dir/ctr ]]; then
  echo "vm-deps: building containerd $containerd2_version from the Go module proxy (a few minutes, once)" >&2
  export PATH=$PATH:/usr/local/go/bin GOPATH=$cache/go GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=0
  module=$(mktemp -d)
  printf 'module headroom.local/containerd\ngo 1.24\nrequire github.com/containerd/containerd/v2 %s\n' "$containerd2_version" >"$module/go.mod"
  printf '//go:build tools\npackage tools\nimport (\n\t_ "github.com/containerd/containerd/v2/cmd/containerd"\n\t_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"\n\t_ "github.com/containerd/containerd/v2/cmd/ctr"\n)\n' >"$module/tools.go"
  mkdir -p "$containerd2_dir.tmp"
  (cd "$module" && go mod tidy >&2 &&
    go build -tags "no_btrfs no_devmapper no_zfs" -o "$containerd2_dir.tmp/" \
      github.com/containerd/containerd/v2/cmd/containerd \
      github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
      github.com/containerd/containerd/v2/cmd/ctr >&2)
  rm -rf "$module" "$containerd2_dir"
  mv "$containerd2_dir.tmp" "$containerd2_dir"
fi
image=$(bash e2e/vm/image.sh)
echo "vm-deps: ready (qemu $(qemu-system-x86_64 --version | awk 'NR == 1 {print $4}'), containerd $containerd2_version in $containerd2_dir, image $image)"
