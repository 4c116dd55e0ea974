# Sourced by the local suites and benchmarks: a control plane of real upstream binaries on
# 127.0.0.1 — etcd 3.5 and kube-apiserver (scripts/k8s-deps.sh) with certificates made by
# openssl for the run, and an admin kubeconfig. Expects: work (scratch directory), k8s_bin,
# pids (array; started processes are appended, the caller stops them by PID), die().
# Provides (with e2e/check-lib.sh): wait_for, free_port, kubectl_, start_control_plane (sets api_port), create_nodes,
# extender_certificate, deploy_extender_config, deploy_scheduler_config, deploy_webhook_config.
# apiserver_disable_admission (optional): the apiserver's --disable-admission-plugins
# (default ServiceAccount).
# apiserver_extra_args (optional array): more kube-apiserver flags.

source "$(dirname "${BASH_SOURCE[0]}")/../check-lib.sh"
kubectl_() { "$k8s_bin/kubectl" --kubeconfig "$work/admin.kubeconfig" "$@"; }

start_control_plane() {
  local etcd_port etcd_peer_port
  etcd_port=$(free_port); etcd_peer_port=$(free_port); api_port=$(free_port)
  # Certificates: a CA, the apiserver's serving certificate, an admin client, SA keys.
  (
    cd "$work"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=headroom-e2e-ca -keyout ca.key -out ca.crt
    openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver -keyout apiserver.key -out apiserver.csr
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile san.ext -out apiserver.crt
    openssl req -newkey rsa:2048 -nodes -subj "/CN=admin/O=system:masters" -keyout admin.key -out admin.csr
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -out admin.crt
    openssl genrsa -out sa.key 2048
    openssl rsa -in sa.key -pubout -out sa.pub
  ) >"$work/openssl.log" 2>&1 || die "openssl (see $work/openssl.log)"
  cat >"$work/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
current-context: e2e
clusters:
- name: e2e
  cluster: {server: "https://127.0.0.1:$api_port", certificate-authority: ca.crt}
users:
- name: admin
  user: {client-certificate: admin.crt, client-key: admin.key}
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
EOF
  # Privileged pods are allowed, as kubeadm and managed clusters do (the NRI DaemonSet is one).
  etcd --name e2e --data-dir "$work/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster "e2e=http://127.0.0.1:$etcd_peer_port" >"$work/etcd.log" 2>&1 &
  pids+=($!)
  # From 1.37 kube-apiserver refuses a loopback --advertise-address with the endpoint
  # reconciler. The suites reach the API by its address, never through the kubernetes Service.
  local version_args=() minor
  minor=$("$k8s_bin/kube-apiserver" --version | sed -E 's/.*v1\.([0-9]+).*/\1/')
  [[ $minor -ge 37 ]] && version_args=(--endpoint-reconciler-type=none)
  "$k8s_bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" ${version_args[@]+"${version_args[@]}"} \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$work/apiserver.crt" --tls-private-key-file "$work/apiserver.key" \
    --client-ca-file "$work/ca.crt" --authorization-mode Node,RBAC \
    --service-account-key-file "$work/sa.pub" --service-account-signing-key-file "$work/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range 10.96.0.0/16 --disable-admission-plugins "${apiserver_disable_admission:-ServiceAccount}" \
    --allow-privileged=true --max-requests-inflight 1000 --max-mutating-requests-inflight 500 \
    --cert-dir "$work/apiserver-certs" ${apiserver_extra_args[@]+"${apiserver_extra_args[@]}"} >"$work/kube-apiserver.log" 2>&1 &
  pids+=($!)
  wait_for 90 kubectl_ get --raw /readyz || die "kube-apiserver not ready (see $work/kube-apiserver.log)"
}

