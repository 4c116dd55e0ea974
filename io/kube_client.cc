#include "io/kube_client.h"

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "io/atomic_file.h"
#include "nlohmann/json.hpp"
#include "shared/json_nesting.h"
#include "shared/status_macros.h"

namespace headroom::io {
namespace {

std::unique_ptr<BIO, decltype(&BIO_free)> MemoryBio(const std::string& pem) {
  return {BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free};
}

// A trust store with every certificate of the PEM bundle; nullptr when none parses.
X509_STORE* TrustStore(const std::string& pem) {
  auto bio = MemoryBio(pem);
  X509_STORE* store = X509_STORE_new();
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

// The client certificate and key of a kubeconfig, parsed; both null without one.
struct ClientIdentity {
  std::unique_ptr<X509, decltype(&X509_free)> cert{nullptr, &X509_free};
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, &EVP_PKEY_free};
};

ClientIdentity ParseClientIdentity(const KubeConfig& config) {
  ClientIdentity identity;
  if (config.client_cert_pem.empty()) return identity;
  auto cert_bio = MemoryBio(config.client_cert_pem);
  identity.cert.reset(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  auto key_bio = MemoryBio(config.client_key_pem);
  identity.key.reset(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  return identity;
}

}  // namespace

nlohmann::json ParseApiJson(absl::string_view body) {
  if (!CheckJsonNesting(body).ok()) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
}

std::string ApiStatusMessage(const std::string& body) {
  const nlohmann::json status = ParseApiJson(body);
  if (status.is_object() && status.contains("message") && status["message"].is_string()) {
    return status["message"].get<std::string>();
  }
  return body.substr(0, 200);
}

std::string FormatKubeTime(absl::Time at) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", at, absl::UTCTimeZone());
}

std::optional<absl::Time> ParseKubeTime(absl::string_view text) {
  absl::Time at;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &at, &error)) return std::nullopt;
  return at;
}

namespace {

absl::Status HttpError(int status, const std::string& body, const std::string& path) {
  const std::string message =
      absl::StrCat("GET ", path, ": HTTP ", status, ": ", ApiStatusMessage(body));
  switch (status) {
    case 401:
      return absl::UnauthenticatedError(message);
    case 403:
      return absl::PermissionDeniedError(message);
    case 404:
      return absl::NotFoundError(message);
    case 410:
      return absl::OutOfRangeError(message);  // resourceVersion too old: list again
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

// Accept, and the bearer token (re-read from its file: projected tokens rotate) if any.
absl::StatusOr<httplib::Headers> RequestHeaders(const KubeConfig& config) {
  httplib::Headers headers = {{"Accept", "application/json"}};
  std::string token = config.bearer_token;
  if (!config.token_file.empty()) {
    HEADROOM_ASSIGN_OR_RETURN(token, io::ReadFile(config.token_file));
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  }
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

}  // namespace

absl::StatusOr<ServerAddress> ParseServerUrl(absl::string_view url) {
  ServerAddress address;
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "https://")) {
    address.https = true;
    address.port = 443;
  } else if (absl::ConsumePrefix(&rest, "http://")) {
    address.https = false;
    address.port = 80;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("server \"", url, "\": expected https://host[:port]"));
  }
  while (absl::ConsumeSuffix(&rest, "/")) {
  }
  if (rest.find('/') != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("server \"", url, "\": a path after the host is not supported"));
  }
  absl::string_view port;
  if (absl::ConsumePrefix(&rest, "[")) {
    const size_t close = rest.find(']');
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("server \"", url, "\": unclosed ["));
    }
    address.host = std::string(rest.substr(0, close));
    rest.remove_prefix(close + 1);
    if (!rest.empty() && !absl::ConsumePrefix(&rest, ":")) {
      return absl::InvalidArgumentError(absl::StrCat("server \"", url, "\": junk after ]"));
    }
    port = rest;
  } else {
    const size_t colon = rest.rfind(':');
    address.host = std::string(rest.substr(0, colon));
    if (colon != absl::string_view::npos) port = rest.substr(colon + 1);
  }
  if (address.host.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("server \"", url, "\": no host"));
  }
  if (!port.empty() &&
      (!absl::SimpleAtoi(port, &address.port) || address.port <= 0 || address.port > 65535)) {
    return absl::InvalidArgumentError(absl::StrCat("server \"", url, "\": bad port"));
  }
  return address;
}

