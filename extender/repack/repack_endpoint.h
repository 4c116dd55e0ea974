#pragma once

// POST <prefix>/repack (docs/repack.md): for callers whose Kubernetes token may post the
// non-resource URL /repack (admin_authorizer.h), a dry-run repacking plan of the cluster in
// the body, solved within ?timeout= (default 5s, at most 60s). One solve at a time (each may
// hold a core for its whole limit): a second caller gets 429. Cancel() ends a solve in
// progress at once (the server is stopping); so does the caller closing its connection
// (nobody is left to read the plan, and the next caller need not wait for it).

#include <atomic>
#include <mutex>

#include "absl/time/time.h"
#include "extender/serving/admin_authorizer.h"
#include "io/http_server.h"

namespace headroom::extender {

class RepackEndpoint {
 public:
  static constexpr absl::Duration kDefaultTimeout = absl::Seconds(5);
  static constexpr absl::Duration kMaxTimeout = absl::Seconds(60);

  explicit RepackEndpoint(const AdminAuthorizer& authorizer) : authorizer_(authorizer) {}

  // 401/403 (or 503 when the authorizer cannot decide), 400 with a JSON reason, 429, or the
  // plan.
  void Serve(const io::HttpRequest& request, io::HttpResponse& response);
  void Cancel() { cancelled_ = true; }

 private:
  void Solve(const std::string& body, const std::string& timeout_text,
             const std::atomic<bool>* client_gone, io::HttpResponse& response);

  const AdminAuthorizer& authorizer_;
  std::mutex solving_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace headroom::extender
