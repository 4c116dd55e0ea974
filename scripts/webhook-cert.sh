#!/usr/bin/env bash
# Self-signed bootstrap of the admission webhook's TLS, for clusters without cert-manager:
# makes a CA and a serving certificate for headroom-extender.<namespace>.svc with openssl,
# stores them in the Secret headroom-extender-webhook-tls (tls.crt, tls.key, ca.crt; the
# extender also serves node reports with it) and puts the CA into the
# MutatingWebhookConfiguration "headroom". Run after `kubectl apply -k deploy/`; re-run to
# renew (valid for DAYS, default 365). The extender reloads a changed certificate by itself.
# Usage: scripts/webhook-cert.sh [NAMESPACE] [DAYS]   (uses kubectl's current context)
set -euo pipefail
namespace=${1:-headroom-system}
days=${2:-365}
service=headroom-extender
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=headroom-webhook-ca" -keyout ca.key -out ca.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=$service.$namespace.svc" -keyout tls.key -out tls.csr 2>/dev/null
# The headless Service's name too: headroom-nri reports to each replica under that name.
printf 'subjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local,DNS:%s-replicas.%s.svc\n' \
  "$service" "$namespace" "$service" "$namespace" "$service" "$namespace" >san.ext
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days "$days" -extfile san.ext -out tls.crt 2>/dev/null
# ca.crt too: headroom-nri trusts the extender's gRPC listener (same certificate) by it.
kubectl -n "$namespace" create secret generic headroom-extender-webhook-tls --type kubernetes.io/tls \
  --from-file tls.crt=tls.crt --from-file tls.key=tls.key --from-file ca.crt=ca.crt \
  --dry-run=client -o yaml | kubectl apply -f -
kubectl patch mutatingwebhookconfiguration headroom --type json \
  -p "[{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$(base64 -w0 ca.crt)\"}]"
echo "webhook-cert: Secret $namespace/headroom-extender-webhook-tls written, caBundle set (valid $days days)"
