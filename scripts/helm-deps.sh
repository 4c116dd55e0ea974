#!/usr/bin/env bash
# Builds helm (pinned) from the Go module proxy into ${HEADROOM_CACHE:-~/.cache/headroom}/bin,
# once; scripts/check-helm.sh and the scheduler suite use it to lint and render the chart.
set -euo pipefail
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
helm_version=${HEADROOM_HELM_VERSION:-v3.18.6}
if [ -x "$cache/bin/helm" ] && "$cache/bin/helm" version --short 2>/dev/null | grep -q "^$helm_version"; then
  exit 0
fi
echo "helm-deps: building helm $helm_version from the Go module proxy (a few minutes on 2 cores)"
export PATH=$PATH:/usr/local/go/bin GOPATH=$cache/go GOSUMDB=off GOFLAGS=-mod=mod
module=$(mktemp -d)
trap 'rm -rf "$module"' EXIT
printf 'module headroom.local/helm\ngo 1.24\nrequire helm.sh/helm/v3 %s\n' "$helm_version" >"$module/go.mod"
printf '//go:build tools\npackage tools\nimport _ "helm.sh/helm/v3/cmd/helm"\n' >"$module/tools.go"
mkdir -p "$cache/bin"
(cd "$module" && go mod tidy && go build -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version" \
  -o "$cache/bin/helm" helm.sh/helm/v3/cmd/helm)
echo "helm-deps: $("$cache/bin/helm" version --short)"
