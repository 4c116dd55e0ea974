#include "extender/serving/tls_certificate.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {

struct ReloadingCertificate::Pair {
  X509* leaf = nullptr;
  STACK_OF(X509) * chain = nullptr;
  EVP_PKEY* key = nullptr;
  ~Pair() {
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

namespace {

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  char buffer[256];
  ERR_error_string_n(code, buffer, sizeof(buffer));
  ERR_clear_error();
  return code == 0 ? "unknown error" : buffer;
}

std::filesystem::file_time_type ModifiedAt(const std::string& path) {
  std::error_code error;
  return std::filesystem::last_write_time(path, error);
}

}  // namespace

ReloadingCertificate::ReloadingCertificate(std::string cert_path, std::string key_path)
    : cert_path_(std::move(cert_path)), key_path_(std::move(key_path)) {}

absl::Status ReloadingCertificate::Load() {
  const auto cert_time = ModifiedAt(cert_path_);
  const auto key_time = ModifiedAt(key_path_);
  auto pair = std::make_shared<Pair>();
  FILE* cert_file = std::fopen(cert_path_.c_str(), "r");
  if (cert_file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot open certificate ", cert_path_));
  }
  pair->leaf = PEM_read_X509(cert_file, nullptr, nullptr, nullptr);
  pair->chain = sk_X509_new_null();
  while (X509* extra = PEM_read_X509(cert_file, nullptr, nullptr, nullptr)) {
    sk_X509_push(pair->chain, extra);
  }
  std::fclose(cert_file);
  ERR_clear_error();  // the loop ends on "no start line"
  if (pair->leaf == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("no PEM certificate in ", cert_path_));
  }
  FILE* key_file = std::fopen(key_path_.c_str(), "r");
  if (key_file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot open private key ", key_path_));
  }
  pair->key = PEM_read_PrivateKey(key_file, nullptr, nullptr, nullptr);
  std::fclose(key_file);
  if (pair->key == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("no PEM private key in ", key_path_, ": ", OpenSslError()));
  }
  if (X509_check_private_key(pair->leaf, pair->key) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("private key ", key_path_, " does not match certificate ", cert_path_));
  }
  absl::MutexLock lock(&mu_);
  current_ = std::move(pair);
  cert_time_ = cert_time;
  key_time_ = key_time;
  return absl::OkStatus();
}

bool ReloadingCertificate::MaybeReload() {
  {
    absl::MutexLock lock(&mu_);
    if (ModifiedAt(cert_path_) == cert_time_ && ModifiedAt(key_path_) == key_time_) return false;
  }
  if (absl::Status loaded = Load(); !loaded.ok()) {
    spdlog::error("keeping the previous TLS certificate: {}", std::string(loaded.message()));
    // Do not retry on every handshake: wait for the files to change again.
    absl::MutexLock lock(&mu_);
    cert_time_ = ModifiedAt(cert_path_);
    key_time_ = ModifiedAt(key_path_);
    return false;
  }
  absl::MutexLock lock(&mu_);
  ++reloads_;
  spdlog::info("reloaded the TLS certificate from {}", cert_path_);
  return true;
}

int ReloadingCertificate::reloads() const {
  absl::MutexLock lock(&mu_);
  return reloads_;
}

int ReloadingCertificate::CertificateCallback(SSL* ssl, void* self) {
  auto* certificate = static_cast<ReloadingCertificate*>(self);
  certificate->MaybeReload();
  std::shared_ptr<const Pair> pair;
  {
    absl::MutexLock lock(&certificate->mu_);
    pair = certificate->current_;
  }
  if (pair == nullptr) return 0;
  if (SSL_use_certificate(ssl, pair->leaf) != 1 || SSL_use_PrivateKey(ssl, pair->key) != 1 ||
      SSL_set1_chain(ssl, pair->chain) != 1) {
    ERR_clear_error();
    return 0;
  }
  return 1;
}

void ReloadingCertificate::Install(SSL_CTX& ctx) {
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_cert_cb(&ctx, &ReloadingCertificate::CertificateCallback, this);
}

}  // namespace headroom::extender
