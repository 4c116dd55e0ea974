#!/usr/bin/env bash
# Checks the Helm chart (deploy/helm/headroom) against deploy/, which it is generated from:
# the templates are up to date (scripts/gen-helm-chart.py --check), `helm lint` passes with the
# default values and with every optional part on, and `helm template` with the defaults renders
# exactly the objects `kubectl kustomize deploy/` does (the Namespace aside: a chart installs
# into the release's). The scheduler suite also applies renders with --dry-run=server.
# Needs helm (scripts/helm-deps.sh) and kubectl (scripts/k8s-deps.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${HEADROOM_CACHE:-$HOME/.cache/headroom}
helm=${HELM:-$cache/bin/helm}
kubectl=${KUBECTL:-$cache/k8s-${HEADROOM_K8S_VERSION:-v1.34.3}/kubectl}
chart=$repo/deploy/helm/headroom
work=$(mktemp -d /tmp/headroom-helm.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 "$repo/scripts/gen-helm-chart.py" --check
"$helm" lint "$chart" >"$work/lint.log" || { cat "$work/lint.log"; exit 1; }
"$helm" lint "$chart" --set tls.mode=cert-manager,monitoring.podMonitor=true,namespace.create=true \
  --set actuation.dryRun=true,scheduling.cordonTaint=true >"$work/lint-all.log" || { cat "$work/lint-all.log"; exit 1; }
echo "check-helm: helm lint passes (defaults, and every optional part on)"
"$helm" template headroom "$chart" --namespace headroom-system --kube-version v1.34.3 >"$work/helm.yaml"
"$kubectl" kustomize "$repo/deploy" >"$work/kustomize.yaml"
python3 - "$work/helm.yaml" "$work/kustomize.yaml" <<'PY'
import sys, yaml
def objects(path, drop_namespace_field):
    out = {}
    for doc in yaml.safe_load_all(open(path)):
        if not doc or doc["kind"] == "Namespace":
            continue
        if drop_namespace_field:
            doc["metadata"].pop("namespace", None)  # kustomize writes it; helm leaves it to install
        out[(doc["kind"], doc["metadata"]["name"])] = doc
    return out
helm, kust = objects(sys.argv[1], True), objects(sys.argv[2], True)
problems = [f"only in the chart: {k}" for k in helm.keys() - kust.keys()]
problems += [f"only in deploy/: {k}" for k in kust.keys() - helm.keys()]
problems += [f"differs: {k}" for k in helm.keys() & kust.keys() if helm[k] != kust[k]]
for p in problems:
    print("check-helm:", p, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-helm: helm template with the defaults renders the same {len(helm)} objects as kubectl kustomize deploy/")
PY
