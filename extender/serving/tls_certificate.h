#pragma once

// The HTTPS certificate of headroom-extender, reloaded when its files change, so a renewed
// certificate (cert-manager rewrites the Secret's files in place) is served without a restart.
// Every TLS handshake asks for the current certificate through OpenSSL's certificate callback;
// the files' modification times are checked then, and a new pair is loaded only when both
// parse and match. A bad new pair is logged and the previous one kept.

#include <openssl/ssl.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace headroom::extender {

class ReloadingCertificate {
 public:
  ReloadingCertificate(std::string cert_path, std::string key_path);

  // Loads the pair; InvalidArgument naming the file when it cannot be used.
  absl::Status Load();
  // Reloads when a file changed since the last load; returns whether it did.
  bool MaybeReload();
  // Configures `ctx` (TLS 1.2 or newer) to serve this certificate on every handshake.
  void Install(SSL_CTX& ctx);

  int reloads() const;

 private:
  struct Pair;
  static int CertificateCallback(SSL* ssl, void* self);

  const std::string cert_path_;
  const std::string key_path_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const Pair> current_ ABSL_GUARDED_BY(mu_);
  std::filesystem::file_time_type cert_time_ ABSL_GUARDED_BY(mu_);
  std::filesystem::file_time_type key_time_ ABSL_GUARDED_BY(mu_);
  int reloads_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace headroom::extender