bool LineSplitter::Feed(absl::string_view chunk,
                        const std::function<bool(absl::string_view)>& on_line) {
  buffer_.append(chunk.data(), chunk.size());
  size_t start = 0;
  bool keep_going = true;
  while (keep_going) {
    const size_t newline = buffer_.find('\n', start);
    if (newline == std::string::npos) break;
    absl::string_view line(buffer_.data() + start, newline - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) keep_going = on_line(line);
    start = newline + 1;
  }
  buffer_.erase(0, start);
  return keep_going && buffer_.size() <= kMaxLineBytes;
}

KubeClient::KubeClient(KubeConfig config, ServerAddress address)
    : config_(std::move(config)), address_(std::move(address)) {}

KubeClient::~KubeClient() = default;

absl::StatusOr<std::unique_ptr<KubeClient>> KubeClient::Create(KubeConfig config) {
  HEADROOM_ASSIGN_OR_RETURN(ServerAddress address, ParseServerUrl(config.server));
  if (!config.ca_pem.empty()) {
    X509_STORE* store = TrustStore(config.ca_pem);
    if (store == nullptr) {
      return absl::InvalidArgumentError("the Kubernetes API's CA has no PEM certificate");
    }
    X509_STORE_free(store);
  }
  if (!config.client_cert_pem.empty()) {
    const ClientIdentity identity = ParseClientIdentity(config);
    if (identity.cert == nullptr || identity.key == nullptr ||
        X509_check_private_key(identity.cert.get(), identity.key.get()) != 1) {
      return absl::InvalidArgumentError(
          "the client certificate and key do not parse as PEM or do not match");
    }
  }
  return std::unique_ptr<KubeClient>(new KubeClient(std::move(config), std::move(address)));
}

absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> KubeClient::NewConnection(
    absl::Duration read_timeout) {
  std::unique_ptr<httplib::ClientImpl> client;
  if (!address_.https) {
    client = std::make_unique<httplib::ClientImpl>(address_.host, address_.port);
  } else {
    // The SSL context takes its own references to the certificate and key.
    const ClientIdentity identity = ParseClientIdentity(config_);
    auto ssl = std::make_unique<httplib::SSLClient>(address_.host, address_.port,
                                                    identity.cert.get(), identity.key.get());
    if (!ssl->is_valid()) return absl::InternalError("cannot set up a TLS context");
    ssl->enable_server_certificate_verification(!config_.insecure_skip_tls_verify);
    if (!config_.ca_pem.empty()) ssl->set_ca_cert_store(TrustStore(config_.ca_pem));
    client = std::move(ssl);
  }
  client->set_connection_timeout(std::chrono::seconds(5));
  client->set_read_timeout(absl::ToChronoSeconds(read_timeout));
  client->set_write_timeout(std::chrono::seconds(10));
  client->set_keep_alive(false);
  return client;
}

absl::StatusOr<std::string> KubeClient::Get(const std::string& path_and_query,
                                            absl::Duration timeout) {
  HEADROOM_ASSIGN_OR_RETURN(std::unique_ptr<httplib::ClientImpl> client, NewConnection(timeout));
  HEADROOM_ASSIGN_OR_RETURN(const httplib::Headers headers, RequestHeaders(config_));
  httplib::Result result = client->Get(path_and_query, headers);
  if (!result) {
    return absl::UnavailableError(absl::StrCat("GET ", config_.server, path_and_query, ": ",
                                               httplib::to_string(result.error())));
  }
  if (result->status != 200) return HttpError(result->status, result->body, path_and_query);
  return std::move(result->body);
}

