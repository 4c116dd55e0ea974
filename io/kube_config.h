#pragma once

// Where and how headroom-extender reaches the Kubernetes API: from a kubeconfig file (the
// current context, or a named one) or from the in-cluster service account. Only what a
// read-only watcher needs is supported: server URL, CA (file or data, or skip-verify), bearer
// token (inline or file) and client certificate (file or data). Exec and auth-provider
// plugins are refused with a clear error rather than ignored.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::io {

struct KubeConfig {
  std::string server;  // "https://host:port" (or http:// for a test apiserver)
  std::string ca_pem;  // empty: the system's trust store
  bool insecure_skip_tls_verify = false;
  std::string bearer_token;
  // Read at every request instead of bearer_token: projected service-account tokens rotate.
  std::string token_file;
  std::string client_cert_pem;
  std::string client_key_pem;
};

// Parses kubeconfig YAML. Relative file paths are resolved against `base_dir` (the
// kubeconfig's directory). `context` empty means current-context. InvalidArgument naming the
// missing or unsupported field.
absl::StatusOr<KubeConfig> ParseKubeconfig(absl::string_view yaml, const std::string& base_dir,
                                           const std::string& context = "");

// Reads and parses a kubeconfig file; NotFound when it does not exist.
absl::StatusOr<KubeConfig> LoadKubeconfigFile(const std::string& path,
                                              const std::string& context = "");

// The in-cluster configuration: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT,
// the service account's CA and token under `account_dir`. NotFound outside a pod.
absl::StatusOr<KubeConfig> InClusterConfig(
    const std::string& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace headroom::io
