#pragma once

// A small Kubernetes REST client over cpp-httplib: GET a path, stream a watch line by line, or
// send a write (POST, PATCH) and get its status and body back. Lists and watches open one HTTP
// connection each (they are minutes apart); writes reuse kept-alive connections (an actuator
// round writes thousands of resizes, and a TLS handshake with a client certificate per write
// cost about 50 ms each on a loaded 2-core control plane, measured by scripts/bench-cluster.sh).
// A running watch can be cancelled from another thread, which is how shutdown ends it.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "io/kube_config.h"
#include "nlohmann/json.hpp"

namespace httplib {
class ClientImpl;
}

namespace headroom::io {

struct ServerAddress {
  bool https = true;
  std::string host;  // without brackets
  int port = 443;
};

// Splits "https://host:port" (port defaults to 443/80; IPv6 in brackets). InvalidArgument
// on anything else, including a path after the port.
absl::StatusOr<ServerAddress> ParseServerUrl(absl::string_view url);

// Splits a watch response body, which arrives in arbitrary chunks, into its JSON lines.
class LineSplitter {
 public:
  // Appends `chunk` and calls `on_line` for each complete non-empty line; stops early and
  // returns false when `on_line` does. A line over `max_line_bytes` is an error (false).
  bool Feed(absl::string_view chunk, const std::function<bool(absl::string_view)>& on_line);
  size_t buffered() const { return buffer_.size(); }

  static constexpr size_t kMaxLineBytes = 64 << 20;

 private:
  std::string buffer_;
};

// An API server's JSON answer, parsed: discarded when it is not JSON or nests deeper than
// kMaxJsonNesting (shared/json_nesting.h), checked before the recursive parser sees it. Every
// reader of the API's answers goes through it: the server is authenticated, but what it
// serves (a Status message, an object someone wrote) is not ours to trust.
nlohmann::json ParseApiJson(absl::string_view body);

// The API's own explanation of a failed request (a metav1.Status body's message), else the
// start of the body.
std::string ApiStatusMessage(const std::string& body);

// A metav1.Time as the API writes it: RFC 3339 in UTC, whole seconds ("2026-11-24T20:00:00Z").
std::string FormatKubeTime(absl::Time at);
// A metav1.Time or MicroTime (RFC 3339, any precision or offset); nullopt for anything else.
std::optional<absl::Time> ParseKubeTime(absl::string_view text);

class KubeClient {
 public:
  // InvalidArgument when the server URL, CA or client certificate cannot be used.
  static absl::StatusOr<std::unique_ptr<KubeClient>> Create(KubeConfig config);
  ~KubeClient();

  // The body of a GET, for status 200; otherwise an error with the status and the API's
  // message (Unavailable for a connection failure, so callers retry).
  absl::StatusOr<std::string> Get(const std::string& path_and_query, absl::Duration timeout);

  // A write's answer: any HTTP status (the caller decides what 409 or 429 means) and body.
  struct WriteResult {
    int status = 0;
    std::string body;
  };
  // POST or PATCH `body` as `content_type` (for PATCH, the patch type, e.g.
  // "application/strategic-merge-patch+json"). Unavailable for a connection failure;
  // InvalidArgument for another method.
  absl::StatusOr<WriteResult> Write(absl::string_view method, const std::string& path,
                                    const std::string& body, const std::string& content_type,
                                    absl::Duration timeout);

  // POSTs a review object (TokenReview, SubjectAccessReview: created and answered in one
  // call) and returns the API server's answer; Unavailable when it could not be asked or did
  // not answer 200/201 with JSON.
  absl::StatusOr<nlohmann::json> Review(const std::string& path, const std::string& body,
                                        absl::Duration timeout);

  // Streams a watch: `on_line` gets each JSON line until the server ends the response (OK),
  // `on_line` returns false (Cancelled), Cancel() is called (Cancelled), or an error.
  // `idle_timeout` bounds the wait for the next bytes.
  absl::Status Watch(const std::string& path_and_query, absl::Duration idle_timeout,
                     const std::function<bool(absl::string_view line)>& on_line);

  // Ends a running Watch (and refuses new ones) from any thread.
  void Cancel();

  const std::string& server() const { return config_.server; }

 private:
  KubeClient(KubeConfig config, ServerAddress address);
  absl::StatusOr<std::unique_ptr<httplib::ClientImpl>> NewConnection(absl::Duration read_timeout);

  // Kept-alive connections for writes, idle between calls; a write takes one (or opens a new
  // one) and puts it back after an answer. At most kMaxIdleWriters are kept.
  static constexpr size_t kMaxIdleWriters = 4;
  std::unique_ptr<httplib::ClientImpl> TakeIdleWriter();
  void PutIdleWriter(std::unique_ptr<httplib::ClientImpl> writer);

  const KubeConfig config_;
  const ServerAddress address_;
  absl::Mutex writers_mu_;
  std::vector<std::unique_ptr<httplib::ClientImpl>> idle_writers_ ABSL_GUARDED_BY(writers_mu_);
  absl::Mutex mu_;
  httplib::ClientImpl* active_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace headroom::io
