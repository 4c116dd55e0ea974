#pragma once

// Who may call headroom-extender's admin endpoints (POST /repack): a caller with a Kubernetes
// bearer token the API server authenticates (TokenReview) and authorizes for the endpoint's
// non-resource URL (SubjectAccessReview), as kube-rbac-proxy does. Grant it with a ClusterRole
// rule {nonResourceURLs: ["/repack"], verbs: ["post"]}.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

// The SubjectAccessReview (authorization.k8s.io/v1) of the user a TokenReview `status.user`
// names, for `verb` on the non-resource `path`.
nlohmann::json SubjectAccessReviewBody(const nlohmann::json& user, const std::string& path,
                                       const std::string& verb);

class AdminAuthorizer {
 public:
  // POSTs `body` to the API path and returns the answer; an error when the API could not be
  // asked.
  using Post = std::function<absl::StatusOr<nlohmann::json>(const std::string& api_path,
                                                            const std::string& body)>;
  explicit AdminAuthorizer(Post post) : post_(std::move(post)) {}

  // OK when the bearer token's user may `verb` `path`; Unauthenticated, PermissionDenied or
  // Unavailable (the API could not be asked) otherwise.
  absl::Status Authorize(const std::string& bearer_token, const std::string& path,
                         const std::string& verb) const;

 private:
  Post post_;
};

}  // namespace headroom::extender
