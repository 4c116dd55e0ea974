#!/usr/bin/env python3
"""Generates deploy/helm/headroom/templates/ from deploy/ (the one source of the manifests).

Each manifest of deploy/ is copied with a fixed set of substitutions that turn its settings
into chart values (deploy/helm/headroom/values.yaml); with the default values the chart renders
what `kubectl apply -k deploy/` applies, which CI checks (scripts/check-helm.sh).

Usage: gen-helm-chart.py [--check]   --check: exit 1 if the committed templates differ.
"""
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
OUT = DEPLOY / "helm" / "headroom" / "templates"
HEADER = "# Generated from deploy/{} by scripts/gen-helm-chart.py: edit that file, not this one.\n"

# (file, pattern, replacement): each pattern must match in its file, so a change to deploy/
# that loses a value fails the generation instead of silently dropping it.
SUBSTITUTIONS = [
    ("extender/configmap.yaml", r"(?m)^    scoring: target$", "    scoring: {{ .Values.scheduling.scoring }}"),
    ("extender/configmap.yaml", r"(?m)^    actuate: true$", "    actuate: {{ .Values.actuation.actuate }}"),
    ("extender/configmap.yaml", r"(?m)^    dry-run: false$", "    dry-run: {{ .Values.actuation.dryRun }}"),
    ("extender/configmap.yaml", r"(?m)^    leader-elect: true$", "    leader-elect: {{ .Values.actuation.leaderElect }}"),
    ("extender/configmap.yaml", r"(?m)^    min-history: 24h$", "    min-history: {{ .Values.policy.minHistory }}"),
    ("extender/configmap.yaml", r"(?m)^    default-mode: in-place$", "    default-mode: {{ .Values.policy.defaultMode }}"),
    ("extender/configmap.yaml", r"(?m)^    allow-below-declared: false$", "    allow-below-declared: {{ .Values.policy.allowBelowDeclared }}"),
    ("extender/configmap.yaml", r"(?m)^    max-shrink-step: 0.5$", "    max-shrink-step: {{ .Values.policy.maxShrinkStep }}"),
    ("extender/configmap.yaml", r"(?m)^    shrink-interval: 1h$", "    shrink-interval: {{ .Values.policy.shrinkInterval }}"),
    ("extender/configmap.yaml", r"(?m)^    resize-min-change: 0.1$", "    resize-min-change: {{ .Values.policy.resizeMinChange }}"),
    ("extender/configmap.yaml", r"(?m)^    resize-min-cpu: 25m$", "    resize-min-cpu: {{ .Values.policy.resizeMinCpu }}"),
    ("extender/configmap.yaml", r"(?m)^    resize-min-memory: 64Mi$", "    resize-min-memory: {{ .Values.policy.resizeMinMemory }}"),
    ("extender/configmap.yaml", r"(?m)^    cpu-eviction-after: 15m$", "    cpu-eviction-after: {{ .Values.policy.cpuEvictionAfter }}"),
    ("extender/configmap.yaml", r"(?m)^    evictions-per-minute: 5$", "    evictions-per-minute: {{ .Values.policy.evictionsPerMinute }}"),
    ("extender/configmap.yaml", r"(?m)^    evictions-per-node-per-hour: 2$", "    evictions-per-node-per-hour: {{ .Values.policy.evictionsPerNodePerHour }}"),
    ("extender/configmap.yaml", r"(?m)^    hpa-scaled-resources: keep$", "    hpa-scaled-resources: {{ .Values.policy.hpaScaledResources }}"),
    ("extender/configmap.yaml", r"(?m)^    cordon-taint: false$", "    cordon-taint: {{ .Values.scheduling.cordonTaint }}"),
    ("extender/configmap.yaml", r"(?m)^    status-api: true$", "    status-api: {{ .Values.statusApi }}"),
    ("extender/configmap.yaml", r"(?m)^    log-level: info$", "    log-level: {{ .Values.logLevel }}"),
    ("extender/deployment.yaml", r"(?m)^        image: headroom-extender\n        imagePullPolicy: IfNotPresent$",
     '        image: "{{ .Values.images.extender.repository }}:{{ .Values.images.extender.tag }}"\n'
     "        imagePullPolicy: {{ .Values.images.extender.pullPolicy }}"),
    ("nri/daemonset.yaml", r"(?m)^        image: headroom-nri\n        imagePullPolicy: IfNotPresent$",
     '        image: "{{ .Values.images.nri.repository }}:{{ .Values.images.nri.tag }}"\n'
     "        imagePullPolicy: {{ .Values.images.nri.pullPolicy }}"),
    ("nri/daemonset.yaml", r"(?m)^        - --min-history=24h$", "        - --min-history={{ .Values.policy.minHistory }}"),
    ("nri/daemonset.yaml", r"(?m)^        - --default-mode=in-place$", "        - --default-mode={{ .Values.policy.defaultMode }}"),
    ("nri/daemonset.yaml", r"(?m)^        - --allow-below-declared=false$",
     "        - --allow-below-declared={{ .Values.policy.allowBelowDeclared }}\n"
     "        {{- if .Values.actuation.dryRun }}\n        - --dry-run\n        {{- end }}"),
    ("scheduler/deployment.yaml", r"(?m)^        image: registry.k8s.io/kube-scheduler:v1.34.3$",
     '        image: "{{ .Values.images.scheduler.repository }}:{{ .Values.images.scheduler.tag }}"'),
]
# Every file of the kustomization, and when the chart renders it.
FILES = [
    ("namespace.yaml", "{{- if .Values.namespace.create }}"),
    ("extender/rbac.yaml", None),
    ("extender/configmap.yaml", None),
    ("extender/deployment.yaml", None),
    ("extender/service.yaml", None),
    ("extender/networkpolicy.yaml", None),
    ("webhook/mutatingwebhook.yaml", None),
    ("webhook/certificate.yaml", '{{- if eq .Values.tls.mode "cert-manager" }}'),
    ("scheduler/rbac.yaml", None),
    ("scheduler/configmap.yaml", None),
    ("scheduler/deployment.yaml", None),
    ("nri/rbac.yaml", None),
    ("nri/daemonset.yaml", None),
    ("monitoring/podmonitor.yaml", "{{- if .Values.monitoring.podMonitor }}"),
]


