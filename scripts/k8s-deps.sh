#!/usr/bin/env bash
# Installs what the local scheduler end-to-end suite needs, idempotently, caching builds under
# ${HEADROOM_CACHE:-~/.cache/headroom}:
# - etcd 3.5 (Debian trixie's etcd-server; bookworm has 3.4), from the trixie apt source
#   pinned low so nothing else is upgraded (scripts/trixie-apt.sh); openssl, python3-yaml;
# - kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kubectl of one pinned
#   Kubernetes release, built from the Go module proxy into $HEADROOM_CACHE/k8s-<version>/
#   (only the binaries missing there are built).
#
# k8s.io/kubernetes is not meant to be a dependency: its go.mod points the k8s.io/* staging
# modules at ./staging/src and requires them at v0.0.0. A throw-away wrapper module replaces
# each of them by its published v0.<minor>.<patch> tag, which is the same source.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
k8s_version=${HEADROOM_K8S_VERSION:-v1.34.3}
staging_version=v0.${k8s_version#v1.}
bin_dir=$cache/k8s-$k8s_version

source scripts/trixie-apt.sh  # also sets sudo_cmd
if ! etcd --version 2>/dev/null | grep -q 'etcd Version: 3\.5'; then
  echo "k8s-deps: installing etcd 3.5 from Debian trixie"
  add_trixie_source
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends etcd-server/trixie
fi

# openssl makes the suite's certificates; PyYAML edits deploy/'s scheduler configuration.
install_missing openssl python3-yaml curl

# HEADROOM_K8S_BINARIES: only these (e.g. "kube-apiserver kubectl" for a check that needs no
# scheduler or kubelet).
read -r -a binaries <<<"${HEADROOM_K8S_BINARIES:-kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl}"
missing=()
for binary in "${binaries[@]}"; do
  [ -x "$bin_dir/$binary" ] || missing+=("$binary")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "k8s-deps: building ${missing[*]} $k8s_version from the Go module proxy (several minutes on 2 cores)"
  export PATH=$PATH:/usr/local/go/bin GOPATH=$cache/go GOSUMDB=off GOFLAGS=-mod=mod
  proxy=${GOPROXY:-https://proxy.golang.org}
  proxy=${proxy%%,*}
  module=$(mktemp -d)
  trap 'rm -rf "$module"' EXIT
  {
    printf 'module headroom.local/k8s\ngo 1.24\nrequire k8s.io/kubernetes %s\n' "$k8s_version"
    curl -fsS "$proxy/k8s.io/kubernetes/@v/$k8s_version.mod" |
      sed -n "s#^\t\(k8s\.io/[a-z0-9-]*\) => ./staging/src/.*#replace \1 => \1 $staging_version#p"
  } >"$module/go.mod"
  packages=()
  {
    printf '//go:build tools\npackage tools\nimport (\n'
    for binary in "${missing[@]}"; do
      printf '_ "k8s.io/kubernetes/cmd/%s"\n' "$binary"
      packages+=("k8s.io/kubernetes/cmd/$binary")
    done
    printf ')\n'
  } >"$module/tools.go"
  mkdir -p "$bin_dir.tmp"
  (cd "$module" && go mod tidy &&
    go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version" -o "$bin_dir.tmp/" \
      "${packages[@]}")
  mkdir -p "$bin_dir"
  mv "$bin_dir.tmp"/* "$bin_dir/" && rmdir "$bin_dir.tmp"
fi
echo "k8s-deps: ready (etcd $(etcd --version | awk '/etcd Version/ {print $3}'), Kubernetes $k8s_version in $bin_dir)"
