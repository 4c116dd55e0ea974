#!/usr/bin/env bash
# Builds KWOK's controller (sigs.k8s.io/kwok/cmd/kwok, which runs fake nodes and their pods
# against a real kube-apiserver) from the Go module proxy into
# ${HEADROOM_CACHE:-~/.cache/headroom}/kwok-<version>/kwok, once (about 5 minutes on 2 cores).
# Used by scripts/bench-cluster.sh only; never by CI.
set -euo pipefail
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
version=${HEADROOM_KWOK_VERSION:-v0.8.0}
out=$cache/kwok-$version
if [[ ! -x $out/kwok ]]; then
  echo "kwok-deps: building kwok $version from the Go module proxy"
  export PATH=$PATH:/usr/local/go/bin GOPATH=$cache/go GOSUMDB=off GOFLAGS=-mod=mod
  module=$(mktemp -d)
  trap 'rm -rf "$module"' EXIT
  printf 'module headroom.local/kwok\ngo 1.24\n' >"$module/go.mod"
  printf '//go:build tools\npackage tools\nimport _ "sigs.k8s.io/kwok/cmd/kwok"\n' >"$module/tools.go"
  mkdir -p "$out.tmp"
  (cd "$module" && go get "sigs.k8s.io/kwok@$version" && go mod tidy &&
    go build -trimpath -ldflags "-s -w" -o "$out.tmp/kwok" sigs.k8s.io/kwok/cmd/kwok)
  mkdir -p "$out" && mv "$out.tmp/kwok" "$out/kwok" && rmdir "$out.tmp"
fi
echo "kwok-deps: ready ($out/kwok)"
