#pragma once

// Who may report a node: headroom-nri on that node and nobody else. Three modes
// (--report-auth):
//   token        the report carries the pod's projected ServiceAccount token
//                ("authorization: Bearer ..."); a TokenReview at the API server, for the
//                extender's audience, must name the expected ServiceAccount, and the node the
//                token's pod runs on (the authentication.kubernetes.io/node-name extra, set by
//                the API server for pod-bound tokens since Kubernetes 1.30) must be the
//                report's node. Reviews are cached.
//   certificate  mutual TLS, and the client certificate names the node: its common name is
//                the node name or "system:node:<node>" (kubelet's form), or a DNS name in its
//                subjectAltName is the node name.
//   insecure     anyone who can connect may report any node (tests, trusted networks only).

#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

enum class ReportAuth { kToken, kCertificate, kInsecure };

// "token", "certificate" or "insecure"; InvalidArgument otherwise.
absl::StatusOr<ReportAuth> ParseReportAuth(absl::string_view text);
absl::string_view ReportAuthName(ReportAuth auth);

// Whether a client certificate with these subject common names and subjectAltNames may
// report for `node`.
bool CertificateSpeaksFor(const std::vector<std::string>& common_names,
                          const std::vector<std::string>& alt_names, absl::string_view node);

inline constexpr char kNodeNameExtra[] = "authentication.kubernetes.io/node-name";

// The body of a TokenReview (authentication.k8s.io/v1) of `token` for `audience`.
std::string TokenReviewBody(const std::string& token, const std::string& audience);

// The node a reviewed token speaks for: Unauthenticated when the API server did not
// authenticate it for `audience`, PermissionDenied when it belongs to none of
// `service_accounts` ("system:serviceaccount:<namespace>:<name>") or names no node.
absl::StatusOr<std::string> NodeOfTokenReview(const nlohmann::json& review,
                                              const std::string& audience,
                                              const std::vector<std::string>& service_accounts);

// TokenReviews with a bounded cache: a token's answer (either way) is reused until it
// expires, so a node's reports cost one review a minute and a flood of one bad token costs
// one review per negative_ttl.
class TokenAuthenticator {
 public:
  struct Options {
    std::string audience = "headroom-extender";
    std::vector<std::string> service_accounts = {
        "system:serviceaccount:headroom-system:headroom-nri"};
    absl::Duration ttl = absl::Minutes(1);
    absl::Duration negative_ttl = absl::Seconds(10);
    size_t max_entries = 10000;
    size_t max_token_bytes = 16 << 10;
  };
  // POSTs a TokenReview body and returns the API server's answer; an error when the API
  // could not be asked (not cached: the next report asks again).
  using Review = std::function<absl::StatusOr<nlohmann::json>(const std::string& body)>;

  TokenAuthenticator(Review review, Options options, std::function<absl::Time()> clock = absl::Now);

  // The node `token` speaks for.
  absl::StatusOr<std::string> NodeOf(const std::string& token);
  size_t cached() const;

 private:
  struct Entry {
    absl::StatusOr<std::string> node;
    absl::Time expires;
  };
  Review review_;
  Options options_;
  std::function<absl::Time()> clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
