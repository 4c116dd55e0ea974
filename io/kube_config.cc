#include "io/kube_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "io/atomic_file.h"
#include "shared/status_macros.h"

namespace headroom::io {
namespace {

absl::Status Invalid(const std::string& field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("kubeconfig ", field, ": ", problem));
}

std::string Scalar(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  return value && value.IsScalar() ? value.as<std::string>() : "";
}

// The entry of `list` ("clusters", "users", "contexts") called `name`, its inner map.
absl::StatusOr<YAML::Node> Named(const YAML::Node& root, const char* list, const char* inner,
                                 const std::string& name) {
  const YAML::Node entries = root[list];
  if (entries && entries.IsSequence()) {
    for (const YAML::Node& entry : entries) {
      if (Scalar(entry, "name") == name && entry[inner] && entry[inner].IsMap()) {
        return entry[inner];
      }
    }
  }
  return Invalid(list, absl::StrCat("no entry named \"", name, "\""));
}

std::string Resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

// `<key>-data` (base64) or the file `<key>`; empty when neither is set.
absl::StatusOr<std::string> DataOrFile(const YAML::Node& node, const std::string& key,
                                       const std::string& base_dir, const std::string& where) {
  if (const std::string data = Scalar(node, (key + "-data").c_str()); !data.empty()) {
    std::string decoded;
    if (!absl::Base64Unescape(data, &decoded)) {
      return Invalid(absl::StrCat(where, ".", key, "-data"), "not base64");
    }
    return decoded;
  }
  if (const std::string file = Scalar(node, key.c_str()); !file.empty()) {
    absl::StatusOr<std::string> content = io::ReadFile(Resolve(file, base_dir));
    if (!content.ok()) {
      return Invalid(absl::StrCat(where, ".", key), content.status().message());
    }
    return content;
  }
  return std::string();
}

}  // namespace

absl::StatusOr<KubeConfig> ParseKubeconfig(absl::string_view yaml, const std::string& base_dir,
                                           const std::string& context) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Invalid("document", e.what());
  }
  if (!root.IsMap()) return Invalid("document", "expected a map");
  const std::string context_name = context.empty() ? Scalar(root, "current-context") : context;
  if (context_name.empty()) return Invalid("current-context", "not set");
  HEADROOM_ASSIGN_OR_RETURN(const YAML::Node ctx, Named(root, "contexts", "context", context_name));
  const std::string cluster_name = Scalar(ctx, "cluster");
  if (cluster_name.empty()) return Invalid("contexts[].context.cluster", "not set");
  HEADROOM_ASSIGN_OR_RETURN(const YAML::Node cluster,
                            Named(root, "clusters", "cluster", cluster_name));
  KubeConfig config;
  config.server = Scalar(cluster, "server");
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return Invalid("clusters[].cluster.server", "must be an http:// or https:// URL");
  }
  while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
  config.insecure_skip_tls_verify = Scalar(cluster, "insecure-skip-tls-verify") == "true";
  HEADROOM_ASSIGN_OR_RETURN(config.ca_pem,
                            DataOrFile(cluster, "certificate-authority", base_dir, "cluster"));

  if (const std::string user_name = Scalar(ctx, "user"); !user_name.empty()) {
    HEADROOM_ASSIGN_OR_RETURN(const YAML::Node user, Named(root, "users", "user", user_name));
    if (user["exec"] || user["auth-provider"]) {
      return Invalid("users[].user",
                     "exec and auth-provider plugins are not supported; use a "
                     "token, a token file or a client certificate");
    }
    config.bearer_token = Scalar(user, "token");
    config.token_file = Resolve(Scalar(user, "tokenFile"), base_dir);
    HEADROOM_ASSIGN_OR_RETURN(config.client_cert_pem,
                              DataOrFile(user, "client-certificate", base_dir, "user"));
    HEADROOM_ASSIGN_OR_RETURN(config.client_key_pem,
                              DataOrFile(user, "client-key", base_dir, "user"));
    if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
      return Invalid("users[].user", "client-certificate and client-key go together");
    }
  }
  return config;
}

absl::StatusOr<KubeConfig> LoadKubeconfigFile(const std::string& path, const std::string& context) {
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(absl::StrCat("kubeconfig ", path, " does not exist"));
  }
  HEADROOM_ASSIGN_OR_RETURN(const std::string yaml, io::ReadFile(path));
  absl::StatusOr<KubeConfig> config =
      ParseKubeconfig(yaml, std::filesystem::path(path).parent_path().string(), context);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat(path, ": ", config.status().message()));
  }
  return config;
}

absl::StatusOr<KubeConfig> InClusterConfig(const std::string& account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0') {
    return absl::NotFoundError("not in a cluster: KUBERNETES_SERVICE_HOST is not set");
  }
  KubeConfig config;
  const std::string h = host;
  // An IPv6 service address needs brackets in a URL.
  config.server =
      absl::StrCat("https://", h.find(':') != std::string::npos ? "[" + h + "]" : h, ":", port);
  HEADROOM_ASSIGN_OR_RETURN(config.ca_pem, io::ReadFile(account_dir + "/ca.crt"));
  config.token_file = account_dir + "/token";
  return config;
}

}  // namespace headroom::io