# Node objects with allocatable and no kubelet (what kwok creates; binding is all the
# scheduler needs): CPU MEMORY NAME... . The TaintNodesByCondition admission taints new
# nodes not-ready and no kubelet will clear it, so the taint is removed here.
create_nodes() {
  local cpu=$1 memory=$2 name
  shift 2
  for name in "$@"; do
    printf 'apiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s}}\nstatus:\n  capacity: {cpu: "%s", memory: %s, pods: "110"}\n  allocatable: {cpu: "%s", memory: %s, pods: "110"}\n  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: e2e}]\n---\n' \
      "$name" "$name" "$cpu" "$memory" "$cpu" "$memory"
  done >"$work/nodes.yaml"
  kubectl_ apply -f "$work/nodes.yaml" >/dev/null || return 1
  # Without the admission that taints (a benchmark's many fake nodes), nothing to remove.
  [[ ${apiserver_disable_admission:-} == *TaintNodesByCondition* ]] && return 0
  # Only these nodes (a node created earlier no longer has the taint, and kubectl fails on
  # it), a few hundred names per kubectl call.
  local -a batch=()
  for name in "$@"; do
    batch+=("$name")
    if ((${#batch[@]} >= 250)); then
      kubectl_ taint nodes "${batch[@]}" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
      batch=()
    fi
  done
  if ((${#batch[@]} > 0)); then
    kubectl_ taint nodes "${batch[@]}" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
  fi
}

# extender_certificate: $work/extender.crt and .key, a serving certificate for 127.0.0.1 signed
#   by the cluster's CA (the API server calls webhooks over TLS only; headroom-nri reports
#   over TLS).
extender_certificate() {
  (
    cd "$work"
    openssl req -newkey rsa:2048 -nodes -subj /CN=headroom-extender -keyout extender.key -out extender.csr
    printf 'subjectAltName=IP:127.0.0.1\n' >extender.ext
    openssl x509 -req -in extender.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile extender.ext -out extender.crt
  ) >>"$work/openssl.log" 2>&1
}

# deploy/'s objects with only what differs outside a cluster replaced, so the suites run what
# users install. Need python3 with PyYAML.
# deploy_yaml: `kubectl kustomize deploy/`, rendered once per run into $work/deploy.yaml.
deploy_yaml() {
  if [[ ! -s $work/deploy.yaml ]]; then
    "$k8s_bin/kubectl" kustomize "$repo/deploy" >"$work/deploy.yaml.tmp" && mv "$work/deploy.yaml.tmp" "$work/deploy.yaml" || return 1
  fi
  cat "$work/deploy.yaml"
}
# deploy_scheduler_config EXTENDER_URL OUT: headroom-scheduler's KubeSchedulerConfiguration
#   (the ConfigMap) with the admin kubeconfig, no leader election, the extender at EXTENDER_URL.
deploy_scheduler_config() {
  deploy_yaml | python3 -c '
import sys, yaml
kubeconfig, url, out = sys.argv[1:4]
for doc in yaml.safe_load_all(sys.stdin):
    if doc and doc["kind"] == "ConfigMap" and doc["metadata"]["name"] == "headroom-scheduler":
        config = yaml.safe_load(doc["data"]["config.yaml"])
config["clientConnection"] = {"kubeconfig": kubeconfig}
config["leaderElection"] = {"leaderElect": False}
config["extenders"][0]["urlPrefix"] = url
yaml.safe_dump(config, open(out, "w"))
' "$work/admin.kubeconfig" "$1" "$2"
}
# deploy_extender_config OUT KEY=VALUE...: headroom-extender's --config file (deploy/'s
#   ConfigMap) with each KEY set to VALUE.
deploy_extender_config() {
  local out=$1
  shift
  deploy_yaml | python3 -c '
import sys, yaml
out, overrides = sys.argv[1], sys.argv[2:]
for doc in yaml.safe_load_all(sys.stdin):
    if doc and doc["kind"] == "ConfigMap" and doc["metadata"]["name"] == "headroom-extender":
        config = yaml.safe_load(doc["data"]["extender.yaml"])
for item in overrides:
    key, value = item.split("=", 1)
    config[key] = value
yaml.safe_dump(config, open(out, "w"))
' "$out" "$@"
}
# deploy_webhook_config WEBHOOK_URL CA_FILE OUT: the MutatingWebhookConfiguration (failurePolicy
#   Ignore, its selectors and timeout) calling WEBHOOK_URL instead of the in-cluster Service.
deploy_webhook_config() {
  deploy_yaml | python3 -c '
import base64, sys, yaml
url, ca, out = sys.argv[1:4]
for doc in yaml.safe_load_all(sys.stdin):
    if doc and doc["kind"] == "MutatingWebhookConfiguration":
        hook = doc["webhooks"][0]
        hook["clientConfig"] = {"url": url, "caBundle": base64.b64encode(open(ca, "rb").read()).decode()}
        yaml.safe_dump(doc, open(out, "w"))
' "$1" "$2" "$3"
}
