#include "io/grpc_tls.h"

#include "absl/strings/str_cat.h"
#include "io/atomic_file.h"
#include "shared/status_macros.h"

namespace headroom::io {
namespace {

// The file's content, or an error naming the flag that gave it.
absl::StatusOr<std::string> Pem(const std::string& path, const char* flag) {
  absl::StatusOr<std::string> content = ReadFile(path);
  if (!content.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read ", path, ": ", content.status().message()));
  }
  if (content->find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, " is not PEM"));
  }
  return content;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const GrpcClientTls& tls) {
  if (tls.ca_file.empty() && tls.cert_file.empty() && tls.key_file.empty()) {
    return grpc::InsecureChannelCredentials();
  }
  if (tls.ca_file.empty() || tls.cert_file.empty() != tls.key_file.empty()) {
    return absl::InvalidArgumentError(
        "TLS to the extender needs its CA file; a client certificate and key go together");
  }
  grpc::SslCredentialsOptions options;
  HEADROOM_ASSIGN_OR_RETURN(options.pem_root_certs, Pem(tls.ca_file, "--extender-ca-file"));
  if (!tls.cert_file.empty()) {
    HEADROOM_ASSIGN_OR_RETURN(options.pem_cert_chain, Pem(tls.cert_file, "--extender-cert-file"));
    HEADROOM_ASSIGN_OR_RETURN(options.pem_private_key, Pem(tls.key_file, "--extender-key-file"));
  }
  return grpc::SslCredentials(options);
}

}  // namespace headroom::io