absl::StatusOr<KubeClient::WriteResult> KubeClient::Write(absl::string_view method,
                                                          const std::string& path,
                                                          const std::string& body,
                                                          const std::string& content_type,
                                                          absl::Duration timeout) {
  if (method != "POST" && method != "PATCH") {
    return absl::InvalidArgumentError(absl::StrCat("unsupported write method ", method));
  }
  HEADROOM_ASSIGN_OR_RETURN(const httplib::Headers headers, RequestHeaders(config_));
  // A kept-alive connection the server has closed in the meantime fails at once: the write is
  // tried once more on a new connection. A new connection's failure is the answer, and so is a
  // reused one's that took half the timeout (a slow server, not a closed connection: trying
  // again would double the wait, and send an eviction twice).
  for (int attempt = 0;; ++attempt) {
    const absl::Time started = absl::Now();
    std::unique_ptr<httplib::ClientImpl> client = TakeIdleWriter();
    const bool reused = client != nullptr;
    if (!reused) {
      HEADROOM_ASSIGN_OR_RETURN(client, NewConnection(timeout));
      client->set_keep_alive(true);
    }
    client->set_read_timeout(absl::ToChronoSeconds(timeout));
    httplib::Result result = method == "POST" ? client->Post(path, headers, body, content_type)
                                              : client->Patch(path, headers, body, content_type);
    if (result) {
      PutIdleWriter(std::move(client));
      return WriteResult{result->status, std::move(result->body)};
    }
    if (!reused || attempt > 0 || absl::Now() - started >= timeout / 2) {
      return absl::UnavailableError(absl::StrCat(method, " ", config_.server, path, ": ",
                                                 httplib::to_string(result.error())));
    }
  }
}

std::unique_ptr<httplib::ClientImpl> KubeClient::TakeIdleWriter() {
  absl::MutexLock lock(&writers_mu_);
  if (idle_writers_.empty()) return nullptr;
  std::unique_ptr<httplib::ClientImpl> writer = std::move(idle_writers_.back());
  idle_writers_.pop_back();
  return writer;
}

void KubeClient::PutIdleWriter(std::unique_ptr<httplib::ClientImpl> writer) {
  absl::MutexLock lock(&writers_mu_);
  if (idle_writers_.size() < kMaxIdleWriters) idle_writers_.push_back(std::move(writer));
}

absl::StatusOr<nlohmann::json> KubeClient::Review(const std::string& path, const std::string& body,
                                                  absl::Duration timeout) {
  HEADROOM_ASSIGN_OR_RETURN(WriteResult written,
                            Write("POST", path, body, "application/json", timeout));
  if (written.status != 201 && written.status != 200) {
    return absl::UnavailableError(absl::StrCat("POST ", path, ": HTTP ", written.status, ": ",
                                               ApiStatusMessage(written.body)));
  }
  nlohmann::json answer = ParseApiJson(written.body);
  if (answer.is_discarded()) return absl::UnavailableError(absl::StrCat(path, ": not JSON"));
  return answer;
}

absl::Status KubeClient::Watch(const std::string& path_and_query, absl::Duration idle_timeout,
                               const std::function<bool(absl::string_view line)>& on_line) {
  HEADROOM_ASSIGN_OR_RETURN(std::unique_ptr<httplib::ClientImpl> client,
                            NewConnection(idle_timeout));
  HEADROOM_ASSIGN_OR_RETURN(const httplib::Headers headers, RequestHeaders(config_));
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return absl::CancelledError("client cancelled");
    active_ = client.get();
  }
  LineSplitter lines;
  int status = 0;
  std::string error_body;
  bool stopped_by_caller = false;
  httplib::Result result = client->Get(
      path_and_query, headers,
      [&](const httplib::Response& response) {
        status = response.status;
        return true;
      },
      [&](const char* data, size_t size) {
        if (status != 200) {
          if (error_body.size() < 4096) error_body.append(data, size);
          return true;
        }
        if (!lines.Feed(absl::string_view(data, size), on_line)) {
          stopped_by_caller = true;
          return false;
        }
        return true;
      });
  bool cancelled;
  {
    absl::MutexLock lock(&mu_);
    active_ = nullptr;
    cancelled = cancelled_;
  }
  if (cancelled) return absl::CancelledError("client cancelled");
  if (stopped_by_caller) {
    if (lines.buffered() > LineSplitter::kMaxLineBytes) {
      return absl::ResourceExhaustedError("watch event over 64 MiB");
    }
    return absl::CancelledError("stopped by the caller");
  }
  if (status != 0 && status != 200) return HttpError(status, error_body, path_and_query);
  if (!result) {
    return absl::UnavailableError(absl::StrCat("watch ", config_.server, path_and_query, ": ",
                                               httplib::to_string(result.error())));
  }
  return absl::OkStatus();
}

void KubeClient::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  if (active_ != nullptr) active_->stop();
}

}  // namespace headroom::io