def render(name, condition):
    text = (DEPLOY / name).read_text()
    for file, pattern, replacement in SUBSTITUTIONS:
        if file != name:
            continue
        text, count = re.subn(pattern, lambda _: replacement, text)
        if count != 1:
            sys.exit(f"gen-helm-chart: {pattern!r} matches {count} times in deploy/{name}")
    # The namespace: the release's. Only the names headroom itself chose are replaced.
    text = text.replace("headroom-system", "{{ .Release.Namespace }}")
    if name == "namespace.yaml":
        text = text.replace("name: {{ .Release.Namespace }}", "name: {{ .Release.Namespace }}")
    out = HEADER.format(name)
    if condition:
        out += condition + "\n" + text.rstrip("\n") + "\n{{- end }}\n"
    else:
        out += text
    return out


def main():
    check = "--check" in sys.argv[1:]
    kustomized = set(re.findall(r"(?m)^- ([a-z/.-]+\.yaml)$", (DEPLOY / "kustomization.yaml").read_text()))
    listed = {name for name, _ in FILES}
    missing = kustomized - listed
    if missing:
        sys.exit(f"gen-helm-chart: deploy/kustomization.yaml has {sorted(missing)}, the chart does not")
    stale = []
    wanted = {}
    for name, condition in FILES:
        wanted[name.replace("/", "-")] = render(name, condition)
    for target, text in wanted.items():
        path = OUT / target
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(target)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    extra = [p.name for p in OUT.glob("*.yaml") if p.name not in wanted] if OUT.exists() else []
    if check and (stale or extra):
        sys.exit(f"gen-helm-chart: templates out of date ({stale + extra}): run scripts/gen-helm-chart.py")
    if not check:
        for name in extra:
            (OUT / name).unlink()
    print(f"gen-helm-chart: {len(wanted)} templates {'up to date' if check else 'written'}")


if __name__ == "__main__":
    main()
