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

#include <cstdint>
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
#include "shared/disruption.h"

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
// one review per negative_ttl. A token not in the cache costs the sender before it costs the
// API server: each address may have reviews_per_second reviewed (burst review_burst; a node
// needs one a minute), at most max_concurrent_reviews are asked at once, and beyond either
// the report is refused (ResourceExhausted, Unavailable) without asking. Refusals and
// acceptances are cached apart, so a flood of distinct bad tokens never evicts a node's.
class TokenAuthenticator {
 public:
  struct Options {
    std::string audience = "headroom-extender";
    std::vector<std::string> service_accounts = {
        "system:serviceaccount:headroom-system:headroom-nri"};
    absl::Duration ttl = absl::Minutes(1);
    absl::Duration negative_ttl = absl::Seconds(10);
    size_t max_entries = 10000;  // in each of the two caches
    size_t max_token_bytes = 16 << 10;
    double reviews_per_second = 1;  // per address
    double review_burst = 5;
    size_t max_concurrent_reviews = 8;
    size_t max_addresses = 10000;  // addresses whose review budget is tracked
  };
  // POSTs a TokenReview body and returns the API server's answer; an error when the API
  // could not be asked (not cached: the next report asks again).
  using Review = std::function<absl::StatusOr<nlohmann::json>(const std::string& body)>;

  TokenAuthenticator(Review review, Options options, std::function<absl::Time()> clock = absl::Now);

  // The node `token`, sent from `address` (the client's IP address), speaks for.
  absl::StatusOr<std::string> NodeOf(const std::string& token, const std::string& address = "");
  size_t cached() const;
  // Tokens refused without a review: over an address's rate or the concurrency bound.
  uint64_t throttled() const;

 private:
  struct Entry {
    absl::StatusOr<std::string> node;
    absl::Time expires;
  };
  using Cache = absl::flat_hash_map<std::string, Entry>;
  // Takes a review from `address`'s budget and a slot among those in flight; the refusal
  // otherwise.
  absl::Status AdmitReviewLocked(const std::string& address, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StoreLocked(Cache& cache, const std::string& token, Entry entry, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Review review_;
  Options options_;
  std::function<absl::Time()> clock_;
  mutable absl::Mutex mu_;
  Cache accepted_ ABSL_GUARDED_BY(mu_);
  Cache refused_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, ::headroom::TokenBucket> budgets_
      ABSL_GUARDED_BY(mu_);  // by address
  size_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t throttled_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace headroom::extender
